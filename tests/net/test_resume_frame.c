/*
 * test_resume_frame.c: the resumable stream's frame codec and replay arithmetic
 * (mpi-glue/net/qcgnet_resume_frame.c), without sockets: round trips, every refusal with its
 * reason, partial headers, and offsets across the 2^32 wrap of the wire's counters.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "qcgnet_resume_frame.h"

static void
header_round_trips_every_type(void)
{
	uint8_t b[QRF_HEADER_SIZE];
	struct qrf_header h;
	qrf_encode(b, QRF_DATA, QRF_PAYLOAD_MAX, 0xfffffff0u, 0x01020304u);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_OK);
	CHECK_INT_EQ(h.type, QRF_DATA);
	CHECK_INT_EQ(h.length, QRF_PAYLOAD_MAX);
	CHECK(h.seq == 0xfffffff0u && h.ack == 0x01020304u);
	qrf_encode(b, QRF_RESUME, QRF_RESUME_PAYLOAD, 7, 9);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_OK);
	CHECK(h.type == QRF_RESUME && h.length == QRF_RESUME_PAYLOAD && h.seq == 7 && h.ack == 9);
	qrf_encode(b, QRF_ACK, 0, 0, 123456);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_OK);
	CHECK(h.type == QRF_ACK && h.ack == 123456);
	qrf_encode(b, QRF_FIN, 0, 42, 0);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_OK);
	CHECK(h.type == QRF_FIN && h.seq == 42);
	/* the layout is the documented one: type, flags, length, seq, ack, big-endian */
	static const uint8_t want[QRF_HEADER_SIZE] = { 1, 0, 0x12, 0x34, 0, 0, 0, 5, 0xa, 0xb,
		0xc, 0xd };
	qrf_encode(b, QRF_DATA, 0x1234, 5, 0x0a0b0c0du);
	CHECK(memcmp(b, want, sizeof(want)) == 0);
}

/* A header split anywhere is "incomplete" until its twelfth byte, and nothing is filled. */
static void
partial_header_is_incomplete(void)
{
	uint8_t b[QRF_HEADER_SIZE];
	struct qrf_header h = { .type = 99 };
	qrf_encode(b, QRF_DATA, 100, 1, 2);
	for (size_t n = 0; n < QRF_HEADER_SIZE; n++)
		CHECK_INT_EQ(qrf_parse(b, n, &h), QRF_INCOMPLETE);
	CHECK_INT_EQ(h.type, 99);
}

/* Garbage, flags, empty or oversized frames are refused, each with its own reason. */
static void
bad_headers_are_refused_with_a_reason(void)
{
	uint8_t b[QRF_HEADER_SIZE];
	struct qrf_header h;
	memset(b, 0, sizeof(b));
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_TYPE); /* type 0 */
	memcpy(b, "GET / HTTP/1", 12);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_TYPE);
	qrf_encode(b, QRF_DATA, 10, 0, 0);
	b[0] = 5;
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_TYPE);
	qrf_encode(b, QRF_DATA, 10, 0, 0);
	b[1] = 0x80;
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_FLAGS);
	qrf_encode(b, QRF_DATA, 0, 0, 0);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_LENGTH); /* empty data */
	qrf_encode(b, QRF_ACK, 1, 0, 0);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_LENGTH); /* an ack with payload */
	qrf_encode(b, QRF_FIN, 0xffff, 0, 0);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_LENGTH);
	qrf_encode(b, QRF_RESUME, QRF_RESUME_PAYLOAD + 1, 0, 0);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_LENGTH); /* truncated/oversized id */
	qrf_encode(b, QRF_RESUME, 0, 0, 0);
	CHECK_INT_EQ(qrf_parse(b, sizeof(b), &h), QRF_BAD_LENGTH);
	CHECK_STR_EQ(qrf_status_name(QRF_BAD_LENGTH), "length not allowed for the frame type");
	CHECK_STR_EQ(qrf_status_name(QRF_BAD_TYPE), "unknown frame type");
	CHECK_STR_EQ(qrf_status_name(QRF_BAD_FLAGS), "flag bits set");
}

/* Acks and RESUME counts unwrap into the kept range, across 2^32 and far beyond it. */
static void
unwrap_crosses_the_32_bit_wrap(void)
{
	uint64_t v;
	uint64_t lo = 0xfffff000ull, hi = 0x100001000ull; /* straddles 2^32 */
	CHECK(qrf_unwrap(0xfffff800u, lo, hi, &v) == 0 && v == 0xfffff800ull);
	CHECK(qrf_unwrap(0x00000800u, lo, hi, &v) == 0 && v == 0x100000800ull);
	CHECK(qrf_unwrap((uint32_t)lo, lo, hi, &v) == 0 && v == lo);
	CHECK(qrf_unwrap((uint32_t)hi, lo, hi, &v) == 0 && v == hi);
	/* outside the range: an ack of bytes never sent, or of bytes already dropped */
	CHECK_INT_EQ(qrf_unwrap(0x00001001u, lo, hi, &v), -1);
	CHECK_INT_EQ(qrf_unwrap(0xffffefffu, lo, hi, &v), -1);
	/* the tenth gigabyte of a long job: the same arithmetic */
	lo = 10ull << 30, hi = lo + (4u << 20);
	CHECK(qrf_unwrap((uint32_t)(lo + 5), lo, hi, &v) == 0 && v == lo + 5);
	/* a range of 2^31 or more is ambiguous and refused */
	CHECK_INT_EQ(qrf_unwrap(0, 0, 1ull << 31, &v), -1);
	CHECK_INT_EQ(qrf_unwrap(0, 5, 4, &v), -1);
}

/* A replayed frame overlapping what was delivered gives the bytes to skip; a gap is refused. */
static void
data_position_skips_duplicates_and_refuses_gaps(void)
{
	uint32_t skip = 99;
	CHECK(qrf_data_position(1000, 1000, 100, &skip) == 0 && skip == 0); /* exactly next */
	CHECK(qrf_data_position(1000, 950, 100, &skip) == 0 && skip == 50); /* half replayed */
	CHECK(qrf_data_position(1000, 900, 100, &skip) == 0 && skip == 100); /* all seen */
	CHECK(qrf_data_position(1000, 100, 100, &skip) == 0 && skip == 100);
	CHECK_INT_EQ(qrf_data_position(1000, 1001, 100, &skip), -1); /* one byte lost */
	/* across the wrap: delivered 2^32 + 16, frame at wire 0xfffffff8 (= 2^32 - 8) */
	uint64_t delivered = (1ull << 32) + 16;
	CHECK(qrf_data_position(delivered, 0xfffffff8u, 64, &skip) == 0 && skip == 24);
	CHECK(qrf_data_position(delivered, 16, 64, &skip) == 0 && skip == 0);
	CHECK_INT_EQ(qrf_data_position(delivered, 17, 64, &skip), -1);
}

/*
 * The replay both sides compute from a RESUME: a sender that framed `high` bytes and holds
 * [base, high) replays high - ack; the receiver, which skips nothing since the replay starts
 * where it stands, gets every byte once. Walked across the wrap with odd frame sizes.
 */
static void
replay_arithmetic_loses_and_duplicates_nothing(void)
{
	uint64_t base = 0xffff0000ull, high = base + 300000, delivered = base + 123457;
	uint64_t ack;
	CHECK(qrf_unwrap((uint32_t)delivered, base, high, &ack) == 0 && ack == delivered);
	CHECK_INT_EQ(high - ack, 300000 - 123457);
	/* replay in frames of 65535 from ack; every frame lands exactly on the receiver's count */
	uint64_t got = delivered;
	for (uint64_t off = ack; off < high;) {
		uint16_t len = (uint16_t)(high - off > QRF_PAYLOAD_MAX ? QRF_PAYLOAD_MAX : high - off);
		uint32_t skip;
		CHECK(qrf_data_position(got, (uint32_t)off, len, &skip) == 0 && skip == 0);
		got += len;
		off += len;
	}
	CHECK(got == high);
}

int
main(void)
{
	RUN(header_round_trips_every_type);
	RUN(partial_header_is_incomplete);
	RUN(bad_headers_are_refused_with_a_reason);
	RUN(unwrap_crosses_the_32_bit_wrap);
	RUN(data_position_skips_duplicates_and_refuses_gaps);
	RUN(replay_arithmetic_loses_and_duplicates_nothing);
	return check_exit();
}
