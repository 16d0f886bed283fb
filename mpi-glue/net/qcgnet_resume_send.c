/*
 * qcgnet_resume_send.c: write, writev, send and sendmsg on a resumable relay's application end
 * go to the stream on the caller's own thread (qrs_app_send, qcgnet_resume_stream.h): framed
 * and put on the relay leg at once, instead of through the socketpair and a wake-up of the I/O
 * thread (bench/net/README.md, run 7). Every other descriptor costs one load and goes to libc.
 *
 * What the stream does not take (a full window, bytes already queued on the socketpair, a
 * closed stream, unusual flags) goes to libc on the same descriptor: the socketpair path, in
 * order behind what is queued there. When the stream takes part of a call, the call returns
 * that part, a short write as on a socket whose buffer filled: Open MPI's TCP BTL and OOB
 * resume a partial writev/send where it stopped, and a blocking caller's next call goes to the
 * socketpair, which blocks until the window has room.
 *
 * shutdown is wrapped too, so that an end shut down for writing stops taking sends here.
 *
 * Linked into libqcgnet.so (exported) and, with qcgnet_real.c (libc's functions, QN_REAL), into
 * the programs that test the stream without the preload (tests/net/test_resume_interposed,
 * bench/net/resume_bench): defined in the executable, the wrappers stand before libc's there
 * too.
 */
#define _GNU_SOURCE /* IOV_MAX */
#include "config.h"

#include <limits.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "qcgnet.h"
#include "qcgnet_resume_stream.h"

ssize_t
write(int fd, const void *buf, size_t len)
{
	size_t taken;
	struct iovec iov = { (void *)buf, len };
	if (len > 0 && qrs_app_send(fd, &iov, 1, 0, &taken))
		return (ssize_t)taken;
	return QN_REAL(write)(fd, buf, len);
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
	size_t taken;
	if (qrs_app_send(fd, iov, iovcnt, 0, &taken))
		return (ssize_t)taken;
	return QN_REAL(writev)(fd, iov, iovcnt);
}

ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	size_t taken;
	struct iovec iov = { (void *)buf, len };
	if (len > 0 && qrs_app_send(fd, &iov, 1, flags, &taken))
		return (ssize_t)taken;
	return QN_REAL(send)(fd, buf, len, flags);
}

ssize_t
sendmsg(int fd, const struct msghdr *m, int flags)
{
	size_t taken;
	/* ancillary data (descriptors, credentials) or an address: the socketpair's semantics */
	if (m != NULL && m->msg_controllen == 0 && m->msg_name == NULL &&
	    m->msg_iovlen <= (size_t)IOV_MAX &&
	    qrs_app_send(fd, m->msg_iov, (int)m->msg_iovlen, flags, &taken))
		return (ssize_t)taken;
	return QN_REAL(sendmsg)(fd, m, flags);
}

/* An end shut down for writing takes nothing more on the send path: its writes then meet the
 * socketpair's EPIPE, as on any socket. */
int
shutdown(int fd, int how)
{
	qrs_app_shutdown(fd, how);
	return QN_REAL(shutdown)(fd, how);
}
