/*
 * test_helper_outcomes.c: the helper's batched connection records (services/helper/
 * helper_outcomes.h) under a storm. Three reporting threads queue 20 000 records each, more
 * than three times OUTCOME_QUEUE_MAX, while the batches leave slower than they come: every
 * record must reach the front-end once, each thread's in the order queued, none dropped.
 *
 * The front-end call (helper_frontend_report_batch) is this file's: it takes a batch after a
 * short sleep, as a front-end behind a busy broker answers late. The queue, the batch thread
 * and the wait for room are the helper's own code.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "helper_frontend.h"
#include "helper_outcomes.h"

#define PRODUCERS 3
#define PER_PRODUCER 20000
#define BATCH_DELAY_US 3000 /* a batch per 3 ms: slower than the producers */

static struct {
	pthread_mutex_t lock;
	uint64_t received, calls, out_of_order, too_large;
	int64_t next[PRODUCERS]; /* the sequence number each producer's next record must carry */
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

int
helper_frontend_report_batch(struct helper *h, const struct connection_report *recs, size_t n,
    char *err, size_t errlen)
{
	(void)h;
	(void)err;
	(void)errlen;
	struct timespec delay = { 0, BATCH_DELAY_US * 1000L };
	nanosleep(&delay, NULL);
	pthread_mutex_lock(&seen.lock);
	seen.calls++;
	if (n > OUTCOME_SEND_MAX)
		seen.too_large++;
	for (size_t i = 0; i < n; i++) {
		int p = recs[i].rec.to_port;
		if (p < 0 || p >= PRODUCERS || recs[i].rec.setup_usec != seen.next[p])
			seen.out_of_order++;
		else
			seen.next[p]++;
		seen.received++;
	}
	pthread_mutex_unlock(&seen.lock);
	return 0;
}

static void *
producer(void *arg)
{
	int p = (int)(intptr_t)arg;
	struct connection_record rec;
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.job, sizeof(rec.job), "storm");
	rec.to_port = (uint16_t)p;
	rec.method = METHOD_DIRECT;
	rec.succeeded = true;
	for (int64_t i = 0; i < PER_PRODUCER; i++) {
		rec.setup_usec = i;
		helper_outcomes_queue(NULL, &rec, "10.0.0.1");
	}
	return NULL;
}

static uint64_t
received(void)
{
	pthread_mutex_lock(&seen.lock);
	uint64_t n = seen.received;
	pthread_mutex_unlock(&seen.lock);
	return n;
}

static void
storm_loses_no_record_and_keeps_order(void)
{
	pthread_t t[PRODUCERS];
	for (int p = 0; p < PRODUCERS; p++)
		pthread_create(&t[p], NULL, producer, (void *)(intptr_t)p);
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(t[p], NULL);
	helper_outcomes_flush_soon();
	/* Bounded: 60 000 records in batches of 64 or more, one per 3 ms, take at most 2.8 s. */
	for (int i = 0; i < 6000 && received() < (uint64_t)PRODUCERS * PER_PRODUCER; i++) {
		struct timespec tick = { 0, 10 * 1000000L };
		nanosleep(&tick, NULL);
	}
	pthread_mutex_lock(&seen.lock);
	CHECK_INT_EQ(seen.received, (uint64_t)PRODUCERS * PER_PRODUCER);
	CHECK_INT_EQ(seen.out_of_order, 0);
	CHECK_INT_EQ(seen.too_large, 0);
	for (int p = 0; p < PRODUCERS; p++)
		CHECK_INT_EQ(seen.next[p], PER_PRODUCER);
	/* batches, not records one by one: at most OUTCOME_SEND_MAX per call */
	CHECK(seen.calls >= (uint64_t)PRODUCERS * PER_PRODUCER / OUTCOME_SEND_MAX);
	CHECK(seen.calls < (uint64_t)PRODUCERS * PER_PRODUCER / 8);
	pthread_mutex_unlock(&seen.lock);
}

int
main(void)
{
	RUN(storm_loses_no_record_and_keeps_order);
	return check_exit();
}
