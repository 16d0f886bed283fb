/*
 * helper_proto.c: encode and parse the local API's messages (format in helper_proto.h).
 * Pure functions over buffers; libc only, so it can go into a preloaded shared object.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "helper_proto.h"

/* A cursor over a payload; the first failure sticks and names the field. */
struct cursor {
	const uint8_t *p;
	size_t left;
	const char *bad; /* the field that failed, or NULL */
	const char *why;
};

static void
cursor_fail(struct cursor *c, const char *field, const char *why)
{
	if (c->bad == NULL) {
		c->bad = field;
		c->why = why;
	}
}

static uint64_t
get_uint(struct cursor *c, size_t n, const char *field)
{
	uint64_t v = 0;
	if (c->bad != NULL)
		return 0;
	if (c->left < n) {
		cursor_fail(c, field, "truncated");
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v = v << 8 | c->p[i];
	c->p += n;
	c->left -= n;
	return v;
}

/* A length-prefixed string into dst (cap bytes with the NUL); min is the least length. */
static void
get_str(struct cursor *c, char *dst, size_t cap, size_t min, const char *field)
{
	size_t n = (size_t)get_uint(c, 2, field);
	dst[0] = '\0';
	if (c->bad != NULL)
		return;
	if (n >= cap || n < min) {
		cursor_fail(c, field, n < min ? "too short" : "too long");
		return;
	}
	if (c->left < n) {
		cursor_fail(c, field, "truncated");
		return;
	}
	if (memchr(c->p, '\0', n) != NULL) {
		cursor_fail(c, field, "contains a NUL byte");
		return;
	}
	memcpy(dst, c->p, n);
	dst[n] = '\0';
	c->p += n;
	c->left -= n;
}

static void
get_bytes(struct cursor *c, uint8_t *dst, size_t n, const char *field)
{
	if (c->bad != NULL)
		return;
	if (c->left < n) {
		cursor_fail(c, field, "truncated");
		return;
	}
	memcpy(dst, c->p, n);
	c->p += n;
	c->left -= n;
}

static void
check_method(struct cursor *c, uint8_t method, int allow_none_wire, const char *field)
{
	if (method <= METHOD_NONE || (allow_none_wire && method == HELPER_METHOD_NONE_WIRE))
		return;
	cursor_fail(c, field, "is not a method");
}

static void
parse_decision(struct cursor *c, struct helper_msg *m)
{
	m->method = (uint8_t)get_uint(c, 1, "method");
	check_method(c, m->method, 0, "method");
	get_str(c, m->address, sizeof(m->address), 0, "target_address");
	m->port = (uint16_t)get_uint(c, 2, "target_port");
	get_bytes(c, m->relay_id, sizeof(m->relay_id), "relay_id");
	m->proxy_count = (uint8_t)get_uint(c, 1, "proxy_count");
	if (c->bad == NULL && m->proxy_count > 2)
		cursor_fail(c, "proxy_count", "is above 2");
	for (unsigned i = 0; c->bad == NULL && i < m->proxy_count; i++)
		get_str(c, m->proxy[i], sizeof(m->proxy[i]), 1, "proxy");
}

/* The payload of m->type; sets c->bad on any error. */
static void
parse_payload(struct cursor *c, struct helper_msg *m)
{
	switch (m->type) {
	case HELPER_MSG_HELLO:
		get_str(c, m->job, sizeof(m->job), 1, "job");
		get_str(c, m->token, sizeof(m->token), HELPER_TOKEN_MIN, "token");
		break;
	case HELPER_MSG_REGISTER:
		get_str(c, m->address, sizeof(m->address), 1, "address");
		m->port = (uint16_t)get_uint(c, 2, "port");
		get_str(c, m->process, sizeof(m->process), 0, "process");
		break;
	case HELPER_MSG_RESOLVE:
		get_str(c, m->address, sizeof(m->address), 1, "to_address");
		m->port = (uint16_t)get_uint(c, 2, "to_port");
		m->method = (uint8_t)get_uint(c, 1, "after");
		check_method(c, m->method, 1, "after");
		break;
	case HELPER_MSG_WAIT_INBOUND:
		m->port = (uint16_t)get_uint(c, 2, "port");
		break;
	case HELPER_MSG_REPORT:
		m->method = (uint8_t)get_uint(c, 1, "method");
		check_method(c, m->method, 0, "method");
		get_str(c, m->address, sizeof(m->address), 1, "to_address");
		m->port = (uint16_t)get_uint(c, 2, "to_port");
		m->ok = (uint8_t)get_uint(c, 1, "ok");
		if (c->bad == NULL && m->ok > 1)
			cursor_fail(c, "ok", "must be 0 or 1");
		m->setup_usec = get_uint(c, 8, "setup_usec");
		break;
	case HELPER_MSG_OK:
	case HELPER_MSG_MCAST_GROUP:
		break;
	case HELPER_MSG_GROUP:
		get_str(c, m->address, sizeof(m->address), 7, "address");
		m->port = (uint16_t)get_uint(c, 2, "port");
		if (c->bad == NULL && m->port == 0)
			cursor_fail(c, "port", "must not be 0");
		break;
	case HELPER_MSG_ERR:
		m->code = (uint16_t)get_uint(c, 2, "code");
		get_str(c, m->message, sizeof(m->message), 0, "message");
		break;
	case HELPER_MSG_DECISION:
		parse_decision(c, m);
		break;
	case HELPER_MSG_RESUME:
		get_bytes(c, m->relay_id, sizeof(m->relay_id), "relay_id");
		break;
	case HELPER_MSG_REPLAYED:
		get_bytes(c, m->relay_id, sizeof(m->relay_id), "relay_id");
		m->setup_usec = get_uint(c, 8, "bytes");
		break;
	case HELPER_MSG_HANDOFF:
		m->method = (uint8_t)get_uint(c, 1, "method");
		check_method(c, m->method, 0, "method");
		get_str(c, m->address, sizeof(m->address), 0, "peer_address");
		m->port = (uint16_t)get_uint(c, 2, "peer_port");
		get_bytes(c, m->relay_id, sizeof(m->relay_id), "relay_id");
		break;
	default:
		cursor_fail(c, "type", "is unknown");
		return;
	}
	if (c->bad == NULL && c->left != 0)
		cursor_fail(c, "payload", "has bytes after the last field");
}

static uint16_t
flags_allowed(unsigned type)
{
	if (type == HELPER_MSG_DECISION)
		return HELPER_FLAG_HANDOFF_FOLLOWS | HELPER_FLAG_RESUMABLE;
	if (type == HELPER_MSG_HANDOFF)
		return HELPER_FLAG_FD | HELPER_FLAG_RESUMABLE;
	return 0;
}

/* The header's checks, each as soon as its bytes are in (garbage is refused early). */
static enum helper_parse_status
parse_header(const uint8_t *buf, size_t len, uint32_t *payload_len, char *err, size_t errlen)
{
	size_t magic_have = len < 4 ? len : 4;
	if (memcmp(buf, HELPER_PROTO_MAGIC, magic_have) != 0) {
		snprintf(err, errlen, "bad magic: not a qcg-helper message");
		return HELPER_PARSE_INVALID;
	}
	if (len > 4 && buf[4] != HELPER_PROTO_VERSION) {
		snprintf(err, errlen, "protocol version %u, this helper speaks %u", buf[4],
		    HELPER_PROTO_VERSION);
		return HELPER_PARSE_INVALID;
	}
	if (len > 5 && helper_msg_type_name(buf[5])[0] == '?') {
		snprintf(err, errlen, "unknown message type %u", buf[5]);
		return HELPER_PARSE_INVALID;
	}
	if (len >= 8 && ((unsigned)buf[6] << 8 | buf[7]) & ~flags_allowed(buf[5])) {
		snprintf(err, errlen, "%s: flags 0x%04x not allowed", helper_msg_type_name(buf[5]),
		    (unsigned)buf[6] << 8 | buf[7]);
		return HELPER_PARSE_INVALID;
	}
	if (len < HELPER_HEADER_SIZE)
		return HELPER_PARSE_INCOMPLETE;
	*payload_len = (uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 |
	    buf[11];
	if (*payload_len > HELPER_PAYLOAD_MAX) {
		snprintf(err, errlen, "%s: payload of %u bytes exceeds the limit of %d",
		    helper_msg_type_name(buf[5]), *payload_len, HELPER_PAYLOAD_MAX);
		return HELPER_PARSE_INVALID;
	}
	return HELPER_PARSE_OK;
}

enum helper_parse_status
helper_msg_parse(const uint8_t *buf, size_t len, struct helper_msg *out, size_t *consumed,
    char *err, size_t errlen)
{
	uint32_t payload_len = 0;
	enum helper_parse_status st = parse_header(buf, len, &payload_len, err, errlen);
	if (st != HELPER_PARSE_OK)
		return st;
	if (len - HELPER_HEADER_SIZE < payload_len)
		return HELPER_PARSE_INCOMPLETE;
	helper_msg_init(out, (enum helper_msg_type)buf[5]);
	out->flags = (uint16_t)(buf[6] << 8 | buf[7]);
	struct cursor c = { buf + HELPER_HEADER_SIZE, payload_len, NULL, NULL };
	parse_payload(&c, out);
	if (c.bad != NULL) {
		snprintf(err, errlen, "%s: %s %s", helper_msg_type_name(out->type), c.bad, c.why);
		return HELPER_PARSE_INVALID;
	}
	*consumed = HELPER_HEADER_SIZE + payload_len;
	return HELPER_PARSE_OK;
}

/* ---- encoding ---------------------------------------------------------------------------- */

struct writer {
	uint8_t *p;
	size_t left;
	const char *bad;
};

static void
put_uint(struct writer *w, uint64_t v, size_t n, const char *field)
{
	if (w->bad != NULL)
		return;
	if (w->left < n) {
		w->bad = field;
		return;
	}
	for (size_t i = 0; i < n; i++)
		w->p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	w->p += n;
	w->left -= n;
}

static void
put_str(struct writer *w, const char *s, size_t cap, const char *field)
{
	size_t n = strnlen(s, cap);
	if (n >= cap && w->bad == NULL)
		w->bad = field;
	put_uint(w, n, 2, field);
	if (w->bad != NULL)
		return;
	if (w->left < n) {
		w->bad = field;
		return;
	}
	memcpy(w->p, s, n);
	w->p += n;
	w->left -= n;
}

static void
put_bytes(struct writer *w, const uint8_t *b, size_t n, const char *field)
{
	if (w->bad != NULL)
		return;
	if (w->left < n) {
		w->bad = field;
		return;
	}
	memcpy(w->p, b, n);
	w->p += n;
	w->left -= n;
}

static void
encode_payload(struct writer *w, const struct helper_msg *m)
{
	switch (m->type) {
	case HELPER_MSG_HELLO:
		put_str(w, m->job, sizeof(m->job), "job");
		put_str(w, m->token, sizeof(m->token), "token");
		break;
	case HELPER_MSG_REGISTER:
		put_str(w, m->address, sizeof(m->address), "address");
		put_uint(w, m->port, 2, "port");
		put_str(w, m->process, sizeof(m->process), "process");
		break;
	case HELPER_MSG_RESOLVE:
		put_str(w, m->address, sizeof(m->address), "to_address");
		put_uint(w, m->port, 2, "to_port");
		put_uint(w, m->method, 1, "after");
		break;
	case HELPER_MSG_WAIT_INBOUND:
		put_uint(w, m->port, 2, "port");
		break;
	case HELPER_MSG_REPORT:
		put_uint(w, m->method, 1, "method");
		put_str(w, m->address, sizeof(m->address), "to_address");
		put_uint(w, m->port, 2, "to_port");
		put_uint(w, m->ok, 1, "ok");
		put_uint(w, m->setup_usec, 8, "setup_usec");
		break;
	case HELPER_MSG_OK:
	case HELPER_MSG_MCAST_GROUP:
		break;
	case HELPER_MSG_GROUP:
		put_str(w, m->address, sizeof(m->address), "address");
		put_uint(w, m->port, 2, "port");
		break;
	case HELPER_MSG_ERR:
		put_uint(w, m->code, 2, "code");
		put_str(w, m->message, sizeof(m->message), "message");
		break;
	case HELPER_MSG_DECISION:
		put_uint(w, m->method, 1, "method");
		put_str(w, m->address, sizeof(m->address), "target_address");
		put_uint(w, m->port, 2, "target_port");
		put_bytes(w, m->relay_id, sizeof(m->relay_id), "relay_id");
		if (m->proxy_count > 2 && w->bad == NULL)
			w->bad = "proxy_count";
		put_uint(w, m->proxy_count, 1, "proxy_count");
		for (unsigned i = 0; i < m->proxy_count && i < 2; i++)
			put_str(w, m->proxy[i], sizeof(m->proxy[i]), "proxy");
		break;
	case HELPER_MSG_RESUME:
		put_bytes(w, m->relay_id, sizeof(m->relay_id), "relay_id");
		break;
	case HELPER_MSG_REPLAYED:
		put_bytes(w, m->relay_id, sizeof(m->relay_id), "relay_id");
		put_uint(w, m->setup_usec, 8, "bytes");
		break;
	case HELPER_MSG_HANDOFF:
		put_uint(w, m->method, 1, "method");
		put_str(w, m->address, sizeof(m->address), "peer_address");
		put_uint(w, m->port, 2, "peer_port");
		put_bytes(w, m->relay_id, sizeof(m->relay_id), "relay_id");
		break;
	default:
		w->bad = "type";
	}
}

long
helper_msg_encode(const struct helper_msg *m, uint8_t *buf, size_t cap, char *err, size_t errlen)
{
	if (cap < HELPER_HEADER_SIZE) {
		snprintf(err, errlen, "buffer of %zu bytes cannot hold a header", cap);
		return -1;
	}
	struct writer w = { buf + HELPER_HEADER_SIZE, cap - HELPER_HEADER_SIZE, NULL };
	if (w.left > HELPER_PAYLOAD_MAX)
		w.left = HELPER_PAYLOAD_MAX;
	encode_payload(&w, m);
	if (w.bad == NULL && (m->flags & ~flags_allowed(m->type)) != 0)
		w.bad = "flags";
	if (w.bad != NULL) {
		snprintf(err, errlen, "%s: %s does not fit the protocol's limits",
		    helper_msg_type_name(m->type), w.bad);
		return -1;
	}
	size_t payload = (size_t)(w.p - (buf + HELPER_HEADER_SIZE));
	memcpy(buf, HELPER_PROTO_MAGIC, 4);
	buf[4] = HELPER_PROTO_VERSION;
	buf[5] = m->type;
	buf[6] = (uint8_t)(m->flags >> 8);
	buf[7] = (uint8_t)m->flags;
	buf[8] = (uint8_t)(payload >> 24);
	buf[9] = (uint8_t)(payload >> 16);
	buf[10] = (uint8_t)(payload >> 8);
	buf[11] = (uint8_t)payload;
	return (long)(HELPER_HEADER_SIZE + payload);
}

void
helper_msg_init(struct helper_msg *m, enum helper_msg_type type)
{
	memset(m, 0, sizeof(*m));
	m->type = (uint8_t)type;
}

const char *
helper_msg_type_name(unsigned type)
{
	switch (type) {
	case HELPER_MSG_HELLO: return "HELLO";
	case HELPER_MSG_REGISTER: return "REGISTER";
	case HELPER_MSG_RESOLVE: return "RESOLVE";
	case HELPER_MSG_WAIT_INBOUND: return "WAIT_INBOUND";
	case HELPER_MSG_REPORT: return "REPORT";
	case HELPER_MSG_MCAST_GROUP: return "MCAST_GROUP";
	case HELPER_MSG_RESUME: return "RESUME";
	case HELPER_MSG_REPLAYED: return "REPLAYED";
	case HELPER_MSG_GROUP: return "GROUP";
	case HELPER_MSG_OK: return "OK";
	case HELPER_MSG_ERR: return "ERR";
	case HELPER_MSG_DECISION: return "DECISION";
	case HELPER_MSG_HANDOFF: return "HANDOFF";
	}
	return "?unknown";
}
