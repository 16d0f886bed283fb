/*
 * batch_thread.h: the start of a helper's batching thread (helper_outcomes.c,
 * helper_registrations.c): a condition variable whose timed waits run on CLOCK_MONOTONIC (a
 * batch's age and window must not move with the wall clock) and one detached thread that
 * waits on it.
 */
#ifndef QCG_BATCH_THREAD_H
#define QCG_BATCH_THREAD_H

#include <pthread.h>
#include <time.h>

/* Initialise *cond for CLOCK_MONOTONIC waits (another condition variable of the same batch). */
void batch_cond_init(pthread_cond_t *cond);

/* Initialise *wake for CLOCK_MONOTONIC waits and start run(arg) detached. Returns 0, or -1
 * (the thread could not start; *wake is destroyed again). */
int batch_thread_start(pthread_cond_t *wake, void *(*run)(void *), void *arg);

/* The CLOCK_MONOTONIC instant ms milliseconds after from: an absolute time for
 * pthread_cond_timedwait on such a condition variable. */
struct timespec batch_thread_deadline(const struct timespec *from, long ms);

#endif
