/*
 * test_helper_mcast_proto.c: the local API's multicast-group request and answer
 * (MCAST_GROUP 6 / GROUP 68, proto/helper_proto.h) without a socket: round trips,
 * a request with a payload, an answer with a short, oversize or truncated address, port 0,
 * trailing bytes, flags, and an oversize length, each refused with the field named.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "helper_proto.h"

/* A raw message: header for type with flags and the payload's length, then the payload. */
static size_t
raw(uint8_t *buf, uint8_t type, uint16_t flags, const uint8_t *payload, uint32_t len,
    uint32_t claimed)
{
	memcpy(buf, HELPER_PROTO_MAGIC, 4);
	buf[4] = HELPER_PROTO_VERSION;
	buf[5] = type;
	buf[6] = (uint8_t)(flags >> 8), buf[7] = (uint8_t)flags;
	buf[8] = (uint8_t)(claimed >> 24), buf[9] = (uint8_t)(claimed >> 16);
	buf[10] = (uint8_t)(claimed >> 8), buf[11] = (uint8_t)claimed;
	memcpy(buf + HELPER_HEADER_SIZE, payload, len);
	return HELPER_HEADER_SIZE + len;
}

/* GROUP's payload: str address, u16 port. */
static uint32_t
group_payload(uint8_t *p, const char *address, size_t alen, uint16_t port)
{
	p[0] = (uint8_t)(alen >> 8), p[1] = (uint8_t)alen;
	memcpy(p + 2, address, alen);
	p[2 + alen] = (uint8_t)(port >> 8), p[3 + alen] = (uint8_t)port;
	return (uint32_t)(4 + alen);
}

static enum helper_parse_status
parse(const uint8_t *buf, size_t len, struct helper_msg *m, char *err)
{
	size_t used;
	return helper_msg_parse(buf, len, m, &used, err, 256);
}

static void
request_and_answer_round_trip(void)
{
	struct helper_msg in, out;
	uint8_t buf[HELPER_MSG_MAX];
	char err[256];
	helper_msg_init(&in, HELPER_MSG_MCAST_GROUP);
	long n = helper_msg_encode(&in, buf, sizeof(buf), err, sizeof(err));
	CHECK_INT_EQ(n, HELPER_HEADER_SIZE);
	CHECK_INT_EQ(parse(buf, (size_t)n, &out, err), HELPER_PARSE_OK);
	CHECK_INT_EQ(out.type, HELPER_MSG_MCAST_GROUP);
	CHECK_STR_EQ(helper_msg_type_name(HELPER_MSG_MCAST_GROUP), "MCAST_GROUP");
	helper_msg_init(&in, HELPER_MSG_GROUP);
	strcpy(in.address, "239.192.0.17");
	in.port = 7000;
	n = helper_msg_encode(&in, buf, sizeof(buf), err, sizeof(err));
	CHECK(n > 0);
	CHECK_INT_EQ(parse(buf, (size_t)n, &out, err), HELPER_PARSE_OK);
	CHECK_INT_EQ(out.type, HELPER_MSG_GROUP);
	CHECK_STR_EQ(out.address, "239.192.0.17");
	CHECK_INT_EQ(out.port, 7000);
	for (long cut = 0; cut < n; cut++) /* every prefix is incomplete, never invalid */
		CHECK_INT_EQ(parse(buf, (size_t)cut, &out, err), HELPER_PARSE_INCOMPLETE);
}

static void
request_with_a_payload_is_refused(void)
{
	uint8_t buf[64], one = 0;
	struct helper_msg m;
	char err[256];
	size_t n = raw(buf, HELPER_MSG_MCAST_GROUP, 0, &one, 1, 1);
	CHECK_INT_EQ(parse(buf, n, &m, err), HELPER_PARSE_INVALID);
	CHECK(strstr(err, "payload") != NULL);
	n = raw(buf, HELPER_MSG_MCAST_GROUP, HELPER_FLAG_FD, NULL, 0, 0);
	CHECK_INT_EQ(parse(buf, n, &m, err), HELPER_PARSE_INVALID);
	CHECK(strstr(err, "flags") != NULL);
}

static void
malformed_answers_are_refused_naming_the_field(void)
{
	uint8_t buf[HELPER_MSG_MAX + 16], p[HELPER_PAYLOAD_MAX];
	char err[256], big[200];
	struct helper_msg m;
	uint32_t len = group_payload(p, "239.1", 5, 7000); /* shorter than any IPv4 address */
	CHECK_INT_EQ(parse(buf, raw(buf, HELPER_MSG_GROUP, 0, p, len, len), &m, err),
	    HELPER_PARSE_INVALID);
	CHECK(strstr(err, "address") != NULL);
	memset(big, '9', sizeof(big));
	len = group_payload(p, big, QCG_ADDR_MAX, 7000); /* one byte over the limit */
	CHECK_INT_EQ(parse(buf, raw(buf, HELPER_MSG_GROUP, 0, p, len, len), &m, err),
	    HELPER_PARSE_INVALID);
	CHECK(strstr(err, "address") != NULL && strstr(err, "too long") != NULL);
	len = group_payload(p, "239.192.0.1", 11, 0);
	CHECK_INT_EQ(parse(buf, raw(buf, HELPER_MSG_GROUP, 0, p, len, len), &m, err),
	    HELPER_PARSE_INVALID);
	CHECK(strstr(err, "port") != NULL);
	len = group_payload(p, "239.192.0.1", 11, 7000);
	p[len] = 0;
	CHECK_INT_EQ(parse(buf, raw(buf, HELPER_MSG_GROUP, 0, p, len + 1, len + 1), &m, err),
	    HELPER_PARSE_INVALID);
	CHECK(strstr(err, "after the last field") != NULL);
	/* the address claims more bytes than the payload holds */
	len = group_payload(p, "239.192.0.1", 11, 7000);
	p[1] = 40;
	CHECK_INT_EQ(parse(buf, raw(buf, HELPER_MSG_GROUP, 0, p, len, len), &m, err),
	    HELPER_PARSE_INVALID);
}

static void
oversize_answer_is_refused_before_its_payload_arrives(void)
{
	uint8_t buf[64];
	char err[256];
	struct helper_msg m;
	size_t n = raw(buf, HELPER_MSG_GROUP, 0, NULL, 0, HELPER_PAYLOAD_MAX + 1);
	CHECK_INT_EQ(parse(buf, n, &m, err), HELPER_PARSE_INVALID);
	CHECK(strstr(err, "exceeds the limit") != NULL);
}

static void
encoder_refuses_an_empty_or_overlong_group(void)
{
	struct helper_msg m;
	uint8_t buf[HELPER_MSG_MAX];
	char err[256];
	helper_msg_init(&m, HELPER_MSG_GROUP);
	memset(m.address, 'x', sizeof(m.address)); /* no NUL inside the field */
	CHECK_INT_EQ(helper_msg_encode(&m, buf, sizeof(buf), err, sizeof(err)), -1);
	CHECK(strstr(err, "address") != NULL);
	CHECK_INT_EQ(helper_msg_encode(&m, buf, 4, err, sizeof(err)), -1);
}

int
main(void)
{
	RUN(request_and_answer_round_trip);
	RUN(request_with_a_payload_is_refused);
	RUN(malformed_answers_are_refused_naming_the_field);
	RUN(oversize_answer_is_refused_before_its_payload_arrives);
	RUN(encoder_refuses_an_empty_or_overlong_group);
	return check_exit();
}
