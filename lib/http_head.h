/*
 * http_head.h: whether a buffer holds a whole HTTP request, without a socket (the server's
 * intake reads into a buffer and asks this after each read; tests and fuzzers call it on
 * plain bytes).
 */
#ifndef QCG_HTTP_HEAD_H
#define QCG_HTTP_HEAD_H

#include <stddef.h>
#include <stdint.h>

enum http_request_state {
	HTTP_REQUEST_INCOMPLETE, /* read more */
	HTTP_REQUEST_READY,      /* hand it on: head and body are here (or the body streams) */
	HTTP_REQUEST_HEAD_TOO_LARGE,
	HTTP_REQUEST_BAD_HEAD,   /* not an HTTP request line, or a Content-Length that is not one */
};

struct http_request_shape {
	size_t head_len;   /* bytes up to and including the empty line (0 until it is here) */
	size_t total_len;  /* head and Content-Length body; 0 when the body's length is unknown */
	int body_streams;  /* chunked, or the client waits for "100 Continue": the body is read on
			      the worker */
};

/* Look at the first len bytes of a request. A head longer than max_head is refused. A body
 * longer than max_body is left to the SOAP engine, which refuses it with a fault (READY as soon
 * as the head is here). */
enum http_request_state http_request_examine(const char *buf, size_t len, size_t max_head,
    uint64_t max_body, struct http_request_shape *shape);

/* 1 when a whole body (after the head) starts like XML: optional BOM and white space, then '<'.
 * An empty body is not XML. */
int http_body_looks_like_xml(const char *body, size_t len);

#endif
