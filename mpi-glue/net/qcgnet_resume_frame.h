/*
 * qcgnet_resume_frame.h: the wire format of the resumable stream that libqcgnet runs over a
 * relayed connection (issue 14), and the pure arithmetic of acknowledgement and replay.
 *
 * A relay leg can die with its proxy. So that the application's TCP stream survives, both
 * ends frame their bytes over the leg, count them, and keep what the peer has not
 * acknowledged; on a new leg each side says how many bytes it has received and the sender
 * replays exactly the missing suffix. Nothing here touches a socket: the I/O thread
 * (qcgnet_resume_stream.c) feeds it buffers, and the unit test feeds it anything.
 *
 * Every frame starts with a 12-byte header (network byte order):
 *
 *   offset size field
 *   0      1    type      QRF_DATA, QRF_ACK, QRF_RESUME or QRF_FIN
 *   1      1    flags     zero (a later version may give bits a meaning)
 *   2      2    length    payload bytes after the header: 1..QRF_PAYLOAD_MAX for DATA,
 *                         QRF_RESUME_PAYLOAD for RESUME, 0 otherwise
 *   4      4    seq       DATA: stream offset of the first payload byte (mod 2^32);
 *                         RESUME, FIN: bytes this side has sent in all (mod 2^32)
 *   8      4    ack       bytes this side has received and delivered (mod 2^32), cumulative
 *
 * RESUME carries the stream's 16-byte identity (the relay id of its first leg), so a leg
 * joined to the wrong stream is refused before a byte is taken from it. Offsets are 64-bit
 * inside each end; on the wire they wrap at 2^32, which is unambiguous while the unacknowledged
 * window stays far below 2^31 bytes (QRF_WINDOW_MAX).
 */
#ifndef QCG_QCGNET_RESUME_FRAME_H
#define QCG_QCGNET_RESUME_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define QRF_HEADER_SIZE 12
#define QRF_PAYLOAD_MAX 65535u           /* the largest DATA frame: big frames keep bandwidth */
#define QRF_RESUME_PAYLOAD 16            /* the stream identity */
#define QRF_WINDOW_MAX (256u << 20)      /* unacknowledged bytes an end may keep, at most */

enum qrf_type {
	QRF_DATA = 1,   /* payload bytes of the stream */
	QRF_ACK = 2,    /* only the ack field counts */
	QRF_RESUME = 3, /* first frame on every leg: identity, bytes sent, bytes received */
	QRF_FIN = 4,    /* the application shut down its sending side after seq bytes */
};

/* What the parser found. Everything below QRF_OK is a reason to drop the leg. */
enum qrf_status {
	QRF_OK = 0,            /* a whole header: *out is filled (the payload may still be coming) */
	QRF_INCOMPLETE = 1,    /* fewer than QRF_HEADER_SIZE bytes: read more */
	QRF_BAD_TYPE = -1,     /* a type this end does not know */
	QRF_BAD_FLAGS = -2,    /* flag bits set */
	QRF_BAD_LENGTH = -3,   /* a length the type does not allow (DATA 0 or oversized, ...) */
};

struct qrf_header {
	uint8_t type;     /* enum qrf_type */
	uint16_t length;  /* payload bytes that follow */
	uint32_t seq;     /* see the table above */
	uint32_t ack;
};

/* Write a header into buf (QRF_HEADER_SIZE bytes). */
void qrf_encode(uint8_t buf[QRF_HEADER_SIZE], enum qrf_type type, uint16_t length, uint32_t seq,
    uint32_t ack);

/* Parse the header at the start of buf (len bytes available; more are not looked at). */
enum qrf_status qrf_parse(const uint8_t *buf, size_t len, struct qrf_header *out);

/* A short reason for a status, for logs ("oversized or empty frame"). */
const char *qrf_status_name(enum qrf_status status);

/*
 * The 64-bit offset a wrapped 32-bit one stands for, given that it must lie in [lo, hi]
 * (hi - lo < 2^31). 0 with *out, or -1 when no offset in the range has those low 32 bits.
 * Used for acks (lo = acknowledged so far, hi = sent so far) and for a peer's RESUME.
 */
int qrf_unwrap(uint32_t wire, uint64_t lo, uint64_t hi, uint64_t *out);

/*
 * Where an incoming DATA frame of len bytes at wire offset seq stands against `received`
 * bytes already delivered: 0 with *skip = bytes at its head that were delivered before (a
 * replay may overlap what a dead leg brought; they are dropped, never delivered twice), or
 * -1 when it starts beyond `received` (a gap: bytes would be lost).
 */
int qrf_data_position(uint64_t received, uint32_t seq, uint16_t len, uint32_t *skip);

#endif
