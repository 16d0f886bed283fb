/*
 * relay_hello.c: encode and parse the 24-byte hello of a relay leg (format in relay_hello.h).
 */
#include "config.h"

#include <string.h>

#include "relay_hello.h"

#define HELLO_OFF_MAGIC 0
#define HELLO_OFF_VERSION 4
#define HELLO_OFF_FLAGS 5
#define HELLO_OFF_RESERVED 6
#define HELLO_OFF_ID 8

enum relay_hello_status
relay_hello_parse(const uint8_t *buf, size_t len, struct relay_hello *out)
{
	/* Check each field as soon as its bytes are in, so garbage is refused early. */
	size_t magic_have = len < 4 ? len : 4;
	if (memcmp(buf + HELLO_OFF_MAGIC, RELAY_HELLO_MAGIC, magic_have) != 0)
		return RELAY_HELLO_BAD_MAGIC;
	if (len > HELLO_OFF_VERSION && buf[HELLO_OFF_VERSION] != RELAY_HELLO_VERSION)
		return RELAY_HELLO_BAD_VERSION;
	if (len > HELLO_OFF_FLAGS && (buf[HELLO_OFF_FLAGS] & ~RELAY_HELLO_FLAGS_KNOWN) != 0)
		return RELAY_HELLO_BAD_FLAGS;
	for (size_t i = HELLO_OFF_RESERVED; i < HELLO_OFF_ID && i < len; i++)
		if (buf[i] != 0)
			return RELAY_HELLO_BAD_RESERVED;
	if (len < RELAY_HELLO_SIZE)
		return RELAY_HELLO_INCOMPLETE;

	out->version = buf[HELLO_OFF_VERSION];
	out->flags = buf[HELLO_OFF_FLAGS];
	memcpy(out->id.bytes, buf + HELLO_OFF_ID, QCG_RELAY_ID_BYTES);
	return RELAY_HELLO_OK;
}

void
relay_hello_encode(uint8_t buf[RELAY_HELLO_SIZE], const struct relay_id *id, uint8_t flags)
{
	memcpy(buf + HELLO_OFF_MAGIC, RELAY_HELLO_MAGIC, 4);
	buf[HELLO_OFF_VERSION] = RELAY_HELLO_VERSION;
	buf[HELLO_OFF_FLAGS] = flags;
	buf[HELLO_OFF_RESERVED] = 0;
	buf[HELLO_OFF_RESERVED + 1] = 0;
	memcpy(buf + HELLO_OFF_ID, id->bytes, QCG_RELAY_ID_BYTES);
}

const char *
relay_hello_status_name(enum relay_hello_status status)
{
	switch (status) {
	case RELAY_HELLO_OK:
		return "ok";
	case RELAY_HELLO_INCOMPLETE:
		return "incomplete";
	case RELAY_HELLO_BAD_MAGIC:
		return "bad magic";
	case RELAY_HELLO_BAD_VERSION:
		return "unsupported version";
	case RELAY_HELLO_BAD_FLAGS:
		return "unknown flags";
	case RELAY_HELLO_BAD_RESERVED:
		return "reserved bytes not zero";
	}
	return "unknown status";
}
