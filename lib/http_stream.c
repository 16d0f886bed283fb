/*
 * http_stream.c: PUT bodies on a gSOAP connection (http_stream.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdsoap2.h>

#include "http_head.h"
#include "http_stream.h"
#include "soap_client.h"

#define RESPONSE_HEAD_MAX 4096

static int
send_all(struct soap *soap, const char *buf, size_t len)
{
	return soap->fsend(soap, buf, len) == SOAP_OK ? 0 : -1;
}

int
http_stream_answer(struct soap *soap, int status, const char *fmt, ...)
{
	char text[1024], head[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof(text) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(text) - 2)
		n = (int)sizeof(text) - 2;
	text[n++] = '\n';
	int h = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	    "Content-Length: %d\r\nConnection: close\r\n\r\n", status,
	    status == 200 ? "OK" : status < 500 ? "Refused" : "Failed", n);
	return send_all(soap, head, (size_t)h) == 0 && send_all(soap, text, (size_t)n) == 0 ?
	    SOAP_OK : SOAP_EOF;
}

/* Read the response: its status, its text (up to msglen) in msg; -1 with msg. */
static int
read_response(struct soap *soap, char *msg, size_t msglen)
{
	char buf[RESPONSE_HEAD_MAX + 1];
	size_t have = 0, head_len = 0;
	while (head_len == 0) {
		if (have == RESPONSE_HEAD_MAX) {
			snprintf(msg, msglen, "the response's head is too long");
			return -1;
		}
		size_t n = soap->frecv(soap, buf + have, RESPONSE_HEAD_MAX - have);
		if (n == 0) {
			snprintf(msg, msglen, "no response (connection closed or timed out)");
			return -1;
		}
		have += n;
		buf[have] = '\0';
		char *end = strstr(buf, "\r\n\r\n");
		if (end != NULL)
			head_len = (size_t)(end + 4 - buf);
	}
	uint64_t length;
	int status = http_response_status(buf, head_len, &length);
	if (status < 0) {
		snprintf(msg, msglen, "not an HTTP response");
		return -1;
	}
	/* the text: what came with the head, then the rest, as much as msg holds */
	size_t want = length < msglen - 1 ? (size_t)length : msglen - 1;
	size_t got = have - head_len < want ? have - head_len : want;
	memcpy(msg, buf + head_len, got);
	while (got < want) {
		size_t n = soap->frecv(soap, msg + got, want - got);
		if (n == 0)
			break;
		got += n;
	}
	msg[got] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	return status;
}

int
http_stream_put(struct soap *soap, const char *url, const char *target, uint64_t length,
    http_stream_source source, void *ctx, uint64_t *sent, char *msg, size_t msglen)
{
	char head[512];
	int status = -1;

	*sent = 0;
	soap_force_closesock(soap); /* a kept-alive SOAP connection carries no PUT */
	soap->error = SOAP_OK;
	soap_set_endpoint(soap, url);
	soap->socket = soap->fopen(soap, url, soap->host, soap->port);
	if (!soap_valid_socket(soap->socket) || soap->error != SOAP_OK) {
		char why[256];
		soap_client_error(soap, why, sizeof(why));
		snprintf(msg, msglen, "%.200s: %s", url, why);
		soap_force_closesock(soap);
		return -1;
	}
	int h = snprintf(head, sizeof(head), "PUT %s HTTP/1.1\r\nHost: %s:%d\r\n"
	    "Content-Type: application/octet-stream\r\nContent-Length: %" PRIu64 "\r\n"
	    "Connection: close\r\n\r\n", target, soap->host, soap->port, length);
	char *block = malloc(HTTP_STREAM_BLOCK); /* per call: callers run in threads */
	if (block == NULL) {
		snprintf(msg, msglen, "out of memory");
		soap_force_closesock(soap);
		return -1;
	}
	bool sending = h > 0 && (size_t)h < sizeof(head) && send_all(soap, head, (size_t)h) == 0;
	while (sending && *sent < length) {
		size_t want = length - *sent < HTTP_STREAM_BLOCK ? (size_t)(length - *sent) :
		    HTTP_STREAM_BLOCK;
		ssize_t n = source(ctx, block, want);
		if (n <= 0) {
			snprintf(msg, msglen, "the source %s after %" PRIu64 " of %" PRIu64 " bytes",
			    n == 0 ? "ended" : "failed", *sent, length);
			soap_force_closesock(soap); /* the receiver sees a short body: refused */
			free(block);
			return -1;
		}
		if (send_all(soap, block, (size_t)n) != 0)
			sending = false;
		else
			*sent += (uint64_t)n;
	}
	free(block);
	/* A receiver that refused part-way answers, then closes: its reason is the message,
	 * when it still arrives; else the sending's failure is. */
	status = read_response(soap, msg, msglen);
	if (status < 0 && !sending) {
		char why[256];
		snprintf(why, sizeof(why), "%s", msg);
		snprintf(msg, msglen, "%.200s: the connection failed after %" PRIu64 " of %" PRIu64
		    " bytes (%s)", url, *sent, length, why);
	}
	soap_force_closesock(soap);
	soap->error = SOAP_OK;
	return status;
}
