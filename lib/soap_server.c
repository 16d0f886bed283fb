/*
 * soap_server.c: the event loop (accepts, TLS handshakes, request reads, the idle set), the
 * bounded queue of complete requests and the worker pool for gSOAP services.
 *
 * Why an event loop in front of the workers: a worker that does the TLS handshake or waits for
 * a request's bytes is held by whoever is slowest. Twelve TCP connections that sent nothing
 * made every request wait 9-10 s (each held a worker for io_timeout); a slow-loris client with
 * any certificate of the grid CA held one for 120 s. Here one thread (the caller of
 * soap_server_run) drives every connection that is not being served: it completes handshakes
 * without blocking, under handshake_timeout, reads each request into a buffer under
 * request_timeout, and only then queues the connection for a worker, which finds the whole
 * request in memory. Workers bound concurrent requests, nothing else. Connections not yet
 * authenticated are capped per source address (the oldest is closed, so that a flood cannot
 * shut out a client whose handshake takes milliseconds) and in total; closes are logged at
 * most once per LOG_LIMIT_EVERY_S seconds per reason with a count.
 */
#define _GNU_SOURCE /* ppoll: the linger is shorter than poll()'s millisecond */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <stdsoap2.h>

#include "config_file.h"
#include "http_head.h"
#include "http_stream.h"
#include "log.h"
#include "log_limit.h"
#include "soap_server.h"
#include "xml_bounds.h"

#define MAX_REQUEST_HEAD 16384   /* bytes of an HTTP request head (httpd's limit is 8-16 KB) */
#define ACCEPT_BATCH 64          /* connections accepted per wake-up before serving events */

/* What a connection is waiting for while the event loop holds it. */
enum intake_stage {
	STAGE_HANDSHAKE, /* TLS handshake not complete: the peer is not authenticated */
	STAGE_REQUEST,   /* authenticated, its request's bytes are arriving */
};

/* One client connection, from accept until it is closed. Between requests a kept-alive
 * connection is parked in the idle set (an epoll set watched by one thread), not on a worker:
 * a worker is busy only while a request is read, handled and answered. */
struct connection {
	struct soap *soap;              /* NULL until the handshake is complete */
	SSL *ssl;                       /* the TLS session until soap takes it over */
	SOAP_SOCKET fd;                 /* the socket until soap takes it over */
	enum intake_stage stage;        /* while in the intake list */
	int in_intake;                  /* in the intake list (event loop only) */
	struct timespec deadline;       /* of the handshake or of the request's arrival */
	struct connection *iprev, *inext; /* the intake list, in arrival order */
	char *pre;                      /* request bytes read by the event loop, served first */
	size_t pre_len, pre_off, pre_cap;
	size_t pre_end;                 /* where the request being served ends in pre: gSOAP shares
					   one buffer for reading and writing, so a pipelined request
					   it had read would be lost when it answers the first */
	size_t (*engine_recv)(struct soap *, char *, size_t); /* gSOAP's own receive */
	int (*engine_send)(struct soap *, const char *, size_t);
	uint64_t sent;                  /* bytes sent on this turn (an answer went out) */
	const char *refusal;            /* answer the request with this 400 instead of serving it */
	int refusal_status;             /* its HTTP status */
	struct xml_bounds xml;          /* the shape of the XML read so far (xml_bounds.h) */
	uintptr_t xml_fed, xml_fed_end; /* the bytes check_xml_bounds saw last (gSOAP's buffer) */
	struct soap_request req;        /* what the handlers see (soap->user) */
	struct soap_server *srv;
	int served;                     /* requests answered on this connection */
	int park;                       /* set after a response: the client keeps the connection */
	int parked;                     /* in the idle set (guarded by srv->lock) */
	struct timespec idle_until;     /* when a parked connection is closed */
	struct connection *prev, *next; /* the idle set in parking order = expiry order */
};

struct soap_server {
	struct soap *master;              /* listening socket and the shared TLS context */
	struct soap_service service;
	struct soap_server_settings settings;
	pthread_t *threads;
	int nthreads;
	int epfd;                         /* the event loop's set: listener, intake, idle */
	struct connection *intake_head, *intake_tail; /* handshaking or reading (event loop only) */
	/* the events epoll_wait returned that the loop has not handled yet (event loop only): a
	 * connection closed meanwhile is taken out of them, lest a later event reach freed memory */
	struct epoll_event *batch;
	int batch_next, batch_len;
	int intake_count;
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct connection **queue;        /* ring buffer of settings.queue connections ready to serve */
	int head, count;
	struct xml_bounds_limits xml_limits; /* from the settings, for each connection's scanner */
	struct connection *idle_head, *idle_tail;
	int idle_count;
	int closing;
	/* settings.max_serving: requests in a handler now, workers waiting for a place (lock) */
	pthread_cond_t place_free;
	int serving, serving_waiters;
};

static volatile sig_atomic_t stop_requested;

void
soap_server_request_stop(void)
{
	stop_requested = 1;
}

int
soap_server_settings_from_config(const struct config *cfg, const char *section,
    struct soap_server_settings *out, char *err, size_t errlen)
{
	char key[CONFIG_KEY_MAX];
	long v;

	memset(out, 0, sizeof(*out));
	snprintf(key, sizeof(key), "%s.listen", section);
	const char *listen = config_get(cfg, key, "127.0.0.1:8443");
	const char *colon = strrchr(listen, ':');
	char *end;
	long port = colon ? strtol(colon + 1, &end, 10) : -1;
	if (colon == NULL || colon == listen || *end != '\0' || port < 0 || port > 65535 ||
	    (size_t)(colon - listen) >= sizeof(out->host)) {
		snprintf(err, errlen, "%s must be host:port, got '%.64s'", key, listen);
		return -1;
	}
	memcpy(out->host, listen, (size_t)(colon - listen));
	out->port = (int)port;
	static const struct {
		const char *name;
		long fallback, min, max;
	} ints[] = {
		{ "workers", 16, 1, 1024 },
		{ "queue", 256, 1, 65536 },
		{ "io_timeout", 30, 1, 3600 },
		{ "transfer_timeout", 120, 1, 86400 },
		{ "max_message", 1024 * 1024, 1024, 256 * 1024 * 1024 },
		{ "max_keep_alive", 1000, 1, 1000000 },
		{ "keep_alive_idle", 5, 1, 3600 },
		{ "max_idle", 1024, 0, 65536 },
		{ "keep_alive_linger_us", 500, 0, 100000 },
		{ "handshake_timeout", 5, 1, 600 },
		{ "request_timeout", 10, 1, 3600 },
		{ "max_unauthenticated_per_address", 16, 1, 65536 },
		{ "max_intake", 4096, 1, 1000000 },
		{ "xml_max_depth", 64, 8, 10000 },
		{ "xml_max_elements", 100000, 16, 10000000 },
		{ "xml_max_attributes", 20000, 16, 10000000 },
		{ "xml_max_element_attributes", 64, 4, 100000 },
		{ "xml_max_namespaces", 64, 4, 100000 },
		{ "xml_max_attribute_names", 256, 4, XML_BOUNDS_NAME_SLOTS / 2 },
		{ "max_serving", 0, 0, 1024 },
	};
	long values[sizeof(ints) / sizeof(ints[0])];
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		snprintf(key, sizeof(key), "%s.%s", section, ints[i].name);
		if (config_get_int(cfg, key, ints[i].fallback, ints[i].min, ints[i].max, &v, err,
			errlen) != 0)
			return -1;
		values[i] = v;
	}
	out->workers = (int)values[0];
	out->queue = (int)values[1];
	out->io_timeout = (int)values[2];
	out->transfer_timeout = (int)values[3];
	out->max_message = (uint64_t)values[4];
	out->max_keep_alive = (int)values[5];
	out->keep_alive_idle = (int)values[6];
	out->max_idle = (int)values[7];
	out->keep_alive_linger_us = (int)values[8];
	out->handshake_timeout = (int)values[9];
	out->request_timeout = (int)values[10];
	out->max_unauthenticated_per_address = (int)values[11];
	out->max_intake = (int)values[12];
	out->xml_max_depth = (int)values[13];
	out->xml_max_elements = values[14];
	out->xml_max_attributes = values[15];
	out->xml_max_element_attributes = values[16];
	out->xml_max_namespaces = values[17];
	out->xml_max_attribute_names = values[18];
	out->max_serving = (int)values[19];
	return 0;
}

struct soap_request *
soap_request_of(struct soap *soap)
{
	return soap->user;
}

static int
soap_fault_va(struct soap *soap, int sender, const char *kind, const char *fmt, va_list ap)
{
	char reason[512], code[64];
	vsnprintf(reason, sizeof(reason), fmt, ap);
	/* A reason often quotes the request (an unknown node, a job id); a control character
	 * there would make the fault invalid XML 1.0, which standard clients cannot read. */
	for (unsigned char *p = (unsigned char *)reason; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	/* gSOAP copies the strings into its per-request memory */
	if (kind != NULL) {
		/* SOAP 1.1 refines a code with dots: the subcode is written as the faultcode */
		snprintf(code, sizeof(code), "SOAP-ENV:Client.%s", kind);
		return soap_sender_fault_subcode(soap, code, reason, NULL);
	}
	if (sender)
		return soap_sender_fault(soap, reason, NULL);
	return soap_receiver_fault(soap, reason, NULL);
}

int
soap_fault_client_kind(struct soap *soap, const char *kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = soap_fault_va(soap, 1, kind, fmt, ap);
	va_end(ap);
	return rc;
}

int
soap_fault_client(struct soap *soap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = soap_fault_va(soap, 1, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int
soap_fault_server(struct soap *soap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = soap_fault_va(soap, 0, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int
soap_require_body(struct soap *soap, const void *body, const char *operation)
{
	if (body != NULL)
		return SOAP_OK;
	return soap_fault_client(soap, "%s: the request element is missing or nil", operation);
}

int
soap_has_control_char(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

int
soap_require_name(struct soap *soap, const char *value, size_t max, const char *what)
{
	if (value == NULL || value[0] == '\0')
		return soap_fault_client(soap, "%s is required", what);
	if (strlen(value) >= max)
		return soap_fault_client(soap, "%s is longer than %zu bytes", what, max - 1);
	if (soap_has_control_char(value))
		return soap_fault_client(soap, "%s must not hold control characters", what);
	return SOAP_OK;
}

/* Limits and modes every connection gets, on the master and on each connection's copy. */
static void
apply_limits(struct soap *soap, const struct soap_server_settings *s)
{
	soap->send_timeout = s->io_timeout;
	soap->recv_timeout = s->io_timeout;
	soap->transfer_timeout = s->transfer_timeout;
	soap->recv_maxlength = s->max_message;
	soap->maxlevel = (unsigned int)s->xml_max_depth;
	soap->accept_timeout = 1;
	soap->bind_flags = SO_REUSEADDR;
}

/* Refusals a flood repeats, each kind rate-limited on its own (log_limit.h). */
static struct log_limit log_per_address = LOG_LIMIT_INITIALIZER,
			log_intake_full = LOG_LIMIT_INITIALIZER,
			log_handshake = LOG_LIMIT_INITIALIZER,
			log_request_late = LOG_LIMIT_INITIALIZER,
			log_bad_head = LOG_LIMIT_INITIALIZER;

static int after_request(struct soap *soap);

static struct connection *
connection_of(struct soap *soap)
{
	return (struct connection *)((char *)soap->user - offsetof(struct connection, req));
}

static void
pre_release(struct connection *c)
{
	free(c->pre);
	c->pre = NULL;
	c->pre_len = c->pre_off = c->pre_cap = c->pre_end = 0;
}

/* Room for at least 4 KB more (or want bytes in all) in c->pre; -1 when out of memory. */
static int
pre_reserve(struct connection *c, size_t want)
{
	size_t cap = c->pre_cap ? c->pre_cap : 8192;
	while (cap - c->pre_len < 4096)
		cap *= 2;
	if (want > cap)
		cap = want;
	if (cap == c->pre_cap)
		return 0;
	char *p = realloc(c->pre, cap);
	if (p == NULL)
		return -1;
	c->pre = p;
	c->pre_cap = cap;
	return 0;
}

/* Read what has arrived on c's TLS session into c->pre without blocking. 1 when the session
 * has nothing more now (or, with one_record, after one record: the socket may hold more, which
 * poll still shows), 0 when it wants to write, -1 when it is closed or broken. */
static int
pre_read(struct connection *c, SSL *ssl, bool one_record)
{
	for (;;) {
		if (pre_reserve(c, 0) != 0)
			return -1;
		int n = SSL_read(ssl, c->pre + c->pre_len, (int)(c->pre_cap - c->pre_len));
		if (n > 0) {
			c->pre_len += (size_t)n;
			if (one_record && SSL_pending(ssl) == 0)
				return 1;
			continue;
		}
		int e = SSL_get_error(ssl, n);
		return e == SSL_ERROR_WANT_READ ? 1 : e == SSL_ERROR_WANT_WRITE ? 0 : -1;
	}
}

static int
pre_fill(struct connection *c, SSL *ssl)
{
	return pre_read(c, ssl, false);
}

/* Write all of buf on a non-blocking TLS session, waiting at most timeout_s for room. */
static void
ssl_write_all(SSL *ssl, int fd, const char *buf, size_t len, int timeout_s)
{
	while (len > 0) {
		int n = SSL_write(ssl, buf, (int)len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		int e = SSL_get_error(ssl, n);
		struct pollfd p = { .fd = fd, .events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT };
		if ((e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) ||
		    poll(&p, 1, timeout_s * 1000) <= 0)
			return;
	}
}

static void
connection_close(struct connection *c)
{
	if (c->soap != NULL) {
		/* Send TLS close_notify but do not wait for the client's: gSOAP's close would wait
		 * up to 5 s for it, and an idle client that is not reading never sends it (the idle
		 * thread closing expired connections must not stall). */
		if (c->soap->ssl != NULL) {
			SSL_shutdown(c->soap->ssl);
			SSL_set_shutdown(c->soap->ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
		}
		soap_destroy(c->soap);
		soap_end(c->soap);
		soap_force_closesock(c->soap);
		c->soap->user = NULL;
		soap_free(c->soap);
	} else {
		if (c->ssl != NULL)
			SSL_free(c->ssl);
		if (soap_valid_socket(c->fd))
			close(c->fd);
	}
	pre_release(c);
	free(c);
}

/* Whether a place among settings.max_serving is free for new work: long polls that have
 * waited and want theirs back come first. */
static int
place_free_for_work(const struct soap_server *srv)
{
	return srv->settings.max_serving <= 0 ||
	    srv->serving + srv->serving_waiters < srv->settings.max_serving;
}

/* Whether a worker may take a connection now. */
static int
may_pop(const struct soap_server *srv)
{
	return srv->count > 0 && place_free_for_work(srv);
}

/* Give a place among settings.max_serving back (lock held): to a long poll that has waited for
 * its own, first; else, with wake_worker, to a worker for a queued request. */
static void
place_return_locked(struct soap_server *srv, int wake_worker)
{
	srv->serving--;
	if (srv->serving_waiters > 0)
		pthread_cond_signal(&srv->place_free);
	else if (wake_worker && srv->count > 0)
		pthread_cond_signal(&srv->not_empty);
}

/* The next connection to serve, with a place among settings.max_serving: the worker keeps it
 * for its whole turn and gives it back at its next pop (had_place), so a worker going on to
 * the next queued request wakes nobody. -1 once closing. */
static int
queue_pop(struct soap_server *srv, struct connection **out, int had_place)
{
	pthread_mutex_lock(&srv->lock);
	/* This worker takes its place again itself: waking another for it would only send that
	 * one back to sleep. */
	if (had_place && srv->settings.max_serving > 0)
		place_return_locked(srv, 0);
	while (!may_pop(srv) && !srv->closing)
		pthread_cond_wait(&srv->not_empty, &srv->lock);
	if (srv->count == 0) {
		pthread_mutex_unlock(&srv->lock);
		return -1;
	}
	*out = srv->queue[srv->head];
	srv->head = (srv->head + 1) % srv->settings.queue;
	srv->count--;
	if (srv->settings.max_serving > 0)
		srv->serving++;
	pthread_cond_signal(&srv->not_full);
	pthread_mutex_unlock(&srv->lock);
	return 0;
}

/* Hand c to a worker; waits while the queue is full (the event loop then stops accepting and
 * the kernel's backlog pushes back on clients). Returns -1, c untouched, once closing. */
static int
queue_push(struct soap_server *srv, struct connection *c)
{
	pthread_mutex_lock(&srv->lock);
	while (srv->count == srv->settings.queue && !stop_requested && !srv->closing)
		pthread_cond_wait(&srv->not_full, &srv->lock);
	if (srv->closing || srv->count == srv->settings.queue) {
		pthread_mutex_unlock(&srv->lock);
		return -1;
	}
	srv->queue[(srv->head + srv->count) % srv->settings.queue] = c;
	srv->count++;
	if (place_free_for_work(srv)) /* else a worker giving its place back takes it */
		pthread_cond_signal(&srv->not_empty);
	pthread_mutex_unlock(&srv->lock);
	return 0;
}

/* Whether c->pre holds a whole request (moved to the front of the buffer first). READY sets
 * pre_end, and a refusal for a POST whose body is not XML (gSOAP would close without an
 * answer). */
static enum http_request_state
pre_examine(struct soap_server *srv, struct connection *c)
{
	struct http_request_shape shape;

	if (c->pre_off > 0) {
		memmove(c->pre, c->pre + c->pre_off, c->pre_len - c->pre_off);
		c->pre_len -= c->pre_off;
		c->pre_off = 0;
	}
	c->refusal = NULL;
	c->pre_end = 0;
	enum http_request_state st = http_request_examine(c->pre, c->pre_len, MAX_REQUEST_HEAD,
	    srv->settings.max_message, &shape);
	if (st == HTTP_REQUEST_INCOMPLETE && shape.total_len > 0)
		(void)pre_reserve(c, shape.total_len); /* once, not by doubling; pre_fill retries */
	if (st != HTTP_REQUEST_READY)
		return st;
	c->pre_end = shape.body_streams ? c->pre_len : shape.total_len;
	if (!shape.body_streams && c->pre_len >= 5 && memcmp(c->pre, "POST ", 5) == 0 &&
	    !http_body_looks_like_xml(c->pre + shape.head_len, shape.total_len - shape.head_len)) {
		c->refusal = "the request body is not XML";
		c->refusal_status = 400;
	}
	return st;
}

/* gSOAP's receive, served from the bytes the event loop read first; every byte gSOAP reads
 * also passes the XML bounds (fpreparerecv sees them after HTTP de-chunking). */
static size_t
prebuffered_recv(struct soap *soap, char *buf, size_t len)
{
	struct connection *c = connection_of(soap);
	if (c->pre_off < c->pre_end) {
		size_t n = c->pre_end - c->pre_off < len ? c->pre_end - c->pre_off : len;
		memcpy(buf, c->pre + c->pre_off, n);
		c->pre_off += n;
		if (c->pre_off == c->pre_len)
			pre_release(c);
		return n;
	}
	if (c->pre_off < c->pre_len)
		return 0; /* the next request's bytes: this one ends here */
	return c->engine_recv(soap, buf, len);
}

/* gSOAP's timeout for one wait, in milliseconds for poll(): positive in seconds, negative in
 * microseconds (its convention), 0 for none. */
static int
soap_timeout_ms(int timeout)
{
	long long ms = timeout > 0 ? timeout * 1000LL : (-(long long)timeout + 999) / 1000;
	return timeout == 0 ? -1 : ms > INT_MAX ? INT_MAX : (int)ms;
}

ssize_t
soap_server_body_recv(struct soap *soap, char *buf, size_t len)
{
	struct connection *c = connection_of(soap);
	if (c->pre_off < c->pre_end) {
		size_t n = prebuffered_recv(soap, buf, len);
		return (ssize_t)n;
	}
	if (c->pre_off < c->pre_len || soap->ssl == NULL)
		return 0; /* the next request's bytes, or no session */
	/* The socket does not block (the event loop's): wait for TLS as tls_send_all does,
	 * at most recv_timeout each time. */
	for (;;) {
		ERR_clear_error();
		int n = SSL_read(soap->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
		if (n > 0)
			return n;
		int e = SSL_get_error(soap->ssl, n);
		if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ)
			return 0;
		struct pollfd p = { .fd = soap->socket,
			.events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT };
		int r;
		while ((r = poll(&p, 1, soap_timeout_ms(soap->recv_timeout))) < 0 && errno == EINTR)
			;
		if (r <= 0)
			return 0;
	}
}

ssize_t
soap_server_body_fill(struct soap *soap, char *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = soap_server_body_recv(soap, buf + got, len - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Write all of buf on the connection's TLS session (its socket does not block). gSOAP's own send
 * calls select() before every write to honour send_timeout: one system call per response,
 * for nothing, since the socket nearly always has room (bench/broker/README.md, the profile).
 * This writes first and polls, at most send_timeout each time, only when TLS asks to. */
static int
tls_send_all(struct soap *soap, const char *buf, size_t len)
{
	while (len > 0) {
		ERR_clear_error(); /* SSL_get_error reads the thread's queue: only this write's */
		int n = SSL_write(soap->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		int e = SSL_get_error(soap->ssl, n);
		if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) {
			soap->errnum = e == SSL_ERROR_SYSCALL ? errno : 0;
			return SOAP_EOF;
		}
		struct pollfd p = { .fd = soap->socket,
			.events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT };
		int r;
		while ((r = poll(&p, 1, soap_timeout_ms(soap->send_timeout))) < 0 && errno == EINTR)
			;
		if (r <= 0) { /* timed out (a client that stopped reading) or poll failed */
			soap->errnum = r < 0 ? errno : 0;
			return SOAP_EOF;
		}
	}
	return SOAP_OK;
}

static int
counted_send(struct soap *soap, const char *buf, size_t len)
{
	struct connection *c = connection_of(soap);
	c->sent += len;
	return soap->ssl != NULL ? tls_send_all(soap, buf, len) : c->engine_send(soap, buf, len);
}

/* SOAP_OK while the XML read so far is within bounds; else the error that stops gSOAP. */
static int
check_xml_bounds(struct soap *soap, const char *buf, size_t len)
{
	struct connection *c = connection_of(soap);
	/* gSOAP shows the bytes after the HTTP head twice: once as read, with the head, and again
	 * from where the body starts once it has parsed the head (stdsoap2.c, soap_begin_recv).
	 * Counted twice, a body longer than that first read (a 512 KiB WriteInput) left the
	 * scanner one element deep for good, and every later request on the connection added to
	 * its counts until one was refused. A call that ends where the last one ended, inside
	 * its bytes, is that second look and has been scanned. */
	uintptr_t from = (uintptr_t)buf, to = from + len;
	if (from > c->xml_fed && from < c->xml_fed_end && to == c->xml_fed_end)
		return SOAP_OK;
	c->xml_fed = from;
	c->xml_fed_end = to;
	if (xml_bounds_feed(&c->xml, buf, len) == 0)
		return SOAP_OK;
	c->refusal = c->xml.exceeded;
	c->refusal_status = 413;
	/* gSOAP's fault then names the bound, not a generic validation error */
	return soap_set_sender_error(soap, c->refusal, NULL, SOAP_LENGTH);
}

/* Give c its gSOAP context once TLS is up: the soap takes over the socket and the session. */
static int
connection_attach_soap(struct soap_server *srv, struct connection *c)
{
	if ((c->soap = soap_copy(srv->master)) == NULL)
		return -1;
	/* A fork()ed child must not inherit the listener: connections never use it. */
	c->soap->master = SOAP_INVALID_SOCKET;
	c->soap->socket = c->fd;
	c->soap->ssl = c->ssl;
	c->soap->imode |= SOAP_ENC_SSL;
	c->soap->omode |= SOAP_ENC_SSL;
	c->fd = SOAP_INVALID_SOCKET;
	c->ssl = NULL;
	c->soap->user = &c->req;
	c->soap->fserveloop = after_request;
	c->engine_recv = c->soap->frecv;
	c->engine_send = c->soap->fsend;
	c->soap->frecv = prebuffered_recv;
	c->soap->fsend = counted_send;
	c->soap->fpreparerecv = check_xml_bounds;
	xml_bounds_init(&c->xml, &srv->xml_limits);
	c->xml_fed = c->xml_fed_end = 0;
	return 0;
}

static SSL *
connection_ssl(struct connection *c)
{
	return c->soap != NULL ? c->soap->ssl : c->ssl;
}

static int
connection_socket(struct connection *c)
{
	return c->soap != NULL ? c->soap->socket : c->fd;
}

/* A short answer from the event loop (the socket does not block; a client that does not read
 * it loses it): for a refused or late request, so that no client is left with silence. */
static void
connection_answer_now(struct connection *c, int status, const char *reason)
{
	char response[512];
	const char *text = status == 408 ? "Request Timeout" :
	    status == 431 ? "Request Header Fields Too Large" : "Bad Request";
	int n = snprintf(response, sizeof(response),
	    "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s\n", status, text, strlen(reason) + 1, reason);
	SSL *ssl = connection_ssl(c);
	if (ssl != NULL && n > 0 && (size_t)n < sizeof(response))
		SSL_write(ssl, response, n);
}

/* Answer a request refused before gSOAP parsed it (c->refusal) with a SOAP fault, on a worker. */
static void
connection_answer_refusal(struct connection *c)
{
	static const char envelope[] =
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\">"
	    "<SOAP-ENV:Body><SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode>"
	    "<faultstring>%s</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>\n";
	char body[512], response[1024];
	int status = c->refusal_status ? c->refusal_status : 400;

	/* the reasons are fixed text of this file and xml_bounds.c, without markup */
	int blen = snprintf(body, sizeof(body), envelope, c->refusal);
	int rlen = snprintf(response, sizeof(response),
	    "HTTP/1.1 %d %s\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: %d\r\n"
	    "Connection: close\r\n\r\n%s", status, status == 413 ? "Payload Too Large" :
	    "Bad Request", blen, body);
	if (c->soap->ssl == NULL || !soap_valid_socket(c->soap->socket))
		return;
	if (blen > 0 && rlen > 0 && (size_t)rlen < sizeof(response)) {
		c->sent += (size_t)rlen;
		ssl_write_all(c->soap->ssl, c->soap->socket, response, (size_t)rlen,
		    c->srv->settings.io_timeout);
	}
}

/* Whether a request has already arrived beyond what poll() would show: bytes the event loop
 * read, in gSOAP's read buffer or in OpenSSL's decrypted record. */
static int
input_pending(struct connection *c)
{
	struct soap *soap = c->soap;
	return c->pre_off < c->pre_len || soap->bufidx < soap->buflen ||
	    (soap->ssl != NULL && SSL_pending(soap->ssl) > 0);
}

/* Whether other connections' requests wait: in the queue for a worker, or on a worker for a
 * place among max_serving. */
static int
requests_queued(struct soap_server *srv)
{
	pthread_mutex_lock(&srv->lock);
	int queued = srv->count > 0 || srv->serving_waiters > 0;
	pthread_mutex_unlock(&srv->lock);
	return queued;
}

/* A long poll's place among settings.max_serving, given back while it waits and taken again
 * after: more workers than places cover long polls without more requests than places
 * competing for the CPUs. */
static void
place_take(struct soap_server *srv)
{
	if (srv->settings.max_serving <= 0)
		return;
	pthread_mutex_lock(&srv->lock);
	srv->serving_waiters++;
	while (srv->serving >= srv->settings.max_serving)
		pthread_cond_wait(&srv->place_free, &srv->lock);
	srv->serving_waiters--;
	srv->serving++;
	pthread_mutex_unlock(&srv->lock);
}

static void
place_give(struct soap_server *srv)
{
	if (srv->settings.max_serving <= 0)
		return;
	pthread_mutex_lock(&srv->lock);
	place_return_locked(srv, 1);
	pthread_mutex_unlock(&srv->lock);
}

void
soap_server_wait_begin(struct soap *soap)
{
	place_give(connection_of(soap)->srv);
}

void
soap_server_wait_end(struct soap *soap)
{
	place_take(connection_of(soap)->srv);
}

/* Whether the client's next request is here, or comes within keep_alive_linger_us: a client
 * calling back to back then stays on this worker, without two thread hand-offs per request
 * through the idle set; an idle one costs the worker only that long. The worker lingers only
 * while no other request waits for it: with more busy clients than workers, lingering would
 * keep each worker on its own few clients and starve the queued ones (measured at 64 clients
 * on 4 workers: the slowest call waited the whole 6 s run). */
static int
next_request_soon(struct soap_server *srv, struct connection *c)
{
	if (input_pending(c))
		return 1;
	if (srv->settings.keep_alive_linger_us <= 0 || requests_queued(srv))
		return 0;
	struct pollfd p = { .fd = c->soap->socket, .events = POLLIN };
	struct timespec wait = { 0, (long)srv->settings.keep_alive_linger_us * 1000L };
	return ppoll(&p, 1, &wait, NULL) > 0;
}

static void
timespec_after(struct timespec *t, int seconds)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += seconds;
}

static int
timespec_reached(const struct timespec *t, const struct timespec *now)
{
	return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

static long long
ms_until(const struct timespec *t, const struct timespec *now)
{
	return (long long)(t->tv_sec - now->tv_sec) * 1000 + (t->tv_nsec - now->tv_nsec) / 1000000;
}

static void
idle_unlink(struct soap_server *srv, struct connection *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		srv->idle_head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		srv->idle_tail = c->prev;
	c->prev = c->next = NULL;
	c->parked = 0;
	srv->idle_count--;
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, c->soap->socket, NULL);
}

/* Put c in the idle set until its client sends the next request or keep_alive_idle passes.
 * Returns -1 (the caller closes c) when the set is full or the server is closing. */
static int
connection_park(struct soap_server *srv, struct connection *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.ptr = c };
	int rc = -1;
	pthread_mutex_lock(&srv->lock);
	if (!srv->closing && srv->idle_count < srv->settings.max_idle) {
		timespec_after(&c->idle_until, srv->settings.keep_alive_idle);
		if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, c->soap->socket, &ev) == 0) {
			c->prev = srv->idle_tail;
			c->next = NULL;
			if (srv->idle_tail != NULL)
				srv->idle_tail->next = c;
			else
				srv->idle_head = c;
			srv->idle_tail = c;
			c->parked = 1;
			srv->idle_count++;
			rc = 0;
		} else {
			log_warn("connection from %s: cannot wait for its next request: %s",
			    c->req.peer_address, strerror(errno));
		}
	}
	pthread_mutex_unlock(&srv->lock);
	return rc;
}

/* gSOAP's generated serve loop calls this after each response on a connection. The loop frees
 * nothing between keep-alive requests, so it frees here; and it ends the loop so that the
 * worker parks a kept-alive connection instead of blocking on its next request. */
static int
after_request(struct soap *soap)
{
	struct connection *c = connection_of(soap);
	soap_destroy(soap);
	soap_end(soap);
	c->served++;
	c->park = !stop_requested && soap->keep_alive && soap_valid_socket(soap->socket) &&
	    c->served < c->srv->settings.max_keep_alive;
	soap->keep_alive = 0; /* leaves the loop, the socket stays open */
	return SOAP_OK;
}

/*
 * The connection's last request under max_keep_alive: its answer must say "Connection: close".
 * Closing after an answer that announced keep-alive loses the request a busy client has already
 * sent on the connection: it is reset unread (TcpExtTCPAbortOnData), and a front-end's Resolve
 * failed with "End of file or no input" once every max_keep_alive requests.
 */
static void
last_request_closes(struct soap *soap)
{
	soap_clr_imode(soap, SOAP_IO_KEEPALIVE);
	soap_clr_omode(soap, SOAP_IO_KEEPALIVE);
}

/* A certificate the handshake could not verify: tell the client why (tls_send_refusal reads
 * its request first, so it runs here on a worker, bounded by its own short waits). */
static void
connection_refuse_certificate(struct soap_server *srv, struct connection *c)
{
	const char *refused = tls_refusal_reason(c->soap);
	log_warn("refusing %s: its certificate: %s", c->req.peer_address, refused);
	tls_send_refusal(c->soap, refused, srv->settings.max_message);
}

/* Hand a PUT to the service's put hook (soap_service.put), past gSOAP: its body is bytes,
 * not XML. 1 when it was one and the hook answered; 0 for any other request, or with
 * c->refusal for a PUT without a usable length. The connection closes after it (park 0). */
static int
serve_put(struct soap_server *srv, struct connection *c)
{
	struct http_request_shape shape;
	char target[HTTP_STREAM_TARGET_MAX];
	uint64_t length;
	const char *req = c->pre + c->pre_off;
	if (srv->service.put == NULL || c->pre_end - c->pre_off < 4 || memcmp(req, "PUT ", 4) != 0 ||
	    http_request_examine(req, c->pre_len - c->pre_off, MAX_REQUEST_HEAD,
		srv->settings.max_message, &shape) != HTTP_REQUEST_READY)
		return 0;
	if (http_put_request(req, shape.head_len, target, sizeof(target), &length) != 1) {
		c->refusal = "a PUT needs a Content-Length, no Transfer-Encoding or Expect, and a "
		    "target of at most 255 bytes";
		c->refusal_status = 411;
		return 0;
	}
	c->pre_off += shape.head_len;
	srv->service.put(c->soap, target, length);
	soap_destroy(c->soap);
	soap_end(c->soap);
	return 1;
}

/* Serve the request in c->pre (or refuse it, c->refusal), always with an answer. */
static void
serve_request(struct soap_server *srv, struct connection *c)
{
	int had_request = c->pre_end > c->pre_off;

	c->sent = 0;
	c->park = 0;
	if (c->refusal == NULL && serve_put(srv, c))
		return;
	if (c->refusal == NULL) {
		if (c->served + 1 >= srv->settings.max_keep_alive)
			last_request_closes(c->soap);
		srv->service.serve(c->soap); /* faults are sent by gSOAP; park stays 0 after one */
		/* nothing more to say when the answer went out, or the client is gone (gSOAP
		 * then closed the connection: a long poll whose client closed) */
		if (c->sent > 0 || !had_request || c->soap->ssl == NULL ||
		    !soap_valid_socket(c->soap->socket))
			return;
		/* gSOAP sends no fault for a message that ends early (SOAP_EOF): no silence */
		if (c->refusal == NULL) {
			c->refusal = "the request is not a complete SOAP message";
			c->refusal_status = 400;
		}
	}
	log_warn("refusing a request from %s (%s): %s", c->req.peer_address, c->req.peer_dn,
	    c->refusal);
	connection_answer_refusal(c);
	c->park = 0;
}

/* A worker's turn with a connection: serve what the client has sent, then park or close. */
static void
serve_turn(struct soap_server *srv, struct connection *c, void *worker_state)
{
	if (c->req.peer_dn[0] == '\0') {
		connection_refuse_certificate(srv, c);
		connection_close(c);
		return;
	}
	c->req.worker_state = worker_state;
	for (;;) {
		serve_request(srv, c);
		if (!c->park || !next_request_soon(srv, c))
			break;
		/* The next request is here or coming (pipelined, or a client calling back to
		 * back): serve it if it is whole, else the event loop waits for the rest. A
		 * request usually comes in one TLS record: one read first, and reading on only
		 * when it is not whole, saves the read() per request that would find nothing. */
		if (pre_read(c, c->soap->ssl, true) < 0) {
			c->park = 0;
			break;
		}
		enum http_request_state st = pre_examine(srv, c);
		if (st == HTTP_REQUEST_INCOMPLETE) {
			if (pre_fill(c, c->soap->ssl) < 0) {
				c->park = 0;
				break;
			}
			st = pre_examine(srv, c);
		}
		if (st == HTTP_REQUEST_READY)
			continue;
		if (st == HTTP_REQUEST_INCOMPLETE)
			break;
		c->refusal = st == HTTP_REQUEST_HEAD_TOO_LARGE ? "the request head is too large" :
		    "not an HTTP/1.x request";
		c->refusal_status = 400;
		serve_request(srv, c);
		break;
	}
	if (!c->park || connection_park(srv, c) != 0)
		connection_close(c);
}

static void *
worker_main(void *arg)
{
	struct soap_server *srv = arg;
	void *state = NULL;
	struct connection *c;

	if (srv->service.worker_init && (state = srv->service.worker_init(srv->service.app)) == NULL)
		fatal("worker: could not initialise its state");
	int had_place = 0;
	while (queue_pop(srv, &c, had_place) == 0) {
		serve_turn(srv, c, state);
		had_place = 1;
	}
	if (srv->service.worker_fini)
		srv->service.worker_fini(state);
	return NULL;
}

/* --- the event loop's intake: handshakes and request reads --------------------------------- */

static void
intake_unlink(struct soap_server *srv, struct connection *c)
{
	if (c->iprev != NULL)
		c->iprev->inext = c->inext;
	else
		srv->intake_head = c->inext;
	if (c->inext != NULL)
		c->inext->iprev = c->iprev;
	else
		srv->intake_tail = c->iprev;
	c->iprev = c->inext = NULL;
	c->in_intake = 0;
	srv->intake_count--;
	epoll_ctl(srv->epfd, EPOLL_CTL_DEL, connection_socket(c), NULL);
}

static void
intake_append(struct soap_server *srv, struct connection *c)
{
	c->iprev = srv->intake_tail;
	c->inext = NULL;
	if (srv->intake_tail != NULL)
		srv->intake_tail->inext = c;
	else
		srv->intake_head = c;
	srv->intake_tail = c;
	c->in_intake = 1;
	srv->intake_count++;
}

/* Watch c's socket for what its TLS session wants next (level-triggered, one owner: the loop). */
static int
intake_watch(struct soap_server *srv, struct connection *c, int want_write, int op)
{
	struct epoll_event ev = { .events = (want_write ? EPOLLOUT : EPOLLIN) | EPOLLRDHUP,
		.data.ptr = c };
	return epoll_ctl(srv->epfd, op, connection_socket(c), &ev);
}

/* What an event of a connection closed earlier in the same batch points at: skipped. */
static char batch_forgotten;

/* Take c out of the batch's events not handled yet. A connection can be closed while it has one
 * there: intake_cap_address closes another address's oldest handshake when the listener's event
 * comes first, and that connection's own event may follow. */
static void
batch_forget(struct soap_server *srv, const struct connection *c)
{
	for (int i = srv->batch_next; srv->batch != NULL && i < srv->batch_len; i++)
		if (srv->batch[i].data.ptr == c)
			srv->batch[i].data.ptr = &batch_forgotten;
}

static void
intake_drop(struct soap_server *srv, struct connection *c)
{
	intake_unlink(srv, c);
	batch_forget(srv, c);
	connection_close(c);
}

/* The connection leaves the event loop for a worker. */
static void
intake_hand_over(struct soap_server *srv, struct connection *c)
{
	intake_unlink(srv, c);
	if (c->soap == NULL && connection_attach_soap(srv, c) != 0) {
		log_error("connection from %s: out of memory", c->req.peer_address);
		connection_close(c);
		return;
	}
	if (queue_push(srv, c) != 0)
		connection_close(c);
}

/* Read what the client sent into c->pre; hand the connection over once a request is whole. */
static void
intake_read_request(struct soap_server *srv, struct connection *c)
{
	int r = pre_fill(c, connection_ssl(c));
	/* A PUT whose client went away mid-body still goes to its hook: the bytes so far may
	 * have started something (a node's receiver) that the hook must stop. */
	if (r < 0 && c->pre_len >= 4 && memcmp(c->pre, "PUT ", 4) == 0 &&
	    pre_examine(srv, c) == HTTP_REQUEST_READY) {
		intake_hand_over(srv, c);
		return;
	}
	if (r < 0) {
		/* closed (a pool's idle connection, a client that gave up), broken, or no memory */
		log_debug("connection from %s closed before a whole request", c->req.peer_address);
		intake_drop(srv, c);
		return;
	}
	switch (pre_examine(srv, c)) {
	case HTTP_REQUEST_INCOMPLETE:
		intake_watch(srv, c, r == 0, EPOLL_CTL_MOD);
		return;
	case HTTP_REQUEST_HEAD_TOO_LARGE:
		log_limited(&log_bad_head, "refusing %s (%s): a request head over %d bytes",
		    c->req.peer_address, c->req.peer_dn, MAX_REQUEST_HEAD);
		connection_answer_now(c, 431, "the request head is too large");
		intake_drop(srv, c);
		return;
	case HTTP_REQUEST_BAD_HEAD:
		log_limited(&log_bad_head, "refusing %s (%s): not an HTTP request",
		    c->req.peer_address, c->req.peer_dn);
		connection_answer_now(c, 400, "not an HTTP/1.x request");
		intake_drop(srv, c);
		return;
	case HTTP_REQUEST_READY:
		intake_hand_over(srv, c);
		return;
	}
}

/* The peer is authenticated: read its request with request_timeout. */
static void
intake_start_request(struct soap_server *srv, struct connection *c)
{
	c->stage = STAGE_REQUEST;
	timespec_after(&c->deadline, srv->settings.request_timeout);
	intake_read_request(srv, c);
}

/* One step of a TLS handshake; once complete, the peer's identity, then its request. */
static void
intake_handshake(struct soap_server *srv, struct connection *c)
{
	char err[256];

	char byte;
	ssize_t peeked = SSL_get_state(c->ssl) == TLS_ST_BEFORE ?
	    recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) : 1;
	if (peeked == 0 || (peeked < 0 && (errno == ECONNRESET || errno == EPIPE))) {
		/* closed (or reset: a prober that closed at once with SO_LINGER 0, or before we
		 * accepted) before a byte: a port probe (a front-end's, a monitor's), not a failed
		 * handshake worth a warning */
		log_debug("connection from %s closed before the TLS handshake", c->req.peer_address);
		intake_drop(srv, c);
		return;
	}
	ERR_clear_error();
	int r = SSL_do_handshake(c->ssl);
	if (r != 1) {
		int e = SSL_get_error(c->ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			intake_watch(srv, c, e == SSL_ERROR_WANT_WRITE, EPOLL_CTL_MOD);
			return;
		}
		unsigned long code = ERR_peek_last_error();
		log_limited(&log_handshake, "TLS handshake with %s failed: %s",
		    c->req.peer_address, code ? ERR_reason_error_string(code) :
		    "the connection closed");
		intake_drop(srv, c);
		return;
	}
	/* A certificate that failed verification: the worker tells the client why (peer_dn stays
	 * empty). The gSOAP context (over 100 KB) is made only when a request is whole, so that
	 * idle authenticated connections cost the TLS session and nothing more; the identity is
	 * therefore taken here from the session, as tls_peer_identity does from a soap. */
	if (SSL_get_verify_result(c->ssl) != X509_V_OK) {
		intake_hand_over(srv, c);
		return;
	}
	if (tls_chain_end_entity_dn(SSL_get0_verified_chain(c->ssl), c->req.peer_dn,
		sizeof(c->req.peer_dn), err, sizeof(err)) != 0) {
		log_warn("refusing %s: %s", c->req.peer_address, err);
		c->req.peer_dn[0] = '\0';
		intake_drop(srv, c);
		return;
	}
	log_debug("connection from %s as %s", c->req.peer_address, c->req.peer_dn);
	intake_start_request(srv, c);
}

static void
intake_step(struct soap_server *srv, struct connection *c)
{
	if (c->stage == STAGE_HANDSHAKE)
		intake_handshake(srv, c);
	else
		intake_read_request(srv, c);
}

/* Close what missed its deadline: handshakes after handshake_timeout, requests not whole after
 * request_timeout (a slow-loris client). Milliseconds until the next deadline, at most 1000. */
static int
intake_expire(struct soap_server *srv)
{
	struct timespec now;
	long long wait = 1000;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (struct connection *c = srv->intake_head, *next; c != NULL; c = next) {
		next = c->inext;
		if (!timespec_reached(&c->deadline, &now)) {
			long long left = ms_until(&c->deadline, &now) + 1;
			wait = left < wait ? left : wait;
			continue;
		}
		if (c->stage == STAGE_HANDSHAKE) {
			log_limited(&log_handshake, "closing %s: no TLS handshake within %d s",
			    c->req.peer_address, srv->settings.handshake_timeout);
		} else {
			log_limited(&log_request_late, "closing %s (%s): no whole request within %d s",
			    c->req.peer_address, c->req.peer_dn, srv->settings.request_timeout);
			if (c->pre_len > 0)
				connection_answer_now(c, 408, "the request did not arrive in time");
		}
		intake_drop(srv, c);
	}
	return (int)wait;
}

/* Room for one more unauthenticated connection from address: at most
 * max_unauthenticated_per_address, the oldest closed first. */
static void
intake_cap_address(struct soap_server *srv, const char *address)
{
	struct connection *oldest = NULL;
	int n = 0;
	for (struct connection *c = srv->intake_head; c != NULL; c = c->inext)
		if (c->stage == STAGE_HANDSHAKE && strcmp(c->req.peer_address, address) == 0) {
			if (oldest == NULL)
				oldest = c;
			n++;
		}
	if (n < srv->settings.max_unauthenticated_per_address)
		return;
	log_limited(&log_per_address, "%s has %d connections without a TLS handshake: closing the "
	    "oldest", address, n);
	intake_drop(srv, oldest);
}

static void
format_address(const struct sockaddr_storage *ss, char *out, size_t outlen)
{
	if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, out,
		    (socklen_t)outlen);
	else if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, out,
		    (socklen_t)outlen);
	else
		snprintf(out, outlen, "?");
}

/* Accept what the listener has, and start each connection's handshake in the event loop. */
static void
intake_accept(struct soap_server *srv)
{
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd = accept4(srv->master->master, (struct sockaddr *)&ss, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				log_warn("accept: %s", strerror(errno));
			return;
		}
		if (srv->intake_count >= srv->settings.max_intake) {
			log_limited(&log_intake_full, "%d connections are handshaking or sending "
			    "their request (max_intake): closing a new one", srv->intake_count);
			close(fd);
			continue;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct connection *c = calloc(1, sizeof(*c));
		if (c == NULL || (c->ssl = SSL_new(srv->master->ctx)) == NULL ||
		    SSL_set_fd(c->ssl, fd) != 1) {
			log_error("accept: out of memory; closing the connection");
			if (c != NULL && c->ssl != NULL)
				SSL_free(c->ssl);
			free(c);
			close(fd);
			continue;
		}
		SSL_set_accept_state(c->ssl);
		/* an idle session keeps no read and write buffers (about 34 KB) */
		SSL_set_mode(c->ssl, SSL_MODE_RELEASE_BUFFERS);
		c->fd = fd;
		c->srv = srv;
		c->req.app = srv->service.app;
		format_address(&ss, c->req.peer_address, sizeof(c->req.peer_address));
		intake_cap_address(srv, c->req.peer_address);
		c->stage = STAGE_HANDSHAKE;
		timespec_after(&c->deadline, srv->settings.handshake_timeout);
		intake_append(srv, c);
		if (intake_watch(srv, c, 0, EPOLL_CTL_ADD) != 0) {
			log_warn("connection from %s: cannot watch it: %s", c->req.peer_address,
			    strerror(errno));
			intake_drop(srv, c);
		}
	}
}

/* A parked connection's client sent something (its next request, or its close): read it in the
 * event loop like a new connection's request. */
static void
idle_wake(struct soap_server *srv, struct connection *c)
{
	pthread_mutex_lock(&srv->lock);
	int mine = c->parked;
	if (mine)
		idle_unlink(srv, c);
	pthread_mutex_unlock(&srv->lock);
	if (!mine)
		return;
	intake_append(srv, c);
	if (intake_watch(srv, c, 0, EPOLL_CTL_ADD) != 0) {
		intake_drop(srv, c);
		return;
	}
	intake_start_request(srv, c);
}

/* Close the parked connections whose keep_alive_idle has passed (oldest first: parking order is
 * expiry order, since every connection idles for the same time). Milliseconds until the next
 * expiry, at most 1000. */
static int
idle_expire(struct soap_server *srv)
{
	struct timespec now;
	struct connection *expired = NULL, *c;
	int wait = 1000;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&srv->lock);
	while ((c = srv->idle_head) != NULL && timespec_reached(&c->idle_until, &now)) {
		idle_unlink(srv, c);
		c->next = expired;
		expired = c;
	}
	if (srv->idle_head != NULL) {
		long long left = ms_until(&srv->idle_head->idle_until, &now) + 1;
		wait = left < wait ? (int)left : wait;
	}
	pthread_mutex_unlock(&srv->lock);
	while ((c = expired) != NULL) {
		expired = c->next;
		c->next = NULL;
		/* A request that arrived as the connection expired is served, not reset unread. */
		struct pollfd p = { .fd = c->soap->socket, .events = POLLIN };
		if (poll(&p, 1, 0) > 0) {
			intake_append(srv, c);
			if (intake_watch(srv, c, 0, EPOLL_CTL_ADD) == 0)
				intake_start_request(srv, c);
			else
				intake_drop(srv, c);
			continue;
		}
		log_debug("closing idle connection from %s", c->req.peer_address);
		connection_close(c);
	}
	return wait;
}

int
soap_server_open(struct soap_server **out, const struct soap_server_settings *settings,
    const struct tls_settings *tls, const struct soap_service *service, char *err, size_t errlen)
{
	struct soap_server *srv = calloc(1, sizeof(*srv));
	if (srv == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	srv->settings = *settings;
	srv->service = *service;
	srv->epfd = -1;
	srv->xml_limits = (struct xml_bounds_limits) {
		.elements = (uint32_t)settings->xml_max_elements,
		.attributes = (uint32_t)settings->xml_max_attributes,
		.element_attributes = (uint32_t)settings->xml_max_element_attributes,
		.namespaces = (uint32_t)settings->xml_max_namespaces,
		.attribute_names = (uint32_t)settings->xml_max_attribute_names,
	};
	pthread_mutex_init(&srv->lock, NULL);
	pthread_cond_init(&srv->not_empty, NULL);
	pthread_cond_init(&srv->not_full, NULL);
	pthread_cond_init(&srv->place_free, NULL);
	srv->queue = calloc((size_t)settings->queue, sizeof(*srv->queue));
	srv->threads = calloc((size_t)settings->workers, sizeof(*srv->threads));
	srv->master = soap_new1(SOAP_XML_STRICT | SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
	if (srv->queue == NULL || srv->threads == NULL || srv->master == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	soap_set_namespaces(srv->master, namespaces); /* all services' table, wsdl/qcg_namespaces.c */
	apply_limits(srv->master, settings);
	if (tls_setup_server(srv->master, tls, err, errlen) != 0)
		goto fail;
	if (!soap_valid_socket(soap_bind(srv->master, settings->host, settings->port, 128))) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s", settings->host, settings->port,
		    strerror(srv->master->errnum));
		goto fail;
	}
	int flags = fcntl(srv->master->master, F_GETFL);
	struct epoll_event listener = { .events = EPOLLIN, .data.ptr = NULL };
	if (flags < 0 || fcntl(srv->master->master, F_SETFL, flags | O_NONBLOCK) != 0 ||
	    (srv->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->master->master, &listener) != 0) {
		snprintf(err, errlen, "cannot create the event loop: %s", strerror(errno));
		goto fail;
	}
	for (; srv->nthreads < settings->workers; srv->nthreads++)
		if (pthread_create(&srv->threads[srv->nthreads], NULL, worker_main, srv) != 0) {
			snprintf(err, errlen, "cannot start worker threads");
			goto fail;
		}
	*out = srv;
	return 0;
fail:
	soap_server_close(srv);
	return -1;
}

int
soap_server_port(const struct soap_server *srv)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	if (getsockname(srv->master->master, (struct sockaddr *)&ss, &len) != 0)
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* The event loop: new connections (data.ptr NULL: the listener), intake steps, parked
 * connections' input; deadlines checked on every turn. */
void
soap_server_run(struct soap_server *srv)
{
	struct epoll_event ev[64];
	int wait = 0;

	while (!stop_requested) {
		int n = epoll_wait(srv->epfd, ev, 64, wait);
		if (n < 0 && errno != EINTR)
			log_warn("epoll_wait: %s", strerror(errno));
		srv->batch = ev;
		srv->batch_len = n;
		for (int i = 0; i < n; i++) {
			srv->batch_next = i + 1;
			struct connection *c = ev[i].data.ptr;
			if (c == (void *)&batch_forgotten)
				continue;
			if (c == NULL)
				intake_accept(srv);
			else if (c->in_intake)
				intake_step(srv, c);
			else
				idle_wake(srv, c);
		}
		srv->batch = NULL;
		int a = intake_expire(srv), b = idle_expire(srv);
		wait = a < b ? a : b;
	}
}

void
soap_server_close(struct soap_server *srv)
{
	if (srv == NULL)
		return;
	pthread_mutex_lock(&srv->lock);
	__atomic_store_n(&srv->closing, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&srv->not_empty);
	pthread_cond_broadcast(&srv->not_full);
	pthread_mutex_unlock(&srv->lock);
	for (int i = 0; i < srv->nthreads; i++)
		pthread_join(srv->threads[i], NULL);
	for (int i = 0; i < srv->count; i++)
		connection_close(srv->queue[(srv->head + i) % srv->settings.queue]);
	while (srv->intake_head != NULL)
		intake_drop(srv, srv->intake_head);
	while (srv->idle_head != NULL) {
		struct connection *c = srv->idle_head;
		idle_unlink(srv, c);
		connection_close(c);
	}
	if (srv->epfd >= 0)
		close(srv->epfd);
	if (srv->master) {
		soap_destroy(srv->master);
		soap_end(srv->master);
		soap_free(srv->master);
	}
	free(srv->queue);
	free(srv->threads);
	pthread_mutex_destroy(&srv->lock);
	pthread_cond_destroy(&srv->not_empty);
	pthread_cond_destroy(&srv->not_full);
	pthread_cond_destroy(&srv->place_free);
	free(srv);
}
