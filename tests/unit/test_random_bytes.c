/*
 * test_random_bytes.c: lib/random_bytes fills what it is asked to, draws differ, and a size
 * beyond its bound is refused with EINVAL rather than read.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "random_bytes.h"

static void
fills_every_byte_and_draws_differ(void)
{
	uint8_t a[RANDOM_BYTES_MAX], b[RANDOM_BYTES_MAX];
	size_t still_sentinel = 0;

	/* A sentinel the draw must overwrite: 4096 bytes all left at 0x5a has chance 2^-32768. */
	memset(a, 0x5a, sizeof(a));
	memset(b, 0x5a, sizeof(b));
	CHECK_INT_EQ(random_bytes(a, sizeof(a)), 0);
	CHECK_INT_EQ(random_bytes(b, sizeof(b)), 0);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	for (size_t i = 0; i < sizeof(a); i++)
		still_sentinel += a[i] == 0x5a;
	CHECK(still_sentinel < sizeof(a) / 16); /* about 16 expected */
	/* The last byte is written too (no short read left behind). */
	uint8_t tail[33];
	size_t same = 0;
	for (int draw = 0; draw < 8; draw++) {
		tail[32] = 0x5a;
		CHECK_INT_EQ(random_bytes(tail, sizeof(tail)), 0);
		same += tail[32] == 0x5a;
	}
	CHECK(same < 8);
}

static void
nothing_asked_is_nothing_done(void)
{
	CHECK_INT_EQ(random_bytes(NULL, 0), 0);
}

static void
beyond_the_bound_is_einval(void)
{
	static uint8_t big[RANDOM_BYTES_MAX + 1];
	errno = 0;
	CHECK_INT_EQ(random_bytes(big, sizeof(big)), -1);
	CHECK_INT_EQ(errno, EINVAL);
}

int
main(void)
{
	RUN(fills_every_byte_and_draws_differ);
	RUN(nothing_asked_is_nothing_done);
	RUN(beyond_the_bound_is_einval);
	return check_exit();
}
