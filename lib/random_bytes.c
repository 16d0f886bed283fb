/*
 * random_bytes.c: getrandom(2) until the buffer is full (random_bytes.h).
 */
#include "config.h"

#include <errno.h>
#include <sys/random.h>
#include <sys/types.h>

#include "random_bytes.h"

/* getrandom(2) interrupted or short this many times in a row means something is badly wrong
 * (a signal storm): fail rather than spin. */
#define RANDOM_BYTES_TRIES 64

int
random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t got = 0;

	if (len > RANDOM_BYTES_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (int tries = 0; got < len; tries++) {
		ssize_t r;
		if (tries == RANDOM_BYTES_TRIES) {
			errno = EINTR;
			return -1;
		}
		r = getrandom(p + got, len - got, 0);
		if (r > 0)
			got += (size_t)r;
		else if (r < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}
