/*
 * qcgnet_resume_stream.c: the I/O thread of resumable relayed streams
 * (qcgnet_resume_stream.h; the wire format is qcgnet_resume_frame.h).
 *
 * One thread waits (epoll) on every stream's two descriptors: `app`, this side of the
 * application's socketpair, and `leg`, the relay leg. Per stream and direction:
 *   out  app -> ring (the unacknowledged window; one copy) -> writev(header, ring) -> leg
 *   in   leg -> inbuf -> parsed frame by frame -> payload written to app
 * Offsets are 64-bit: tx_base (acknowledged by the peer) <= tx_sent (framed on this leg) <=
 * tx_end (taken from the application); tx_high is the most ever sent on any leg, the upper
 * bound of a valid ack. rx_delivered counts bytes written to the application, and it is what
 * this side acknowledges: bytes still in inbuf when a leg dies are replayed by the peer.
 *
 * Every leg begins with a RESUME frame from each side; DATA waits for the peer's. A broken leg
 * is closed and a resume thread asks the path function for another; the I/O thread picks the
 * new leg up from `pending_leg` when the thread rings the eventfd.
 *
 * Cost (issue 14): a byte that crosses this thread costs a wake-up and system calls on the
 * relayed path. So the application's own threads frame their small sends onto the leg
 * (qrs_app_send) and take received frames off it (qrs_app_recv, with the leg in their poll,
 * epoll set or blocked read), and this thread is left the rest: bulk sends, replay, acks when
 * the application is busy elsewhere, the leg's end and the peer-gone mark. Its descriptors
 * stay registered with epoll and their interest changes only when the stream's state does; a
 * descriptor is read only after epoll reported it readable and until one short read (no read
 * just to meet EAGAIN); a frame the leg takes short is left for EPOLLOUT. bench/net/README.md
 * has the figures.
 */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "qcgnet_resume_frame.h"
#include "qcgnet_resume_stream.h"
#include "relay_hello.h" /* RELAY_PEER_GONE_MARK */

#define INBUF_SIZE (256u << 10) /* leg bytes read ahead of the application */
#define OUT_MAX (QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD)

struct stream;
struct ep_ref { /* what an epoll event points at: a stream's app or leg */
	struct stream *s;
	int is_leg;
};

struct stream {
	struct stream *next;
	/* Everything below is the I/O thread's, and the application's thread's while it sends
	 * through qrs_app_send: both hold this lock while they touch the stream. */
	pthread_mutex_t lock;
	int app, leg;                    /* leg: -1 while a resume thread looks for one */
	int app_fd;                      /* the application's end (its number may move: dup3), or
	                                  * -1 when not in the send table */
	dev_t app_dev;                   /* which socket app_fd must be, for the send table */
	ino_t app_ino;
	uint8_t identity[QRS_IDENTITY_SIZE];
	struct qrs_config cfg;
	qrs_path_fn path;
	void *path_arg;

	uint8_t *ring;                   /* cfg.window bytes: [tx_base, tx_end) at offset % size */
	uint64_t tx_base, tx_sent, tx_end, tx_high;
	int app_eof, fin_sent;
	uint8_t out[OUT_MAX];            /* header (and RESUME payload) being written */
	size_t out_len, out_off;
	uint32_t out_payload;            /* DATA bytes of the current frame not yet written */

	uint8_t *in;                     /* INBUF_SIZE */
	size_t in_len, in_off;
	int have_cur;                    /* inside a DATA frame's payload */
	uint32_t cur_left, cur_skip;
	uint64_t rx_delivered, rx_acked;
	long ack_sent_us;
	int peer_resumed, need_resume, peer_fin, app_shut, app_gone;
	int app_wr_shut;                 /* the application shut its end down for writing */
	int app_blocked;                 /* the last write to app met a full socket buffer */
	int closed_clean;                /* the leg ended after both sides finished */
	int urgent;                      /* epoll saw urgent data on the leg (EPOLLPRI) */
	int leg_readable;                /* epoll saw the leg readable since the last short read */
	int peer_gone_marked;            /* the proxy's peer-gone mark came on this leg */
	int peer_gone;                   /* the leg ended after that mark: fail, no resume */
	int kick;                        /* epoll saw an event on app or leg: step it */
	int app_readable;                /* epoll saw app readable since the last short read */
	struct ep_ref app_ref, leg_ref;
	uint32_t app_ev, leg_ev;         /* the interest registered with epoll (0: not registered) */
	int leg_ev_fd;                   /* the descriptor leg_ev is registered for */
	long stepped_us;                 /* last step: a quiet stream is still stepped now and
	                                  * then, for its stall check and acks */

	/* The application's reads on its own thread (qrs_app_recv): while its epoll set watches
	 * its end, the leg is in that set too, with the same event data, so that a frame wakes
	 * the application and not this thread; the application's read then takes it off the leg.
	 * The I/O thread still sees the leg (edge-triggered) and reads it itself when the
	 * application has not within DEFER_GRACE_US, so that acks never wait on a busy
	 * application. */
	int mirror_ep;                   /* the application's epoll set, or -1 */
	dev_t mirror_dev;                /* which epoll set mirror_ep must still be */
	ino_t mirror_ino;
	struct epoll_event mirror_ev;    /* EPOLLIN (EPOLLET if asked) and the application's data */
	int mirror_leg;                  /* the leg registered in mirror_ep, or -1 */
	int mirror_off;                  /* never again for this stream (a second epoll set, a
	                                  * blocking read) */
	int leg_ended;                   /* the application's read met the leg's end or mark: the
	                                  * I/O thread's now, out of the application's set */
	int leg_deferred;                /* the I/O thread's leg interest leaves reads to the app */
	long leg_seen_us;                /* the I/O thread saw leg bytes it left to the app, or 0 */
	long app_took_us;                /* the application's thread last took bytes off the leg */
	_Atomic long app_polled_us;      /* the application's poll() last asked for its end's
	                                  * readability (qrs_app_poll, or a blocked read), or 0 */
	unsigned leg_gen;                /* counts the legs (set_leg) */
	_Atomic unsigned polled_gen;     /* the leg that poll or blocked read waited on */
	unsigned busy_skips;             /* rounds of the I/O thread that found the stream held
	                                  * (read and written by the I/O thread only) */

	long heard_us;                   /* last byte from the leg */
	long broke_us;                   /* first break since the last RESUME exchange, or 0 */
	unsigned legs_lost;              /* legs that broke since then: backs the path off */
	int resuming;                    /* a resume thread runs; the stream may not be freed */
	int pending_leg;                 /* set by the resume thread: a leg, or -1 = gave up */
	int pending_ready;
	char why[640];                   /* the break's reason, then the resume thread's error */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream *g_incoming;   /* started, not yet taken by the I/O thread */
static int g_wake = -1;             /* eventfd */
static int g_ep = -1;               /* the I/O thread's epoll set */
static int g_started;
static unsigned g_count;
static struct qrs_totals g_totals;
static pthread_cond_t g_looped = PTHREAD_COND_INITIALIZER; /* the I/O thread went round */
static uint64_t g_loops;            /* rounds of the I/O thread */
static unsigned g_closing;          /* streams whose application closed, not all written yet */

/* The send table: the application's end of each stream by descriptor, for qrs_app_send. Read
 * without a lock for the common miss (a descriptor of no stream); changed, and a hit followed,
 * under g_tab_lock. Lock order: g_tab_lock, then a stream's lock, then g_lock. */
static pthread_mutex_t g_tab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream *_Atomic *g_tab; /* g_tab_size entries, or NULL before the first stream */
static int g_tab_size;
#define TAB_SIZE_TYPICAL 65536
#define TAB_SIZE_MAX (1 << 20)
/* Set in the stream's own threads, and in an application thread inside qrs_app_send: their
 * sends (legs, the socketpair, the eventfd, log lines) are never the application's, and must
 * not take g_tab_lock behind a stream's lock. */
static __thread int t_in_stream;

static long
now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

static void
say(const struct stream *s, const char *fmt, ...)
{
	char line[800];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->cfg.log != NULL)
		s->cfg.log(line);
	else
		fprintf(stderr, "qcgnet resume [%d]: %s\n", (int)getpid(), line);
}

static void
wake(void)
{
	uint64_t one = 1;
	while (write(g_wake, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

void
qrs_config_default(struct qrs_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->window = QRS_WINDOW_DEFAULT;
	cfg->resume_timeout_ms = QRS_RESUME_TIMEOUT_DEFAULT_MS;
	cfg->stall_ms = QRS_STALL_DEFAULT_MS;
	cfg->ack_ms = 5;
	cfg->app_read = 1;
}

void
qrs_get_totals(struct qrs_totals *out)
{
	pthread_mutex_lock(&g_lock);
	*out = g_totals;
	out->io_rounds = g_loops;
	pthread_mutex_unlock(&g_lock);
	/* counted by application threads without g_lock */
	out->bytes_direct = __atomic_load_n(&g_totals.bytes_direct, __ATOMIC_RELAXED);
	out->bytes_queued = __atomic_load_n(&g_totals.bytes_queued, __ATOMIC_RELAXED);
	out->bytes_read_direct = __atomic_load_n(&g_totals.bytes_read_direct, __ATOMIC_RELAXED);
	out->bytes_read_queued = __atomic_load_n(&g_totals.bytes_read_queued, __ATOMIC_RELAXED);
}

/* Take fd out of the epoll set before closing it: a copy of it in a child of fork() would keep
 * it registered, and its events would point at a freed stream. */
static void
ep_forget(int fd, uint32_t *registered)
{
	if (*registered != 0)
		epoll_ctl(g_ep, EPOLL_CTL_DEL, fd, NULL);
	*registered = 0;
}

static void
leg_close(struct stream *s)
{
	if (s->leg_ev != 0)
		ep_forget(s->leg_ev_fd, &s->leg_ev);
	close(s->leg); /* which takes it out of the application's epoll set too */
	s->leg = -1;
	s->mirror_leg = -1;
	s->leg_seen_us = 0;
}

static void tab_forget(struct stream *s);

static void
stream_free(struct stream *s)
{
	tab_forget(s); /* no application thread holds or finds s after this */
	if (s->leg >= 0)
		leg_close(s);
	if (s->app >= 0) {
		ep_forget(s->app, &s->app_ev);
		close(s->app);
	}
	free(s->ring);
	free(s->in);
	pthread_mutex_destroy(&s->lock);
	free(s);
	pthread_mutex_lock(&g_lock);
	g_count--;
	g_totals.streams_open--;
	pthread_mutex_unlock(&g_lock);
}

/* --- breaking and resuming -------------------------------------------------------------- */

/* Whether the leg holds the proxy's peer-gone mark (relay_hello.h), an urgent byte. The kernel
 * drops it once a read moves past it, so leg_read reads it as soon as epoll says EPOLLPRI and
 * never reads on after a short read without waiting again. */
static int
peer_gone_marked(int leg)
{
	unsigned char mark = 0;
	ssize_t n;
	do
		n = recv(leg, &mark, 1, MSG_OOB | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n == 1 && mark == RELAY_PEER_GONE_MARK;
}

static void *
resume_main(void *arg)
{
	struct stream *s = arg;
	t_in_stream = 1;
	long deadline = s->broke_us + (long)s->cfg.resume_timeout_ms * 1000, backoff_ms = 20;
	char err[640] = "no attempt";
	int fd = -1;
	/* A leg the path gave that broke before the peer's RESUME (refused by the proxy, or the
	 * new proxy died too) must not make a hot loop: wait as if that attempt had failed. */
	for (unsigned lost = 1; lost < s->legs_lost && backoff_ms < 1000; lost++)
		backoff_ms *= 2;
	if (s->legs_lost > 1) {
		long left_ms = (deadline - now_us()) / 1000;
		long ms = backoff_ms < left_ms ? backoff_ms : (left_ms > 0 ? left_ms : 0);
		struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&t, NULL);
	}
	snprintf(err, sizeof(err), "%s", s->why);
	for (unsigned attempt = 0;; attempt++) {
		long left_ms = (deadline - now_us()) / 1000;
		if (left_ms <= 0)
			break;
		fd = s->path(s->path_arg, attempt, (int)left_ms, err, sizeof(err));
		if (fd >= 0)
			break;
		long ms = (deadline - now_us()) / 1000; /* never sleep past the deadline */
		ms = ms < backoff_ms ? (ms > 0 ? ms : 0) : backoff_ms;
		struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&t, NULL);
		backoff_ms = backoff_ms * 2 > 1000 ? 1000 : backoff_ms * 2;
	}
	pthread_mutex_lock(&g_lock);
	s->pending_leg = fd;
	if (fd < 0)
		snprintf(s->why, sizeof(s->why), "%s", err);
	s->pending_ready = 1;
	pthread_mutex_unlock(&g_lock);
	wake();
	return NULL;
}

/* The leg is gone: drop what it half carried and look for another. */
static void
leg_broken(struct stream *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	if (s->peer_gone_marked || peer_gone_marked(s->leg)) {
		/* The proxy lives and saw the peer's leg end before the stream finished: the peer
		 * process ended (killed, or exited without closing). No proxy brings it back. */
		char how[sizeof(s->why)];
		snprintf(how, sizeof(how), "%s", s->why);
		snprintf(s->why, sizeof(s->why), "the peer's end of the relay ended before the "
		    "stream finished (the proxy lives and said so; here: %.200s): no resume is tried",
		    how);
		s->peer_gone = 1;
		leg_close(s);
		return;
	}
	leg_close(s);
	s->in_len = s->in_off = 0;
	s->have_cur = 0;
	s->out_len = s->out_off = 0;
	s->out_payload = 0;
	s->peer_resumed = 0;
	s->fin_sent = 0; /* it may have died with the leg: said again after the replay */
	s->legs_lost++;
	if (s->broke_us == 0) { /* resume_timeout counts from the first break, not each leg */
		s->broke_us = now_us();
		say(s, "relay leg broken (%s) with %llu bytes unacknowledged; asking for a new leg "
		       "for up to %d ms", s->why, (unsigned long long)(s->tx_high - s->tx_base),
		    s->cfg.resume_timeout_ms);
	}
	s->resuming = 1;
	s->pending_ready = 0;
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, resume_main, s) != 0) {
		s->pending_leg = -1;
		s->pending_ready = 1;
		snprintf(s->why, sizeof(s->why), "cannot start a resume thread");
	}
	pthread_attr_destroy(&attr);
}

static void
set_leg(struct stream *s, int fd)
{
	int one = 1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	int idle = QRS_KEEPALIVE_IDLE_S, intvl = QRS_KEEPALIVE_INTVL_S, cnt = QRS_KEEPALIVE_CNT;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	s->leg = fd;
	s->need_resume = 1;
	s->peer_resumed = 0;
	s->urgent = s->peer_gone_marked = 0; /* a mark belongs to the leg it came on */
	s->leg_readable = 0;
	s->leg_ended = 0;
	s->leg_gen++;
	s->heard_us = now_us();
}

/* --- application -> ring -> leg ----------------------------------------------------------- */

static void
app_read(struct stream *s)
{
	size_t size = s->cfg.window;
	while (s->app_readable && !s->app_eof && s->tx_end - s->tx_base < size) {
		size_t pos = s->tx_end % size, room = size - (size_t)(s->tx_end - s->tx_base);
		if (room > size - pos)
			room = size - pos;
		ssize_t n = read(s->app, s->ring + pos, room);
		if (n > 0) {
			s->tx_end += (uint64_t)n;
			__atomic_fetch_add(&g_totals.bytes_queued, (uint64_t)n, __ATOMIC_RELAXED);
			if ((size_t)n < room)
				s->app_readable = 0; /* drained for now; epoll says when more comes */
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			s->app_eof = 1; /* the application closed or shut down its sending side */
		if (n < 0 && errno == EINTR)
			continue;
		s->app_readable = 0;
		break;
	}
}

/* Choose the next frame to write when none is in progress; 0 when there is nothing to say. */
static int
next_frame(struct stream *s)
{
	uint32_t ack = (uint32_t)s->rx_delivered;
	if (s->need_resume) {
		qrf_encode(s->out, QRF_RESUME, QRF_RESUME_PAYLOAD, (uint32_t)s->tx_end, ack);
		memcpy(s->out + QRF_HEADER_SIZE, s->identity, QRS_IDENTITY_SIZE);
		s->out_len = OUT_MAX;
		s->need_resume = 0;
	} else if (!s->peer_resumed) {
		return 0;
	} else if (s->tx_sent < s->tx_end) {
		uint64_t left = s->tx_end - s->tx_sent;
		uint16_t len = (uint16_t)(left > QRF_PAYLOAD_MAX ? QRF_PAYLOAD_MAX : left);
		qrf_encode(s->out, QRF_DATA, len, (uint32_t)s->tx_sent, ack);
		s->out_len = QRF_HEADER_SIZE;
		s->out_payload = len;
	} else if (s->rx_delivered != s->rx_acked &&
	    (s->rx_delivered - s->rx_acked >= s->cfg.window / 4 ||
		now_us() - s->ack_sent_us >= s->cfg.ack_ms * 1000L || s->peer_fin)) {
		qrf_encode(s->out, QRF_ACK, 0, (uint32_t)s->tx_sent, ack);
		s->out_len = QRF_HEADER_SIZE;
	} else if (s->app_eof && !s->fin_sent) {
		qrf_encode(s->out, QRF_FIN, 0, (uint32_t)s->tx_end, ack);
		s->out_len = QRF_HEADER_SIZE;
		s->fin_sent = 1;
	} else {
		return 0;
	}
	s->out_off = 0;
	s->rx_acked = s->rx_delivered;
	s->ack_sent_us = now_us();
	return 1;
}

/* Put the payload bytes [from, from + len) of the ring into iov (one or two pieces). */
static int
ring_iov(const struct stream *s, uint64_t from, size_t len, struct iovec *iov)
{
	size_t size = s->cfg.window, pos = from % size, first = len;
	if (first > size - pos)
		first = size - pos;
	iov[0] = (struct iovec){ s->ring + pos, first };
	if (first == len)
		return 1;
	iov[1] = (struct iovec){ s->ring, len - first };
	return 2;
}

/*
 * Write frames while the leg takes them. Behind a DATA frame, up to FRAMES_PER_SEND - 1 more
 * DATA frames of what the window holds go in the same sendmsg: one system call per batch
 * rather than per 64 KiB frame. What the leg takes short is kept as the frame in progress
 * (out, out_off, out_payload), as for a single frame.
 */
#define FRAMES_PER_SEND 16
static void
leg_write(struct stream *s)
{
	while (s->leg >= 0) {
		if (s->out_off == s->out_len && s->out_payload == 0 && !next_frame(s))
			return;
		struct iovec iov[3 * FRAMES_PER_SEND];
		uint8_t hdr[FRAMES_PER_SEND][QRF_HEADER_SIZE];
		uint16_t len[FRAMES_PER_SEND];
		int n_iov = 0, extra = 0;
		size_t asked = (s->out_len - s->out_off) + s->out_payload;
		if (s->out_off < s->out_len)
			iov[n_iov++] = (struct iovec){ s->out + s->out_off, s->out_len - s->out_off };
		if (s->out_payload > 0) {
			n_iov += ring_iov(s, s->tx_sent, s->out_payload, iov + n_iov);
			/* Only DATA has a payload, and only DATA may follow DATA at once (a RESUME
			 * waits for the peer's; ACK and FIN go when nothing is left to send). */
			uint64_t next = s->tx_sent + s->out_payload;
			uint32_t ack = (uint32_t)s->rx_delivered;
			while (extra < FRAMES_PER_SEND - 1 && next < s->tx_end) {
				uint64_t left = s->tx_end - next;
				len[extra] = (uint16_t)(left > QRF_PAYLOAD_MAX ? QRF_PAYLOAD_MAX : left);
				qrf_encode(hdr[extra], QRF_DATA, len[extra], (uint32_t)next, ack);
				iov[n_iov++] = (struct iovec){ hdr[extra], QRF_HEADER_SIZE };
				n_iov += ring_iov(s, next, len[extra], iov + n_iov);
				asked += QRF_HEADER_SIZE + len[extra];
				next += len[extra];
				extra++;
			}
		}
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)n_iov };
		ssize_t n = sendmsg(s->leg, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				leg_broken(s, "send: %s", strerror(errno));
			return;
		}
		/* Account the frame in progress, then the batch's frames the leg took. */
		size_t left = (size_t)n, h = s->out_len - s->out_off;
		if (left <= h) {
			s->out_off += left;
			left = 0;
		} else {
			s->out_off = s->out_len;
			left -= h;
			uint32_t p = left < s->out_payload ? (uint32_t)left : s->out_payload;
			s->out_payload -= p;
			s->tx_sent += p;
			left -= p;
		}
		for (int i = 0; i < extra && left > 0; i++) {
			if (left >= QRF_HEADER_SIZE + (size_t)len[i]) {
				s->tx_sent += len[i];
				left -= QRF_HEADER_SIZE + len[i];
				continue;
			}
			/* this frame went short: it becomes the frame in progress */
			memcpy(s->out, hdr[i], QRF_HEADER_SIZE);
			s->out_len = QRF_HEADER_SIZE;
			s->out_off = left < QRF_HEADER_SIZE ? left : QRF_HEADER_SIZE;
			uint32_t p = left > QRF_HEADER_SIZE ? (uint32_t)(left - QRF_HEADER_SIZE) : 0;
			s->out_payload = len[i] - p;
			s->tx_sent += p;
			left = 0;
		}
		if (s->tx_sent > s->tx_high)
			s->tx_high = s->tx_sent;
		if ((size_t)n < asked)
			return; /* the leg's buffer is full: EPOLLOUT says when it takes more */
	}
}

/* --- leg -> application ------------------------------------------------------------------- */

/* An ack (wrapped) from the peer: release what it covers. -1 when it acks bytes never sent. */
static int
take_ack(struct stream *s, uint32_t wire)
{
	uint64_t ack;
	if (qrf_unwrap(wire, s->tx_base, s->tx_high, &ack) != 0)
		return -1;
	if (ack > s->tx_base)
		s->tx_base = ack;
	return 0;
}

/* The peer's RESUME on this leg: check identity, then send from where it stands. */
static int
take_resume(struct stream *s, const struct qrf_header *h, const uint8_t *identity)
{
	uint64_t ack;
	if (memcmp(identity, s->identity, QRS_IDENTITY_SIZE) != 0) {
		snprintf(s->why, sizeof(s->why), "RESUME for another stream");
		return -1;
	}
	/* the peer can have lost nothing we already dropped, nor have more than we sent */
	if (qrf_unwrap(h->ack, s->tx_base, s->tx_high, &ack) != 0) {
		snprintf(s->why, sizeof(s->why),
		    "peer has received %u (mod 2^32), outside the %llu..%llu kept", h->ack,
		    (unsigned long long)s->tx_base, (unsigned long long)s->tx_high);
		return -1;
	}
	uint64_t replay = s->tx_high - ack;
	s->tx_base = ack;
	s->tx_sent = ack;
	s->peer_resumed = 1;
	if (s->legs_lost > 0) {
		pthread_mutex_lock(&g_lock);
		g_totals.resumes++;
		g_totals.bytes_replayed += replay;
		pthread_mutex_unlock(&g_lock);
		say(s, "resumed on a new leg %ld ms after the break; replaying %llu bytes, peer had "
		       "%llu", (now_us() - s->broke_us) / 1000, (unsigned long long)replay,
		    (unsigned long long)ack);
		if (s->cfg.resumed != NULL)
			s->cfg.resumed(s->path_arg, replay);
	}
	s->broke_us = 0;
	s->legs_lost = 0;
	return 0;
}

/* Where consume() delivers payload: the application's own buffers, on its thread. */
struct app_sink {
	const struct iovec *iov;
	int iovcnt, i;   /* the piece being filled */
	size_t off, got; /* within iov[i]; in all */
};

/* Copy up to n bytes into the sink; returns how many fit. */
static size_t
sink_put(struct app_sink *k, const uint8_t *p, size_t n)
{
	size_t done = 0;
	while (done < n && k->i < k->iovcnt) {
		size_t room = k->iov[k->i].iov_len - k->off;
		if (room == 0) {
			k->i++, k->off = 0;
			continue;
		}
		size_t c = n - done < room ? n - done : room;
		memcpy((uint8_t *)k->iov[k->i].iov_base + k->off, p + done, c);
		k->off += c, done += c;
	}
	k->got += done;
	return done;
}

/* Parse and carry out frames in inbuf, delivering payload to the socketpair (sink NULL: the
 * I/O thread) or into the application's buffers (qrs_app_recv). 0 (inbuf used up, the
 * socketpair or sink full), or -1 on a protocol error (s->why says). */
static int
consume(struct stream *s, struct app_sink *sink)
{
	if (sink == NULL)
		s->app_blocked = 0;
	for (;;) {
		size_t avail = s->in_len - s->in_off;
		if (s->have_cur) {
			uint32_t n = s->cur_skip < avail ? s->cur_skip : (uint32_t)avail;
			s->in_off += n, avail -= n, s->cur_skip -= n, s->cur_left -= n;
			uint32_t want = s->cur_left < avail ? s->cur_left : (uint32_t)avail;
			if (want == 0 && s->cur_left > 0)
				return 0;
			ssize_t w = want;
			if (want > 0 && sink != NULL) {
				w = (ssize_t)sink_put(sink, s->in + s->in_off, want);
			} else if (want > 0 && !s->app_gone) {
				w = send(s->app, s->in + s->in_off, want, MSG_NOSIGNAL);
				if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
					s->app_blocked = errno == EAGAIN;
					return 0;
				}
				if (w < 0) {
					s->app_gone = 1; /* nobody reads: the bytes count as delivered */
					w = want;
				}
			}
			s->in_off += (size_t)w, s->cur_left -= (uint32_t)w;
			s->rx_delivered += (uint64_t)w;
			if (sink == NULL && !s->app_gone)
				__atomic_fetch_add(&g_totals.bytes_read_queued, (uint64_t)w,
				    __ATOMIC_RELAXED);
			if ((uint32_t)w < want) {
				/* a short write: its buffer is full, wait for EPOLLOUT; or the sink is */
				s->app_blocked = sink == NULL;
				return 0;
			}
			if (s->cur_left > 0)
				return 0; /* the rest of the payload is still on its way */
			s->have_cur = 0;
			continue;
		}
		struct qrf_header h;
		enum qrf_status st = qrf_parse(s->in + s->in_off, avail, &h);
		if (st == QRF_INCOMPLETE)
			return 0;
		if (st != QRF_OK) {
			snprintf(s->why, sizeof(s->why), "bad frame: %s", qrf_status_name(st));
			return -1;
		}
		if (h.type == QRF_RESUME) {
			if (avail < QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD)
				return 0;
			if (take_resume(s, &h, s->in + s->in_off + QRF_HEADER_SIZE) != 0)
				return -1;
			s->in_off += QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD;
			continue;
		}
		if (!s->peer_resumed) {
			snprintf(s->why, sizeof(s->why), "frame type %u before RESUME", h.type);
			return -1;
		}
		if (take_ack(s, h.ack) != 0) {
			snprintf(s->why, sizeof(s->why), "ack %u (mod 2^32) of bytes never sent", h.ack);
			return -1;
		}
		s->in_off += QRF_HEADER_SIZE;
		if (h.type == QRF_DATA) {
			if (qrf_data_position(s->rx_delivered, h.seq, h.length, &s->cur_skip) != 0) {
				snprintf(s->why, sizeof(s->why), "data at %u beyond the %llu received",
				    h.seq, (unsigned long long)s->rx_delivered);
				return -1;
			}
			s->have_cur = 1;
			s->cur_left = h.length;
		} else if (h.type == QRF_FIN) {
			if (h.seq != (uint32_t)s->rx_delivered) {
				snprintf(s->why, sizeof(s->why), "FIN at %u with %llu received", h.seq,
				    (unsigned long long)s->rx_delivered);
				return -1;
			}
			s->peer_fin = 1;
		}
	}
}

/* Move what is left in inbuf to its start when that makes room. */
static void
inbuf_compact(struct stream *s)
{
	if (s->in_off == s->in_len) {
		s->in_off = s->in_len = 0;
	} else if (s->in_off > INBUF_SIZE / 2) {
		memmove(s->in, s->in + s->in_off, s->in_len - s->in_off);
		s->in_len -= s->in_off;
		s->in_off = 0;
	}
}

/* Read from the leg and deliver; 0, or -1 on a protocol error or when the peer is gone (s->why
 * says which). The leg may break meanwhile. */
static int
leg_read(struct stream *s)
{
	while (s->leg >= 0) {
		if (s->urgent) {
			s->urgent = 0;
			if (peer_gone_marked(s->leg))
				s->peer_gone_marked = 1; /* the bytes before it still count */
		}
		if (consume(s, NULL) != 0)
			return -1;
		inbuf_compact(s);
		if (s->in_len == INBUF_SIZE)
			return 0; /* the application is behind: stop reading the leg */
		/* Read only what epoll said is there. A read that starts at the peer-gone mark steps
		 * over it (and the kernel forgets it) to the FIN behind it; a read after epoll stops
		 * before the mark, because the bytes epoll saw come first, or epoll saw POLLPRI too.
		 * A step for the application or a timer reading the leg could lose the mark (the
		 * surviving end then resumed in vain until resume_timeout, seen under load). */
		if (!s->leg_readable)
			return 0;
		size_t room = INBUF_SIZE - s->in_len;
		ssize_t n = recv(s->leg, s->in + s->in_len, room, MSG_DONTWAIT);
		if (n > 0) {
			s->in_len += (size_t)n;
			s->heard_us = now_us();
			if ((size_t)n < room) {
				/* A short read: the leg is drained for now, or the read stopped at an
				 * urgent mark, which the next read would pass and lose. epoll says. */
				s->leg_readable = 0;
				if (consume(s, NULL) != 0)
					return -1;
				return 0;
			}
			/* A full read may have stopped just before the mark: read it first. */
			if (sockatmark(s->leg) == 1)
				s->urgent = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			s->leg_readable = 0;
			return 0;
		}
		int read_errno = errno; /* consume() writes to the application */
		if (consume(s, NULL) != 0) /* frames read before the end still count */
			return -1;
		if (n == 0 && s->fin_sent && s->tx_base == s->tx_end && s->peer_fin) {
			s->closed_clean = 1; /* the peer finished first and left: nothing is owed */
			return 0;
		}
		leg_broken(s, "%s", n == 0 ? "closed by the proxy" : strerror(read_errno));
		if (s->peer_gone)
			return -1;
	}
	return 0;
}

/* Whether both directions are finished and acknowledged: the stream may go. */
static int
finished(const struct stream *s)
{
	return s->fin_sent && s->tx_base == s->tx_end && s->peer_fin && !s->have_cur &&
	    s->rx_acked == s->rx_delivered && s->out_off == s->out_len && s->out_payload == 0;
}

/* One round of work on s. Returns 1 when s is done (finished or failed) and may be freed. */
static int
stream_step(struct stream *s)
{
	if (s->resuming) {
		pthread_mutex_lock(&g_lock);
		int ready = s->pending_ready, fd = s->pending_leg;
		pthread_mutex_unlock(&g_lock);
		if (!ready) {
			app_read(s); /* fill the window meanwhile */
			return 0;
		}
		s->resuming = 0;
		if (fd < 0) {
			say(s, "no new relay leg within %d ms (%s); the connection fails",
			    s->cfg.resume_timeout_ms, s->why);
			goto fail;
		}
		set_leg(s, fd);
	}
	app_read(s);
	if (leg_read(s) != 0) {
		say(s, "%s%s; the connection fails", s->peer_gone ? "" : "relay leg refused: ",
		    s->why);
		goto fail;
	}
	if (s->closed_clean)
		return 1;
	if (s->peer_fin && !s->app_shut && !s->have_cur) {
		shutdown(s->app, SHUT_WR); /* the application reads its EOF */
		s->app_shut = 1;
	}
	if (s->leg >= 0)
		leg_write(s);
	if (s->leg >= 0 && s->cfg.stall_ms > 0 && s->tx_sent > s->tx_base &&
	    now_us() - s->heard_us > s->cfg.stall_ms * 1000L)
		leg_broken(s, "nothing heard for %d ms with data unacknowledged", s->cfg.stall_ms);
	if (s->peer_gone) {
		say(s, "%s; the connection fails", s->why);
		goto fail;
	}
	return s->leg >= 0 && finished(s);
fail:
	pthread_mutex_lock(&g_lock);
	g_totals.streams_failed++;
	pthread_mutex_unlock(&g_lock);
	return 1;
}

/* --- the application's sends on its own thread (qrs_app_send) ---------------------------- */

static int stream_interest(struct stream *s, int timeout);
static void mirror_stop(struct stream *s, int off);

/* Put s into the send table under its application end fd; a stream whose descriptor does not
 * fit (or no table: no memory) still works, through the socketpair. */
static void
tab_add(struct stream *s, int fd)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return;
	pthread_mutex_lock(&g_tab_lock);
	if (g_tab == NULL) {
		/* Open MPI raises its descriptor limit towards the hard one after the first
		 * connections: room for that too, up to TAB_SIZE_TYPICAL when the hard limit is
		 * higher (descriptors beyond the table still work, through the socketpair). */
		struct rlimit rl = { 1024, 1024 };
		(void)getrlimit(RLIMIT_NOFILE, &rl);
		long n = rl.rlim_max < TAB_SIZE_TYPICAL ? (long)rl.rlim_max : TAB_SIZE_TYPICAL;
		if ((long)rl.rlim_cur > n)
			n = rl.rlim_cur > TAB_SIZE_MAX ? TAB_SIZE_MAX : (long)rl.rlim_cur;
		if (n < 1024)
			n = 1024;
		struct stream *_Atomic *t = calloc((size_t)n, sizeof(*t));
		if (t != NULL) {
			g_tab_size = (int)n;
			__atomic_store_n(&g_tab, t, __ATOMIC_RELEASE);
		}
	}
	if (g_tab != NULL && fd < g_tab_size) {
		s->app_fd = fd;
		s->app_dev = st.st_dev;
		s->app_ino = st.st_ino;
		__atomic_store_n(&g_tab[fd], s, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&g_tab_lock);
}

/* Take s out of the send table; afterwards no application thread holds s's lock or finds s. */
static void
tab_forget(struct stream *s)
{
	pthread_mutex_lock(&g_tab_lock);
	if (s->app_fd >= 0 && g_tab != NULL && g_tab[s->app_fd] == s)
		__atomic_store_n(&g_tab[s->app_fd], NULL, __ATOMIC_RELEASE);
	s->app_fd = -1;
	pthread_mutex_unlock(&g_tab_lock);
	/* a sender that found s before holds its lock: wait for it to leave */
	pthread_mutex_lock(&s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* Whether the send table may hold a stream under fd: all that every other descriptor costs
 * (one load while no stream was ever started). The caller looks again under g_tab_lock. */
static inline int
tab_may_hold(int fd)
{
	struct stream *_Atomic *t = __atomic_load_n(&g_tab, __ATOMIC_ACQUIRE);
	return __builtin_expect(t != NULL, 0) && fd >= 0 && fd < g_tab_size &&
	    __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE) != NULL;
}

void
qrs_app_moved(int from, int to)
{
	if (!tab_may_hold(from))
		return;
	pthread_mutex_lock(&g_tab_lock);
	struct stream *s = g_tab[from];
	if (s != NULL && to >= 0 && to < g_tab_size) {
		g_tab[from] = NULL;
		g_tab[to] = s;
		s->app_fd = to; /* the same socket (dup3): its dev and inode stay */
	} else if (s != NULL) {
		g_tab[from] = NULL;
		s->app_fd = -1;
	}
	pthread_mutex_unlock(&g_tab_lock);
}

void
qrs_app_closing(int fd)
{
	if (!tab_may_hold(fd))
		return;
	pthread_mutex_lock(&g_tab_lock);
	struct stream *s = g_tab[fd];
	if (s != NULL) {
		g_tab[fd] = NULL;
		s->app_fd = -1;
		/* the application's set forgets its end with the close, and must forget the leg */
		pthread_mutex_lock(&s->lock);
		int in_stream = t_in_stream;
		t_in_stream = 1;
		mirror_stop(s, 1);
		t_in_stream = in_stream;
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&g_tab_lock);
}

/*
 * A rank bound to one core (`mpirun --bind-to core`, Open MPI's default for up to two ranks
 * and common practice beyond; Slurm's `--cpu-bind=cores`) has its I/O thread on that core too:
 * the thread inherits the binding. There the I/O thread delivers a message to the socketpair
 * while it holds the stream, the woken application preempts it, and the application's answer
 * found the stream held: 67-98 % of a bound 1-byte ping-pong's sends took the socketpair and a
 * wake-up of the I/O thread. So a sender bound to one CPU that finds the stream held yields
 * that CPU to the holder, for up to APP_SEND_WAIT_US: bound, added latency +3.0 to +3.7 us
 * against +7.1 to +11.2 (bench/net run 10). An unbound sender does not wait: there the holder
 * runs on another CPU, and waiting made the latency worse (run 9, +11 to +20 against +9 to
 * +11 us); its send takes the socketpair at once, as before. (The deeper fix, delivering
 * after the stream's lock is released, was not tried: bench/net README, run 10.)
 */
#define APP_SEND_WAIT_US 20
static __thread int t_one_cpu = -1; /* this thread may run on one CPU only; -1: not known yet */

static int
bound_to_one_cpu(void)
{
	if (t_one_cpu < 0) {
		cpu_set_t set;
		t_one_cpu = sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) == 1;
	}
	return t_one_cpu;
}

/* The stream whose application end fd is, locked; NULL for any other descriptor (the common
 * case costs one load). fd must still be that socket: an application that dup2()s another
 * descriptor onto it, or closes it past the close wrapper, must not send into the stream.
 * NULL too while the I/O thread holds the stream: at once, or on one CPU past APP_SEND_WAIT_US
 * (waiting as a sleep cost a context switch per send behind the I/O thread's 1 MiB sendmsg,
 * bench/net run 7c). */
static struct stream *
tab_find_locked(int fd)
{
	if (!tab_may_hold(fd))
		return NULL;
	struct stat st;
	int same = fstat(fd, &st) == 0;
	long deadline = 0;
	for (;;) {
		/* The whole lookup each time: between two tries the stream may have gone (its
		 * tab_forget waits for a sender holding its lock, not for one spinning here). */
		pthread_mutex_lock(&g_tab_lock);
		struct stream *s = g_tab[fd];
		if (s != NULL && (!same || st.st_dev != s->app_dev || st.st_ino != s->app_ino)) {
			g_tab[fd] = NULL; /* another socket now: forget the stale entry */
			s->app_fd = -1;
			s = NULL;
		}
		int busy = s != NULL && pthread_mutex_trylock(&s->lock) != 0;
		pthread_mutex_unlock(&g_tab_lock);
		if (!busy)
			return s;
		if (!bound_to_one_cpu())
			return NULL;
		long now = now_us();
		if (deadline == 0)
			deadline = now + APP_SEND_WAIT_US;
		else if (now >= deadline)
			return NULL;
		sched_yield(); /* the holder waits for this CPU */
	}
}

/* Copy up to room bytes of iov into the ring at tx_end; returns how many. */
static size_t
ring_put(struct stream *s, const struct iovec *iov, int iovcnt, size_t room)
{
	size_t size = s->cfg.window, done = 0;
	for (int i = 0; i < iovcnt && done < room; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t left = iov[i].iov_len;
		while (left > 0 && done < room) {
			size_t pos = s->tx_end % size, k = size - pos;
			if (k > left)
				k = left;
			if (k > room - done)
				k = room - done;
			memcpy(s->ring + pos, p, k);
			s->tx_end += k;
			p += k, left -= k, done += k;
		}
	}
	return done;
}

#define APP_SEND_FLAGS (MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE)
/* Larger sends take the socketpair: the I/O thread batches them (up to 16 frames per sendmsg)
 * while the application goes on. Framed on the application's thread, 64 KiB writes ran at
 * 0.66-0.84 of the plain relay against main's 0.76-0.94 (bench/net runs 7a-7e); what the
 * send path is for is the latency of small messages (Open MPI's eager sends and headers). */
#define APP_SEND_MAX (16u << 10)

int
qrs_app_send(int fd, const struct iovec *iov, int iovcnt, int flags, size_t *taken)
{
	*taken = 0;
	if (flags & ~APP_SEND_FLAGS || iovcnt < 0 || t_in_stream)
		return 0; /* urgent data and the like: the socketpair's own semantics */
	size_t total = 0;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > APP_SEND_MAX)
		return 0;
	struct stream *s = tab_find_locked(fd);
	if (s == NULL)
		return 0;
	t_in_stream = 1;
	int queued = 0;
	/* Bytes the application queued on the socketpair (the window was full, or another path
	 * wrote) go first: these go behind them, through the socketpair too. The I/O thread
	 * moves them into the ring under s->lock, so an empty socketpair here means none are in
	 * between. Closed or failing streams: the socketpair says what the application gets. */
	if (s->app_eof || s->app_wr_shut || s->peer_gone || ioctl(s->app, FIONREAD, &queued) != 0 ||
	    queued > 0) {
		pthread_mutex_unlock(&s->lock);
		t_in_stream = 0;
		return 0;
	}
	size_t room = s->cfg.window - (size_t)(s->tx_end - s->tx_base);
	/* Bytes of the window not yet on the leg: the leg's buffer is full (the I/O thread waits
	 * for EPOLLOUT) or it is not ready. These then only join the window: a send here would
	 * meet EAGAIN, hold the lock the I/O thread needs for the acks, and turn EPOLLOUT on and
	 * off (bench/net run 7: 1.5x the context switches per MiB, without this). */
	int behind = s->tx_sent < s->tx_end || s->out_off < s->out_len || s->out_payload > 0;
	size_t n = ring_put(s, iov, iovcnt, total < room ? total : room);
	if (n > 0 && !behind && s->leg >= 0 && s->peer_resumed && !s->resuming) {
		leg_write(s);
		/* What the leg took short waits for EPOLLOUT; a leg that broke here must be
		 * seen by the I/O thread (the resume thread wakes it when it has a new leg). */
		if (s->leg >= 0)
			(void)stream_interest(s, 0);
		else if (s->peer_gone) {
			s->kick = 1;
			wake();
		}
	}
	pthread_mutex_unlock(&s->lock);
	t_in_stream = 0;
	if (n == 0)
		return 0; /* the window is full: the socketpair takes it, or blocks, or EAGAIN */
	__atomic_fetch_add(&g_totals.bytes_direct, (uint64_t)n, __ATOMIC_RELAXED);
	*taken = n;
	return 1;
}

void
qrs_app_shutdown(int fd, int how)
{
	if (!tab_may_hold(fd) || (how != SHUT_WR && how != SHUT_RDWR) || t_in_stream)
		return; /* t_in_stream: the stream's own shutdowns, of its socketpair's far end */
	/* Unlike a send, this waits for the I/O thread: the mark must hold before shutdown()
	 * returns. Lock order: g_tab_lock, then the stream's. */
	pthread_mutex_lock(&g_tab_lock);
	struct stream *s = g_tab[fd];
	if (s != NULL) {
		pthread_mutex_lock(&s->lock);
		s->app_wr_shut = 1;
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&g_tab_lock);
}


/* --- the application's reads on its own thread (qrs_app_recv) ---------------------------- */

/*
 * The receive side's wake-up of the I/O thread was what a resumable relay still added to the
 * latency of ranks not bound to one core (bench/net run 10: +10 to +13 us against <= 5). When
 * the application waits for its end in an epoll set (Open MPI's libevent does), the leg joins
 * that set with the same event data: a frame arriving on it wakes the application's event
 * loop as if its end were readable, and its read (the read wrappers, qcgnet_resume_recv.c)
 * takes the frames off the leg here, under the stream's lock, into its own buffer: no
 * hand-off to the I/O thread and no socketpair hop. Bytes the I/O thread has already put on
 * the socketpair are read there first: nothing overtakes them.
 *
 * The I/O thread keeps the leg in its own set, edge-triggered, so that the peer-gone mark,
 * the leg's end and a stalled application are still its business: bytes the application has
 * not taken within DEFER_GRACE_US of their arrival (it is computing, or its thread was not
 * scheduled) are read and delivered to the socketpair as before, so that the acks behind them
 * are never held up for long. A full window, a closing stream, a leg before the peer's
 * RESUME: the I/O thread reads the leg itself, as before.
 */
#define DEFER_GRACE_US 50000
/* A poll()-driven application (Open MPI's default event loop) watches the leg while it polled
 * for its end this recently; an epoll-driven one while the leg is in its set. */
#define POLL_WATCH_US 50000

/* Whether the application's reads may take frames off the leg: it waits for its end in a
 * way that watches the leg too (its epoll set holds the leg, or its poll() asked for the end).
 * Under s->lock. */
static int
app_may_read_leg(const struct stream *s)
{
	return s->leg >= 0 && s->peer_resumed && !s->leg_ended && !s->peer_gone &&
	    !s->mirror_off && s->cfg.app_read &&
	    (s->mirror_leg == s->leg || __atomic_load_n(&s->app_polled_us, __ATOMIC_RELAXED) != 0);
}

/* ... and whether it does so now, so that the I/O thread leaves the leg's data to it: the leg
 * is in its epoll set, or it polled this very leg lately (not the one before a resume: its
 * poll may still wait without the new one). */
static int
app_watches_leg(const struct stream *s, long now)
{
	long polled = __atomic_load_n(&s->app_polled_us, __ATOMIC_RELAXED);
	return app_may_read_leg(s) &&
	    (s->mirror_leg == s->leg || (now - polled < POLL_WATCH_US &&
		__atomic_load_n(&s->polled_gen, __ATOMIC_RELAXED) == s->leg_gen));
}

/* The application is about to wait on the leg (its poll, or a blocked read). Under s->lock. */
static void
app_waits_on_leg(struct stream *s, long now)
{
	__atomic_store_n(&s->app_polled_us, now, __ATOMIC_RELAXED);
	__atomic_store_n(&s->polled_gen, s->leg_gen, __ATOMIC_RELAXED);
}

/* The leg needs the I/O thread now (its end, the mark, a bad frame, bytes no read may take):
 * it reads it at its next round, which this starts. Under s->lock. */
static void
leg_to_io_thread(struct stream *s)
{
	s->leg_readable = 1;
	s->kick = 1;
	wake();
}

/* Whether mirror_ep is still the epoll set it was when the application registered with it. */
static int
mirror_ep_same(const struct stream *s)
{
	struct stat st;
	return fstat(s->mirror_ep, &st) == 0 && st.st_dev == s->mirror_dev &&
	    st.st_ino == s->mirror_ino;
}

/* Keep the leg in the application's epoll set exactly while its thread may read it: the leg
 * up, the peer's RESUME taken, its end not met. Under s->lock; from either thread. */
static void
mirror_sync(struct stream *s)
{
	int want = s->mirror_ep >= 0 && s->leg >= 0 && s->peer_resumed && !s->leg_ended &&
	    !s->peer_gone;
	if (want == (s->mirror_leg >= 0))
		return;
	if (!want) {
		epoll_ctl(s->mirror_ep, EPOLL_CTL_DEL, s->mirror_leg, NULL);
		s->mirror_leg = -1;
		return;
	}
	struct epoll_event ev = s->mirror_ev;
	if (!mirror_ep_same(s) || epoll_ctl(s->mirror_ep, EPOLL_CTL_ADD, s->leg, &ev) != 0) {
		s->mirror_ep = -1; /* the application closed that set: it reads as before */
		return;
	}
	s->mirror_leg = s->leg;
}

/* Take the leg out of the application's set; for good when `off`. */
static void
mirror_stop(struct stream *s, int off)
{
	if (s->mirror_leg >= 0 && s->mirror_ep >= 0)
		epoll_ctl(s->mirror_ep, EPOLL_CTL_DEL, s->mirror_leg, NULL);
	int was = s->mirror_ep >= 0;
	s->mirror_leg = -1;
	s->mirror_ep = -1;
	s->mirror_off |= off;
	if (was) {
		s->kick = 1; /* the I/O thread takes the leg's reads back */
		wake();
	}
}

void
qrs_app_epoll_ctl(int epfd, int op, int fd, const struct epoll_event *ev)
{
	if (!tab_may_hold(fd) || t_in_stream)
		return;
	/* Unlike a send this waits for the I/O thread: the registration must not be missed.
	 * Lock order: g_tab_lock, then the stream's. */
	pthread_mutex_lock(&g_tab_lock);
	struct stream *s = g_tab[fd];
	struct stat st;
	if (s == NULL || fstat(fd, &st) != 0 || st.st_dev != s->app_dev ||
	    st.st_ino != s->app_ino) {
		pthread_mutex_unlock(&g_tab_lock);
		return;
	}
	pthread_mutex_lock(&s->lock);
	pthread_mutex_unlock(&g_tab_lock);
	t_in_stream = 1;
	int reads = op != EPOLL_CTL_DEL && ev != NULL && (ev->events & EPOLLIN) &&
	    !(ev->events & (EPOLLONESHOT | EPOLLEXCLUSIVE));
	if (op == EPOLL_CTL_DEL || !reads) {
		if (s->mirror_ep == epfd)
			mirror_stop(s, 0);
	} else if (!s->cfg.app_read || s->mirror_off ||
	    (s->mirror_ep >= 0 && s->mirror_ep != epfd) ||
	    !(fcntl(fd, F_GETFL) & O_NONBLOCK) || fstat(epfd, &st) != 0) {
		/* off; or a second set (the leg can wake one); or a blocking end, whose reads
		 * would sleep on the socketpair that only the I/O thread fills */
		mirror_stop(s, s->mirror_ep >= 0 && s->mirror_ep != epfd);
	} else {
		struct epoll_event want = { .events = EPOLLIN | (ev->events & EPOLLET),
			                    .data = ev->data };
		if (s->mirror_ep != epfd || s->mirror_ev.events != want.events ||
		    memcmp(&s->mirror_ev.data, &want.data, sizeof(want.data)) != 0) {
			mirror_stop(s, 0);
			s->mirror_ep = epfd;
			s->mirror_dev = st.st_dev;
			s->mirror_ino = st.st_ino;
			s->mirror_ev = want;
			mirror_sync(s);
		}
	}
	pthread_mutex_unlock(&s->lock);
	t_in_stream = 0;
}

/* What the leg holds now, looked at without reading (a read that starts at the peer-gone
 * mark steps over it, and the kernel forgets it). The bytes are counted before the mark is
 * looked for, so they come before any mark that arrives meanwhile: a read of at most that
 * many never starts at it. */
enum leg_holds { LEG_NOTHING, LEG_BYTES, LEG_MARK, LEG_ENDED };
static enum leg_holds
leg_holds(int leg, int *bytes, int look_for_end)
{
	*bytes = 0;
	if (ioctl(leg, FIONREAD, bytes) != 0)
		return LEG_ENDED;
	if (*bytes == 0 && look_for_end) {
		/* readable with nothing queued (bytes may have come since the count): its end */
		struct pollfd p = { .fd = leg, .events = POLLIN | POLLRDHUP };
		if (poll(&p, 1, 0) == 1 && (ioctl(leg, FIONREAD, bytes) != 0 || *bytes == 0))
			return LEG_ENDED;
	}
	if (*bytes == 0)
		return LEG_NOTHING;
	return sockatmark(leg) != 0 ? LEG_MARK : LEG_BYTES;
}

/* One read of the leg on the application's thread. 1: bytes came; 0: none now; -1: the leg
 * is the I/O thread's business (the mark, its end, an error). look_for_end: the caller got
 * nothing so far, so its wake-up may have been the leg's end. */
static int
leg_read_app(struct stream *s, int look_for_end)
{
	int queued;
	enum leg_holds holds = leg_holds(s->leg, &queued, look_for_end);
	if (holds != LEG_BYTES)
		return holds == LEG_NOTHING ? 0 : -1;
	size_t room = INBUF_SIZE - s->in_len;
	if (room > (size_t)queued)
		room = (size_t)queued;
	if (room == 0)
		return 0;
	ssize_t n = recv(s->leg, s->in + s->in_len, room, MSG_DONTWAIT);
	if (n > 0) {
		s->in_len += (size_t)n;
		s->heard_us = now_us();
		return 1;
	}
	return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
}

/* Whether inbuf holds payload of the current frame that no read has taken yet. */
static int
app_leftover(const struct stream *s)
{
	return s->have_cur && s->in_len - s->in_off > s->cur_skip;
}

/* One try of qrs_app_recv: 1 answered (*result), 0 the caller reads libc's way, 2 nothing yet
 * for a blocking caller, which waits for its end or *leg (the leg's number then). */
static int
app_recv_once(int fd, const struct iovec *iov, int iovcnt, size_t cap, int blocking,
    ssize_t *result, int *leg)
{
	struct stream *s = tab_find_locked(fd);
	if (s == NULL)
		return 0;
	if (blocking) /* a blocked read watches the leg as a poll does */
		__atomic_store_n(&s->app_polled_us, now_us(), __ATOMIC_RELAXED);
	t_in_stream = 1;
	int handled = 0, queued = 0;
	ssize_t got = 0;
	if (!app_may_read_leg(s) || ioctl(fd, FIONREAD, &queued) != 0 ||
	    queued > 0)
		goto out; /* not watched by the application, or bytes wait on the socketpair */
	struct app_sink sink = { .iov = iov, .iovcnt = iovcnt };
	int ended = 0, took = 0;
	uint64_t acked_before = s->tx_base;
	for (;;) {
		size_t before = s->in_off;
		if (consume(s, &sink) != 0) {
			ended = 1; /* the I/O thread's consume() meets the same frame and says why */
			break;
		}
		took |= s->in_off != before;
		inbuf_compact(s);
		if (sink.got == cap)
			break;
		int r = leg_read_app(s, !took);
		if (r < 0)
			ended = 1;
		if (r <= 0)
			break;
	}
	if (took)
		s->app_took_us = now_us();
	if (ended) {
		s->leg_ended = 1;
		mirror_sync(s); /* out of the application's set: it would report the end forever */
		leg_to_io_thread(s);
	}
	/* Payload the buffer had no room for stays in inbuf for the next read: a blocking reader
	 * comes back for it, and qrs_app_poll reports the end readable while it is there (in
	 * bulk, moving it to the socketpair made every next read a socketpair read: bench/net
	 * run 11). An epoll-driven reader comes back while the leg holds more (its epoll set
	 * reports the leg, level-triggered); otherwise only the socketpair can tell it, and the
	 * payload goes there. */
	int leg_more = 0;
	if (!blocking && s->mirror_leg >= 0 && app_leftover(s) &&
	    ((s->mirror_ev.events & EPOLLET) || s->leg < 0 ||
		ioctl(s->leg, FIONREAD, &leg_more) != 0 || leg_more == 0) &&
	    consume(s, NULL) != 0) {
		leg_to_io_thread(s);
	}
	if (s->leg >= 0 && s->peer_resumed && s->rx_delivered - s->rx_acked >= s->cfg.window / 4)
		leg_write(s); /* the ack a quarter window calls for; others ride on the next DATA */
	/* acks made room in the window (the I/O thread reads the application's end again), or
	 * the leg took a frame short: the I/O thread's interest changes */
	if (s->leg >= 0 && (s->tx_base != acked_before || s->out_off < s->out_len ||
		s->out_payload > 0))
		(void)stream_interest(s, 0);
	if (s->peer_fin && !s->have_cur && !s->app_shut) {
		s->kick = 1; /* the I/O thread ends the socketpair: the application reads EOF */
		wake();
	}
	got = (ssize_t)sink.got;
	if (got > 0) {
		__atomic_fetch_add(&g_totals.bytes_read_direct, (uint64_t)got, __ATOMIC_RELAXED);
		handled = 1;
	} else if (!ended && !s->peer_fin && blocking) {
		handled = 2; /* nothing yet: wait as a blocking socket waits */
		*leg = s->leg;
		app_waits_on_leg(s, now_us());
	} else if (!ended && !s->peer_fin) {
		handled = 1; /* nothing yet: as a non-blocking socket says */
		got = -1;
	}
out:
	if (handled == 0 && blocking) {
		/* it sleeps on the socketpair, which only the I/O thread fills: that thread must
		 * read the leg at once, not after DEFER_GRACE_US */
		__atomic_store_n(&s->app_polled_us, 0, __ATOMIC_RELAXED);
		if (s->leg_deferred) {
			s->kick = 1;
			wake();
		}
	}
	pthread_mutex_unlock(&s->lock);
	t_in_stream = 0;
	if (handled == 1 && got < 0)
		errno = EAGAIN;
	*result = got;
	return handled;
}

int
qrs_app_recv(int fd, const struct iovec *iov, int iovcnt, int flags, ssize_t *result)
{
	if ((flags & ~MSG_DONTWAIT) || iovcnt <= 0 || t_in_stream || !tab_may_hold(fd))
		return 0; /* MSG_PEEK, MSG_WAITALL and the like: the socketpair's semantics */
	size_t cap = 0;
	for (int i = 0; i < iovcnt; i++)
		cap += iov[i].iov_len;
	if (cap == 0)
		return 0;
	int blocking = !(flags & MSG_DONTWAIT) && !(fcntl(fd, F_GETFL) & O_NONBLOCK);
	long deadline = -1;
	for (;;) {
		int leg = -1, r = app_recv_once(fd, iov, iovcnt, cap, blocking, result, &leg);
		if (r != 2)
			return r;
		/* A blocking read with nothing yet: wait for the end (the I/O thread's bytes) or
		 * the leg, for at most the end's SO_RCVTIMEO, as the socketpair's read would. */
		if (deadline < 0) {
			struct timeval tv = { 0, 0 };
			socklen_t len = sizeof(tv);
			deadline = getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) == 0 &&
			    (tv.tv_sec > 0 || tv.tv_usec > 0) ? now_us() + tv.tv_sec * 1000000L +
			    tv.tv_usec : 0;
		}
		int timeout = -1;
		if (deadline > 0) {
			long left = deadline - now_us();
			timeout = left <= 0 ? 0 : (int)((left + 999) / 1000);
		}
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			               { .fd = leg, .events = POLLIN | POLLRDHUP } };
		t_in_stream = 1; /* the real poll, past the wrapper */
		int n = poll(p, 2, timeout);
		t_in_stream = 0;
		if (n == 0) {
			errno = EAGAIN; /* SO_RCVTIMEO ran out */
			*result = -1;
			return 1;
		}
		if (n < 0)
			return 0; /* a signal: libc's read does what the application's handler asks
			           * (EINTR, or a restart) */
	}
}


/*
 * poll() with the legs of the streams whose ends the caller polls for reading: a frame on a
 * leg reports the end readable, and the read then takes it (qrs_app_recv). Open MPI's event
 * loop is libevent's poll backend by default (opal_event_include = poll), where epoll_ctl is
 * never called. Returns 0 when fds holds no such end (the caller makes the real call).
 */
#define POLL_FDS_MAX 1024
#define POLL_LEGS_MAX 64
int
qrs_app_poll(struct pollfd *fds, unsigned long nfds, int timeout, int *result)
{
	if (t_in_stream || nfds == 0 || nfds > POLL_FDS_MAX ||
	    __atomic_load_n(&g_tab, __ATOMIC_ACQUIRE) == NULL)
		return 0;
	int at[POLL_LEGS_MAX], legs = 0, held = 0;
	unsigned long held_at[POLL_LEGS_MAX];
	struct pollfd all[POLL_FDS_MAX + POLL_LEGS_MAX];
	long now = now_us();
	for (unsigned long i = 0; i < nfds && legs < POLL_LEGS_MAX && held < POLL_LEGS_MAX; i++) {
		if (!(fds[i].events & POLLIN) || !tab_may_hold(fds[i].fd))
			continue;
		struct stream *s = tab_find_locked(fds[i].fd);
		if (s == NULL)
			continue;
		__atomic_store_n(&s->app_polled_us, now, __ATOMIC_RELAXED);
		/* A read left payload in inbuf: the end is readable now, for the next read to take
		 * it; or, if reads may not take it here now, through the socketpair. */
		if (app_leftover(s) && app_may_read_leg(s)) {
			held_at[held++] = i;
		} else if (app_leftover(s) && consume(s, NULL) != 0) {
			leg_to_io_thread(s);
		}
		if (app_may_read_leg(s)) {
			app_waits_on_leg(s, now);
			all[nfds + (unsigned long)legs] = (struct pollfd){ .fd = s->leg,
				.events = POLLIN | POLLRDHUP };
			at[legs++] = (int)i;
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (legs == 0 && held == 0)
		return 0;
	memcpy(all, fds, nfds * sizeof(*fds));
	if (held > 0)
		timeout = 0;
	long deadline = timeout > 0 ? now + timeout * 1000L : 0;
	for (;;) {
		t_in_stream = 1; /* the real poll, past the wrapper */
		int n = poll(all, nfds + (unsigned long)legs, timeout);
		t_in_stream = 0;
		if (n < 0 || (n == 0 && held == 0)) {
			*result = n;
			break;
		}
		int ready = 0;
		for (int k = 0; k < held; k++)
			all[held_at[k]].revents |= POLLIN;
		for (unsigned long i = 0; i < nfds; i++) {
			fds[i].revents = all[i].revents;
			ready += all[i].revents != 0;
		}
		/* A leg closed by a resume meanwhile (POLLNVAL, or its number taken again) only
		 * costs a read that finds nothing. */
		for (int k = 0; k < legs; k++) {
			short r = all[nfds + (unsigned long)k].revents;
			if (r == 0 || (r & POLLNVAL))
				continue;
			ready += fds[at[k]].revents == 0;
			fds[at[k]].revents |= POLLIN;
		}
		if (ready > 0 || timeout == 0) {
			*result = ready;
			break;
		}
		/* only a stale leg answered: wait on for the rest of the time */
		for (int k = 0; k < legs; k++)
			all[nfds + (unsigned long)k].fd = -1;
		if (timeout > 0) {
			long left = (deadline - now_us()) / 1000;
			if (left <= 0) {
				*result = 0;
				break;
			}
			timeout = (int)left;
		}
	}
	return 1;
}

/* --- the I/O thread --------------------------------------------------------------------- */

/* Register fd with the interest `want`, or change or drop it, when it differs from what is
 * registered (*registered). Most rounds change nothing, and make no system call here. */
static void
ep_want(int fd, struct ep_ref *ref, uint32_t want, uint32_t *registered)
{
	if (want == *registered)
		return;
	struct epoll_event ev = { .events = want, .data.ptr = ref };
	int op = *registered == 0 ? EPOLL_CTL_ADD : want == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
	if (epoll_ctl(g_ep, op, fd, &ev) != 0)
		abort(); /* the descriptors are ours and open: a bug, or no kernel memory or
		          * epoll watches left (max_user_watches), when no stream can move */
	*registered = want;
}

/* Tell epoll what s waits on now; returns the longest the I/O thread may sleep for s's sake
 * (ms), at most `timeout`. Under s->lock: the application's thread calls it too, after a send
 * the leg took short, so that EPOLLOUT wakes the I/O thread for the rest. */
static int
stream_interest(struct stream *s, int timeout)
{
	uint32_t app_ev = 0, leg_ev = 0;
	if (!s->app_eof && s->tx_end - s->tx_base < s->cfg.window)
		app_ev |= EPOLLIN;
	if (s->app_blocked)
		app_ev |= EPOLLOUT;
	/* No interest, not registered: a closed application end would otherwise report
	 * EPOLLHUP in every round. */
	ep_want(s->app, &s->app_ref, app_ev, &s->app_ev);
	mirror_sync(s);
	/* The application's thread reads the leg (see qrs_app_recv): this thread only learns
	 * that bytes came (edge-triggered, once per DEFER_GRACE_US), unless the window is full
	 * and acks must come at once, or the application's end is closing. */
	s->leg_deferred = app_watches_leg(s, now_us()) && s->tx_end - s->tx_base < s->cfg.window &&
	    !s->app_eof;
	if (!s->leg_deferred)
		s->leg_seen_us = 0;
	if (s->leg >= 0) {
		if (!s->leg_deferred) {
			leg_ev |= EPOLLPRI; /* the peer-gone mark */
			if (s->in_len < INBUF_SIZE)
				leg_ev |= EPOLLIN;
		} else {
			/* Not EPOLLPRI: every arrival's wake-up carries it, and the thread would wake
			 * per message to find nothing to report. The leg's end (EPOLLRDHUP, and
			 * EPOLLHUP, EPOLLERR) comes with a wake-up of its own; a mark comes before
			 * the end, and is read once the leg is this thread's again (leg_ended). */
			leg_ev |= EPOLLRDHUP | EPOLLET;
			if (s->in_len < INBUF_SIZE && s->leg_seen_us == 0)
				leg_ev |= EPOLLIN;
		}
		if (s->leg_seen_us != 0) {
			long left = (s->leg_seen_us + DEFER_GRACE_US - now_us() + 999) / 1000;
			if (left < timeout)
				timeout = left < 0 ? 0 : (int)left;
		}
		if (s->out_off < s->out_len || s->out_payload > 0 ||
		    (s->peer_resumed && s->tx_sent < s->tx_end))
			leg_ev |= EPOLLOUT;
		if (s->rx_delivered != s->rx_acked && timeout > s->cfg.ack_ms)
			timeout = s->cfg.ack_ms;
		if (s->leg_ev != 0 && s->leg_ev_fd != s->leg)
			abort(); /* leg_close drops the registration of every leg it closes */
		s->leg_ev_fd = s->leg;
		ep_want(s->leg, &s->leg_ref, leg_ev, &s->leg_ev);
	}
	return timeout;
}

#define EVENTS_MAX 64
#define BUSY_SKIPS_MAX 8

static void *
io_main(void *unused)
{
	(void)unused;
	t_in_stream = 1;
	struct stream *list = NULL;
	struct epoll_event evs[EVENTS_MAX];
	long busy_us = 0; /* when the last wait found an event */
	for (;;) {
		pthread_mutex_lock(&g_lock);
		while (g_incoming != NULL) {
			struct stream *s = g_incoming;
			g_incoming = s->next;
			s->kick = 1;
			s->next = list;
			list = s;
		}
		pthread_mutex_unlock(&g_lock);
		/* Work on the streams that had events (or a timer), then tell epoll what each waits
		 * on. Stepping only those keeps a wake-up's system calls to the busy stream's: the
		 * added latency of the relayed path is mostly wake-ups and system calls. */
		int timeout = 1000, spin_us = 0;
		long now = now_us();
		unsigned closing = 0; /* for qrs_flush_at_exit: closed, not yet all on the leg */
		for (struct stream **p = &list; *p != NULL;) {
			struct stream *s = *p;
			/* An application thread that reads and sends on its own holds the stream
			 * between every two messages; a blocked lock() here would be woken by each
			 * of its unlocks and lose the race to its next trylock (a wake-up per message,
			 * bench/net run 11). Held: it is busy with the stream now, so look again in a
			 * millisecond, and wait for the lock only after BUSY_SKIPS_MAX tries. */
			if (pthread_mutex_trylock(&s->lock) != 0) {
				if (s->busy_skips < BUSY_SKIPS_MAX) {
					s->busy_skips++;
					timeout = timeout > 1 ? 1 : timeout;
					p = &s->next;
					continue;
				}
				pthread_mutex_lock(&s->lock);
			}
			s->busy_skips = 0;
			int ack_due = s->rx_delivered != s->rx_acked &&
			    now - s->ack_sent_us >= s->cfg.ack_ms * 1000L;
			if (s->leg_seen_us != 0 && now - s->leg_seen_us >= DEFER_GRACE_US) {
				/* Bytes left to the application: taken, or this thread takes them. */
				int bytes;
				enum leg_holds holds = s->app_took_us < s->leg_seen_us && s->leg >= 0 ?
				    leg_holds(s->leg, &bytes, 1) : LEG_NOTHING;
				if (holds != LEG_NOTHING) {
					s->urgent |= holds == LEG_MARK;
					s->leg_readable = 1;
					s->kick = 1;
				}
				s->leg_seen_us = 0;
			}
			if (s->kick || s->resuming || ack_due || now - s->stepped_us > 1000000) {
				s->kick = 0;
				s->stepped_us = now;
				if (stream_step(s)) {
					pthread_mutex_unlock(&s->lock);
					*p = s->next;
					stream_free(s);
					continue;
				}
			}
			timeout = stream_interest(s, timeout);
			if (s->app_eof && !(s->leg >= 0 && s->fin_sent && s->tx_sent == s->tx_end &&
				s->out_off == s->out_len && s->out_payload == 0))
				closing++;
			pthread_mutex_unlock(&s->lock);
			if (s->cfg.spin_us > spin_us)
				spin_us = s->cfg.spin_us;
			p = &s->next;
		}
		pthread_mutex_lock(&g_lock);
		g_loops++;
		g_closing = closing;
		pthread_cond_broadcast(&g_looped);
		pthread_mutex_unlock(&g_lock);
		/* Spin (wait without sleeping) for a while after activity: the peer's reply then
		 * finds this thread awake. Bounded by the streams' spin_us from the last event; each
		 * empty look yields the CPU, so that on a busy core the threads this one waits for
		 * (the application, the proxy) run first. */
		int ready = 0;
		if (spin_us > 0)
			while ((ready = epoll_wait(g_ep, evs, EVENTS_MAX, 0)) == 0 &&
			    now_us() - busy_us < spin_us)
				sched_yield();
		if (ready == 0)
			ready = epoll_wait(g_ep, evs, EVENTS_MAX, timeout);
		if (ready <= 0)
			continue;
		busy_us = now_us();
		for (int i = 0; i < ready; i++) {
			struct ep_ref *r = evs[i].data.ptr;
			uint32_t e = evs[i].events;
			if (r == NULL) { /* the eventfd */
				uint64_t v;
				if (read(g_wake, &v, sizeof(v)) < 0 && errno != EAGAIN)
					abort(); /* an eventfd read fails only on a bug */
				continue;
			}
			struct stream *s = r->s;
			pthread_mutex_lock(&s->lock);
			s->kick = 1;
			if (!r->is_leg) {
				if (e & (EPOLLIN | EPOLLHUP | EPOLLERR))
					s->app_readable = 1; /* read says which */
			} else if (s->leg_deferred &&
			    !(e & (EPOLLPRI | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
				/* bytes for the application's thread: only note when they came */
				if ((e & EPOLLIN) && s->leg_seen_us == 0)
					s->leg_seen_us = busy_us;
				s->kick = (e & EPOLLOUT) != 0;
			} else if (s->leg_deferred) {
				/* Its end: this thread's again, read only once epoll (level, with
				 * EPOLLPRI) says what is there, so that a mark before the end is not
				 * stepped over. */
				s->leg_ended = 1;
			} else {
				if (e & EPOLLPRI)
					s->urgent = 1;
				if (e & (EPOLLIN | EPOLLPRI | EPOLLHUP | EPOLLERR))
					s->leg_readable = 1; /* recv says which */
			}
			pthread_mutex_unlock(&s->lock);
		}
	}
	return NULL;
}

static int
io_thread_start(char *err, size_t errlen)
{
	if (g_started)
		return 0;
	g_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (g_wake < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	g_ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (g_ep < 0 || epoll_ctl(g_ep, EPOLL_CTL_ADD, g_wake, &ev) != 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		if (g_ep >= 0)
			close(g_ep);
		close(g_wake);
		g_wake = g_ep = -1;
		return -1;
	}
	pthread_t t;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&t, &attr, io_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		snprintf(err, errlen, "cannot start the I/O thread: %s", strerror(rc));
		close(g_wake);
		close(g_ep);
		g_wake = g_ep = -1;
		return -1;
	}
	g_started = 1;
	return 0;
}

void
qrs_flush_at_exit(int timeout_ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&g_lock);
	if (!g_started || g_count == 0) {
		pthread_mutex_unlock(&g_lock);
		return;
	}
	/* Two rounds after the wake-up: one to see the applications' closed ends, one to write
	 * what they leave and the FIN. */
	uint64_t seen = g_loops;
	pthread_mutex_unlock(&g_lock);
	wake();
	pthread_mutex_lock(&g_lock);
	while (g_loops < seen + 2 || g_closing > 0)
		if (pthread_cond_timedwait(&g_looped, &g_lock, &until) != 0)
			break;
	pthread_mutex_unlock(&g_lock);
}

void
qrs_after_fork_child(void)
{
	/* A thread of the parent may have held the lock at fork(): the child's copy is reset,
	 * not unlocked. The parent's streams stay the parent's: the child drops them (their
	 * descriptors are close-on-exec; their memory is left, as the I/O thread that owned it is
	 * not in the child), and its first stream starts its own I/O thread. */
	pthread_mutex_init(&g_lock, NULL);
	pthread_cond_init(&g_looped, NULL);
	g_loops = 0;
	g_closing = 0;
	if (g_wake >= 0)
		close(g_wake);
	g_wake = -1;
	/* The epoll set is shared with the parent: registering in it would change the parent's. */
	if (g_ep >= 0)
		close(g_ep);
	g_ep = -1;
	g_started = 0;
	g_incoming = NULL;
	g_count = 0;
	/* The child's sends on inherited application ends take the socketpair (the parent's I/O
	 * thread reads it): the parent's streams are not the child's to frame. */
	pthread_mutex_init(&g_tab_lock, NULL);
	g_tab = NULL;
	g_tab_size = 0;
	memset(&g_totals, 0, sizeof(g_totals));
}

int
qrs_start(int leg, const uint8_t identity[QRS_IDENTITY_SIZE], const struct qrs_config *cfg,
    qrs_path_fn path, void *arg, char *err, size_t errlen)
{
	int sv[2] = { -1, -1 };
	struct stream *s = NULL;
	if (cfg->window < QRS_WINDOW_MIN || cfg->window > QRF_WINDOW_MAX ||
	    cfg->resume_timeout_ms <= 0 || cfg->stall_ms < 0 || cfg->ack_ms <= 0) {
		snprintf(err, errlen, "resumable stream: window %zu (allowed %u..%u) or a timeout "
		    "not positive", cfg->window, QRS_WINDOW_MIN, QRF_WINDOW_MAX);
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		goto fail;
	}
	s = calloc(1, sizeof(*s));
	if (s != NULL) {
		/* Held for microseconds at a time by two threads on different CPUs: spinning a
		 * little before sleeping in the kernel saves the wake-up the send path removed. */
		pthread_mutexattr_t ma;
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
		pthread_mutex_init(&s->lock, &ma);
		pthread_mutexattr_destroy(&ma);
		s->app_fd = -1;
		s->mirror_ep = s->mirror_leg = -1;
	}
	if (s == NULL || (s->ring = malloc(cfg->window)) == NULL ||
	    (s->in = malloc(INBUF_SIZE)) == NULL) {
		snprintf(err, errlen, "resumable stream: out of memory");
		goto fail;
	}
	fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
	for (int i = 0; i < 2 && cfg->app_sockbuf > 0; i++) {
		setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &cfg->app_sockbuf, sizeof(cfg->app_sockbuf));
		setsockopt(sv[i], SOL_SOCKET, SO_RCVBUF, &cfg->app_sockbuf, sizeof(cfg->app_sockbuf));
	}
	s->app = sv[1];
	s->app_readable = 1;
	s->app_ref = (struct ep_ref){ s, 0 };
	s->leg_ref = (struct ep_ref){ s, 1 };
	memcpy(s->identity, identity, QRS_IDENTITY_SIZE);
	s->cfg = *cfg;
	s->path = path;
	s->path_arg = arg;
	s->ack_sent_us = now_us();
	set_leg(s, leg);
	tab_add(s, sv[0]);

	pthread_mutex_lock(&g_lock);
	if (g_count >= QRS_STREAMS_MAX) {
		pthread_mutex_unlock(&g_lock);
		snprintf(err, errlen, "resumable stream: %d streams open already", QRS_STREAMS_MAX);
		s->leg = -1;
		goto fail;
	}
	if (io_thread_start(err, errlen) != 0) {
		pthread_mutex_unlock(&g_lock);
		s->leg = -1;
		goto fail;
	}
	g_count++;
	g_totals.streams_started++;
	g_totals.streams_open++;
	s->next = g_incoming;
	g_incoming = s;
	pthread_mutex_unlock(&g_lock);
	wake();
	return sv[0];
fail:
	if (s != NULL) {
		tab_forget(s);
		free(s->ring);
		free(s->in);
		free(s);
	}
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	close(leg);
	return -1;
}
