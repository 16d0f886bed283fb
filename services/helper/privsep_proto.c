/*
 * privsep_proto.c: encoding and checked decoding of the launcher's messages
 * (privsep_proto.h). No I/O: the launcher and the client do that.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "privsep_proto.h"

/* Whether id is a NUL-terminated, non-empty string inside its fixed field. */
static int
id_valid(const char id[LAUNCH_ID_MAX])
{
	return id[0] != '\0' && memchr(id, '\0', LAUNCH_ID_MAX) != NULL;
}

/* Split the strings area of a LAUNCH into workdir, argv and env, checking that it holds
 * exactly the announced count of NUL-terminated strings. */
static int
decode_strings(const char *p, size_t len, struct privsep_request *out, char *err,
    size_t errlen)
{
	size_t want = 1 + (size_t)out->argc + (size_t)out->envc, seen = 0, pos = 0;
	out->argv = calloc((size_t)out->argc + 1, sizeof(char *));
	out->env = calloc((size_t)out->envc + 1, sizeof(char *));
	if (out->argv == NULL || out->env == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (pos < len) {
		const char *nul = memchr(p + pos, '\0', len - pos);
		if (nul == NULL) {
			snprintf(err, errlen, "LAUNCH: string %zu is not NUL-terminated", seen);
			return -1;
		}
		if (seen == want) {
			snprintf(err, errlen, "LAUNCH: more than the %zu strings announced", want);
			return -1;
		}
		const char *s = p + pos;
		if (seen == 0)
			out->workdir = s;
		else if (seen <= (size_t)out->argc)
			out->argv[seen - 1] = (char *)s;
		else
			out->env[seen - 1 - (size_t)out->argc] = (char *)s;
		seen++;
		pos = (size_t)(nul - p) + 1;
	}
	if (seen != want) {
		snprintf(err, errlen, "LAUNCH: %zu strings, %zu announced", seen, want);
		return -1;
	}
	return 0;
}

static int
decode_launch(const uint8_t *buf, size_t len, struct privsep_request *out, char *err,
    size_t errlen)
{
	struct privsep_launch_msg m;
	if (len < sizeof(m)) {
		snprintf(err, errlen, "LAUNCH: %zu bytes, shorter than its fixed part", len);
		return -1;
	}
	memcpy(&m, buf, sizeof(m));
	if (m.argc < 1 || m.argc > LAUNCH_ARGS_MAX || m.envc > LAUNCH_ENV_MAX) {
		snprintf(err, errlen, "LAUNCH: %u arguments and %u environment entries (1..%d, "
		    "0..%d)", m.argc, m.envc, LAUNCH_ARGS_MAX, LAUNCH_ENV_MAX);
		return -1;
	}
	if (!id_valid(m.id)) {
		snprintf(err, errlen, "LAUNCH: the launch id is empty or not terminated");
		return -1;
	}
	out->uid = (uid_t)m.uid;
	out->argc = (int)m.argc;
	out->envc = (int)m.envc;
	memcpy(out->id, m.id, sizeof(out->id));
	return decode_strings((const char *)buf + sizeof(m), len - sizeof(m), out, err, errlen);
}

int
privsep_request_decode(const uint8_t *buf, size_t len, struct privsep_request *out, char *err,
    size_t errlen)
{
	struct privsep_hdr h;
	memset(out, 0, sizeof(*out));
	if (len < sizeof(h) || len > PRIVSEP_MSG_MAX) {
		snprintf(err, errlen, "a request of %zu bytes (%zu..%d)", len, sizeof(h),
		    PRIVSEP_MSG_MAX);
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.len != len) {
		snprintf(err, errlen, "the header says %u bytes, the packet has %zu", h.len, len);
		return -1;
	}
	out->type = (enum privsep_type)h.type;
	switch (h.type) {
	case PRIVSEP_LAUNCH:
		if (decode_launch(buf, len, out, err, errlen) != 0) {
			privsep_request_free(out);
			return -1;
		}
		return 0;
	case PRIVSEP_SIGNAL: {
		struct privsep_signal_msg m;
		if (len != sizeof(m)) {
			snprintf(err, errlen, "SIGNAL: %zu bytes, expected %zu", len, sizeof(m));
			return -1;
		}
		memcpy(&m, buf, sizeof(m));
		if (!id_valid(m.id) || m.sig < 1 || m.sig >= NSIG) {
			snprintf(err, errlen, "SIGNAL: bad launch id or signal %d", (int)m.sig);
			return -1;
		}
		out->sig = m.sig;
		memcpy(out->id, m.id, sizeof(out->id));
		return 0;
	}
	case PRIVSEP_REAP:
	case PRIVSEP_STOP:
		if (len != sizeof(h)) {
			snprintf(err, errlen, "%s: %zu bytes, expected %zu",
			    h.type == PRIVSEP_REAP ? "REAP" : "STOP", len, sizeof(h));
			return -1;
		}
		return 0;
	default:
		snprintf(err, errlen, "unknown request type %u", h.type);
		return -1;
	}
}

void
privsep_request_free(struct privsep_request *req)
{
	free(req->argv);
	free(req->env);
	req->argv = req->env = NULL;
}

/* Append one string and its NUL; -1 when the packet would outgrow PRIVSEP_MSG_MAX. */
static int
put_string(uint8_t *buf, size_t *pos, const char *s)
{
	size_t n = strlen(s) + 1;
	if (n > PRIVSEP_MSG_MAX - *pos)
		return -1;
	memcpy(buf + *pos, s, n);
	*pos += n;
	return 0;
}

int
privsep_launch_encode(const char *id, uid_t uid, const char *workdir, char *const *argv,
    int argc, char *const *env, int envc, uint8_t **out, size_t *outlen, char *err,
    size_t errlen)
{
	struct privsep_launch_msg m;
	size_t pos = sizeof(m);
	uint8_t *buf = malloc(PRIVSEP_MSG_MAX);
	int fits = buf != NULL && strlen(id) < sizeof(m.id) && argc >= 1 &&
	    argc <= LAUNCH_ARGS_MAX && envc >= 0 && envc <= LAUNCH_ENV_MAX;
	if (fits)
		fits = put_string(buf, &pos, workdir ? workdir : "") == 0;
	for (int i = 0; fits && i < argc; i++)
		fits = put_string(buf, &pos, argv[i]) == 0;
	for (int i = 0; fits && i < envc; i++)
		fits = put_string(buf, &pos, env[i]) == 0;
	if (!fits) {
		snprintf(err, errlen, "the launch's arguments and environment exceed the launcher's "
		    "%d bytes", PRIVSEP_MSG_MAX);
		free(buf);
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.hdr = (struct privsep_hdr){ PRIVSEP_LAUNCH, (uint32_t)pos };
	m.uid = (uint32_t)uid;
	m.argc = (uint32_t)argc;
	m.envc = (uint32_t)envc;
	memcpy(m.id, id, strlen(id) + 1);
	memcpy(buf, &m, sizeof(m));
	*out = buf;
	*outlen = pos;
	return 0;
}

int
privsep_reply_check(const struct privsep_reply_msg *reply, size_t len, char *err, size_t errlen)
{
	if (len != sizeof(*reply) || reply->hdr.type != PRIVSEP_REPLY ||
	    reply->hdr.len != sizeof(*reply) || reply->nreaped > PRIVSEP_REAP_MAX ||
	    memchr(reply->reason, '\0', sizeof(reply->reason)) == NULL) {
		snprintf(err, errlen, "the launcher sent a malformed reply (%zu bytes)", len);
		return -1;
	}
	return 0;
}
