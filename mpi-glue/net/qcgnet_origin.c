/*
 * qcgnet_origin.c: the origin preamble of a direct or port-range connection. A node in a NAT'd
 * or closed cluster reaches a listener elsewhere with its gateway's address as the source, and
 * Open MPI's TCP BTL drops a connection whose source IP is not one the peer published
 * (btl_tcp_proc.c, mca_btl_tcp_proc_accept). So the initiating shim sends, before anything
 * else, 16 bytes: "QCGNETO1", its socket's own IPv4 address and port (network order), two zero
 * bytes. The accepting shim takes them off and reports that address from accept() and
 * getpeername(). The initiator speaks first in both Open MPI protocols (the BTL's and the
 * OOB's connect messages), so waiting for the preamble never waits for the acceptor; a client
 * without it (not a job peer, or one whose shim fell back to a plain connect) is returned
 * untouched, its bytes still unread.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "monotonic_ms.h"
#include "qcgnet.h"

#define QN_ORIGIN_SIZE 16
static const char origin_magic[8] = { 'Q', 'C', 'G', 'N', 'E', 'T', 'O', '1' };

int
qn_origin_send(int fd)
{
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	uint8_t b[QN_ORIGIN_SIZE] = { 0 };
	if (getsockname(fd, (struct sockaddr *)&me, &len) != 0 || me.sin_family != AF_INET)
		return -1;
	memcpy(b, origin_magic, sizeof(origin_magic));
	memcpy(b + 8, &me.sin_addr.s_addr, 4);
	memcpy(b + 12, &me.sin_port, 2);
	/* A just-connected socket's send buffer is empty: 16 bytes go at once even non-blocking. */
	return send(fd, b, sizeof(b), MSG_NOSIGNAL) == (ssize_t)sizeof(b) ? 0 : -1;
}

int
qn_origin_take(int fd, int timeout_ms, struct sockaddr_in *origin)
{
	uint8_t b[QN_ORIGIN_SIZE];
	long deadline = monotonic_ms() + timeout_ms;
	for (;;) {
		ssize_t n = recv(fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT);
		if (n > 0 && memcmp(b, origin_magic, (size_t)n < sizeof(origin_magic) ?
		    (size_t)n : sizeof(origin_magic)) != 0)
			return 0; /* someone else's protocol */
		if (n == (ssize_t)sizeof(b))
			break;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return 0; /* closed or failed: the application will see it */
		long left = deadline - monotonic_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left <= 0)
			return 0;
		if (n > 0) /* part of it: the rest follows within a round trip */
			left = left < 10 ? left : 10;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return 0;
	}
	if (recv(fd, b, sizeof(b), MSG_DONTWAIT) != (ssize_t)sizeof(b))
		return -1;
	memset(origin, 0, sizeof(*origin));
	origin->sin_family = AF_INET;
	memcpy(&origin->sin_addr.s_addr, b + 8, 4);
	memcpy(&origin->sin_port, b + 12, 2);
	return 1;
}
