/*
 * relay_worker.c: the event loop of one data-plane thread (see relay_worker.h for the model).
 *
 * One iteration: wait for events (not at all when relays are on the ready list), dispatch them
 * by tag, give ready relays another pump, free relays closed in the batch, and every
 * RELAY_TICK_MS expire handshakes that took too long (worker 0 also expires waiting legs and
 * stale ids in the shared table).
 */
#define _GNU_SOURCE /* accept4 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "relay_worker.h"

#define RELAY_TICK_MS 50         /* timeout granularity */
#define RELAY_EVENTS_PER_WAIT 256
#define RELAY_ACCEPTS_PER_EVENT 64 /* then serve other events; the listener is level-triggered */
#define RELAY_REFUSAL_LOGS_PER_TICK 5
#define RELAY_EXPIRE_BATCH 64

uint64_t
relay_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
relay_worker_close_leg(struct relay_worker *w, int fd)
{
	close(fd);
	atomic_fetch_sub(&w->shared->legs_open, 1);
}

void
relay_worker_log_refusal(struct relay_worker *w, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (w->log_budget == 0) {
		w->log_suppressed++;
		return;
	}
	w->log_budget--;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_info("%s", line);
}

static void
listener_set_paused(struct relay_worker *w, bool paused)
{
	struct epoll_event ev = { .events = paused ? 0 : EPOLLIN, .data.ptr = &w->listen_tag };

	if (w->listener_paused != paused && epoll_ctl(w->epfd, EPOLL_CTL_MOD, w->listen_fd, &ev) == 0)
		w->listener_paused = paused;
}

static void
worker_accept(struct relay_worker *w, uint64_t now_ms)
{
	for (int i = 0; i < RELAY_ACCEPTS_PER_EVENT; i++) {
		int fd = accept4(w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				/* Level-triggered: retrying now would spin. Pause until the next tick. */
				log_warn("%s: accept: %s; pausing the listener", __func__, strerror(errno));
				listener_set_paused(w, true);
			}
			return;
		}
		if (atomic_fetch_add(&w->shared->legs_open, 1) >= (long)w->shared->cfg.max_legs) {
			RELAY_COUNT(w, legs_refused, 1);
			relay_worker_log_refusal(w, "leg refused: %u legs open (max-legs)",
			    w->shared->cfg.max_legs);
			relay_worker_close_leg(w, fd);
			continue;
		}
		relay_leg_accepted(w, fd, now_ms);
	}
}

static void
worker_dispatch(struct relay_worker *w, struct epoll_event *ev, uint64_t now_ms)
{
	struct relay_tag *tag = ev->data.ptr;
	uint64_t drained;

	switch (tag->kind) {
	case TAG_LISTENER:
		worker_accept(w, now_ms);
		break;
	case TAG_WAKE:
		if (read(w->wake_fd, &drained, sizeof(drained)) < 0 && errno != EAGAIN)
			log_warn("%s: eventfd: %s", __func__, strerror(errno));
		relay_leg_recheck_unannounced(w, now_ms);
		break;
	case TAG_HELLO_IN:
	case TAG_HELLO_OUT:
		relay_leg_event(w, tag, ev->events, now_ms);
		break;
	case TAG_SESSION:
		relay_join_event(w, tag, ev->events);
		break;
	}
}

/* Close first legs whose partner never came (worker 0 only: one sweeper is enough). */
static void
worker_expire_table(struct relay_worker *w, uint64_t now_ms)
{
	int fds[RELAY_EXPIRE_BATCH];
	size_t n;

	do {
		n = relay_table_expire(w->shared->table, now_ms, fds, RELAY_EXPIRE_BATCH);
		for (size_t i = 0; i < n; i++) {
			relay_worker_close_leg(w, fds[i]); /* gauges first: see relay_join.c */
			RELAY_COUNT(w, timeouts_partner, 1);
		}
		if (n > 0)
			relay_worker_log_refusal(w, "%zu lonely legs closed: no partner within %u ms",
			    n, w->shared->cfg.partner_timeout_ms);
	} while (n == RELAY_EXPIRE_BATCH);
}

static void
worker_tick(struct relay_worker *w, uint64_t now_ms)
{
	if (w->log_suppressed > 0)
		log_info("%u more refusal messages suppressed", w->log_suppressed);
	w->log_suppressed = 0;
	w->log_budget = RELAY_REFUSAL_LOGS_PER_TICK;
	listener_set_paused(w, false);
	relay_leg_expire(w, now_ms);
	relay_leg_recheck_unannounced(w, now_ms);
	if (w->index == 0)
		worker_expire_table(w, now_ms);
}

void *
relay_worker_run(void *arg)
{
	struct relay_worker *w = arg;
	struct epoll_event events[RELAY_EVENTS_PER_WAIT];
	uint64_t next_tick = relay_now_ms() + RELAY_TICK_MS;

	while (!atomic_load(&w->shared->stopping)) {
		int timeout = w->ready != NULL ? 0 : RELAY_TICK_MS;
		int n = epoll_wait(w->epfd, events, RELAY_EVENTS_PER_WAIT, timeout);
		if (n < 0 && errno != EINTR)
			fatal("%s: epoll_wait: %s", __func__, strerror(errno));
		uint64_t now_ms = relay_now_ms();
		for (int i = 0; i < n; i++)
			worker_dispatch(w, &events[i], now_ms);
		relay_join_run_ready(w);
		relay_join_free_dead(w);
		if (now_ms >= next_tick) {
			worker_tick(w, now_ms);
			next_tick = now_ms + RELAY_TICK_MS;
		}
	}
	relay_leg_close_all(w);
	relay_join_close_all(w);
	return NULL;
}

int
relay_worker_init(struct relay_worker *w, struct relay_shared *shared, int index, int listen_fd)
{
	memset(w, 0, sizeof(*w));
	w->shared = shared;
	w->index = index;
	w->listen_fd = listen_fd;
	w->log_budget = RELAY_REFUSAL_LOGS_PER_TICK;
	w->listen_tag.kind = TAG_LISTENER;
	w->wake_tag.kind = TAG_WAKE;
	w->wake_fd = -1;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->epfd < 0 || w->wake_fd < 0)
		goto fail;
	struct epoll_event lev = { .events = EPOLLIN, .data.ptr = &w->listen_tag };
	struct epoll_event wev = { .events = EPOLLIN, .data.ptr = &w->wake_tag };
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, listen_fd, &lev) < 0 ||
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->wake_fd, &wev) < 0)
		goto fail;
	return 0;
fail:
	{
		int saved = errno;
		relay_worker_destroy(w);
		errno = saved;
	}
	return -1;
}

void
relay_worker_wake(struct relay_worker *w)
{
	uint64_t one = 1;

	if (write(w->wake_fd, &one, sizeof(one)) < 0)
		log_warn("%s: eventfd: %s", __func__, strerror(errno));
}

void
relay_worker_destroy(struct relay_worker *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	if (w->listen_fd >= 0)
		close(w->listen_fd);
	w->epfd = w->wake_fd = w->listen_fd = -1;
}
