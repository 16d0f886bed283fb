/*
 * net_socket.c: timed connect and socket options (net_socket.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>

#include "monotonic_ms.h"
#include "net_socket.h"

int
net_set_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, flags) == 0 ? 0 : -1;
}

int
net_set_cloexec(int fd, bool on)
{
	return fcntl(fd, F_SETFD, on ? FD_CLOEXEC : 0) == 0 ? 0 : -1;
}

int
net_set_nodelay(int fd)
{
	int one = 1;
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Wait until the connect in progress on fd is done or the deadline passes; its outcome as
 * 0 or an errno value. An interrupted poll goes on with the time that is left. */
static int
connect_wait(int fd, long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int so_error = 0;
	socklen_t len = sizeof(so_error);

	for (;;) {
		int n = poll(&pfd, 1, monotonic_left_ms(deadline));
		if (n > 0)
			break;
		if (n == 0)
			return ETIMEDOUT;
		if (errno != EINTR)
			return errno;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0)
		return errno;
	return so_error;
}

int
net_connect_timed(int fd, const struct sockaddr *addr, socklen_t len, int timeout_ms,
    net_connect_fn connect_fn)
{
	long deadline = monotonic_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	int flags = fcntl(fd, F_GETFL), outcome = 0;

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
		return -1;
	if (connect_fn == NULL)
		connect_fn = connect;
	/* A non-blocking connect that a signal interrupts goes on in the background, as one that
	 * is in progress does (POSIX): both are waited for. */
	if (connect_fn(fd, addr, len) != 0)
		outcome = errno == EINPROGRESS || errno == EINTR ? connect_wait(fd, deadline) : errno;
	if (fcntl(fd, F_SETFL, flags) != 0 && outcome == 0)
		outcome = errno;
	if (outcome != 0) {
		errno = outcome;
		return -1;
	}
	return 0;
}
