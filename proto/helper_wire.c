/*
 * helper_wire.c: send and receive local-API messages, with SCM_RIGHTS for HANDOFF.
 */
#define _GNU_SOURCE /* MSG_CMSG_CLOEXEC */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper_wire.h"

void
helper_reader_init(struct helper_reader *r, int accept_fds)
{
	r->len = 0;
	r->nfds = 0;
	r->accept_fds = accept_fds;
}

void
helper_reader_clear(struct helper_reader *r)
{
	for (int i = 0; i < r->nfds; i++)
		close(r->fds[i]);
	r->nfds = 0;
	r->len = 0;
}

static long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Keep the descriptors of one control message; more than we can hold is an error. */
static int
take_fds(struct helper_reader *r, struct msghdr *mh, char *err, size_t errlen)
{
	int bad = 0;
	if (mh->msg_flags & MSG_CTRUNC)
		bad = 1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int *fds = (int *)(void *)CMSG_DATA(c);
		for (size_t i = 0; i < n; i++) {
			if (!r->accept_fds || r->nfds == HELPER_WIRE_FDS_MAX) {
				close(fds[i]);
				bad = 1;
			} else {
				r->fds[r->nfds++] = fds[i];
			}
		}
	}
	if (bad)
		snprintf(err, errlen, "unexpected or too many file descriptors from the peer");
	return bad ? -1 : 0;
}

/* One recvmsg into the buffer's free space. */
static enum helper_wire_status
fill(int sock, struct helper_reader *r, int timeout_ms, char *err, size_t errlen)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * HELPER_WIRE_FDS_MAX)];
	} control;
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	int rc;

	do
		rc = poll(&pfd, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return HELPER_WIRE_TIMEOUT;
	if (rc < 0) {
		snprintf(err, errlen, "poll: %s", strerror(errno));
		return HELPER_WIRE_ERROR;
	}
	struct iovec iov = { r->buf + r->len, sizeof(r->buf) - r->len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
		.msg_controllen = sizeof(control.buf) };
	ssize_t n;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		snprintf(err, errlen, "receive: %s", strerror(errno));
		return HELPER_WIRE_ERROR;
	}
	if (take_fds(r, &mh, err, errlen) != 0)
		return HELPER_WIRE_ERROR;
	if (n == 0)
		return HELPER_WIRE_EOF;
	r->len += (size_t)n;
	return HELPER_WIRE_OK;
}

/* Hand the message's descriptor to the caller, or fail when it did not come. */
static enum helper_wire_status
claim_fd(struct helper_reader *r, const struct helper_msg *m, int *fd_out, char *err,
    size_t errlen)
{
	*fd_out = -1;
	if (m->type != HELPER_MSG_HANDOFF || !(m->flags & HELPER_FLAG_FD))
		return HELPER_WIRE_OK;
	if (r->nfds == 0) {
		snprintf(err, errlen, "HANDOFF announced a descriptor that did not arrive");
		return HELPER_WIRE_ERROR;
	}
	*fd_out = r->fds[0];
	memmove(r->fds, r->fds + 1, (size_t)(r->nfds - 1) * sizeof(int));
	r->nfds--;
	return HELPER_WIRE_OK;
}

enum helper_wire_status
helper_wire_read(int sock, struct helper_reader *r, struct helper_msg *m, int *fd_out,
    int first_ms, int io_ms, char *err, size_t errlen)
{
	long deadline = -1;
	*fd_out = -1;
	for (;;) {
		size_t used = 0;
		enum helper_parse_status ps = r->len == 0 ? HELPER_PARSE_INCOMPLETE :
		    helper_msg_parse(r->buf, r->len, m, &used, err, errlen);
		if (ps == HELPER_PARSE_INVALID)
			return HELPER_WIRE_ERROR;
		if (ps == HELPER_PARSE_OK) {
			memmove(r->buf, r->buf + used, r->len - used);
			r->len -= used;
			return claim_fd(r, m, fd_out, err, errlen);
		}
		int wait = first_ms;
		if (r->len > 0) {
			if (deadline < 0)
				deadline = now_ms() + io_ms;
			long left = deadline - now_ms();
			wait = left > 0 ? (int)left : 0;
		}
		enum helper_wire_status st = fill(sock, r, wait, err, errlen);
		if (st == HELPER_WIRE_EOF && r->len > 0) {
			snprintf(err, errlen, "connection closed in the middle of a message");
			return HELPER_WIRE_ERROR;
		}
		if (st == HELPER_WIRE_TIMEOUT && r->len > 0)
			snprintf(err, errlen, "a message took longer than %d ms to arrive", io_ms);
		if (st != HELPER_WIRE_OK)
			return st;
	}
}

int
helper_wire_send(int sock, const struct helper_msg *m, int pass_fd, char *err, size_t errlen)
{
	uint8_t buf[HELPER_MSG_MAX];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	long n = helper_msg_encode(m, buf, sizeof(buf), err, errlen);
	if (n < 0)
		return -1;
	size_t off = 0;
	while (off < (size_t)n) {
		struct iovec iov = { buf + off, (size_t)n - off };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (off == 0 && pass_fd >= 0) { /* the descriptor rides on the first byte */
			memset(&control, 0, sizeof(control));
			mh.msg_control = control.buf;
			mh.msg_controllen = sizeof(control.buf);
			struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
		}
		ssize_t w = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			snprintf(err, errlen, "send %s: %s", helper_msg_type_name(m->type),
			    w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? "timed out" :
			    strerror(errno));
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

int
helper_wire_send_err(int sock, enum helper_err_code code, const char *fmt, ...)
{
	struct helper_msg m;
	char err[128];
	va_list ap;

	helper_msg_init(&m, HELPER_MSG_ERR);
	m.code = (uint16_t)code;
	va_start(ap, fmt);
	vsnprintf(m.message, sizeof(m.message), fmt, ap);
	va_end(ap);
	return helper_wire_send(sock, &m, -1, err, sizeof(err));
}
