/*
 * relay_splice.c: zero-copy relaying between two sockets through a pipe per direction (see
 * relay_splice.h for the contract).
 */
#define _GNU_SOURCE /* splice, F_SETPIPE_SZ, pipe2 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay_hello.h" /* RELAY_PEER_GONE_MARK */
#include "relay_splice.h"

enum dir_result {
	DIR_BLOCKED,  /* waiting for the source to be readable or the destination writable */
	DIR_BUDGET,   /* budget spent */
	DIR_FINISHED, /* EOF passed on */
	DIR_FAILED,   /* errno set */
};

static int
direction_open(struct relay_direction *d, size_t want, size_t *granted)
{
	int p[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	/* Refusal (EPERM above pipe-max-size or a user's pipe quota) is not fatal: the default
	 * capacity still works, only with more system calls per byte. */
	(void)fcntl(p[1], F_SETPIPE_SZ, (int)want);
	int size = fcntl(p[1], F_GETPIPE_SZ);
	*granted = size > 0 ? (size_t)size : 4096;
	d->pipe_rd = p[0];
	d->pipe_wr = p[1];
	d->in_pipe = 0;
	d->src_eof = false;
	d->done = false;
	d->src_marked = false;
	return 0;
}

static void
direction_close(struct relay_direction *d)
{
	if (d->pipe_rd >= 0)
		close(d->pipe_rd);
	if (d->pipe_wr >= 0)
		close(d->pipe_wr);
	d->pipe_rd = d->pipe_wr = -1;
}

int
relay_session_init(struct relay_session *s, int fd0, int fd1, size_t pipe_size)
{
	size_t granted0, granted1;

	s->dir[0].pipe_rd = s->dir[0].pipe_wr = s->dir[1].pipe_rd = s->dir[1].pipe_wr = -1;
	if (direction_open(&s->dir[0], pipe_size, &granted0) < 0)
		return -1;
	if (direction_open(&s->dir[1], pipe_size, &granted1) < 0) {
		int saved = errno;
		direction_close(&s->dir[0]);
		errno = saved;
		return -1;
	}
	s->fd[0] = fd0;
	s->fd[1] = fd1;
	s->pipe_size = granted0 < granted1 ? granted0 : granted1;
	s->wants_mark[0] = s->wants_mark[1] = false;
	s->is_hop[0] = s->is_hop[1] = false;
	return 0;
}

/*
 * splice from a TCP socket stops before an urgent byte and never passes it (tcp_read_sock), so
 * a source that sent one (a previous proxy's peer-gone mark, relay_hello.h, or a hostile leg)
 * would stall its direction, and the byte, left unread, would make closing the socket send a
 * reset that drops what this proxy still sends the other way. A plain recv steps over the
 * urgent byte (SO_OOBINLINE is off) and then reads on: the one byte of payload it may return is
 * put into the pipe. Returns what splice would: 1, 0 on EOF, -1 with errno.
 */
static ssize_t
skip_urgent_mark(struct relay_direction *d, int src)
{
	unsigned char byte;
	ssize_t n;

	do
		n = recv(src, &byte, 1, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n >= 0 || errno == EAGAIN)
		d->src_marked = true; /* stepped over it */
	if (n == 1 && write(d->pipe_wr, &byte, 1) != 1)
		return -1; /* cannot happen: the caller saw room in the pipe */
	return n;
}

/* Fill the pipe from src; returns bytes moved, 0 on EOF, -1 with errno (EAGAIN: nothing). */
static ssize_t
direction_fill(struct relay_direction *d, int src, size_t room)
{
	ssize_t n;

	do
		n = splice(src, NULL, d->pipe_wr, NULL, room, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	while (n < 0 && errno == EINTR);
	/* At an urgent byte splice says EAGAIN, or 0 once the FIN is in: step over it, so that
	 * the bytes behind it flow and none is left unread when the socket is closed. */
	if (n <= 0 && (n == 0 || errno == EAGAIN) && sockatmark(src) == 1)
		n = skip_urgent_mark(d, src);
	return n;
}

/* Drain the pipe into dst; returns bytes moved or -1 with errno (EAGAIN: dst is full). */
static ssize_t
direction_drain(struct relay_direction *d, int dst)
{
	ssize_t n;

	do
		n = splice(d->pipe_rd, NULL, dst, NULL, d->in_pipe, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	while (n < 0 && errno == EINTR);
	return n;
}

/* The source of dst's bytes ended while this proxy lives: say so with the urgent mark
 * (relay_hello.h), so that a resumable end fails at once rather than asking for another
 * proxy. Best effort: when dst's buffer is full the mark is dropped and the end resumes in
 * vain until its resume_timeout, as it would without the mark. After a reset the relay is lost
 * anyway, so there the mark goes at once, even behind unsent bytes (see ready_for_mark). */
static void
mark_peer_gone(int dst)
{
	const unsigned char mark = RELAY_PEER_GONE_MARK;
	ssize_t n;
	do
		n = send(dst, &mark, 1, MSG_OOB | MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
}

/*
 * Whether dst may take the mark now: only once every byte before it has left the socket. An
 * urgent byte sent behind unsent data makes TCP announce it in the segments that carry that
 * data, with a pointer capped at 64 KiB or (in large offloaded segments) pointing into the
 * data: a receiving proxy's splice then stops at that announced byte, and once the FIN is in,
 * returns 0 there as if the stream had ended, megabytes early (test_proxy_chain lost data so).
 * TCP_NOTSENT_LOWAT 1 makes dst writable only when nothing is unsent, and the poll arms the
 * wake-up (SOCK_NOSPACE) that brings dst's EPOLLOUT, and this direction back, when it is.
 * Nothing else is written to dst: its source has ended. An error on dst: no mark, go on.
 */
static bool
ready_for_mark(int dst)
{
	int one = 1;
	struct pollfd p = { .fd = dst, .events = POLLOUT };

	(void)setsockopt(dst, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &one, sizeof(one));
	return poll(&p, 1, 0) != 0;
}

/*
 * Move bytes src -> dst until both ends would block, EOF is passed on, or `budget` bytes were
 * read. A full pipe makes the fill fail with EAGAIN even when bytes remain in the socket; that
 * is safe, because then the pipe is non-empty and the drain either progresses (and we loop) or
 * blocks on dst, whose EPOLLOUT brings us back.
 */
static enum dir_result
direction_pump(struct relay_direction *d, int src, int dst, bool mark_src, bool mark_dst,
    bool src_is_hop, bool dst_is_hop, size_t cap, size_t budget, uint64_t *moved)
{
	size_t read_total = 0;

	while (!d->done) {
		bool progress = false;
		if (!d->src_eof && d->in_pipe < cap) {
			if (read_total >= budget)
				return DIR_BUDGET;
			ssize_t n = direction_fill(d, src, cap - d->in_pipe);
			if (n > 0) {
				d->in_pipe += (size_t)n;
				read_total += (size_t)n;
				progress = true;
			} else if (n == 0) {
				d->src_eof = true;
				progress = true;
			} else if (errno != EAGAIN) {
				/* The source was reset (its process killed with bytes unread): the mark,
				 * then an orderly end, so that the mark is not lost to a reset of dst
				 * when the session closes. */
				int saved = errno;
				if (mark_dst && !src_is_hop) { /* a hop's reset: that proxy may be dead */
					mark_peer_gone(dst);
					(void)shutdown(dst, SHUT_WR);
				}
				errno = saved;
				return DIR_FAILED;
			}
		}
		if (d->in_pipe > 0) {
			ssize_t n = direction_drain(d, dst);
			if (n > 0) {
				d->in_pipe -= (size_t)n;
				*moved += (uint64_t)n;
				progress = true;
			} else if (n < 0 && errno != EAGAIN) {
				/* The destination is gone (reset, its process killed): the source's end
				 * learns it from the mark, as in the case above. */
				int saved = errno;
				if (mark_src && !dst_is_hop) {
					mark_peer_gone(src);
					(void)shutdown(src, SHUT_WR);
				}
				errno = saved;
				return DIR_FAILED;
			}
		}
		if (d->src_eof && d->in_pipe == 0) {
			/* Another proxy's end: that proxy died, or it passes a mark on. Only the
			 * latter says the peer is gone; a dead proxy's legs must resume. */
			if (mark_dst && (!src_is_hop || d->src_marked)) {
				if (!ready_for_mark(dst))
					return DIR_BLOCKED; /* dst's EPOLLOUT: its queue went out */
				mark_peer_gone(dst);
			}
			/* ENOTCONN: the peer is gone entirely; the other direction will notice. */
			if (shutdown(dst, SHUT_WR) < 0 && errno != ENOTCONN)
				return DIR_FAILED;
			d->done = true;
		} else if (!progress) {
			return DIR_BLOCKED;
		}
	}
	return DIR_FINISHED;
}

void
relay_session_leg_failed(struct relay_session *s, int side)
{
	int other = s->fd[1 - side];

	if (s->wants_mark[1 - side] && !s->is_hop[side] && other >= 0) {
		mark_peer_gone(other);
		(void)shutdown(other, SHUT_WR);
	}
}

unsigned
relay_session_dirs_for(int side, uint32_t events)
{
	unsigned as_source = side == 0 ? RELAY_DIR_0 : RELAY_DIR_1;
	unsigned as_destination = RELAY_DIR_BOTH & ~as_source;
	unsigned dirs = 0;

	if (events & (EPOLLERR | EPOLLHUP))
		return RELAY_DIR_BOTH;
	if (events & (EPOLLIN | EPOLLRDHUP))
		dirs |= as_source;
	if (events & EPOLLOUT)
		dirs |= as_destination;
	return dirs;
}

enum relay_pump_result
relay_session_pump(struct relay_session *s, unsigned dirs, size_t budget, uint64_t moved[2])
{
	bool again = false;

	for (int i = 0; i < 2; i++) {
		if (!(dirs & (1u << i)))
			continue;
		enum dir_result r = direction_pump(&s->dir[i], s->fd[i], s->fd[1 - i],
		    s->wants_mark[i], s->wants_mark[1 - i], s->is_hop[i], s->is_hop[1 - i],
		    s->pipe_size, budget, &moved[i]);
		if (r == DIR_FAILED)
			return RELAY_PUMP_ERROR;
		if (r == DIR_BUDGET)
			again = true;
	}
	if (s->dir[0].done && s->dir[1].done)
		return RELAY_PUMP_DONE;
	return again ? RELAY_PUMP_AGAIN : RELAY_PUMP_WAIT;
}

void
relay_session_close(struct relay_session *s)
{
	direction_close(&s->dir[0]);
	direction_close(&s->dir[1]);
	for (int i = 0; i < 2; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}
