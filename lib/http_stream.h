/*
 * http_stream.h: file bytes as a plain HTTP PUT body on a service's own mutual-TLS port.
 *
 * Why: a SOAP message carries bytes as base64 inside XML, which gSOAP decodes a byte at a time
 * and the server checks element by element; staging spent 85 % of the front-end's CPU there,
 * and each chunk waited for the previous one to reach the node (bench/stage/README.md). A PUT
 * body is the file's bytes as they are, read and written in blocks, and a relay that writes
 * each block on while the next arrives lets both hops work at once.
 *
 * The connection is the same as for SOAP calls (the client's gSOAP context: its TLS identity,
 * trust, host check and timeouts; on the server, lib/soap_server's handshake, peer DN and
 * intake limits), so staging has no second listener or authentication path. Only a PUT with
 * a Content-Length is taken: the body's end is known, and a short body is an error, never a
 * shorter file. The connection closes after the response.
 */
#ifndef QCG_HTTP_STREAM_H
#define QCG_HTTP_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct soap;

#define HTTP_STREAM_BLOCK (256 * 1024) /* bytes read and written at once */
#define HTTP_STREAM_TARGET_MAX 256    /* bytes of a request target, with the NUL */

/* The targets: a stage-in's bytes for the front-end (the launch id StageIn answered), and a
 * launch's input for a node's helper (the front-end's relay of the former). */
#define HTTP_STREAM_STAGE_IN "/stage-in/"
#define HTTP_STREAM_LAUNCH_INPUT "/launch-input/"

/* Where a PUT's body comes from: up to len bytes into buf; the count (> 0), or 0 when the
 * source ended early, or -1 on an error (the source keeps its own reason). */
typedef ssize_t (*http_stream_source)(void *ctx, char *buf, size_t len);

/* PUT length bytes from source to url's host as target, on a connection of soap's own (its
 * kept-alive one is closed first and after). The response's status (200 on success) with
 * its text in msg; -1 with msg when the connection failed, or the source ended or failed
 * before length bytes (*sent says how many went). */
int http_stream_put(struct soap *soap, const char *url, const char *target, uint64_t length,
    http_stream_source source, void *ctx, uint64_t *sent, char *msg, size_t msglen);

/* Server side, inside a soap_service put hook (which reads the body with
 * soap_server_body_recv): the response: status, and the formatted text as a text/plain body. SOAP_OK, or SOAP_EOF
 * when the client is gone. */
int http_stream_answer(struct soap *soap, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
