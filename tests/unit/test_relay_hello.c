/*
 * test_relay_hello.c: the relay hello parser and encoder (proto/relay_hello.c),
 * without a socket.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "relay_hello.h"

static const struct relay_id sample_id = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff } };

/* The bytes of the hello for sample_id, written out by hand from the format in relay_hello.h. */
static const uint8_t sample_wire[RELAY_HELLO_SIZE] = { 'Q', 'C', 'G', 'R', 1, 0, 0, 0, 0x00,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };

static void
encode_writes_the_documented_layout(void)
{
	uint8_t buf[RELAY_HELLO_SIZE];

	CHECK_INT_EQ(RELAY_HELLO_SIZE, 24);
	relay_hello_encode(buf, &sample_id, 0);
	CHECK(memcmp(buf, sample_wire, sizeof(buf)) == 0);
	relay_hello_encode(buf, &sample_id, RELAY_HELLO_FLAG_CHAINED);
	CHECK_INT_EQ(buf[5], RELAY_HELLO_FLAG_CHAINED);
}

static void
complete_hello_parses_to_its_id(void)
{
	struct relay_hello h;

	memset(&h, 0, sizeof(h));
	CHECK_INT_EQ(relay_hello_parse(sample_wire, sizeof(sample_wire), &h), RELAY_HELLO_OK);
	CHECK_INT_EQ(h.version, RELAY_HELLO_VERSION);
	CHECK_INT_EQ(h.flags, 0);
	CHECK(memcmp(h.id.bytes, sample_id.bytes, sizeof(h.id.bytes)) == 0);
}

static void
bytes_after_the_hello_are_ignored(void)
{
	uint8_t buf[RELAY_HELLO_SIZE + 8];
	struct relay_hello h;

	memcpy(buf, sample_wire, RELAY_HELLO_SIZE);
	memset(buf + RELAY_HELLO_SIZE, 0xee, 8); /* payload that came in the same read */
	CHECK_INT_EQ(relay_hello_parse(buf, sizeof(buf), &h), RELAY_HELLO_OK);
	CHECK(memcmp(h.id.bytes, sample_id.bytes, sizeof(h.id.bytes)) == 0);
}

static void
every_valid_prefix_is_incomplete(void)
{
	struct relay_hello h;
	int wrong = 0;

	for (size_t len = 0; len < RELAY_HELLO_SIZE; len++)
		if (relay_hello_parse(sample_wire, len, &h) != RELAY_HELLO_INCOMPLETE)
			wrong++;
	CHECK_INT_EQ(wrong, 0);
}

static void
bad_magic_is_rejected_from_its_first_wrong_byte(void)
{
	uint8_t buf[RELAY_HELLO_SIZE];
	struct relay_hello h;

	memcpy(buf, sample_wire, sizeof(buf));
	buf[0] = 'G'; /* "GET ..." */
	CHECK_INT_EQ(relay_hello_parse(buf, 1, &h), RELAY_HELLO_BAD_MAGIC);
	CHECK_INT_EQ(relay_hello_parse(buf, sizeof(buf), &h), RELAY_HELLO_BAD_MAGIC);
	memcpy(buf, sample_wire, sizeof(buf));
	buf[3] = 'X';
	CHECK_INT_EQ(relay_hello_parse(buf, 3, &h), RELAY_HELLO_INCOMPLETE);
	CHECK_INT_EQ(relay_hello_parse(buf, 4, &h), RELAY_HELLO_BAD_MAGIC);
}

static void
bad_version_is_rejected(void)
{
	uint8_t buf[RELAY_HELLO_SIZE];
	struct relay_hello h;

	memcpy(buf, sample_wire, sizeof(buf));
	buf[4] = 0;
	CHECK_INT_EQ(relay_hello_parse(buf, 5, &h), RELAY_HELLO_BAD_VERSION);
	buf[4] = RELAY_HELLO_VERSION + 1;
	CHECK_INT_EQ(relay_hello_parse(buf, sizeof(buf), &h), RELAY_HELLO_BAD_VERSION);
}

static void
unknown_flags_and_nonzero_reserved_are_rejected(void)
{
	uint8_t buf[RELAY_HELLO_SIZE];
	struct relay_hello h;

	memcpy(buf, sample_wire, sizeof(buf));
	buf[5] = 0x80;
	CHECK_INT_EQ(relay_hello_parse(buf, sizeof(buf), &h), RELAY_HELLO_BAD_FLAGS);
	buf[5] = RELAY_HELLO_FLAG_CHAINED;
	CHECK_INT_EQ(relay_hello_parse(buf, sizeof(buf), &h), RELAY_HELLO_OK);
	CHECK_INT_EQ(h.flags, RELAY_HELLO_FLAG_CHAINED);
	buf[5] = RELAY_HELLO_FLAG_CHAINED | RELAY_HELLO_FLAG_PEER_GONE_MARK;
	CHECK_INT_EQ(relay_hello_parse(buf, sizeof(buf), &h), RELAY_HELLO_OK);
	CHECK_INT_EQ(h.flags, RELAY_HELLO_FLAG_CHAINED | RELAY_HELLO_FLAG_PEER_GONE_MARK);
	buf[7] = 1;
	CHECK_INT_EQ(relay_hello_parse(buf, 8, &h), RELAY_HELLO_BAD_RESERVED);
}

static void
status_names_say_why(void)
{
	CHECK_STR_EQ(relay_hello_status_name(RELAY_HELLO_BAD_MAGIC), "bad magic");
	CHECK_STR_EQ(relay_hello_status_name(RELAY_HELLO_BAD_VERSION), "unsupported version");
}

/* The parser's verdict, recomputed from the format's rules in the simplest possible way. */
static enum relay_hello_status
reference_verdict(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len && i < RELAY_HELLO_SIZE; i++) {
		if (i < 4 && buf[i] != (uint8_t)RELAY_HELLO_MAGIC[i])
			return RELAY_HELLO_BAD_MAGIC;
		if (i == 4 && buf[i] != RELAY_HELLO_VERSION)
			return RELAY_HELLO_BAD_VERSION;
		if (i == 5 && (buf[i] & ~RELAY_HELLO_FLAGS_KNOWN) != 0)
			return RELAY_HELLO_BAD_FLAGS;
		if ((i == 6 || i == 7) && buf[i] != 0)
			return RELAY_HELLO_BAD_RESERVED;
	}
	return len < RELAY_HELLO_SIZE ? RELAY_HELLO_INCOMPLETE : RELAY_HELLO_OK;
}

/* Random mutations of a valid hello, at random lengths, in exactly-sized heap buffers so that
 * a read past `len` is caught by the sanitizers (--enable-sanitizers). */
static void
random_inputs_get_the_verdict_the_format_gives(void)
{
	uint64_t state = 0x9e3779b97f4a7c15ull;
	int disagreements = 0;

	for (int round = 0; round < 200000; round++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		size_t len = (size_t)(state % (RELAY_HELLO_SIZE + 4));
		uint8_t *buf = malloc(len ? len : 1);
		for (size_t i = 0; i < len; i++)
			buf[i] = i < RELAY_HELLO_SIZE ? sample_wire[i] : 0x42;
		if (len > 0 && (state >> 8) % 4 != 0) /* mostly one corrupted byte, sometimes none */
			buf[(state >> 16) % len] ^= (uint8_t)(1u << ((state >> 24) % 8));
		struct relay_hello h;
		if (relay_hello_parse(buf, len, &h) != reference_verdict(buf, len))
			disagreements++;
		free(buf);
	}
	CHECK_INT_EQ(disagreements, 0);
}

int
main(void)
{
	RUN(encode_writes_the_documented_layout);
	RUN(complete_hello_parses_to_its_id);
	RUN(bytes_after_the_hello_are_ignored);
	RUN(every_valid_prefix_is_incomplete);
	RUN(bad_magic_is_rejected_from_its_first_wrong_byte);
	RUN(bad_version_is_rejected);
	RUN(unknown_flags_and_nonzero_reserved_are_rejected);
	RUN(status_names_say_why);
	RUN(random_inputs_get_the_verdict_the_format_gives);
	return check_exit();
}
