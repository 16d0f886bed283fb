/*
 * soap_server.c: accept loop, bounded connection queue and worker pool for gSOAP services.
 */
#define _GNU_SOURCE /* ppoll: the linger is shorter than poll()'s millisecond */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <stdbool.h>

#include <openssl/ssl.h>

#include <stdsoap2.h>

#include "config_file.h"
#include "log.h"
#include "soap_server.h"

/* How long a new connection may take to send its first byte before the TLS handshake simply
 * starts (closed_before_sending). */
#define SOAP_SERVER_FIRST_BYTE_WAIT_MS 1000

/* One client connection, from accept until it is closed. Between requests a kept-alive
 * connection is parked in the idle set (an epoll set watched by one thread), not on a worker:
 * a worker is busy only while a request is read, handled and answered. */
struct connection {
	struct soap *soap;              /* NULL until a worker has done the TLS handshake */
	SOAP_SOCKET fd;
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
	pthread_t idle_thread;
	int idle_started;
	int epfd, wakefd;                 /* the idle set; wakefd ends the idle thread's wait */
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct connection **queue;        /* ring buffer of settings.queue connections ready to serve */
	int head, count;
	struct connection *idle_head, *idle_tail;
	int idle_count;
	int closing;
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
	soap->accept_timeout = 1; /* the accept loop wakes every second to notice a stop */
	soap->bind_flags = SO_REUSEADDR;
}

static int after_request(struct soap *soap);

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
	} else if (soap_valid_socket(c->fd)) {
		close(c->fd);
	}
	free(c);
}

static int
queue_pop(struct soap_server *srv, struct connection **out)
{
	pthread_mutex_lock(&srv->lock);
	while (srv->count == 0 && !srv->closing)
		pthread_cond_wait(&srv->not_empty, &srv->lock);
	if (srv->count == 0) {
		pthread_mutex_unlock(&srv->lock);
		return -1;
	}
	*out = srv->queue[srv->head];
	srv->head = (srv->head + 1) % srv->settings.queue;
	srv->count--;
	pthread_cond_signal(&srv->not_full);
	pthread_mutex_unlock(&srv->lock);
	return 0;
}

/* Hand c to a worker; waits while the queue is full (the accept loop then stops accepting and
 * the kernel's backlog pushes back on clients). Returns -1, c untouched, once closing. */
static int
queue_push(struct soap_server *srv, struct connection *c)
{
	pthread_mutex_lock(&srv->lock);
	while (srv->count == srv->settings.queue && !stop_requested && !srv->closing)
		pthread_cond_wait(&srv->not_full, &srv->lock);
	if (srv->closing) {
		pthread_mutex_unlock(&srv->lock);
		return -1;
	}
	srv->queue[(srv->head + srv->count) % srv->settings.queue] = c;
	srv->count++;
	pthread_cond_signal(&srv->not_empty);
	pthread_mutex_unlock(&srv->lock);
	return 0;
}

/* Whether the peer closed without sending a byte. A TLS client sends its hello at once, so
 * waiting for the first byte (or the end) costs it nothing; the wait is bounded, after which
 * the handshake goes on as usual. */
static bool
closed_before_sending(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char byte;

	if (poll(&p, 1, SOAP_SERVER_FIRST_BYTE_WAIT_MS) != 1)
		return false;
	return recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* TLS handshake and the peer's identity, on a worker (a slow or hostile client holds one
 * worker for at most io_timeout, never the accept loop). 0 when the connection may be served. */
static int
connection_handshake(struct soap_server *srv, struct connection *c)
{
	char err[256];

	if ((c->soap = soap_copy(srv->master)) == NULL) {
		log_error("connection from %s: out of memory", c->req.peer_address);
		return -1;
	}
	/* A fork()ed child must not inherit the listener: connections never use it. */
	c->soap->master = SOAP_INVALID_SOCKET;
	c->soap->socket = c->fd;
	c->fd = SOAP_INVALID_SOCKET; /* the soap owns it now */
	c->soap->user = &c->req;
	c->soap->fserveloop = after_request;
	if (closed_before_sending(c->soap->socket)) {
		/* It was checking that the port answers (a front-end's helper probe, a monitor):
		 * not a failed handshake worth a warning. */
		log_debug("connection from %s closed before the TLS handshake (a port probe)",
		    c->req.peer_address);
		return -1;
	}
	int accepted = soap_ssl_accept(c->soap) == SOAP_OK;
	const char *refused = tls_refusal_reason(c->soap);
	if (refused != NULL) {
		log_warn("refusing %s: its certificate: %s", c->req.peer_address, refused);
		tls_send_refusal(c->soap, refused, srv->settings.max_message);
		return -1;
	}
	if (!accepted) {
		soap_sprint_fault(c->soap, err, sizeof(err));
		log_warn("TLS handshake with %s failed: %s", c->req.peer_address, err);
		return -1;
	}
	if (tls_peer_identity(c->soap, c->req.peer_dn, sizeof(c->req.peer_dn), err,
		sizeof(err)) != 0) {
		log_warn("refusing %s: %s", c->req.peer_address, err);
		return -1;
	}
	log_debug("connection from %s as %s", c->req.peer_address, c->req.peer_dn);
	return 0;
}

/* Whether a request has already arrived beyond what poll() would show: bytes in gSOAP's read
 * buffer or in OpenSSL's decrypted record. */
static int
input_pending(struct soap *soap)
{
	return soap->bufidx < soap->buflen || (soap->ssl != NULL && SSL_pending(soap->ssl) > 0);
}

/* Whether the client's next request is here, or comes within keep_alive_linger_us: a client
 * calling back to back then stays on this worker, without two thread hand-offs per request
 * through the idle set; an idle one costs the worker only that long. */
static int
next_request_soon(struct soap_server *srv, struct soap *soap)
{
	if (input_pending(soap))
		return 1;
	if (srv->settings.keep_alive_linger_us <= 0)
		return 0;
	struct pollfd p = { .fd = soap->socket, .events = POLLIN };
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
	struct connection *c = (struct connection *)((char *)soap->user -
	    offsetof(struct connection, req));
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

/* A worker's turn with a connection: serve what the client has sent, then park or close. */
static void
serve_turn(struct soap_server *srv, struct connection *c, void *worker_state)
{
	if (c->soap == NULL && connection_handshake(srv, c) != 0) {
		connection_close(c);
		return;
	}
	c->req.worker_state = worker_state;
	do {
		c->park = 0;
		if (c->served + 1 >= srv->settings.max_keep_alive)
			last_request_closes(c->soap);
		srv->service.serve(c->soap); /* faults are sent by gSOAP; park stays 0 after one */
	} while (c->park && next_request_soon(srv, c->soap));
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
	while (queue_pop(srv, &c) == 0)
		serve_turn(srv, c, state);
	if (srv->service.worker_fini)
		srv->service.worker_fini(state);
	return NULL;
}

/* Milliseconds until the oldest parked connection expires (at most a second, to notice a stop). */
static int
idle_wait_ms(struct soap_server *srv)
{
	struct timespec now;
	int ms = 1000;
	pthread_mutex_lock(&srv->lock);
	if (srv->idle_head != NULL) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long left = (long long)(srv->idle_head->idle_until.tv_sec - now.tv_sec) * 1000 +
		    (srv->idle_head->idle_until.tv_nsec - now.tv_nsec) / 1000000;
		ms = left < 0 ? 0 : left < ms ? (int)left + 1 : ms;
	}
	pthread_mutex_unlock(&srv->lock);
	return ms;
}

/* Close the parked connections whose keep_alive_idle has passed (oldest first: parking order is
 * expiry order, since every connection idles for the same time). */
static void
idle_expire(struct soap_server *srv)
{
	struct timespec now;
	struct connection *expired = NULL, *c;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&srv->lock);
	while ((c = srv->idle_head) != NULL && timespec_reached(&c->idle_until, &now)) {
		idle_unlink(srv, c);
		c->next = expired;
		expired = c;
	}
	pthread_mutex_unlock(&srv->lock);
	while ((c = expired) != NULL) {
		expired = c->next;
		/* A request that arrived as the connection expired is served, not reset unread. */
		struct pollfd p = { .fd = c->soap->socket, .events = POLLIN };
		if (poll(&p, 1, 0) > 0 && queue_push(srv, c) == 0)
			continue;
		log_debug("closing idle connection from %s", c->req.peer_address);
		connection_close(c);
	}
}

/* The idle set's thread: a parked connection with input (a request, or the client's close)
 * goes back to the workers' queue. */
static void *
idle_main(void *arg)
{
	struct soap_server *srv = arg;
	struct epoll_event ev[64];

	while (!__atomic_load_n(&srv->closing, __ATOMIC_ACQUIRE)) {
		int n = epoll_wait(srv->epfd, ev, 64, idle_wait_ms(srv));
		for (int i = 0; i < n; i++) {
			struct connection *c = ev[i].data.ptr;
			if (c == NULL)
				continue; /* wakefd: closing */
			pthread_mutex_lock(&srv->lock);
			int mine = c->parked;
			if (mine)
				idle_unlink(srv, c);
			pthread_mutex_unlock(&srv->lock);
			if (mine && queue_push(srv, c) != 0)
				connection_close(c);
		}
		idle_expire(srv);
	}
	return NULL;
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
	srv->epfd = srv->wakefd = -1;
	pthread_mutex_init(&srv->lock, NULL);
	pthread_cond_init(&srv->not_empty, NULL);
	pthread_cond_init(&srv->not_full, NULL);
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
	struct epoll_event wake = { .events = EPOLLIN, .data.ptr = NULL };
	if ((srv->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (srv->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->wakefd, &wake) != 0) {
		snprintf(err, errlen, "cannot create the idle connection set: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&srv->idle_thread, NULL, idle_main, srv) != 0) {
		snprintf(err, errlen, "cannot start the idle connection thread");
		goto fail;
	}
	srv->idle_started = 1;
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

void
soap_server_run(struct soap_server *srv)
{
	while (!stop_requested) {
		SOAP_SOCKET fd = soap_accept(srv->master);
		if (!soap_valid_socket(fd)) {
			if (srv->master->errnum != 0 && srv->master->errnum != EINTR &&
			    srv->master->errnum != EAGAIN)
				log_warn("accept: %s", strerror(srv->master->errnum));
			continue; /* timeout (to check stop_requested) or a transient error */
		}
		srv->master->socket = SOAP_INVALID_SOCKET; /* the connection owns it now */
		struct connection *c = calloc(1, sizeof(*c));
		if (c == NULL) {
			log_error("accept: out of memory; closing the connection");
			close(fd);
			continue;
		}
		c->fd = fd;
		c->srv = srv;
		c->req.app = srv->service.app;
		snprintf(c->req.peer_address, sizeof(c->req.peer_address), "%.63s", srv->master->host);
		if (queue_push(srv, c) != 0)
			connection_close(c);
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
	if (srv->wakefd >= 0 && eventfd_write(srv->wakefd, 1) != 0)
		log_warn("cannot wake the idle connection thread: %s", strerror(errno));
	if (srv->idle_started)
		pthread_join(srv->idle_thread, NULL);
	for (int i = 0; i < srv->nthreads; i++)
		pthread_join(srv->threads[i], NULL);
	for (int i = 0; i < srv->count; i++)
		connection_close(srv->queue[(srv->head + i) % srv->settings.queue]);
	while (srv->idle_head != NULL) {
		struct connection *c = srv->idle_head;
		idle_unlink(srv, c);
		connection_close(c);
	}
	if (srv->epfd >= 0)
		close(srv->epfd);
	if (srv->wakefd >= 0)
		close(srv->wakefd);
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
	free(srv);
}
