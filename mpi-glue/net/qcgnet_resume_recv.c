/*
 * qcgnet_resume_recv.c: read, readv, recv, recvfrom and recvmsg on a resumable relay's
 * application end take the frames off the relay leg on the caller's own thread
 * (qrs_app_recv, qcgnet_resume_stream.h), while the application watches the leg beside that
 * end: epoll_ctl is wrapped to put the leg in its epoll set (qrs_app_epoll_ctl), poll to poll
 * the leg with it (qrs_app_poll, for poll-driven loops such as Open MPI's default). The frame
 * then wakes the application, not the stream's I/O thread, and crosses no socketpair
 * (bench/net/README.md, run 11). Every other descriptor costs one load and goes to libc.
 *
 * What the stream does not answer (bytes already on the socketpair, flags other than
 * MSG_DONTWAIT, an end not in an epoll set, the stream's end) goes to libc on the same
 * descriptor: the socketpair path, as before.
 *
 * Linked as qcgnet_resume_send.c is: into libqcgnet.so (exported), and with qcgnet_real.c into
 * the programs that test the stream without the preload.
 */
#define _GNU_SOURCE /* IOV_MAX */
#include "config.h"

#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "qcgnet.h"
#include "qcgnet_resume_stream.h"

/* glibc's fortified variants (its headers declare them only under _FORTIFY_SOURCE) */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);

ssize_t
read(int fd, void *buf, size_t len)
{
	ssize_t got;
	struct iovec iov = { buf, len };
	if (qrs_app_recv(fd, &iov, 1, 0, &got))
		return got;
	return QN_REAL(read)(fd, buf, len);
}

/* _FORTIFY_SOURCE turns read() with a buffer of known size into this. */
ssize_t
__read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	ssize_t got;
	struct iovec iov = { buf, len };
	if (len <= buflen && qrs_app_recv(fd, &iov, 1, 0, &got))
		return got;
	return QN_REAL(read_chk)(fd, buf, len, buflen);
}

ssize_t
readv(int fd, const struct iovec *iov, int iovcnt)
{
	ssize_t got;
	if (qrs_app_recv(fd, iov, iovcnt, 0, &got))
		return got;
	return QN_REAL(readv)(fd, iov, iovcnt);
}

ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t got;
	struct iovec iov = { buf, len };
	if (qrs_app_recv(fd, &iov, 1, flags, &got))
		return got;
	return QN_REAL(recv)(fd, buf, len, flags);
}

ssize_t
__recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	ssize_t got;
	struct iovec iov = { buf, len };
	if (len <= buflen && qrs_app_recv(fd, &iov, 1, flags, &got))
		return got;
	return QN_REAL(recv_chk)(fd, buf, len, buflen, flags);
}

/* A stream socket has no source address to give: asked for one, the socketpair answers. */
ssize_t
recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)
{
	ssize_t got;
	struct iovec iov = { buf, len };
	if (from == NULL && qrs_app_recv(fd, &iov, 1, flags, &got))
		return got;
	return QN_REAL(recvfrom)(fd, buf, len, flags, from, fromlen);
}

ssize_t
recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t got;
	/* ancillary data or an address asked for: the socketpair's semantics */
	if (m != NULL && m->msg_controllen == 0 && m->msg_name == NULL &&
	    m->msg_iovlen <= (size_t)IOV_MAX &&
	    qrs_app_recv(fd, m->msg_iov, (int)m->msg_iovlen, flags, &got)) {
		if (got >= 0)
			m->msg_flags = 0;
		return got;
	}
	return QN_REAL(recvmsg)(fd, m, flags);
}

int
poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	int result;
	if (qrs_app_poll(fds, nfds, timeout, &result))
		return result;
	return QN_REAL(poll)(fds, nfds, timeout);
}

int
epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	int r = QN_REAL(epoll_ctl)(epfd, op, fd, ev);
	if (r == 0)
		qrs_app_epoll_ctl(epfd, op, fd, ev);
	return r;
}
