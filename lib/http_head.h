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
	int body_streams;  /* chunked, the client waits for "100 Continue", or a PUT: the body is
			      read on the worker */
};

/* Look at the first len bytes of a request. A head longer than max_head is refused. A body
 * longer than max_body is left to the SOAP engine, which refuses it with a fault (READY as soon
 * as the head is here). */
enum http_request_state http_request_examine(const char *buf, size_t len, size_t max_head,
    uint64_t max_body, struct http_request_shape *shape);

/* 1 when a whole body (after the head) starts like XML: optional BOM and white space, then '<'.
 * An empty body is not XML. */
int http_body_looks_like_xml(const char *body, size_t len);

/* A PUT request's target and body length, from its whole head (head_len bytes as
 * http_request_examine measured them): 1 for a PUT with a Content-Length and neither a chunked
 * body nor "Expect: 100-continue" (the streamed bodies of lib/http_stream.h), 0 for any other
 * method, -1 for a PUT without a usable length or with a target longer than target_max - 1. */
int http_put_request(const char *head, size_t head_len, char *target, size_t target_max,
    uint64_t *length);

/* The value of header name (case-insensitive, without the colon) in the first len bytes of a
 * head, or NULL; *vlen its length. */
const char *http_header_value(const char *head, size_t len, const char *name, size_t *vlen);

/* An HTTP response's status and Content-Length (0 when absent) from its whole head (len
 * bytes up to and including the empty line); -1 when it is not an HTTP/1.x status line. */
int http_response_status(const char *head, size_t len, uint64_t *length);

#endif
