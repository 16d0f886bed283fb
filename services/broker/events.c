/*
 * events.c: a bounded ring of broker events with condition-variable long polling.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"

struct event_queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;    /* broadcast on every post and on shutdown */
	struct broker_event *ring; /* EVENTS_RING_SIZE slots */
	size_t count;              /* slots in use */
	size_t next;               /* slot the next post writes */
	int64_t last_sequence;
	int shutting_down;
};

struct event_queue *
events_new(void)
{
	struct event_queue *q = calloc(1, sizeof(*q));
	if (q == NULL)
		return NULL;
	q->ring = calloc(EVENTS_RING_SIZE, sizeof(*q->ring));
	if (q->ring == NULL) {
		free(q);
		return NULL;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	q->last_sequence = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->changed, &attr);
	pthread_condattr_destroy(&attr);
	return q;
}

void
events_free(struct event_queue *q)
{
	if (q == NULL)
		return;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->changed);
	free(q->ring);
	free(q);
}

int64_t
events_post(struct event_queue *q, struct broker_event *ev)
{
	pthread_mutex_lock(&q->lock);
	ev->event.sequence = ++q->last_sequence;
	q->ring[q->next] = *ev;
	q->next = (q->next + 1) % EVENTS_RING_SIZE;
	if (q->count < EVENTS_RING_SIZE)
		q->count++;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->lock);
	return ev->event.sequence;
}

/* Copy the matching events, oldest first; called with the lock held. */
static size_t
collect(struct event_queue *q, const char *queue, const char *reader_dn, int64_t after,
    struct broker_event *out, size_t max)
{
	size_t n = 0;
	size_t oldest = (q->next + EVENTS_RING_SIZE - q->count) % EVENTS_RING_SIZE;
	for (size_t i = 0; i < q->count && n < max; i++) {
		const struct broker_event *ev = &q->ring[(oldest + i) % EVENTS_RING_SIZE];
		if (ev->event.sequence > after && strcmp(ev->queue, queue) == 0 &&
		    (reader_dn == NULL || strcmp(ev->reader_dn, reader_dn) == 0))
			out[n++] = *ev;
	}
	return n;
}

/* The monotonic time ms from now. */
static struct timespec
deadline_in(int ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static bool
reached(const struct timespec *now, const struct timespec *t)
{
	return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

size_t
events_wait_watching(struct event_queue *q, const char *queue, const char *reader_dn,
    int64_t after, int timeout_ms, events_gone_fn gone, void *arg, bool *was_gone,
    struct broker_event *out, size_t max)
{
	struct timespec deadline = deadline_in(timeout_ms), now, until;
	struct timespec next_check = deadline_in(EVENTS_WATCH_SLICE_MS);
	size_t n;

	if (was_gone != NULL)
		*was_gone = false;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		if ((n = collect(q, queue, reader_dn, after, out, max)) > 0 || q->shutting_down)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (reached(&now, &deadline))
			break;
		/* Every EVENTS_WATCH_SLICE_MS, whatever woke us (the condition is shared by every
		 * queue, so wake-ups for others may come more often than the slice), ask whether
		 * the poller is still there. */
		if (gone != NULL && reached(&now, &next_check)) {
			/* the check is a system call on the poller's socket: not under the lock */
			pthread_mutex_unlock(&q->lock);
			bool g = gone(arg);
			pthread_mutex_lock(&q->lock);
			if (g) {
				if (was_gone != NULL)
					*was_gone = true;
				n = 0;
				break;
			}
			next_check = deadline_in(EVENTS_WATCH_SLICE_MS);
			continue; /* an event may have come while unlocked */
		}
		until = gone != NULL && !reached(&next_check, &deadline) ? next_check : deadline;
		pthread_cond_timedwait(&q->changed, &q->lock, &until);
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t
events_wait(struct event_queue *q, const char *queue, const char *reader_dn, int64_t after,
    int timeout_ms, struct broker_event *out, size_t max)
{
	return events_wait_watching(q, queue, reader_dn, after, timeout_ms, NULL, NULL, NULL, out,
	    max);
}

size_t
events_count(struct event_queue *q)
{
	pthread_mutex_lock(&q->lock);
	size_t n = q->count;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void
events_shutdown(struct event_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->shutting_down = 1;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->lock);
}
