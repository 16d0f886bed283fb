/*
 * helper_outcomes.c: the batched record of connections (helper_outcomes.h).
 *
 * State is per process (one helper per process), behind one mutex. The batch thread starts
 * with the first record and lives as long as the daemon: records still waiting when it stops
 * are lost (at most OUTCOME_BATCH_AGE_MS of them). The records wait in a ring, so taking a
 * batch copies only the batch: at P = 1024 the queue stayed full, and moving the rest down
 * after every batch copied megabytes per call.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_thread.h"
#include "helper.h"
#include "helper_frontend.h"
#include "helper_outcomes.h"
#include "log.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t room;                    /* signalled when the thread took records */
	bool started;
	struct connection_report *queue;        /* a ring of OUTCOME_QUEUE_MAX slots */
	size_t head, count;                     /* the oldest record's slot, records waiting */
	struct timespec oldest;                 /* when queue[0] came (CLOCK_MONOTONIC) */
	unsigned long dropped;                  /* records refused after OUTCOME_FULL_WAIT_MS */
	bool flush;                             /* send what waits now (a process ended) */
} batch = { .lock = PTHREAD_MUTEX_INITIALIZER }; /* wake: made with the thread */

/* Milliseconds from a to b. */
static long
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000L + (b->tv_nsec - a->tv_nsec) / 1000000L;
}

/* Send one batch; the records are gone either way (a failure is logged with the count, and
 * the broker's log then misses them: the connections themselves are unaffected). */
static void
send_batch(struct helper *h, const struct connection_report *recs, size_t n)
{
	char err[1024];
	if (helper_frontend_report_batch(h, recs, n, err, sizeof(err)) != 0)
		log_warn("%zu connection records are lost: %s", n, err);
}

static void *
batch_thread(void *arg)
{
	struct helper *h = arg;
	struct connection_report *out = calloc(OUTCOME_SEND_MAX, sizeof(*out));
	if (out == NULL) {
		log_error("connection records: out of memory; none will be sent");
		return NULL;
	}
	pthread_mutex_lock(&batch.lock);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (batch.count == 0)
			batch.flush = false;
		if (batch.count == 0 || (batch.count < OUTCOME_BATCH_MAX && !batch.flush &&
		    ms_between(&batch.oldest, &now) < OUTCOME_BATCH_AGE_MS)) {
			if (batch.count == 0) {
				pthread_cond_wait(&batch.wake, &batch.lock);
			} else {
				struct timespec until = batch_thread_deadline(&batch.oldest,
				    OUTCOME_BATCH_AGE_MS);
				pthread_cond_timedwait(&batch.wake, &batch.lock, &until);
			}
			continue;
		}
		size_t n = batch.count < OUTCOME_SEND_MAX ? batch.count : OUTCOME_SEND_MAX;
		size_t first = OUTCOME_QUEUE_MAX - batch.head < n ? OUTCOME_QUEUE_MAX - batch.head : n;
		memcpy(out, batch.queue + batch.head, first * sizeof(*out));
		memcpy(out + first, batch.queue, (n - first) * sizeof(*out));
		batch.head = (batch.head + n) % OUTCOME_QUEUE_MAX;
		batch.count -= n;
		pthread_cond_broadcast(&batch.room);
		batch.oldest = now; /* the rest came later than the oldest; near enough */
		unsigned long dropped = batch.dropped;
		batch.dropped = 0;
		pthread_mutex_unlock(&batch.lock);
		if (dropped > 0)
			log_warn("%lu connection records were dropped: %d waited for %d ms",
			    dropped, OUTCOME_QUEUE_MAX, OUTCOME_FULL_WAIT_MS);
		send_batch(h, out, n);
		pthread_mutex_lock(&batch.lock);
	}
	return NULL;
}

/* Start the batch thread once; false when it cannot run (the caller drops the record). */
static bool
batch_started(struct helper *h)
{
	if (batch.started)
		return true;
	batch.queue = calloc(OUTCOME_QUEUE_MAX, sizeof(*batch.queue));
	if (batch.queue == NULL)
		return false;
	batch_cond_init(&batch.room);
	if (batch_thread_start(&batch.wake, batch_thread, h) != 0) {
		free(batch.queue);
		batch.queue = NULL;
		return false;
	}
	batch.started = true;
	return true;
}

void
helper_outcomes_queue(struct helper *h, const struct connection_record *rec,
    const char *to_address)
{
	pthread_mutex_lock(&batch.lock);
	if (batch_started(h) && batch.count >= OUTCOME_QUEUE_MAX) {
		/* A storm outruns the calls: the reporting process waits for room, so the storm
		 * slows to what the front-end and the broker record, rather than the log losing
		 * connections. Bounded: a broker that stopped answering costs records, not the job. */
		struct timespec now, until;
		clock_gettime(CLOCK_MONOTONIC, &now);
		until = batch_thread_deadline(&now, OUTCOME_FULL_WAIT_MS);
		pthread_cond_signal(&batch.wake);
		while (batch.count >= OUTCOME_QUEUE_MAX &&
		    pthread_cond_timedwait(&batch.room, &batch.lock, &until) == 0)
			;
	}
	if (!batch_started(h) || batch.count >= OUTCOME_QUEUE_MAX) {
		batch.dropped++;
		pthread_mutex_unlock(&batch.lock);
		return;
	}
	if (batch.count == 0)
		clock_gettime(CLOCK_MONOTONIC, &batch.oldest);
	struct connection_report *d =
	    &batch.queue[(batch.head + batch.count++) % OUTCOME_QUEUE_MAX];
	d->rec = *rec;
	snprintf(d->to_address, sizeof(d->to_address), "%s", to_address);
	if (batch.count == 1 || batch.count == OUTCOME_BATCH_MAX)
		pthread_cond_signal(&batch.wake);
	pthread_mutex_unlock(&batch.lock);
}

void
helper_outcomes_flush_soon(void)
{
	pthread_mutex_lock(&batch.lock);
	if (batch.started && batch.count > 0) {
		batch.flush = true;
		pthread_cond_signal(&batch.wake);
	}
	pthread_mutex_unlock(&batch.lock);
}
