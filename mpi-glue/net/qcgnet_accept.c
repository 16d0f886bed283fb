/*
 * qcgnet_accept.c: accept() and accept4() on a registered listener. A connection from one of
 * the listener's doorbells (qcgnet_listen.c) is swallowed and the queued hand-off socket comes
 * out instead, with the flags accept4 asked for and the initiator's published address as its
 * peer: Open MPI's TCP BTL drops a connection whose source is not an address the peer
 * published (btl_tcp_proc.c, mca_btl_tcp_proc_accept), so that address, not the helper's or
 * the proxy's, is what accept() and later getpeername() report. Every other connection is
 * returned as the kernel gave it.
 */
#define _GNU_SOURCE /* accept4 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "net_socket.h"
#include "qcgnet.h"

/* Give a handed-off socket the flags accept4 would have given a fresh one. */
static int
apply_accept_flags(int fd, int flags)
{
	if (net_set_nonblock(fd, (flags & SOCK_NONBLOCK) != 0) != 0)
		return -1;
	return net_set_cloexec(fd, (flags & SOCK_CLOEXEC) != 0);
}

/* A direct or port-range connection: a job peer's shim starts it with the origin preamble
 * (qcgnet_origin.c), whose address is what the application sees. */
static int
ordinary(int fd, const struct sockaddr_in *from, struct sockaddr *addr, socklen_t *addrlen)
{
	struct sockaddr_in origin;
	int rc = qn_origin_take(fd, qn_cfg.connect_ms, &origin);
	if (rc < 0) {
		int saved = errno;
		QN_REAL(close)(fd);
		errno = saved == 0 ? ECONNABORTED : saved;
		return -1;
	}
	if (rc == 0) {
		qn_copy_sockaddr(from, addr, addrlen);
		return fd;
	}
	qn_fdtab_set_peer(fd, &origin);
	qn_copy_sockaddr(&origin, addr, addrlen);
	char text[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &origin.sin_addr, text, sizeof(text));
	qn_debug("accepted fd %d: origin %s:%u", fd, text, ntohs(origin.sin_port));
	return fd;
}

static int
accept_job(int lfd, struct qn_listener *l, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
	for (;;) {
		struct sockaddr_in from, peer;
		socklen_t len = sizeof(from);
		int fd = QN_REAL(accept4)(lfd, (struct sockaddr *)&from, &len, flags);
		if (fd < 0)
			return -1;
		int handed;
		if (from.sin_family != AF_INET || !qn_listener_claim(l, &from, &handed, &peer))
			return ordinary(fd, &from, addr, addrlen);
		QN_REAL(close)(fd); /* the doorbell itself */
		if (handed < 0)
			continue; /* nothing queued behind it (cannot happen); look again */
		if (apply_accept_flags(handed, flags) != 0) {
			int saved = errno;
			QN_REAL(close)(handed);
			errno = saved;
			return -1;
		}
		qn_fdtab_set_peer(handed, &peer);
		qn_copy_sockaddr(&peer, addr, addrlen);
		char text[INET_ADDRSTRLEN] = "?";
		inet_ntop(AF_INET, &peer.sin_addr, text, sizeof(text));
		qn_debug("accept on fd %d: hand-off fd %d, peer %s:%u", lfd, handed, text,
		    ntohs(peer.sin_port));
		return handed;
	}
}

int
accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
	struct qn_listener *l;
	if (!qn_active || (l = qn_fdtab_listener(fd)) == NULL)
		return QN_REAL(accept4)(fd, addr, addrlen, flags);
	return accept_job(fd, l, addr, addrlen, flags);
}

int
accept(int fd, struct sockaddr *addr, socklen_t *addrlen)
{
	struct qn_listener *l;
	if (!qn_active || (l = qn_fdtab_listener(fd)) == NULL)
		return QN_REAL(accept)(fd, addr, addrlen);
	return accept_job(fd, l, addr, addrlen, 0);
}
