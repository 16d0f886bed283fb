/*
 * batch_thread.c: the start of a batching thread (batch_thread.h).
 */
#include "config.h"

#include "batch_thread.h"

void
batch_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

int
batch_thread_start(pthread_cond_t *wake, void *(*run)(void *), void *arg)
{
	pthread_t t;
	batch_cond_init(wake);
	if (pthread_create(&t, NULL, run, arg) != 0) {
		pthread_cond_destroy(wake);
		return -1;
	}
	pthread_detach(t);
	return 0;
}

struct timespec
batch_thread_deadline(const struct timespec *from, long ms)
{
	struct timespec until = *from;
	until.tv_sec += ms / 1000L;
	until.tv_nsec += (ms % 1000L) * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	return until;
}
