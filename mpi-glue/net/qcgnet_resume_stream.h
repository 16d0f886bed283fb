/*
 * qcgnet_resume_stream.h: the resumable stream of a relayed connection (issue 14).
 *
 * For a relayed connection the application does not get the relay leg itself but one end of
 * a local socketpair. The other end and the leg belong to one small per-process I/O thread (a
 * poll loop over every such stream), which frames the bytes (qcgnet_resume_frame.h), keeps a
 * bounded window of bytes the peer has not acknowledged, and acknowledges what it delivers.
 * When the leg breaks (EOF, reset, or no progress), a short-lived thread asks `path` for a new
 * leg to the same peer, through another proxy, until `resume_timeout_ms` from the break; both
 * ends then say on the new leg how much they have received and replay exactly the rest. The
 * application sees no break. When no leg comes back in time the application's end is closed
 * and the log says why: the connection fails as it did before.
 *
 * Back-pressure, not growth: while `window` bytes are unacknowledged the thread stops reading
 * the application's end, whose sends then block (or return EAGAIN) as on a slow TCP peer.
 */
#ifndef QCG_QCGNET_RESUME_STREAM_H
#define QCG_QCGNET_RESUME_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t */

#define QRS_IDENTITY_SIZE 16
#define QRS_WINDOW_DEFAULT (4u << 20)      /* unacknowledged bytes kept per direction */
#define QRS_WINDOW_MIN (256u << 10)
#define QRS_RESUME_TIMEOUT_DEFAULT_MS 60000 /* issue 14: resume_timeout */
#define QRS_STALL_DEFAULT_MS 0             /* off: see stall_ms */
#define QRS_KEEPALIVE_IDLE_S 10            /* an idle leg is probed (TCP keepalive) after this, */
#define QRS_KEEPALIVE_INTVL_S 5            /* every this, and declared dead after */
#define QRS_KEEPALIVE_CNT 3                /* this many unanswered probes */
#define QRS_STREAMS_MAX 4096               /* resumable streams one process runs at once */

/*
 * Get a new leg to the same peer: connect to a proxy and send the relay hello for a relay id
 * both ends were given. `attempt` counts from 0 for each break; timeout_ms is what is left of
 * the resume time. Returns the connected socket, or -1 with err. Called from a resume thread,
 * never from the I/O thread, so it may block (within timeout_ms).
 */
typedef int (*qrs_path_fn)(void *arg, unsigned attempt, int timeout_ms, char *err,
    size_t errlen);

struct qrs_config {
	size_t window;          /* unacknowledged bytes kept: QRS_WINDOW_MIN..QRF_WINDOW_MAX */
	int resume_timeout_ms;  /* from a break to giving up */
	int stall_ms;           /* unacknowledged data and nothing heard for this long: broken;
	                         * 0 = off (the default). Off because a peer whose application
	                         * reads nothing while its own data waits unread here (both
	                         * sides back-pressured) says nothing either, and a false break
	                         * costs a proxy. A proxy host that vanishes silently is found
	                         * by TCP keepalive on an idle leg, and by the kernel's
	                         * retransmission timeout (minutes) under unacknowledged data */
	int ack_ms;             /* delivered bytes are acknowledged at most this late */
	void (*log)(const char *line); /* where resume and failure lines go; NULL: stderr */
	/* Called (may be NULL) from the I/O thread when a new leg took over after a break, with
	 * the path's arg and the payload bytes this end sends again; must not block. */
	void (*resumed)(void *arg, uint64_t bytes_replayed);
	/* After a round with events the I/O thread polls without sleeping for this long (µs)
	 * before it blocks: a reply that comes meanwhile costs no wake-up. The process's I/O
	 * thread uses the largest of its open streams'. 0 = never spin. Costs a CPU while spinning. */
	int spin_us;
	/* SO_SNDBUF and SO_RCVBUF of the application's socketpair (bytes); 0 = the kernel's. */
	int app_sockbuf;
	/* 1 (the default): while the application waits for its end in an epoll set, its reads
	 * take the frames off the leg on its own thread (qrs_app_recv). 0: the I/O thread always
	 * delivers through the socketpair. */
	int app_read;
};

/* Process-wide counters since the first stream, for statistics and the tests. */
struct qrs_totals {
	uint64_t streams_started;
	uint64_t streams_open;     /* gauge */
	uint64_t streams_failed;   /* gave up: no new leg in time, or a protocol error */
	uint64_t resumes;          /* legs replaced */
	uint64_t bytes_replayed;   /* payload sent again after a resume */
	uint64_t bytes_direct;     /* taken from the application's sends on its own thread */
	uint64_t bytes_queued;     /* taken from the socketpair by the I/O thread */
	uint64_t bytes_read_direct; /* delivered into the application's reads on its thread */
	uint64_t bytes_read_queued; /* delivered through the socketpair by the I/O thread */
	uint64_t io_rounds;        /* the I/O thread's rounds: its wake-ups, about */
};

/* Fill cfg with the defaults above. */
void qrs_config_default(struct qrs_config *cfg);

/*
 * Take over `leg` (connected, relay hello sent) for a stream named `identity` (both ends give
 * the same: the first relay id). Returns the application's end of the socketpair (blocking,
 * close-on-exec), or -1 with err; leg is closed on failure. `path` and `arg` must stay valid
 * while the stream lives.
 */
int qrs_start(int leg, const uint8_t identity[QRS_IDENTITY_SIZE], const struct qrs_config *cfg,
    qrs_path_fn path, void *arg, char *err, size_t errlen);

void qrs_get_totals(struct qrs_totals *out);

/*
 * The send side on the application's own thread (qcgnet_resume_send.c wraps write, writev,
 * send and sendmsg with it). When fd is the application's end of a stream returned by
 * qrs_start (or where qrs_app_moved put it), the bytes are copied into the stream's window
 * (the one copy) and, while the leg is up and writable, framed and sent on it at once: no
 * hand-off to the I/O thread, no socketpair hop. Returns 1 with *taken = the bytes the stream
 * took (the caller sends the rest, if any, on fd itself: it queues behind them); 0 when the
 * call is not the stream's to take (another descriptor, flags other than MSG_NOSIGNAL,
 * MSG_DONTWAIT, MSG_MORE, bytes already queued on the socketpair, a full window, a closed or
 * failed stream, an end shut down for writing): the caller then makes the real call on fd,
 * the socketpair path, which keeps the bytes in order behind what is queued there.
 */
struct iovec;
int qrs_app_send(int fd, const struct iovec *iov, int iovcnt, int flags, size_t *taken);

/*
 * The receive side on the application's own thread (qcgnet_resume_recv.c wraps read, readv,
 * recv, recvfrom and recvmsg with qrs_app_recv, and epoll_ctl with qrs_app_epoll_ctl). When
 * the application registers a stream's end for EPOLLIN in an epoll set (non-blocking, not
 * one-shot), the leg joins that set with the same event data; when it polls the end, the leg
 * is polled too (qrs_app_poll); a read on the end then takes the frames off the leg into the
 * caller's buffers, and a blocking read that finds nothing waits on the end and the leg.
 * Returns 1 with *result (bytes, or -1 and errno EAGAIN) when the stream answered the call; 0
 * when the caller makes the real call on fd (another descriptor, flags other than
 * MSG_DONTWAIT, bytes queued on the socketpair, the leg not watched by the application, the
 * end of the stream, a signal during a blocking wait).
 */
struct epoll_event;
int qrs_app_recv(int fd, const struct iovec *iov, int iovcnt, int flags, ssize_t *result);
/* epoll_ctl(epfd, op, fd, ev) succeeded. */
void qrs_app_epoll_ctl(int epfd, int op, int fd, const struct epoll_event *ev);
/* poll(fds, nfds, timeout) of an application that polls a stream's end for reading: the leg
 * is polled beside it and reported as the end. Returns 1 with *result as poll's; 0 when the
 * caller makes the real call. */
struct pollfd;
int qrs_app_poll(struct pollfd *fds, unsigned long nfds, int timeout, int *result);

/* shutdown(fd, how) is about to run (qcgnet_resume_send.c): when fd is a stream's application
 * end and how stops its writing, qrs_app_send takes nothing more from it, so that a later
 * write meets the socketpair's EPIPE as on any socket, rather than being sent. */
void qrs_app_shutdown(int fd, int how);

/* The application's end moved from one descriptor to another (dup3 onto the application's
 * own descriptor, then close of the old one); or is being closed. */
void qrs_app_moved(int from, int to);
void qrs_app_closing(int fd);

/* In the child after fork() (pthread_atfork): the I/O thread does not survive fork, so the
 * parent's streams are forgotten here, and the child's first qrs_start starts its own thread. */
void qrs_after_fork_child(void);

/* At process exit: give the I/O thread up to timeout_ms to put on their legs the last bytes and
 * the FIN of the streams the application closed, so that the peer sees the connection end
 * rather than a broken leg (which it would try to resume for resume_timeout). */
#define QRS_EXIT_FLUSH_MS 200
void qrs_flush_at_exit(int timeout_ms);

#endif
