/*
 * helper_client.c: the local API's client side (see helper_client.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "helper_client.h"
#include "helper_decision.h"
#include "relay_hello.h"

#define CLIENT_DEFAULT_TIMEOUT_MS 30000

/* Send a request and read its answer; an ERR becomes -1 with its text. */
static int
exchange(struct helper_client *c, const struct helper_msg *req, struct helper_msg *ans,
    int *code, char *err, size_t errlen)
{
	int fd;
	if (code)
		*code = 0;
	/* A helper that refuses at once (a connection limit) answers ERR and closes before our
	 * request is read: after a failed send, look for that ERR briefly. */
	int sent = helper_wire_send(c->fd, req, -1, err, errlen) == 0;
	int wait_ms = sent ? c->timeout_ms : 200;
	enum helper_wire_status st = helper_wire_read(c->fd, &c->reader, ans, &fd, wait_ms, wait_ms,
	    err, errlen);
	if (!sent && (st != HELPER_WIRE_OK || ans->type != HELPER_MSG_ERR)) {
		snprintf(err, errlen, "%s: qcg-helper closed the connection",
		    helper_msg_type_name(req->type));
		return -1;
	}
	if (st == HELPER_WIRE_TIMEOUT)
		snprintf(err, errlen, "%s: no answer from qcg-helper in %d ms",
		    helper_msg_type_name(req->type), c->timeout_ms);
	else if (st == HELPER_WIRE_EOF)
		snprintf(err, errlen, "%s: qcg-helper closed the connection",
		    helper_msg_type_name(req->type));
	if (st != HELPER_WIRE_OK)
		return -1;
	if (fd >= 0)
		close(fd); /* a HANDOFF is never an answer to a request */
	if (ans->type == HELPER_MSG_ERR) {
		if (code)
			*code = ans->code;
		snprintf(err, errlen, "qcg-helper refused %s: %s", helper_msg_type_name(req->type),
		    ans->message);
		return -1;
	}
	return 0;
}

static int
expect_ok(struct helper_client *c, const struct helper_msg *req, int *code, char *err,
    size_t errlen)
{
	struct helper_msg ans;
	if (exchange(c, req, &ans, code, err, errlen) != 0)
		return -1;
	if (ans.type != HELPER_MSG_OK) {
		snprintf(err, errlen, "%s: qcg-helper answered %s", helper_msg_type_name(req->type),
		    helper_msg_type_name(ans.type));
		return -1;
	}
	return 0;
}

static int
copy_field(char *dst, size_t cap, const char *src, const char *what, char *err, size_t errlen)
{
	if (src == NULL || strlen(src) >= cap) {
		snprintf(err, errlen, "%s is missing or longer than %zu bytes", what, cap - 1);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

int
helper_client_open(struct helper_client *c, const char *socket_path, const char *job,
    const char *token, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct helper_msg m;

	c->fd = -1;
	c->timeout_ms = CLIENT_DEFAULT_TIMEOUT_MS;
	helper_reader_init(&c->reader, 1);
	helper_msg_init(&m, HELPER_MSG_HELLO);
	if (copy_field(m.job, sizeof(m.job), job, "job", err, errlen) != 0 ||
	    copy_field(m.token, sizeof(m.token), token, "job token", err, errlen) != 0 ||
	    copy_field(sun.sun_path, sizeof(sun.sun_path), socket_path, "helper socket path",
		err, errlen) != 0)
		return -1;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		snprintf(err, errlen, "cannot reach qcg-helper at %s: %s", socket_path,
		    strerror(errno));
		helper_client_close(c);
		return -1;
	}
	struct timeval tv = { CLIENT_DEFAULT_TIMEOUT_MS / 1000, 0 };
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (expect_ok(c, &m, NULL, err, errlen) != 0) {
		helper_client_close(c);
		return -1;
	}
	return 0;
}

int
helper_client_open_env(struct helper_client *c, char *err, size_t errlen)
{
	const char *path = getenv(HELPER_CLIENT_SOCKET_ENV);
	const char *job = getenv(HELPER_CLIENT_JOB_ENV);
	const char *token = getenv(HELPER_CLIENT_TOKEN_ENV);
	if (job == NULL || token == NULL) {
		snprintf(err, errlen, "%s and %s must be set (the launcher sets them)",
		    HELPER_CLIENT_JOB_ENV, HELPER_CLIENT_TOKEN_ENV);
		c->fd = -1;
		return -1;
	}
	return helper_client_open(c, path ? path : HELPER_CLIENT_DEFAULT_SOCKET, job, token, err,
	    errlen);
}

void
helper_client_close(struct helper_client *c)
{
	helper_reader_clear(&c->reader);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int
helper_client_fd(const struct helper_client *c)
{
	return c->fd;
}

int
helper_client_register(struct helper_client *c, const char *address, uint16_t port,
    const char *process, int *code, char *err, size_t errlen)
{
	struct helper_msg m;
	helper_msg_init(&m, HELPER_MSG_REGISTER);
	if (copy_field(m.address, sizeof(m.address), address, "address", err, errlen) != 0 ||
	    copy_field(m.process, sizeof(m.process), process ? process : "", "process", err,
		errlen) != 0)
		return -1;
	m.port = port;
	return expect_ok(c, &m, code, err, errlen);
}

int
helper_client_resolve(struct helper_client *c, const char *to_address, uint16_t to_port,
    int after, struct decision *out, int *code, char *err, size_t errlen)
{
	struct helper_msg m, ans;
	helper_msg_init(&m, HELPER_MSG_RESOLVE);
	if (copy_field(m.address, sizeof(m.address), to_address, "to_address", err, errlen) != 0)
		return -1;
	m.port = to_port;
	m.method = after < 0 ? HELPER_METHOD_NONE_WIRE : (uint8_t)after;
	if (exchange(c, &m, &ans, code, err, errlen) != 0)
		return -1;
	return helper_decision_from_msg(&ans, out, err, errlen);
}

int
helper_client_resume(struct helper_client *c, const uint8_t relay_id[QCG_RELAY_ID_BYTES],
    struct decision *out, int *code, char *err, size_t errlen)
{
	struct helper_msg m, ans;
	helper_msg_init(&m, HELPER_MSG_RESUME);
	memcpy(m.relay_id, relay_id, sizeof(m.relay_id));
	if (exchange(c, &m, &ans, code, err, errlen) != 0)
		return -1;
	return helper_decision_from_msg(&ans, out, err, errlen);
}

int
helper_client_mcast_group(struct helper_client *c, char address[QCG_ADDR_MAX], uint16_t *port,
    int *code, char *err, size_t errlen)
{
	struct helper_msg m, ans;
	helper_msg_init(&m, HELPER_MSG_MCAST_GROUP);
	if (exchange(c, &m, &ans, code, err, errlen) != 0)
		return -1;
	if (ans.type != HELPER_MSG_GROUP) {
		snprintf(err, errlen, "MCAST_GROUP: qcg-helper answered %s",
		    helper_msg_type_name(ans.type));
		return -1;
	}
	strcpy(address, ans.address); /* the parser bounded it by QCG_ADDR_MAX */
	*port = ans.port;
	return 0;
}

int
helper_client_replayed(struct helper_client *c, const uint8_t relay_id[QCG_RELAY_ID_BYTES],
    uint64_t bytes, int *code, char *err, size_t errlen)
{
	struct helper_msg m;
	helper_msg_init(&m, HELPER_MSG_REPLAYED);
	memcpy(m.relay_id, relay_id, sizeof(m.relay_id));
	m.setup_usec = bytes;
	return expect_ok(c, &m, code, err, errlen);
}

int
helper_client_wait_inbound(struct helper_client *c, uint16_t port, int *code, char *err,
    size_t errlen)
{
	struct helper_msg m;
	helper_msg_init(&m, HELPER_MSG_WAIT_INBOUND);
	m.port = port;
	return expect_ok(c, &m, code, err, errlen);
}

int
helper_client_report(struct helper_client *c, int method, const char *to_address,
    uint16_t to_port, int ok, uint64_t setup_usec, int *code, char *err, size_t errlen)
{
	struct helper_msg m;
	helper_msg_init(&m, HELPER_MSG_REPORT);
	if (copy_field(m.address, sizeof(m.address), to_address, "to_address", err, errlen) != 0)
		return -1;
	m.method = (uint8_t)method;
	m.port = to_port;
	m.ok = ok ? 1 : 0;
	m.setup_usec = setup_usec;
	return expect_ok(c, &m, code, err, errlen);
}

int
helper_client_next_handoff(struct helper_client *c, int timeout_ms, struct helper_handoff *out,
    int *code, char *err, size_t errlen)
{
	struct helper_msg m;
	int fd;
	if (code)
		*code = 0;
	enum helper_wire_status st = helper_wire_read(c->fd, &c->reader, &m, &fd, timeout_ms,
	    c->timeout_ms, err, errlen);
	if (st == HELPER_WIRE_TIMEOUT && c->reader.len == 0)
		return 1;
	if (st == HELPER_WIRE_EOF)
		snprintf(err, errlen, "qcg-helper closed the connection");
	if (st != HELPER_WIRE_OK)
		return -1;
	if (m.type == HELPER_MSG_ERR) {
		if (code)
			*code = m.code;
		snprintf(err, errlen, "qcg-helper: %s", m.message);
		return -1;
	}
	if (m.type != HELPER_MSG_HANDOFF || fd < 0) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "expected a HANDOFF with a socket, got %s",
		    helper_msg_type_name(m.type));
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->fd = fd;
	out->method = m.method;
	strcpy(out->peer_address, m.address);
	out->peer_port = m.port;
	memcpy(out->relay_id, m.relay_id, sizeof(out->relay_id));
	out->resumable = (m.flags & HELPER_FLAG_RESUMABLE) != 0;
	return 0;
}

void
helper_client_relay_hello(uint8_t out[24], const uint8_t relay_id[QCG_RELAY_ID_BYTES])
{
	struct relay_id id;
	memcpy(id.bytes, relay_id, sizeof(id.bytes));
	relay_hello_encode(out, &id, 0);
}
