/*
 * dl_port.c: AF_PACKET access to one interface (see dl_port.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dl_port.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23 /* Linux 4.20; older headers lack it */
#endif

/* Set the socket options of a fresh packet socket on interface index `ifindex`. */
static int
dl_port_configure(int fd, int ifindex, const char *ifname, char *err, size_t errlen)
{
	struct packet_mreq mr = { .mr_ifindex = ifindex, .mr_type = PACKET_MR_PROMISC };
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = ifindex,
	};
	int one = 1, rcvbuf = DL_PORT_RCVBUF;

	/* Super-frames pass whole, with the header that describes them (dl_frame.h). */
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "interface %s: PACKET_VNET_HDR: %s", ifname, strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		snprintf(err, errlen, "interface %s: bind: %s", ifname, strerror(errno));
		return -1;
	}
	/* Frames for another MAC must pass too: the delay line is part of the wire. */
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		snprintf(err, errlen, "interface %s: promiscuous mode: %s", ifname, strerror(errno));
		return -1;
	}
	/* Without this the socket reads back every frame it transmits and loops them forever. */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "interface %s: PACKET_IGNORE_OUTGOING: %s", ifname,
		    strerror(errno));
		return -1;
	}
	/* FORCE needs CAP_NET_ADMIN, which a packet socket needs anyway; fall back if refused. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	return 0;
}

int
dl_port_open(const char *ifname, char *err, size_t errlen)
{
	unsigned ifindex = if_nametoindex(ifname);
	int fd;

	if (ifindex == 0) {
		snprintf(err, errlen, "interface %s: %s", ifname, strerror(errno));
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0) {
		snprintf(err, errlen, "interface %s: packet socket: %s", ifname, strerror(errno));
		return -1;
	}
	if (dl_port_configure(fd, (int)ifindex, ifname, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

ssize_t
dl_port_recv(int fd, void *buf, size_t buflen, int *truncated)
{
	struct sockaddr_ll from;
	socklen_t fromlen = sizeof(from);
	ssize_t n;

	*truncated = 0;
	for (;;) {
		/* MSG_TRUNC makes recvfrom return the real length of a frame that did not fit. */
		n = recvfrom(fd, buf, buflen, MSG_TRUNC, (struct sockaddr *)&from, &fromlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
		/* Older kernels ignore PACKET_IGNORE_OUTGOING: skip our own frames here too. */
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if ((size_t)n > buflen)
			*truncated = 1;
		return n;
	}
}
