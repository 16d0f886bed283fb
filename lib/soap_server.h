/*
 * soap_server.h: the SOAP server plumbing every qcg service shares.
 *
 * One thread (the caller of soap_server_run) runs an event loop (epoll): it accepts, completes
 * TLS handshakes without blocking (handshake_timeout), establishes the peer's identity, and
 * reads each request whole into memory (request_timeout); only then is the connection queued
 * for a fixed pool of worker threads, which serve it with strict XML, bounds on the XML's shape
 * (xml_bounds.h), size limits and timeouts, cleaning gSOAP's per-request memory after every
 * request. A slow or hostile client (silent TCP, slow-loris) therefore holds no worker, only a
 * place in the loop, and connections not yet authenticated are capped per source address.
 * Between the requests of a kept-alive connection the connection waits in the same loop's idle
 * set: idle clients (front-ends' connection pools, say) cost no worker, so the workers bound
 * concurrent requests, and only a long poll holds one while it waits.
 */
#ifndef QCG_SOAP_SERVER_H
#define QCG_SOAP_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"
#include "soap_faults.h"
#include "tls.h"

struct soap;
struct config;

struct soap_server_settings {
	char host[QCG_ADDR_MAX]; /* address to bind, e.g. "127.0.0.1" or "0.0.0.0" */
	int port;                /* 0 picks a free port (see soap_server_port) */
	int workers;             /* threads serving connections */
	int max_serving;         /* requests in a handler at once, 0 = one per worker: a handler
				    that waits (a long poll) gives its place back meanwhile, so
				    workers can cover the waits while the CPUs serve no more than
				    this many requests at a time */
	int queue;               /* accepted connections waiting for a worker */
	int io_timeout;          /* seconds a send or receive may block */
	int transfer_timeout;    /* seconds a whole message may take */
	uint64_t max_message;    /* bytes; larger requests get a fault */
	int max_keep_alive;      /* requests served on one connection */
	int keep_alive_idle;     /* seconds a kept-alive connection may wait for its next
				    request before it is closed */
	int max_idle;            /* kept-alive connections waiting at most; beyond, a connection
				    is closed after its response */
	int keep_alive_linger_us; /* how long a worker waits for the next request on the same
				    connection before it parks it (0: at once) */
	int handshake_timeout;   /* seconds a TLS handshake may take (the event loop's) */
	int request_timeout;     /* seconds an authenticated client may take to send a request */
	int max_unauthenticated_per_address; /* handshaking connections from one address; the
				    oldest is closed beyond */
	int max_intake;          /* connections handshaking or sending requests, at most */
	int xml_max_depth;       /* XML nesting (gSOAP's maxlevel) */
	long xml_max_elements;   /* per request (xml_bounds.h) */
	long xml_max_attributes; /* per request */
	long xml_max_element_attributes; /* per element */
	long xml_max_namespaces; /* xmlns declarations per request */
	long xml_max_attribute_names; /* distinct attribute names per connection */
};

/* What a handler knows about the request it serves; soap->user points to it. */
struct soap_request {
	char peer_dn[QCG_DN_MAX];     /* end-entity DN of the client's verified chain */
	char peer_address[QCG_ADDR_MAX];
	void *worker_state;           /* from the worker_init callback, one per worker thread */
	void *app;                    /* the application's shared state */
};

struct soap_service {
	int (*serve)(struct soap *soap);     /* the generated soap_serve */
	void *(*worker_init)(void *app);     /* per-thread state (e.g. a DB connection); may be NULL */
	void (*worker_fini)(void *state);
	void *app;
	/* A PUT with a Content-Length (lib/http_stream.h), or NULL to leave PUT to gSOAP (as a
	 * POST). Called on a worker with the peer known (soap_request_of), length bytes of body
	 * to read with soap_server_body_recv; it answers with http_stream_answer. The connection
	 * closes after it. */
	int (*put)(struct soap *soap, const char *target, uint64_t length);
};

/* [section] listen (host:port), workers, max_serving, queue, io_timeout, transfer_timeout,
 * max_message, max_keep_alive, keep_alive_idle, max_idle, keep_alive_linger_us, handshake_timeout,
 * request_timeout, max_unauthenticated_per_address, max_intake, xml_max_depth,
 * xml_max_elements, xml_max_attributes, xml_max_element_attributes, xml_max_namespaces,
 * xml_max_attribute_names; defaults suit a small grid. */
int soap_server_settings_from_config(const struct config *cfg, const char *section,
    struct soap_server_settings *out, char *err, size_t errlen);

struct soap_server;
/* Bind and prepare the pool; no connection is accepted until soap_server_run. */
int soap_server_open(struct soap_server **out, const struct soap_server_settings *settings,
    const struct tls_settings *tls, const struct soap_service *service, char *err,
    size_t errlen);
/* The bound port (useful with port 0). */
int soap_server_port(const struct soap_server *srv);
/* Accept and serve until soap_server_request_stop is called (async-signal-safe). */
void soap_server_run(struct soap_server *srv);
void soap_server_request_stop(void);
void soap_server_close(struct soap_server *srv);

/* A handler about to wait (a long poll) gives its place among max_serving back, and takes one
 * again when it has waited: calls in pairs, on the handler's soap. */
void soap_server_wait_begin(struct soap *soap);
void soap_server_wait_end(struct soap *soap);

/* The request context of a handler's soap. */
struct soap_request *soap_request_of(struct soap *soap);
/* Fail a request with a SOAP Client (sender) fault carrying reason; returns the error code
 * for the handler to return. */
int soap_fault_client(struct soap *soap, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, as a Server (receiver) fault. */
int soap_fault_server(struct soap *soap, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A Client fault of a kind callers act on (QCG_FAULT_* in soap_client.h): its SOAP 1.1 code
 * is "SOAP-ENV:Client.KIND", so a client tells the kind without reading the reason's words. */
int soap_fault_client_kind(struct soap *soap, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks of a request's elements. gSOAP hands a handler the document/literal wrapper of its
 * request as a pointer that is NULL when the client sent the wrapper as xsi:nil (Perl
 * SOAP::Lite does for a call without arguments), and any string or struct inside it is NULL
 * when that element was nil or absent: no handler reads one unchecked. Call these after the
 * caller is authorized, unless authorizing needs the element (a job's owner, say). */

/* SOAP_OK when the request element body is there; else a Client fault "OPERATION: the request
 * element is missing or nil" for the handler to return. */
int soap_require_body(struct soap *soap, const void *body, const char *operation);

/* SOAP_OK when value is a usable name or id: 1 to max - 1 bytes, no control character (an id
 * goes into log lines, where a newline forges a line, and into XML answers, where XML 1.0
 * forbids most of them). Else a Client fault naming what, e.g. "GetJob: id is required". */
int soap_require_name(struct soap *soap, const char *value, size_t max, const char *what);

/* 1 when s holds a control character (below 0x20, or 0x7f). */
int soap_has_control_char(const char *s);

/* Inside a put hook: the next bytes of the request's body (at most len), waiting at most the
 * receive timeout for each; 0 when the client closed, broke off or stayed silent that long. */
ssize_t soap_server_body_recv(struct soap *soap, char *buf, size_t len);
/* The same until len bytes are here (a TLS record holds at most 16 KiB: one write per block,
 * not per record, downstream); fewer only when the body ended. */
ssize_t soap_server_body_fill(struct soap *soap, char *buf, size_t len);

#endif
