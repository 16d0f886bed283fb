/*
 * http_head.c: find the end of an HTTP request's head and the length of its body.
 */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_head.h"

/* The value of header name (case-insensitive) in head, or NULL; *vlen its length. */
const char *
http_header_value(const char *head, size_t len, const char *name, size_t *vlen)
{
	size_t nlen = strlen(name);
	const char *line = memchr(head, '\n', len);
	while (line != NULL && (size_t)(line + 1 - head) < len) {
		line++;
		const char *eol = memchr(line, '\n', len - (size_t)(line - head));
		if (eol == NULL)
			break;
		if ((size_t)(eol - line) > nlen && line[nlen] == ':' &&
		    strncasecmp(line, name, nlen) == 0) {
			const char *v = line + nlen + 1;
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			const char *end = eol;
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			*vlen = (size_t)(end - v);
			return v;
		}
		line = eol;
	}
	return NULL;
}

static int
value_contains(const char *v, size_t vlen, const char *word)
{
	size_t wlen = strlen(word);
	for (size_t i = 0; i + wlen <= vlen; i++)
		if (strncasecmp(v + i, word, wlen) == 0)
			return 1;
	return 0;
}

enum http_request_state
http_request_examine(const char *buf, size_t len, size_t max_head, uint64_t max_body,
    struct http_request_shape *shape)
{
	memset(shape, 0, sizeof(*shape));
	size_t scan = len < max_head ? len : max_head;
	const char *end = NULL;
	for (size_t i = 3; i < scan; i++)
		if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
			end = buf + i + 1;
			break;
		}
	if (end == NULL)
		return len >= max_head ? HTTP_REQUEST_HEAD_TOO_LARGE : HTTP_REQUEST_INCOMPLETE;
	/* The request line: METHOD SP target SP HTTP/x.y */
	const char *sp = memchr(buf, ' ', (size_t)(end - buf));
	if (sp == NULL || sp == buf || memmem(buf, (size_t)(end - buf), " HTTP/", 6) == NULL)
		return HTTP_REQUEST_BAD_HEAD;
	shape->head_len = (size_t)(end - buf);
	/* A PUT's body is file bytes for the service's put hook, which reads them as they come
	 * (lib/http_stream.h): never held whole, and a body that ends early reaches the hook,
	 * which must undo what the bytes so far started. */
	if (memcmp(buf, "PUT ", 4) == 0) {
		shape->body_streams = 1;
		return HTTP_REQUEST_READY;
	}

	size_t vlen;
	const char *v = http_header_value(buf, shape->head_len, "Transfer-Encoding", &vlen);
	const char *expect = http_header_value(buf, shape->head_len, "Expect", &vlen);
	if ((v != NULL && value_contains(v, vlen, "chunked")) ||
	    (expect != NULL && value_contains(expect, vlen, "100-continue"))) {
		shape->body_streams = 1;
		return HTTP_REQUEST_READY;
	}
	v = http_header_value(buf, shape->head_len, "Content-Length", &vlen);
	uint64_t body = 0;
	if (v != NULL) {
		if (vlen == 0 || vlen > 19)
			return HTTP_REQUEST_BAD_HEAD;
		for (size_t i = 0; i < vlen; i++) {
			if (v[i] < '0' || v[i] > '9')
				return HTTP_REQUEST_BAD_HEAD;
			body = body * 10 + (uint64_t)(v[i] - '0');
		}
	}
	if (body > max_body) {
		shape->body_streams = 1;
		return HTTP_REQUEST_READY;
	}
	shape->total_len = shape->head_len + (size_t)body;
	return len >= shape->total_len ? HTTP_REQUEST_READY : HTTP_REQUEST_INCOMPLETE;
}

int
http_body_looks_like_xml(const char *body, size_t len)
{
	size_t i = 0;
	if (len >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < len && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r' || body[i] == '\n'))
		i++;
	return i < len && body[i] == '<';
}

/* The decimal Content-Length of a head, 0 when absent; -1 when it is not a number. */
static int
content_length(const char *head, size_t len, uint64_t *length)
{
	size_t vlen;
	const char *v = http_header_value(head, len, "Content-Length", &vlen);
	*length = 0;
	if (v == NULL)
		return 0;
	if (vlen == 0 || vlen > 19)
		return -1;
	for (size_t i = 0; i < vlen; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		*length = *length * 10 + (uint64_t)(v[i] - '0');
	}
	return 0;
}

int
http_put_request(const char *head, size_t head_len, char *target, size_t target_max,
    uint64_t *length)
{
	size_t vlen;
	if (head_len < 4 || memcmp(head, "PUT ", 4) != 0)
		return 0;
	const char *t = head + 4, *eol = memchr(head, '\n', head_len);
	const char *sp = eol ? memchr(t, ' ', (size_t)(eol - t)) : NULL;
	if (sp == NULL || sp == t || (size_t)(sp - t) >= target_max)
		return -1;
	const char *v = http_header_value(head, head_len, "Transfer-Encoding", &vlen);
	const char *expect = http_header_value(head, head_len, "Expect", &vlen);
	if (v != NULL || expect != NULL ||
	    http_header_value(head, head_len, "Content-Length", &vlen) == NULL ||
	    content_length(head, head_len, length) != 0)
		return -1;
	memcpy(target, t, (size_t)(sp - t));
	target[sp - t] = '\0';
	return 1;
}

int
http_response_status(const char *head, size_t len, uint64_t *length)
{
	if (len < 13 || memcmp(head, "HTTP/1.", 7) != 0 || head[8] != ' ')
		return -1;
	int status = 0;
	for (int i = 9; i < 12; i++) {
		if (head[i] < '0' || head[i] > '9')
			return -1;
		status = status * 10 + head[i] - '0';
	}
	if (content_length(head, len, length) != 0)
		return -1;
	return status;
}
