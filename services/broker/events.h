/*
 * events.h: the broker's outgoing notifications, delivered by long polling.
 *
 * A front-end (or proxy) needs only outbound connectivity: it calls WaitEvents with the last
 * sequence number it saw, and the call returns as soon as an event for its queue exists, or
 * empty at the timeout. Events live in a bounded ring shared by all queues; sequence numbers
 * start from the broker's start time (microseconds) so that they keep growing across a broker
 * restart and a front-end's "after" never hides new events.
 */
#ifndef QCG_BROKER_EVENTS_H
#define QCG_BROKER_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decision.h"
#include "model.h"

#define EVENTS_RING_SIZE 4096  /* events kept; older ones are overwritten */
#define EVENTS_WAIT_MAX 64     /* events returned by one wait */
#define EVENTS_QUEUE_MAX 320   /* "cluster name" or "proxy:host:port" */

/* An event in the ring: what is sent (the model's struct qcg_event, as every receiver holds
 * it) and to whom. */
struct broker_event {
	char queue[EVENTS_QUEUE_MAX];  /* whose event it is */
	char reader_dn[QCG_DN_MAX];    /* for EVENT_RELAY: the DN that owned the proxy when the
	                                * relay was decided, the only non-admin that may read it */
	struct qcg_event event;        /* its sequence is set by events_post */
};

struct event_queue;

struct event_queue *events_new(void);
void events_free(struct event_queue *q);
/* Append ev (its sequence is assigned) and wake the waiters of its queue. */
int64_t events_post(struct event_queue *q, struct broker_event *ev);
/* Wait up to timeout_ms for events of queue with a sequence above after; copy up to max of them
 * into out and return how many. With reader_dn set, events whose reader_dn differs are not
 * seen at all (the wait goes on past them), so that an endpoint that changed hands never shows
 * its new holder the old holder's relay ids; NULL sees every event of the queue. */
size_t events_wait(struct event_queue *q, const char *queue, const char *reader_dn,
    int64_t after, int timeout_ms, struct broker_event *out, size_t max);
/* Whether the poller has gone (its connection closed); called between slices of a wait. */
typedef bool (*events_gone_fn)(void *arg);
#define EVENTS_WATCH_SLICE_MS 250 /* how often a watched wait asks gone() */
/* events_wait that also asks gone(arg) every EVENTS_WATCH_SLICE_MS while nothing arrives and
 * returns 0 at once, with *was_gone (may be NULL) set, when it says yes: a long poll whose
 * caller died must not hold a worker, nor leave the caller looking alive, until its timeout. */
size_t events_wait_watching(struct event_queue *q, const char *queue, const char *reader_dn,
    int64_t after, int timeout_ms, events_gone_fn gone, void *arg, bool *was_gone,
    struct broker_event *out, size_t max);
/* Events in the ring (for health reporting). */
size_t events_count(struct event_queue *q);
/* Wake every waiter so that they return early (shutdown). */
void events_shutdown(struct event_queue *q);

#endif
