/*
 * qcgnet_method.c: carrying out the method the broker chose for one connect():
 *   direct, port range  the application's own socket connects to the target (it may have
 *                       bound its source address, which the target's BTL checks);
 *   reversal, traversal the helper sets the connection up and hands the socket over on the
 *                       control connection; nobody stays in the data path;
 *   relay, relay chain  a new socket connects to proxy[0] and sends the 24-byte hello with the
 *                       relay id. A proxy learns ids from the broker on its own path, maybe
 *                       after this leg arrives; it keeps such a leg until the announcement
 *                       comes (services/proxy, unknown-id-wait-ms), so one leg is enough: no
 *                       retry, and no wait to see whether the proxy closes it.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net_socket.h"
#include "qcgnet.h"

int
qn_sockaddr_of(const char *host, uint16_t port, struct sockaddr_in *out)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	out->sin_port = htons(port);
	if (inet_pton(AF_INET, host, &out->sin_addr) == 1)
		return 0;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return -1;
	out->sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

int
qn_connect_timed(int fd, const struct sockaddr_in *sin, int timeout_ms)
{
	return net_connect_timed(fd, (const struct sockaddr *)sin, sizeof(*sin), timeout_ms,
	    QN_REAL(connect));
}

static int
direct(int app_fd, const struct decision *d, char *err, size_t errlen)
{
	struct sockaddr_in to;
	if (qn_sockaddr_of(d->target.address, d->target.port, &to) != 0) {
		snprintf(err, errlen, "target '%s' does not resolve", d->target.address);
		return -1;
	}
	if (qn_connect_timed(app_fd, &to, qn_cfg.connect_ms) != 0) {
		snprintf(err, errlen, "connect to %s:%u: %s", d->target.address, d->target.port,
		    strerror(errno));
		return -1;
	}
	if (qn_origin_send(app_fd) != 0) {
		snprintf(err, errlen, "origin preamble to %s:%u: %s", d->target.address,
		    d->target.port, strerror(errno));
		return -1;
	}
	return app_fd;
}

static int
handoff(struct helper_client *c, char *err, size_t errlen)
{
	struct helper_handoff h;
	int rc = helper_client_next_handoff(c, qn_cfg.handoff_ms, &h, NULL, err, errlen);
	if (rc == 1)
		snprintf(err, errlen, "no hand-off within %d ms", qn_cfg.handoff_ms);
	return rc == 0 ? h.fd : -1;
}

/* A relay leg to proxy[0]; kept in the resumable stream when both ends agreed to (the
 * decision's flag: the target's helper hands its leg over with the same flag). */
static int
relay(const struct decision *d, char *err, size_t errlen)
{
	if (d->proxy_count < 1) {
		snprintf(err, errlen, "relay decision without a proxy endpoint host:port");
		return -1;
	}
	int leg = qn_relay_leg(d->proxy[0].endpoint, d->relay_id.bytes, d->resumable,
	    qn_cfg.connect_ms, err, errlen);
	if (leg < 0 || !d->resumable)
		return leg;
	return qn_resume_wrap(leg, d->relay_id.bytes, 1, err, errlen);
}

int
qn_method_run(struct helper_client *c, int app_fd, const struct decision *d, char *err,
    size_t errlen)
{
	switch (d->method) {
	case METHOD_DIRECT:
	case METHOD_PORT_RANGE:
		return direct(app_fd, d, err, errlen);
	case METHOD_REVERSAL:
	case METHOD_TRAVERSAL:
		return handoff(c, err, errlen);
	case METHOD_RELAY:
	case METHOD_RELAY_CHAIN:
		return relay(d, err, errlen);
	default:
		snprintf(err, errlen, "unknown method %d", d->method);
		return -1;
	}
}
