/*
 * qcgnet_ports.c: the job's port window (QCG_NET_PORTS=MIN-MAX). The broker keys access points
 * by (job, port), so listening ports must be unique across the whole job, even across clusters
 * that use the same private addresses; and a port-range cluster's firewall lets in only its
 * range. The launcher gives every node of the job a window of its own (inside the cluster's
 * open range when it has one); the kernel keeps ports unique inside a node, so ports are then
 * unique in the job.
 *
 * Which binds are listeners: Open MPI binds its listeners to the wildcard address (the TCP
 * BTL asks for explicit ports from btl_tcp_port_min_v4 upwards, the OOB for port 0), and binds
 * the sockets it connects from to an interface address with port 0. So: a wildcard bind, or
 * an explicit port, outside the window is moved to the first free port inside it; a port-0
 * bind to a specific address is left alone (an outgoing socket) and checked again at listen().
 * The launcher sets Open MPI's own parameters to the same window too (README.md), so in a
 * well-configured job this file only confirms.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "qcgnet.h"

int
qn_port_in_window(uint16_t port)
{
	return qn_cfg.port_min == 0 || (port >= qn_cfg.port_min && port <= qn_cfg.port_max);
}

/* Bind fd to want's address on the first free port of the window: 0 or -1 (errno). */
static int
bind_window(int fd, const struct sockaddr_in *want)
{
	struct sockaddr_in sin = *want;
	for (unsigned p = qn_cfg.port_min; p <= qn_cfg.port_max; p++) {
		sin.sin_port = htons((uint16_t)p);
		if (QN_REAL(bind)(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
			qn_debug("fd %d: listener bound to window port %u (asked for %u)", fd, p,
			    ntohs(want->sin_port));
			return 0;
		}
		if (errno != EADDRINUSE)
			return -1;
	}
	qn_log("no free port in the job's window %u-%u (QCG_NET_PORTS)", qn_cfg.port_min,
	    qn_cfg.port_max);
	errno = EADDRINUSE;
	return -1;
}

int
qn_ports_bind(int fd, const struct sockaddr_in *want)
{
	uint16_t port = ntohs(want->sin_port);
	int wildcard = want->sin_addr.s_addr == htonl(INADDR_ANY);
	if (qn_cfg.port_min == 0 || qn_port_in_window(port) || (port == 0 && !wildcard))
		return QN_REAL(bind)(fd, (const struct sockaddr *)want, sizeof(*want));
	return bind_window(fd, want);
}

/*
 * A socket bound outside the window cannot be re-bound: a fresh socket with the same options
 * takes a window port on the same address and replaces it (dup3 onto fd).
 */
static int
rebind_fresh(int fd, const struct sockaddr_in *bound)
{
	int one = 0;
	socklen_t len = sizeof(one);
	int nfd = socket(AF_INET, SOCK_STREAM, 0);
	if (nfd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, &len) == 0)
		QN_REAL(setsockopt)(nfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in want = *bound;
	if (bind_window(nfd, &want) != 0 || qn_fdtab_install(fd, nfd, NULL) != 0) {
		int saved = errno;
		QN_REAL(close)(nfd);
		errno = saved;
		return -1;
	}
	return 0;
}

int
qn_ports_before_listen(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	if (qn_cfg.port_min == 0)
		return 0;
	if (getsockname(fd, (struct sockaddr *)&sin, &len) != 0 || sin.sin_family != AF_INET)
		return 0; /* not ours to judge: listen() will say what is wrong */
	uint16_t port = ntohs(sin.sin_port);
	if (port != 0 && qn_port_in_window(port))
		return 0;
	if (port == 0) /* never bound: bind it ourselves, on the wildcard address */
		return bind_window(fd, &(struct sockaddr_in){ .sin_family = AF_INET,
		    .sin_addr.s_addr = htonl(INADDR_ANY) });
	return rebind_fresh(fd, &sin);
}
