/*
 * test_helper_proto.c: the local API's parser and encoder (proto/helper_proto.h)
 * without a socket: round trips of every type, incomplete prefixes, and every kind of invalid
 * input named in the error.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "helper_decision.h"
#include "helper_proto.h"

static long
encode(const struct helper_msg *m, uint8_t *buf, size_t cap)
{
	char err[256];
	return helper_msg_encode(m, buf, cap, err, sizeof(err));
}

static enum helper_parse_status
parse(const uint8_t *buf, size_t len, struct helper_msg *m, size_t *used, char *err)
{
	return helper_msg_parse(buf, len, m, used, err, 256);
}

static void
every_type_round_trips(void)
{
	struct helper_msg in[9], out;
	uint8_t buf[HELPER_MSG_MAX];
	char err[256];
	size_t used;

	helper_msg_init(&in[0], HELPER_MSG_HELLO);
	strcpy(in[0].job, "job-1");
	strcpy(in[0].token, "0123456789abcdef0123");
	helper_msg_init(&in[1], HELPER_MSG_REGISTER);
	strcpy(in[1].address, "10.1.0.5");
	in[1].port = 40000;
	strcpy(in[1].process, "1234.5");
	helper_msg_init(&in[2], HELPER_MSG_RESOLVE);
	strcpy(in[2].address, "10.2.0.7");
	in[2].port = 65535;
	in[2].method = HELPER_METHOD_NONE_WIRE;
	helper_msg_init(&in[3], HELPER_MSG_WAIT_INBOUND);
	in[3].port = 1;
	helper_msg_init(&in[4], HELPER_MSG_REPORT);
	in[4].method = METHOD_REVERSAL;
	strcpy(in[4].address, "10.2.0.7");
	in[4].port = 2;
	in[4].ok = 1;
	in[4].setup_usec = 0x0102030405060708ULL;
	helper_msg_init(&in[5], HELPER_MSG_OK);
	helper_msg_init(&in[6], HELPER_MSG_ERR);
	in[6].code = HELPER_ERR_DENIED;
	strcpy(in[6].message, "bad token");
	helper_msg_init(&in[7], HELPER_MSG_DECISION);
	in[7].method = METHOD_RELAY_CHAIN;
	in[7].proxy_count = 2;
	strcpy(in[7].proxy[0], "172.31.0.9:7000");
	strcpy(in[7].proxy[1], "10.2.0.1:7000");
	memset(in[7].relay_id, 0xab, sizeof(in[7].relay_id));
	helper_msg_init(&in[8], HELPER_MSG_HANDOFF);
	in[8].flags = HELPER_FLAG_FD;
	in[8].method = METHOD_REVERSAL;
	strcpy(in[8].address, "10.1.0.5");
	in[8].port = 33000;
	in[8].relay_id[15] = 7;
	for (int i = 0; i < 9; i++) {
		long n = encode(&in[i], buf, sizeof(buf));
		CHECK(n >= HELPER_HEADER_SIZE);
		CHECK_INT_EQ(parse(buf, (size_t)n, &out, &used, err), HELPER_PARSE_OK);
		CHECK_INT_EQ(used, n);
		CHECK(memcmp(&in[i], &out, sizeof(out)) == 0);
	}
}

static void
every_prefix_is_incomplete_not_invalid(void)
{
	struct helper_msg m, out;
	uint8_t buf[HELPER_MSG_MAX];
	char err[256];
	size_t used;
	helper_msg_init(&m, HELPER_MSG_REPORT);
	strcpy(m.address, "127.0.0.1");
	long n = encode(&m, buf, sizeof(buf));
	for (long i = 0; i < n; i++)
		CHECK_INT_EQ(parse(buf, (size_t)i, &out, &used, err), HELPER_PARSE_INCOMPLETE);
}

static void
two_messages_in_one_buffer_parse_one_at_a_time(void)
{
	struct helper_msg a, b, out;
	uint8_t buf[2 * HELPER_MSG_MAX];
	char err[256];
	size_t used;
	helper_msg_init(&a, HELPER_MSG_WAIT_INBOUND);
	a.port = 7;
	helper_msg_init(&b, HELPER_MSG_OK);
	long na = encode(&a, buf, sizeof(buf));
	long nb = encode(&b, buf + na, sizeof(buf) - (size_t)na);
	CHECK_INT_EQ(parse(buf, (size_t)(na + nb), &out, &used, err), HELPER_PARSE_OK);
	CHECK_INT_EQ(used, na);
	CHECK_INT_EQ(out.port, 7);
	CHECK_INT_EQ(parse(buf + used, (size_t)nb, &out, &used, err), HELPER_PARSE_OK);
	CHECK_INT_EQ(out.type, HELPER_MSG_OK);
}

/* Expect INVALID with an error that contains `needle`. */
static void
expect_invalid(const uint8_t *buf, size_t len, const char *needle)
{
	struct helper_msg out;
	char err[256] = "";
	size_t used;
	CHECK_INT_EQ(parse(buf, len, &out, &used, err), HELPER_PARSE_INVALID);
	if (strstr(err, needle) == NULL)
		fprintf(stderr, "  error \"%s\" does not mention \"%s\"\n", err, needle);
	CHECK(strstr(err, needle) != NULL);
}

static void
bad_headers_are_refused_as_soon_as_seen(void)
{
	expect_invalid((const uint8_t *)"GET / HTTP/1.1", 1, "magic");
	expect_invalid((const uint8_t *)"QCGX", 4, "magic");
	uint8_t h[HELPER_HEADER_SIZE] = { 'Q', 'C', 'G', 'H', 2 };
	expect_invalid(h, 5, "version");
	h[4] = 1;
	h[5] = 99;
	expect_invalid(h, 6, "unknown message type 99");
	h[5] = HELPER_MSG_RESOLVE;
	h[7] = HELPER_FLAG_FD;
	expect_invalid(h, 8, "flags");
	h[7] = 0;
	h[10] = 0x08; /* 2048 + 1 */
	h[11] = 0x01;
	expect_invalid(h, sizeof(h), "exceeds the limit");
}

/* A HELLO whose payload is given raw. */
static size_t
raw(uint8_t *buf, uint8_t type, const uint8_t *payload, size_t n)
{
	memcpy(buf, "QCGH\x01", 5);
	buf[5] = type;
	buf[6] = buf[7] = 0;
	buf[8] = buf[9] = 0;
	buf[10] = (uint8_t)(n >> 8);
	buf[11] = (uint8_t)n;
	memcpy(buf + HELPER_HEADER_SIZE, payload, n);
	return HELPER_HEADER_SIZE + n;
}

static void
bad_payloads_name_the_field(void)
{
	uint8_t buf[HELPER_MSG_MAX];
	/* job "j", token too short (3 bytes) */
	static const uint8_t short_token[] = { 0, 1, 'j', 0, 3, 'a', 'b', 'c' };
	expect_invalid(buf, raw(buf, HELPER_MSG_HELLO, short_token, sizeof(short_token)), "token too short");
	/* empty job */
	static const uint8_t empty_job[] = { 0, 0 };
	expect_invalid(buf, raw(buf, HELPER_MSG_HELLO, empty_job, sizeof(empty_job)), "job too short");
	/* address of 64 bytes */
	uint8_t long_addr[2 + 64 + 2 + 2];
	memset(long_addr, 'a', sizeof(long_addr));
	long_addr[0] = 0;
	long_addr[1] = 64;
	expect_invalid(buf, raw(buf, HELPER_MSG_REGISTER, long_addr, sizeof(long_addr)), "address too long");
	/* string length pointing past the payload */
	static const uint8_t past[] = { 0, 9, 'x' };
	expect_invalid(buf, raw(buf, HELPER_MSG_REGISTER, past, sizeof(past)), "address truncated");
	/* NUL inside a string */
	static const uint8_t nul[] = { 0, 2, 'a', 0, 0, 1, 0, 0 };
	expect_invalid(buf, raw(buf, HELPER_MSG_REGISTER, nul, sizeof(nul)), "NUL");
	/* trailing byte after WAIT_INBOUND's port */
	static const uint8_t trailing[] = { 0, 1, 9 };
	expect_invalid(buf, raw(buf, HELPER_MSG_WAIT_INBOUND, trailing, sizeof(trailing)), "after the last field");
	/* RESOLVE with "after" = 6 (none is not a method to fall back from... but 6 is METHOD_NONE,
	 * a valid number); 7 is not a method */
	static const uint8_t bad_after[] = { 0, 1, 'a', 0, 1, 7 };
	expect_invalid(buf, raw(buf, HELPER_MSG_RESOLVE, bad_after, sizeof(bad_after)), "after is not a method");
	/* REPORT ok must be 0 or 1 */
	static const uint8_t bad_ok[] = { 2, 0, 1, 'a', 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0 };
	expect_invalid(buf, raw(buf, HELPER_MSG_REPORT, bad_ok, sizeof(bad_ok)), "ok must be 0 or 1");
	/* DECISION with three proxies */
	uint8_t three[1 + 2 + 2 + 16 + 1];
	memset(three, 0, sizeof(three));
	three[sizeof(three) - 1] = 3;
	expect_invalid(buf, raw(buf, HELPER_MSG_DECISION, three, sizeof(three)), "proxy_count is above 2");
}

static void
encoder_refuses_what_the_parser_would(void)
{
	struct helper_msg m;
	uint8_t buf[HELPER_MSG_MAX];
	helper_msg_init(&m, HELPER_MSG_OK);
	m.flags = HELPER_FLAG_FD;
	CHECK(encode(&m, buf, sizeof(buf)) < 0);
	helper_msg_init(&m, HELPER_MSG_DECISION);
	m.proxy_count = 3;
	CHECK(encode(&m, buf, sizeof(buf)) < 0);
	helper_msg_init(&m, HELPER_MSG_HELLO);
	strcpy(m.job, "j");
	strcpy(m.token, "0123456789abcdef");
	CHECK(encode(&m, buf, 20) < 0); /* too small a buffer */
	CHECK(encode(&m, buf, sizeof(buf)) > 0);
}

/* The model's decision goes out as a DECISION and comes back the same for what the message
 * carries (helper_decision.h), the hand-off flag set for exactly reversal and traversal; a
 * flag that disagrees with the method, or another message, is refused. */
static void
decisions_round_trip_through_the_message(void)
{
	uint8_t buf[HELPER_MSG_MAX];
	char err[256];
	size_t used;
	for (int m = METHOD_DIRECT; m <= METHOD_NONE; m++) {
		struct decision d, back;
		struct helper_msg msg, parsed;
		memset(&d, 0, sizeof(d));
		d.method = (enum connect_method)m;
		strcpy(d.target.address, "10.2.0.5");
		strcpy(d.target.cluster, "site-b"); /* not on the wire: a process needs no names */
		d.target.port = 30001;
		for (int i = 0; i < QCG_RELAY_ID_BYTES; i++)
			d.relay_id.bytes[i] = (uint8_t)(i * 7 + m);
		d.proxy_count = m == METHOD_RELAY_CHAIN ? 2 : m == METHOD_RELAY ? 1 : 0;
		strcpy(d.proxy[0].endpoint, "172.31.0.9:7000");
		strcpy(d.proxy[1].endpoint, "172.31.0.10:7000");
		helper_decision_to_msg(&d, &msg);
		CHECK_INT_EQ((msg.flags & HELPER_FLAG_HANDOFF_FOLLOWS) != 0,
		    m == METHOD_REVERSAL || m == METHOD_TRAVERSAL);
		long n = encode(&msg, buf, sizeof(buf));
		CHECK(n > 0);
		CHECK_INT_EQ(parse(buf, (size_t)n, &parsed, &used, err), HELPER_PARSE_OK);
		CHECK_INT_EQ(helper_decision_from_msg(&parsed, &back, err, sizeof(err)), 0);
		CHECK_INT_EQ(back.method, m);
		CHECK_STR_EQ(back.target.address, "10.2.0.5");
		CHECK_STR_EQ(back.target.cluster, "");
		CHECK_INT_EQ(back.target.port, 30001);
		CHECK(memcmp(back.relay_id.bytes, d.relay_id.bytes, QCG_RELAY_ID_BYTES) == 0);
		CHECK_INT_EQ(back.proxy_count, d.proxy_count);
		for (size_t i = 0; i < back.proxy_count; i++)
			CHECK_STR_EQ(back.proxy[i].endpoint, d.proxy[i].endpoint);
		parsed.flags ^= HELPER_FLAG_HANDOFF_FOLLOWS;
		CHECK_INT_EQ(helper_decision_from_msg(&parsed, &back, err, sizeof(err)), -1);
		CHECK(strstr(err, "HANDOFF_FOLLOWS") != NULL);
	}
	struct helper_msg other;
	struct decision back;
	helper_msg_init(&other, HELPER_MSG_GROUP);
	CHECK_INT_EQ(helper_decision_from_msg(&other, &back, err, sizeof(err)), -1);
	CHECK(strstr(err, "answered GROUP") != NULL);
	/* RESUMABLE goes with a relay's decision both ways, and never with another method's */
	struct decision d, again;
	struct helper_msg msg;
	memset(&d, 0, sizeof(d));
	d.method = METHOD_RELAY;
	d.resumable = true;
	d.proxy_count = 1;
	strcpy(d.proxy[0].endpoint, "172.31.0.9:7000");
	helper_decision_to_msg(&d, &msg);
	CHECK(msg.flags & HELPER_FLAG_RESUMABLE);
	CHECK_INT_EQ(helper_decision_from_msg(&msg, &again, err, sizeof(err)), 0);
	CHECK(again.resumable);
	d.method = METHOD_DIRECT;
	helper_decision_to_msg(&d, &msg);
	CHECK(!(msg.flags & HELPER_FLAG_RESUMABLE));
}

/* RESUME and REPLAYED (issue 14): the relay id round-trips; it is exactly 16 bytes; RESUMABLE
 * is allowed on DECISION and HANDOFF only. */
static void
resume_and_the_resumable_flag(void)
{
	struct helper_msg m, out;
	uint8_t buf[HELPER_MSG_MAX];
	char err[256];
	size_t used;
	helper_msg_init(&m, HELPER_MSG_RESUME);
	for (int i = 0; i < 16; i++)
		m.relay_id[i] = (uint8_t)(0xf0 + i);
	long n = encode(&m, buf, sizeof(buf));
	CHECK_INT_EQ(n, HELPER_HEADER_SIZE + 16);
	CHECK_INT_EQ(parse(buf, (size_t)n, &out, &used, err), HELPER_PARSE_OK);
	CHECK(memcmp(&m, &out, sizeof(out)) == 0);
	CHECK(strcmp(helper_msg_type_name(HELPER_MSG_RESUME), "RESUME") == 0);
	uint8_t short_id[15] = { 0 }, long_id[17] = { 0 };
	expect_invalid(buf, raw(buf, HELPER_MSG_RESUME, short_id, sizeof(short_id)), "relay_id");
	expect_invalid(buf, raw(buf, HELPER_MSG_RESUME, long_id, sizeof(long_id)), "after the last");
	helper_msg_init(&m, HELPER_MSG_DECISION);
	m.method = METHOD_RELAY;
	m.flags = HELPER_FLAG_RESUMABLE;
	m.proxy_count = 1;
	strcpy(m.proxy[0], "10.0.0.1:7000");
	n = encode(&m, buf, sizeof(buf));
	CHECK_INT_EQ(parse(buf, (size_t)n, &out, &used, err), HELPER_PARSE_OK);
	CHECK_INT_EQ(out.flags, HELPER_FLAG_RESUMABLE);
	helper_msg_init(&m, HELPER_MSG_HANDOFF);
	m.method = METHOD_RELAY;
	m.flags = HELPER_FLAG_FD | HELPER_FLAG_RESUMABLE;
	n = encode(&m, buf, sizeof(buf));
	CHECK_INT_EQ(parse(buf, (size_t)n, &out, &used, err), HELPER_PARSE_OK);
	CHECK_INT_EQ(out.flags, HELPER_FLAG_FD | HELPER_FLAG_RESUMABLE);
	helper_msg_init(&m, HELPER_MSG_RESUME);
	m.flags = HELPER_FLAG_RESUMABLE;
	CHECK(encode(&m, buf, sizeof(buf)) < 0);
	helper_msg_init(&m, HELPER_MSG_REPLAYED);
	m.relay_id[0] = 9;
	m.setup_usec = 4194304;
	n = encode(&m, buf, sizeof(buf));
	CHECK_INT_EQ(n, HELPER_HEADER_SIZE + 16 + 8);
	CHECK_INT_EQ(parse(buf, (size_t)n, &out, &used, err), HELPER_PARSE_OK);
	CHECK(memcmp(&m, &out, sizeof(out)) == 0);
	expect_invalid(buf, raw(buf, HELPER_MSG_REPLAYED, long_id, sizeof(long_id)), "bytes");
}

int
main(void)
{
	RUN(every_type_round_trips);
	RUN(every_prefix_is_incomplete_not_invalid);
	RUN(two_messages_in_one_buffer_parse_one_at_a_time);
	RUN(bad_headers_are_refused_as_soon_as_seen);
	RUN(bad_payloads_name_the_field);
	RUN(encoder_refuses_what_the_parser_would);
	RUN(decisions_round_trip_through_the_message);
	RUN(resume_and_the_resumable_flag);
	return check_exit();
}
