/*
 * soap_server.c: accept loop, bounded connection queue and worker pool for gSOAP services.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdsoap2.h>

#include "config_file.h"
#include "log.h"
#include "soap_server.h"

struct pending_connection {
	SOAP_SOCKET fd;
	char address[QCG_ADDR_MAX];
};

struct soap_server {
	struct soap *master;              /* listening socket and the shared TLS context */
	struct soap_service service;
	struct soap_server_settings settings;
	pthread_t *threads;
	int nthreads;
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct pending_connection *queue; /* ring buffer of settings.queue entries */
	int head, count;
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

/* Limits and modes every connection gets, on the master and on each worker's copy. */
static void
apply_limits(struct soap *soap, const struct soap_server_settings *s)
{
	soap->send_timeout = s->io_timeout;
	soap->recv_timeout = s->io_timeout;
	soap->transfer_timeout = s->transfer_timeout;
	soap->recv_maxlength = s->max_message;
	soap->max_keep_alive = s->max_keep_alive;
	soap->accept_timeout = 1; /* the accept loop wakes every second to notice a stop */
	soap->bind_flags = SO_REUSEADDR;
}

static int
queue_pop(struct soap_server *srv, struct pending_connection *out)
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

static void
serve_connection(struct soap_server *srv, struct soap *soap, struct soap_request *req,
    const struct pending_connection *conn)
{
	char err[256];

	soap->socket = conn->fd;
	snprintf(req->peer_address, sizeof(req->peer_address), "%s", conn->address);
	req->peer_dn[0] = '\0';
	int accepted = soap_ssl_accept(soap) == SOAP_OK;
	const char *refused = tls_refusal_reason(soap);
	if (refused != NULL) {
		log_warn("refusing %s: its certificate: %s", conn->address, refused);
		tls_send_refusal(soap, refused, srv->settings.max_message);
		goto done;
	}
	if (!accepted) {
		soap_sprint_fault(soap, err, sizeof(err));
		log_warn("TLS handshake with %s failed: %s", conn->address, err);
		goto done;
	}
	if (tls_peer_identity(soap, req->peer_dn, sizeof(req->peer_dn), err, sizeof(err)) != 0) {
		log_warn("refusing %s: %s", conn->address, err);
		goto done;
	}
	log_debug("connection from %s as %s", conn->address, req->peer_dn);
	soap->recv_timeout = srv->settings.io_timeout; /* after_request shortens it per connection */
	srv->service.serve(soap); /* serves keep-alive requests; faults are sent by gSOAP */
done:
	soap_destroy(soap);
	soap_end(soap);
	soap_force_closesock(soap);
	soap->socket = SOAP_INVALID_SOCKET;
}

/* gSOAP's generated serve loop calls this after each response on a connection. The loop frees
 * nothing between keep-alive requests, so without this a connection's memory grows with every
 * request until it ends; a stop must not wait for clients that keep their connection open; and
 * an idle kept-alive connection holds a worker, so it may idle only keep_alive_idle seconds
 * before it is closed and the worker serves someone else. */
static int
after_request(struct soap *soap)
{
	struct soap_request *req = soap->user;
	soap_destroy(soap);
	soap_end(soap);
	if (stop_requested)
		soap->keep_alive = 0;
	if (req->keep_alive_idle < soap->recv_timeout)
		soap->recv_timeout = req->keep_alive_idle;
	return SOAP_OK;
}

static void *
worker_main(void *arg)
{
	struct soap_server *srv = arg;
	struct soap *soap = soap_copy(srv->master);
	struct soap_request req = { .app = srv->service.app,
		.keep_alive_idle = srv->settings.keep_alive_idle };
	struct pending_connection conn;

	if (soap == NULL)
		fatal("worker: out of memory");
	/* A fork()ed child must not inherit the listener: workers never use it. */
	soap->master = SOAP_INVALID_SOCKET;
	if (srv->service.worker_init && (req.worker_state = srv->service.worker_init(req.app)) == NULL)
		fatal("worker: could not initialise its state");
	soap->user = &req;
	soap->fserveloop = after_request;
	while (queue_pop(srv, &conn) == 0)
		serve_connection(srv, soap, &req, &conn);
	if (srv->service.worker_fini)
		srv->service.worker_fini(req.worker_state);
	soap->user = NULL;
	soap_free(soap);
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

static void
queue_push(struct soap_server *srv, const struct pending_connection *conn)
{
	pthread_mutex_lock(&srv->lock);
	/* Full queue: stop accepting; the kernel's backlog then pushes back on clients. */
	while (srv->count == srv->settings.queue && !stop_requested)
		pthread_cond_wait(&srv->not_full, &srv->lock);
	srv->queue[(srv->head + srv->count) % srv->settings.queue] = *conn;
	srv->count++;
	pthread_cond_signal(&srv->not_empty);
	pthread_mutex_unlock(&srv->lock);
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
		struct pending_connection conn = { .fd = fd };
		snprintf(conn.address, sizeof(conn.address), "%.63s", srv->master->host);
		srv->master->socket = SOAP_INVALID_SOCKET; /* the worker owns it now */
		queue_push(srv, &conn);
	}
}

void
soap_server_close(struct soap_server *srv)
{
	if (srv == NULL)
		return;
	pthread_mutex_lock(&srv->lock);
	srv->closing = 1;
	pthread_cond_broadcast(&srv->not_empty);
	pthread_mutex_unlock(&srv->lock);
	for (int i = 0; i < srv->nthreads; i++)
		pthread_join(srv->threads[i], NULL);
	for (int i = 0; i < srv->count; i++)
		close(srv->queue[(srv->head + i) % srv->settings.queue].fd);
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
