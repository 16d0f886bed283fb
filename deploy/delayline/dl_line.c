/*
 * dl_line.c: the delay line engine (see dl_line.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "dl_line.h"
#include "dl_port.h"
#include "log.h"

/* epoll tag of the send timer; socket events carry their dl_dir. */
static char dl_timer_tag;

uint64_t
dl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * DL_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

int
dl_line_watch(struct dl_line *l, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Set up direction `d` from `in_fd` to `out_fd` with the timing of port `p`. */
static void
dl_dir_init(struct dl_dir *d, const struct dl_port_conf *p, int in_fd, int out_fd,
    const char *in_name, const char *out_name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s>%s", in_name, out_name);
	d->in_fd = in_fd;
	d->out_fd = out_fd;
	dl_sched_init(&d->sched, p->delay_ns, p->rate_bps, p->queue_bytes);
}

static int
dl_line_open_port(struct dl_line *l, const struct dl_port_conf *p, char *err, size_t errlen)
{
	int hfd, wfd;

	if ((hfd = dl_port_open(p->host_if, err, errlen)) < 0)
		return -1;
	l->port_fds[l->nfds++] = hfd;
	if ((wfd = dl_port_open(p->wan_if, err, errlen)) < 0)
		return -1;
	l->port_fds[l->nfds++] = wfd;
	dl_dir_init(&l->dirs[l->ndirs], p, hfd, wfd, p->host_if, p->wan_if);
	dl_dir_init(&l->dirs[l->ndirs + 1], p, wfd, hfd, p->wan_if, p->host_if);
	for (int k = 0; k < 2; k++)
		if (dl_line_watch(l, l->dirs[l->ndirs + k].in_fd, &l->dirs[l->ndirs + k]) < 0) {
			snprintf(err, errlen, "port %s: epoll: %s", l->dirs[l->ndirs].name,
			    strerror(errno));
			return -1;
		}
	l->ndirs += 2;
	return 0;
}

int
dl_line_open(struct dl_line *l, const struct dl_conf *c, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (l->epfd < 0 || l->timerfd < 0 || dl_line_watch(l, l->timerfd, &dl_timer_tag) < 0) {
		snprintf(err, errlen, "epoll/timerfd: %s", strerror(errno));
		goto fail;
	}
	dl_pool_init(&l->pool, c->pool_frames);
	for (size_t i = 0; i < c->nports; i++)
		if (dl_line_open_port(l, &c->ports[i], err, errlen) < 0)
			goto fail;
	return 0;
fail:
	dl_line_close(l);
	return -1;
}

/*
 * The frame just read into `big` (a large buffer), moved into a small buffer when it fits one,
 * so that the memory held on the wire follows the bytes, not the number of frames.
 */
static struct dl_frame *
dl_frame_shrink(struct dl_pool *pool, struct dl_frame *big)
{
	struct dl_frame *small;

	if (big->len > DL_FRAME_SMALL || (small = dl_pool_get(pool, DL_FRAME_SMALL)) == NULL)
		return big;
	memcpy(small->data, big->data, big->len);
	small->len = big->len;
	small->wire_len = big->wire_len;
	dl_pool_put(pool, big);
	return small;
}

/* Read up to DL_RECV_BATCH frames arriving on d->in_fd and queue them. */
static void
dl_dir_receive(struct dl_line *l, struct dl_dir *d)
{
	for (int i = 0; i < DL_RECV_BATCH; i++) {
		struct dl_frame *f = dl_pool_get(&l->pool, DL_FRAME_LARGE);
		unsigned char scratch[64];
		uint32_t wire;
		int truncated;
		ssize_t n;

		/* Without a buffer the frame is still read, to drop it and count it. */
		n = f != NULL ? dl_port_recv(d->in_fd, f->data, f->cap, &truncated) :
		    dl_port_recv(d->in_fd, scratch, sizeof(scratch), &truncated);
		if (n < 0 && errno == EINVAL) {
			/* The kernel dropped a super-frame it could not describe in a header. */
			if (d->st.drop_vnet++ == 0)
				log_warn("%s: dropping a frame with no virtio-net header", d->name);
			if (f != NULL)
				dl_pool_put(&l->pool, f);
			continue;
		}
		if (n <= 0) {
			if (f != NULL)
				dl_pool_put(&l->pool, f);
			if (n < 0 && errno != ENETDOWN)
				log_warn("%s: receive: %s", d->name, strerror(errno));
			return;
		}
		wire = f != NULL && !truncated ? dl_frame_wire_len(f->data, (uint32_t)n) :
		    (uint32_t)n;
		d->st.rx_frames++;
		d->st.rx_bytes += wire;
		if (f == NULL) {
			d->st.drop_pool++;
			continue;
		}
		if (truncated) {
			if (d->st.drop_oversize++ == 0)
				log_warn("%s: dropping a %zd-byte frame (over %u)", d->name, n,
				    DL_FRAME_MAX);
			dl_pool_put(&l->pool, f);
			continue;
		}
		f->len = (uint32_t)n;
		f->wire_len = wire;
		if (f->len - DL_VNET_HDR_LEN < wire)
			d->st.rx_super++;
		f = dl_frame_shrink(&l->pool, f);
		if (dl_sched_admit(&d->sched, dl_now_ns(), wire, &f->due_ns) < 0) {
			d->st.drop_queue++;
			dl_pool_put(&l->pool, f);
			continue;
		}
		dl_fifo_push(&d->fifo, f);
	}
}

/* Send the frames of `d` that are due at `now`. */
static void
dl_dir_emit(struct dl_line *l, struct dl_dir *d, uint64_t now)
{
	struct dl_frame *f;

	if (d->retry_ns > now)
		return;
	d->retry_ns = 0;
	while ((f = d->fifo.head) != NULL && f->due_ns <= now) {
		if (send(d->out_fd, f->data, f->len, MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) {
				d->retry_ns = now + DL_RETRY_NS;
				return;
			}
			if (d->st.drop_send++ == 0)
				log_warn("%s: send: %s", d->name, strerror(errno));
		} else {
			uint64_t late = now - f->due_ns;

			d->st.tx_frames++;
			d->st.tx_bytes += f->wire_len;
			d->st.late_sum_ns += late;
			if (late > d->st.late_max_ns)
				d->st.late_max_ns = late;
		}
		dl_pool_put(&l->pool, dl_fifo_pop(&d->fifo));
	}
}

/* Arm the timer for the earliest due frame or retry of all directions. */
static void
dl_line_arm(struct dl_line *l)
{
	uint64_t next = 0;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	for (size_t i = 0; i < l->ndirs; i++) {
		const struct dl_dir *d = &l->dirs[i];
		uint64_t t = d->retry_ns ? d->retry_ns : d->fifo.head ? d->fifo.head->due_ns : 0;

		if (t != 0 && (next == 0 || t < next))
			next = t;
	}
	if (next == l->armed_ns)
		return;
	l->armed_ns = next;
	/* A zero it_value disarms; a past absolute time fires at once. */
	its.it_value.tv_sec = (time_t)(next / DL_NSEC_PER_SEC);
	its.it_value.tv_nsec = (long)(next % DL_NSEC_PER_SEC);
	if (timerfd_settime(l->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		fatal("timerfd_settime: %s", strerror(errno));
}

void *
dl_line_run(struct dl_line *l)
{
	struct epoll_event evs[2 * DL_PORTS_MAX + 4];

	for (;;) {
		int n = epoll_wait(l->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), -1);
		void *foreign = NULL;

		if (n < 0 && errno != EINTR)
			return NULL;
		for (int i = 0; i < n; i++) {
			void *tag = evs[i].data.ptr;

			if (tag == &dl_timer_tag) {
				uint64_t expirations;

				/* Force a re-arm: the timer has fired and is no longer armed. */
				if (read(l->timerfd, &expirations, sizeof(expirations)) > 0)
					l->armed_ns = 0;
			} else if (tag >= (void *)l->dirs && tag < (void *)(l->dirs + l->ndirs)) {
				dl_dir_receive(l, tag);
			} else {
				foreign = tag;
			}
		}
		uint64_t now = dl_now_ns();
		for (size_t i = 0; i < l->ndirs; i++)
			dl_dir_emit(l, &l->dirs[i], now);
		dl_line_arm(l);
		if (foreign != NULL)
			return foreign;
	}
}

void
dl_line_print_stats(const struct dl_line *l, FILE *out)
{
	for (size_t i = 0; i < l->ndirs; i++) {
		const struct dl_dir *d = &l->dirs[i];
		const struct dl_stats *s = &d->st;

		fprintf(out,
		    "%s: rx %" PRIu64 " frames %" PRIu64 " bytes, tx %" PRIu64 " frames %" PRIu64
		    " bytes, super-frames %" PRIu64 ", queued %zu, drops queue %" PRIu64
		    " pool %" PRIu64 " oversize %" PRIu64 " no-header %" PRIu64 " send %" PRIu64
		    ", late mean %" PRIu64 " us max %" PRIu64 " us\n",
		    d->name, s->rx_frames, s->rx_bytes, s->tx_frames, s->tx_bytes, s->rx_super,
		    d->fifo.count, s->drop_queue, s->drop_pool, s->drop_oversize, s->drop_vnet,
		    s->drop_send,
		    s->tx_frames ? s->late_sum_ns / s->tx_frames / 1000 : 0, s->late_max_ns / 1000);
	}
	fflush(out);
}

void
dl_line_close(struct dl_line *l)
{
	for (size_t i = 0; i < l->ndirs; i++) {
		struct dl_frame *f;

		while ((f = dl_fifo_pop(&l->dirs[i].fifo)) != NULL)
			dl_pool_put(&l->pool, f);
	}
	dl_pool_destroy(&l->pool);
	for (size_t i = 0; i < l->nfds; i++)
		close(l->port_fds[i]);
	if (l->timerfd > 0)
		close(l->timerfd);
	if (l->epfd > 0)
		close(l->epfd);
	l->ndirs = l->nfds = 0;
	l->epfd = l->timerfd = -1;
}
