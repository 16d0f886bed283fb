/*
 * coll_qcg_mcast_socket.c: the UDP socket of one communicator's multicast group. Bound to the
 * group's own address (not the wildcard), so the kernel hands us only that group's datagrams
 * on that port; joined on the interface coll_qcg_mcast_interface names, or the one the routing
 * table picks for the group. TTL 1: a datagram never leaves the cluster's LAN.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coll_qcg_mcast.h"

/* The interface address to join and send on (INADDR_ANY: the route decides); -1 if invalid. */
int
qcg_mcast_interface_addr(struct in_addr *ifaddr, char *err, size_t errlen)
{
	const char *s = mca_coll_qcg_mcast_params.interface;
	ifaddr->s_addr = htonl(INADDR_ANY);
	if (s == NULL || *s == '\0')
		return 0;
	if (inet_pton(AF_INET, s, ifaddr) != 1) {
		snprintf(err, errlen, "coll_qcg_mcast_interface '%s' is not an IPv4 address", s);
		return -1;
	}
	return 0;
}

/* Join the group and set the sending options; -1 with err naming the failing step. */
static int
mcast_join(int fd, const struct sockaddr_in *group, char *err, size_t errlen)
{
	struct ip_mreq mreq;
	unsigned char ttl = 1, loop = 1;
	int rcvbuf = mca_coll_qcg_mcast_params.rcvbuf_kb * 1024;
	if (qcg_mcast_interface_addr(&mreq.imr_interface, err, errlen) != 0)
		return -1;
	mreq.imr_multiaddr = group->sin_addr;
	if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq, sizeof(mreq)) != 0) {
		snprintf(err, errlen, "joining multicast group %s: %s", inet_ntoa(group->sin_addr),
		    strerror(errno));
		return -1;
	}
	/* Loop on: other ranks of the cluster may share this host (and tests run on one). */
	if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) != 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof(loop)) != 0 ||
	    (mreq.imr_interface.s_addr != htonl(INADDR_ANY) &&
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mreq.imr_interface,
	    sizeof(mreq.imr_interface)) != 0)) {
		snprintf(err, errlen, "multicast socket options: %s", strerror(errno));
		return -1;
	}
	/* A larger buffer lets a whole message wait for a receiver that is not in the call yet;
	 * the kernel caps it at net.core.rmem_max, which is fine (the ring repairs the rest). */
	if (rcvbuf > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return 0;
}

int
qcg_mcast_socket_open(const struct sockaddr_in *group, char *err, size_t errlen)
{
	int one = 1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "UDP socket: %s", strerror(errno));
		return -1;
	}
	/* Every rank of the cluster on one host binds the same group and port. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) {
		snprintf(err, errlen, "SO_REUSEADDR: %s", strerror(errno));
		goto fail;
	}
	if (bind(fd, (const struct sockaddr *)group, sizeof(*group)) != 0) {
		snprintf(err, errlen, "binding %s:%u: %s", inet_ntoa(group->sin_addr),
		    ntohs(group->sin_port), strerror(errno));
		goto fail;
	}
	if (mcast_join(fd, group, err, errlen) != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* 0 sent, 1 the kernel's buffer is full (a lost datagram, like any other), -1 error. */
int
qcg_mcast_socket_send(int fd, const struct sockaddr_in *group, const void *d, size_t len)
{
	for (;;) {
		ssize_t n = sendto(fd, d, len, 0, (const struct sockaddr *)group, sizeof(*group));
		if (n == (ssize_t)len)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS))
			return 1;
		return -1;
	}
}

/* One datagram into buf: its length, 0 when none is waiting, -1 on error. */
long
qcg_mcast_socket_recv(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = recv(fd, buf, len, MSG_DONTWAIT | MSG_TRUNC);
		if (n >= 0)
			return n > (ssize_t)len ? (long)len + 1 : (long)n; /* truncated: too long */
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -1;
	}
}
