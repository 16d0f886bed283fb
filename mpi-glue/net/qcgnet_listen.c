/*
 * qcgnet_listen.c: listening sockets of the job. bind() keeps listeners inside the job's port
 * window (qcgnet_ports.c); listen() registers the socket as an access point through the
 * node's helper and starts the listener's inbound thread.
 *
 * Inbound hand-offs (reversal, traversal, the target leg of a relay) arrive on a unix socket,
 * not through the kernel's accept queue, yet they must come out of the application's accept()
 * and make the listening descriptor readable for whatever the application waits with (select,
 * poll, epoll, libevent; Open MPI's OOB uses select in a thread of its own). So the inbound
 * thread rings a doorbell: it queues the handed-off socket, then makes a loopback connection
 * to the listener itself. The kernel wakes every waiter as for any client; accept()
 * (qcgnet_accept.c) recognises the doorbell by its source address and port, swallows it and
 * returns the queued socket instead. No readiness call needs wrapping, and the doorbell cannot
 * be forged: its source port is held by our own socket until accept() has matched it.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qcgnet.h"

#define QN_REOPEN_PAUSE_MS 1000 /* between attempts to reopen a lost inbound channel */

struct qn_queued {
	int fd;                  /* a handed-off connected socket */
	struct sockaddr_in peer; /* the initiator's published address */
};

struct qn_bell {
	int fd;                  /* our end of the doorbell connection */
	struct sockaddr_in from; /* its source address: what accept() sees */
};

struct qn_listener {
	int fd;                      /* the application's listening descriptor */
	uint16_t port;               /* its port: the key of WAIT_INBOUND */
	struct sockaddr_in bell_to;  /* where doorbells ring: the listener's own address */
	pthread_t thread;
	pthread_mutex_t lock;        /* guards everything below */
	int stopping;
	int channel_fd;              /* the inbound channel's socket, for shutdown by stop */
	struct qn_queued queue[QN_QUEUE_MAX];
	int nqueue;
	struct qn_bell bells[QN_QUEUE_MAX];
	int nbells;
};

/* --- bind() and listen() ---------------------------------------------------------------- */

/* Whether fd is an IPv4 stream socket; *bound gets its local address. */
static int
ipv4_stream(int fd, struct sockaddr_in *bound)
{
	int type = 0;
	socklen_t len = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
		return 0;
	len = sizeof(*bound);
	return getsockname(fd, (struct sockaddr *)bound, &len) == 0 && bound->sin_family == AF_INET;
}

static int
is_loopback(const struct in_addr *a)
{
	return (ntohl(a->s_addr) >> 24) == 127;
}

int
bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_in bound;
	if (!qn_active || addr == NULL || addr->sa_family != AF_INET || len < sizeof(bound) ||
	    qn_cfg.port_min == 0)
		return QN_REAL(bind)(fd, addr, len);
	struct sockaddr_in want;
	memcpy(&want, addr, sizeof(want));
	if (!ipv4_stream(fd, &bound) || (is_loopback(&want.sin_addr) && !qn_cfg.loopback))
		return QN_REAL(bind)(fd, addr, len);
	return qn_ports_bind(fd, &want);
}

/* The address to register for a listener bound to bound: QCG_NET_ADDRESS, else the bound
 * address, else (wildcard) the node's first IPv4 address that is up and not loopback. */
static int
register_address(const struct sockaddr_in *bound, char out[INET_ADDRSTRLEN])
{
	struct ifaddrs *ifs, *i;
	if (qn_cfg.address[0] != '\0') {
		strcpy(out, qn_cfg.address);
		return 0;
	}
	if (bound->sin_addr.s_addr != htonl(INADDR_ANY))
		return inet_ntop(AF_INET, &bound->sin_addr, out, INET_ADDRSTRLEN) ? 0 : -1;
	if (getifaddrs(&ifs) != 0)
		return -1;
	int rc = -1;
	for (i = ifs; i != NULL && rc != 0; i = i->ifa_next) {
		struct sockaddr_in *a = (struct sockaddr_in *)i->ifa_addr;
		if (a != NULL && a->sin_family == AF_INET && (i->ifa_flags & IFF_UP) &&
		    !is_loopback(&a->sin_addr) && inet_ntop(AF_INET, &a->sin_addr, out,
			INET_ADDRSTRLEN) != NULL)
			rc = 0;
	}
	freeifaddrs(ifs);
	return rc;
}

static int start_listener(int fd, const struct sockaddr_in *bound);

/* REGISTER the listener with the helper, then start its inbound thread. */
static void
register_listener(int fd, const struct sockaddr_in *bound)
{
	char addr[INET_ADDRSTRLEN], err[512];
	uint16_t port = ntohs(bound->sin_port);
	if (register_address(bound, addr) != 0) {
		qn_log("listener on port %u: no IPv4 address to register it under; not registered",
		    port);
		return;
	}
	qn_ctl_lock();
	struct helper_client *c = qn_ctl_get(err, sizeof(err));
	int rc = c ? helper_client_register(c, addr, port, qn_cfg.process, NULL, err,
	    sizeof(err)) : -1;
	if (rc != 0 && c != NULL && strstr(err, "refused") == NULL)
		qn_ctl_drop(); /* an I/O failure: the next call opens a fresh connection */
	qn_ctl_unlock();
	if (rc != 0) {
		qn_log("listener %s:%u not registered: %s", addr, port, err);
		return;
	}
	qn_debug("registered listener %s:%u (fd %d)", addr, port, fd);
	if (start_listener(fd, bound) != 0)
		qn_log("listener %s:%u: no inbound thread: hand-offs to it will fail", addr, port);
}

int
listen(int fd, int backlog)
{
	struct sockaddr_in bound;
	if (!qn_active || !ipv4_stream(fd, &bound))
		return QN_REAL(listen)(fd, backlog);
	if (bound.sin_addr.s_addr != htonl(INADDR_ANY) && is_loopback(&bound.sin_addr) &&
	    !qn_cfg.loopback)
		return QN_REAL(listen)(fd, backlog); /* reachable from this node only */
	if (qn_ports_before_listen(fd) != 0)
		return -1;
	if (QN_REAL(listen)(fd, backlog) != 0)
		return -1;
	socklen_t len = sizeof(bound);
	if (qn_fdtab_listener(fd) != NULL || getsockname(fd, (struct sockaddr *)&bound, &len) != 0)
		return 0; /* listen() again on a registered socket: only the backlog changes */
	register_listener(fd, &bound);
	return 0;
}

/* --- the inbound thread ----------------------------------------------------------------- */

static void
pause_unless_stopping(struct qn_listener *l, int ms)
{
	for (int waited = 0; waited < ms; waited += 50) {
		pthread_mutex_lock(&l->lock);
		int stop = l->stopping;
		pthread_mutex_unlock(&l->lock);
		if (stop)
			return;
		usleep(50 * 1000);
	}
}

/* Open a channel and WAIT_INBOUND on the listener's port; publish its fd for stop(). */
static int
open_channel(struct qn_listener *l, struct helper_client *hc, char *err, size_t errlen)
{
	if (helper_client_open_env(hc, err, errlen) != 0)
		return -1;
	hc->timeout_ms = qn_cfg.handoff_ms;
	pthread_mutex_lock(&l->lock);
	int stop = l->stopping;
	if (!stop)
		l->channel_fd = hc->fd;
	pthread_mutex_unlock(&l->lock);
	if (stop || helper_client_wait_inbound(hc, l->port, NULL, err, errlen) != 0) {
		pthread_mutex_lock(&l->lock);
		l->channel_fd = -1;
		pthread_mutex_unlock(&l->lock);
		helper_client_close(hc);
		return -1;
	}
	return 0;
}

/* Queue a handed-off socket and ring the doorbell (or close it when that is impossible). */
static void
ring(struct qn_listener *l, const struct helper_handoff *h)
{
	struct qn_bell b = { .fd = -1, .from = l->bell_to };
	socklen_t len = sizeof(b.from);
	b.from.sin_port = 0;
	pthread_mutex_lock(&l->lock);
	if (l->nqueue < QN_QUEUE_MAX && l->nbells < QN_QUEUE_MAX)
		b.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (b.fd < 0 || QN_REAL(bind)(b.fd, (struct sockaddr *)&b.from, sizeof(b.from)) != 0 ||
	    getsockname(b.fd, (struct sockaddr *)&b.from, &len) != 0) {
		pthread_mutex_unlock(&l->lock);
		qn_log("listener port %u: cannot queue a %s hand-off (queue %d/%d): closed", l->port,
		    connect_method_name(h->method), l->nqueue, QN_QUEUE_MAX);
		if (b.fd >= 0)
			QN_REAL(close)(b.fd);
		QN_REAL(close)(h->fd);
		return;
	}
	struct qn_queued *q = &l->queue[l->nqueue++];
	q->fd = h->fd;
	memset(&q->peer, 0, sizeof(q->peer));
	q->peer.sin_family = AF_INET;
	q->peer.sin_port = htons(h->peer_port);
	if (inet_pton(AF_INET, h->peer_address, &q->peer.sin_addr) != 1)
		qn_log("listener port %u: hand-off peer '%s' is not an IPv4 address", l->port,
		    h->peer_address);
	l->bells[l->nbells++] = b;
	pthread_mutex_unlock(&l->lock);
	/* The bell is recorded before it rings, so accept() always recognises it. */
	if (QN_REAL(connect)(b.fd, (struct sockaddr *)&l->bell_to, sizeof(l->bell_to)) != 0 &&
	    errno != EINPROGRESS)
		qn_log("listener port %u: doorbell failed: %s", l->port, strerror(errno));
	qn_debug("listener port %u: %s hand-off from %s:%u queued", l->port,
	    connect_method_name(h->method), h->peer_address, h->peer_port);
}

/* A resumable relay's leg goes into the resumable stream; the application accepts the
 * stream's end. false when that failed (the leg is closed, the log says why). */
static bool
resumable_leg(const struct qn_listener *l, struct helper_handoff *h)
{
	char err[256];
	if (!h->resumable || (h->method != METHOD_RELAY && h->method != METHOD_RELAY_CHAIN))
		return true;
	h->fd = qn_resume_wrap(h->fd, h->relay_id, 0, err, sizeof(err));
	if (h->fd >= 0)
		return true;
	qn_log("listener port %u: relay from %s:%u dropped: %s", l->port, h->peer_address,
	    h->peer_port, err);
	return false;
}

static void *
inbound_thread(void *arg)
{
	struct qn_listener *l = arg;
	struct helper_client hc;
	struct helper_handoff h;
	char err[512];
	int said = 0;
	for (;;) {
		pthread_mutex_lock(&l->lock);
		int stop = l->stopping;
		pthread_mutex_unlock(&l->lock);
		if (stop)
			break;
		if (open_channel(l, &hc, err, sizeof(err)) != 0) {
			if (!said++)
				qn_log("listener port %u: no inbound channel yet: %s", l->port, err);
			pause_unless_stopping(l, QN_REOPEN_PAUSE_MS);
			continue;
		}
		said = 0;
		while (helper_client_next_handoff(&hc, -1, &h, NULL, err, sizeof(err)) == 0)
			if (resumable_leg(l, &h))
				ring(l, &h);
		pthread_mutex_lock(&l->lock);
		l->channel_fd = -1;
		stop = l->stopping;
		pthread_mutex_unlock(&l->lock);
		helper_client_close(&hc);
		if (!stop)
			qn_log("listener port %u: inbound channel lost (%s); reopening", l->port, err);
	}
	return NULL;
}

static int
start_listener(int fd, const struct sockaddr_in *bound)
{
	sigset_t all, old;
	struct qn_listener *l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -1;
	l->fd = fd;
	l->port = ntohs(bound->sin_port);
	l->bell_to = *bound;
	if (bound->sin_addr.s_addr == htonl(INADDR_ANY))
		l->bell_to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l->channel_fd = -1;
	pthread_mutex_init(&l->lock, NULL);
	/* The thread takes no signals: they stay the application's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&l->thread, NULL, inbound_thread, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&l->lock);
		free(l);
		return -1;
	}
	qn_fdtab_set_listener(fd, l);
	return 0;
}

/* --- accept() side and teardown --------------------------------------------------------- */

int
qn_listener_claim(struct qn_listener *l, const struct sockaddr_in *from, int *fd,
    struct sockaddr_in *peer)
{
	int found = 0;
	*fd = -1;
	pthread_mutex_lock(&l->lock);
	for (int i = 0; i < l->nbells && !found; i++) {
		if (l->bells[i].from.sin_port != from->sin_port ||
		    l->bells[i].from.sin_addr.s_addr != from->sin_addr.s_addr)
			continue;
		QN_REAL(close)(l->bells[i].fd);
		l->bells[i] = l->bells[--l->nbells];
		found = 1;
	}
	if (found && l->nqueue > 0) { /* oldest first */
		*fd = l->queue[0].fd;
		*peer = l->queue[0].peer;
		memmove(&l->queue[0], &l->queue[1], (size_t)--l->nqueue * sizeof(l->queue[0]));
	}
	pthread_mutex_unlock(&l->lock);
	return found;
}

static void
close_queued(struct qn_listener *l)
{
	for (int i = 0; i < l->nqueue; i++)
		QN_REAL(close)(l->queue[i].fd);
	for (int i = 0; i < l->nbells; i++)
		QN_REAL(close)(l->bells[i].fd);
	l->nqueue = l->nbells = 0;
}

void
qn_listener_stop(struct qn_listener *l)
{
	pthread_mutex_lock(&l->lock);
	l->stopping = 1;
	if (l->channel_fd >= 0)
		shutdown(l->channel_fd, SHUT_RDWR); /* wakes the thread's read */
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	close_queued(l);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void
qn_listener_forget(struct qn_listener *l)
{
	/* The child's copies only; the parent's thread and channel go on untouched. */
	close_queued(l);
	if (l->channel_fd >= 0)
		QN_REAL(close)(l->channel_fd);
	free(l);
}
