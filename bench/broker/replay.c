/*
 * replay.c: bench-broker's light client (replay.h).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/ssl.h>

#include "soapH.h"
#include "http_head.h"
#include "replay.h"

/* Each client thread records its own warm-up call: the send hook finds its replay here. */
static __thread struct replay *thread_replay;

static int
recording_send(struct soap *soap, const char *s, size_t n)
{
	struct replay *r = thread_replay;
	if (r->recording) {
		if (r->request_len + n <= sizeof(r->request)) {
			memcpy(r->request + r->request_len, s, n);
			r->request_len += n;
		} else {
			r->request_too_long = 1;
		}
	}
	return r->engine_send(soap, s, n);
}

void
replay_record_start(struct replay *r, struct soap *soap)
{
	thread_replay = r;
	r->engine_send = soap->fsend;
	r->request_len = 0;
	r->request_too_long = 0;
	r->recording = 1;
	soap->fsend = recording_send;
}

int
replay_record_stop(struct replay *r, struct soap *soap)
{
	soap->fsend = r->engine_send;
	r->recording = 0;
	return r->request_len > 0 && !r->request_too_long ? 0 : -1;
}

/* Wait until the socket is ready for what TLS asked; -1 on timeout or error. */
static int
wait_for(SSL *ssl, int fd, int ret, int timeout_ms)
{
	int e = SSL_get_error(ssl, ret);
	struct pollfd p = { .fd = fd };
	if (e == SSL_ERROR_WANT_READ)
		p.events = POLLIN;
	else if (e == SSL_ERROR_WANT_WRITE)
		p.events = POLLOUT;
	else
		return -1;
	return poll(&p, 1, timeout_ms) == 1 ? 0 : -1;
}

static int
send_all(SSL *ssl, int fd, const char *buf, size_t len, int timeout_ms)
{
	size_t done = 0;
	while (done < len) {
		int n = SSL_write(ssl, buf + done, (int)(len - done));
		if (n > 0)
			done += (size_t)n;
		else if (wait_for(ssl, fd, n, timeout_ms) != 0)
			return -1;
	}
	return 0;
}

int
replay_call(struct replay *r, struct soap *soap, const char *expect, int timeout_ms, char *err,
    size_t errlen)
{
	SSL *ssl = soap->ssl;
	int fd = soap->socket;
	size_t have = 0, head_len = 0, total = 0, vlen;
	int status = -1;

	if (ssl == NULL || send_all(ssl, fd, r->request, r->request_len, timeout_ms) != 0) {
		snprintf(err, errlen, "replay: sending the request failed");
		return -1;
	}
	for (;;) {
		if (have == sizeof(r->response) - 1) {
			snprintf(err, errlen, "replay: answer longer than %zu bytes", have);
			return -1;
		}
		int n = SSL_read(ssl, r->response + have, (int)(sizeof(r->response) - 1 - have));
		if (n <= 0) {
			if (wait_for(ssl, fd, n, timeout_ms) != 0) {
				snprintf(err, errlen, "replay: the answer did not come whole");
				return -1;
			}
			continue;
		}
		have += (size_t)n;
		r->response[have] = '\0';
		if (head_len == 0) {
			const char *end = strstr(r->response, "\r\n\r\n");
			if (end == NULL)
				continue;
			head_len = (size_t)(end - r->response) + 4;
			uint64_t length;
			status = http_response_status(r->response, head_len, &length);
			if (status < 0 || length == 0) {
				snprintf(err, errlen, "replay: answer without a status or a Content-Length");
				return -1;
			}
			total = head_len + length;
			if (total >= sizeof(r->response)) {
				snprintf(err, errlen, "replay: answer of %zu bytes is too long", total);
				return -1;
			}
		}
		if (have >= total)
			break;
	}
	if (have > total) {
		snprintf(err, errlen, "replay: %zu bytes after the answer", have - total);
		return -1;
	}
	if (status != 200) {
		snprintf(err, errlen, "replay: answer %.40s", r->response);
		return -1;
	}
	const char *conn = http_header_value(r->response, head_len, "Connection", &vlen);
	if (conn != NULL && vlen == 5 && strncasecmp(conn, "close", 5) == 0) {
		snprintf(err, errlen, "replay: the broker closes the connection");
		return -1;
	}
	if (expect != NULL) {
		char want[64];
		snprintf(want, sizeof(want), "method>%s</", expect);
		if (strstr(r->response + head_len, want) == NULL) {
			snprintf(err, errlen, "replay: answer without method %s", expect);
			return -1;
		}
	}
	return 0;
}
