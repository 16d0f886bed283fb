/*
 * qcgnet_resume_frame.c: the resumable stream's frame header and offset arithmetic
 * (qcgnet_resume_frame.h). Pure functions, no I/O.
 */
#include "config.h"

#include "qcgnet_resume_frame.h"

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void
qrf_encode(uint8_t buf[QRF_HEADER_SIZE], enum qrf_type type, uint16_t length, uint32_t seq,
    uint32_t ack)
{
	buf[0] = (uint8_t)type;
	buf[1] = 0;
	buf[2] = (uint8_t)(length >> 8);
	buf[3] = (uint8_t)length;
	put32(buf + 4, seq);
	put32(buf + 8, ack);
}

enum qrf_status
qrf_parse(const uint8_t *buf, size_t len, struct qrf_header *out)
{
	if (len < QRF_HEADER_SIZE)
		return QRF_INCOMPLETE;
	uint8_t type = buf[0];
	uint16_t length = (uint16_t)(buf[2] << 8 | buf[3]);
	if (type < QRF_DATA || type > QRF_FIN)
		return QRF_BAD_TYPE;
	if (buf[1] != 0)
		return QRF_BAD_FLAGS;
	switch (type) {
	case QRF_DATA:
		if (length == 0) /* QRF_PAYLOAD_MAX is the type's limit: 16 bits hold no more */
			return QRF_BAD_LENGTH;
		break;
	case QRF_RESUME:
		if (length != QRF_RESUME_PAYLOAD)
			return QRF_BAD_LENGTH;
		break;
	default:
		if (length != 0)
			return QRF_BAD_LENGTH;
	}
	out->type = type;
	out->length = length;
	out->seq = get32(buf + 4);
	out->ack = get32(buf + 8);
	return QRF_OK;
}

const char *
qrf_status_name(enum qrf_status status)
{
	switch (status) {
	case QRF_OK:
		return "ok";
	case QRF_INCOMPLETE:
		return "incomplete header";
	case QRF_BAD_TYPE:
		return "unknown frame type";
	case QRF_BAD_FLAGS:
		return "flag bits set";
	case QRF_BAD_LENGTH:
		return "length not allowed for the frame type";
	}
	return "unknown status";
}

int
qrf_unwrap(uint32_t wire, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (hi < lo || hi - lo >= (1ull << 31))
		return -1;
	/* lo plus the distance from lo's low 32 bits to wire, modulo 2^32 */
	uint64_t v = lo + (uint32_t)(wire - (uint32_t)lo);
	if (v > hi)
		return -1;
	*out = v;
	return 0;
}

int
qrf_data_position(uint64_t received, uint32_t seq, uint16_t len, uint32_t *skip)
{
	/* signed distance of the frame's start behind what was delivered */
	int32_t behind = (int32_t)((uint32_t)received - seq);
	if (behind < 0)
		return -1;
	*skip = (uint32_t)behind < len ? (uint32_t)behind : len;
	return 0;
}
