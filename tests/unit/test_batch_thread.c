/*
 * test_batch_thread.c: the batching threads' start (lib/batch_thread.h): deadlines carry into
 * seconds, and the condition variable it makes times out on CLOCK_MONOTONIC while the thread
 * it started runs and can wake a waiter.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>

#include "batch_thread.h"
#include "check.h"

static void
deadline_carries_into_seconds(void)
{
	struct timespec from = { .tv_sec = 10, .tv_nsec = 900000000L };
	struct timespec t = batch_thread_deadline(&from, 250);
	CHECK_INT_EQ(t.tv_sec, 11);
	CHECK_INT_EQ(t.tv_nsec, 150000000L);
	t = batch_thread_deadline(&from, 2100);
	CHECK_INT_EQ(t.tv_sec, 13);
	CHECK_INT_EQ(t.tv_nsec, 0);
	t = batch_thread_deadline(&from, 0);
	CHECK_INT_EQ(t.tv_sec, 10);
	CHECK_INT_EQ(t.tv_nsec, 900000000L);
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool go, ran;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Waits for "go", then says it ran (on the same condition variable). */
static void *
runner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&st.lock);
	while (!st.go)
		pthread_cond_wait(&st.wake, &st.lock);
	st.ran = true;
	pthread_cond_broadcast(&st.wake);
	pthread_mutex_unlock(&st.lock);
	return NULL;
}

static void
thread_runs_and_waits_are_monotonic(void)
{
	struct timespec now, until;
	CHECK_INT_EQ(batch_thread_start(&st.wake, runner, NULL), 0);
	pthread_mutex_lock(&st.lock);
	/* A deadline 50 ms ahead on CLOCK_MONOTONIC: a condition variable on CLOCK_REALTIME
	 * would read it as a time decades past and return at once. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	until = batch_thread_deadline(&now, 50);
	int rc;
	do
		rc = pthread_cond_timedwait(&st.wake, &st.lock, &until);
	while (rc == 0);
	CHECK_INT_EQ(rc, ETIMEDOUT);
	struct timespec after;
	clock_gettime(CLOCK_MONOTONIC, &after);
	long waited = (after.tv_sec - now.tv_sec) * 1000L + (after.tv_nsec - now.tv_nsec) / 1000000L;
	CHECK(waited >= 49);
	CHECK(waited < 10000);
	st.go = true;
	pthread_cond_broadcast(&st.wake);
	clock_gettime(CLOCK_MONOTONIC, &now);
	until = batch_thread_deadline(&now, 30000);
	while (!st.ran && pthread_cond_timedwait(&st.wake, &st.lock, &until) == 0)
		;
	CHECK(st.ran);
	pthread_mutex_unlock(&st.lock);
}

int
main(void)
{
	deadline_carries_into_seconds();
	thread_runs_and_waits_are_monotonic();
	return check_exit();
}
