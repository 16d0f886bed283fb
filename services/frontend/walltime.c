/*
 * walltime.c: release reservations whose wall time has passed and kill their launches
 * (walltime.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "allocator.h"
#include "frontend.h"
#include "log.h"
#include "reservations.h"
#include "walltime.h"

struct walltime_keeper {
	struct frontend *fe;
	struct fe_worker *worker; /* a helper client context of the thread's own */
	struct resv_launch_info *launches;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
};

/* Release every reservation due now, killing its launches. */
static void
reap_due(struct walltime_keeper *k)
{
	char id[RESV_ID_LEN];
	size_t n, max = (size_t)k->fe->cfg.max_launches;
	while (resv_reap_due(k->fe->reservations, fe_now(), id, k->launches, max, &n)) {
		size_t killed = fe_kill_launches(k->worker, id, k->launches, n);
		log_info("reservation %s is due (wall time, or its job ended) and is released; %zu "
		    "of its %zu launches were running and are killed", id, killed, n);
	}
}

/* Let the allocator end what backs gone reservations, and fail those whose backing broke
 * (a node drained or lost, the batch job ended): their launches are killed, so the grid job
 * fails at once instead of waiting for a rank that will never answer. */
static void
check_allocations(struct walltime_keeper *k)
{
	char id[RESV_ID_LEN], why[256];
	size_t n, max = (size_t)k->fe->cfg.max_launches;
	while (allocator_check(k->fe->allocator, fe_now(), id, why, sizeof(why), k->launches, max,
	    &n)) {
		size_t killed = fe_kill_launches(k->worker, id, k->launches, n);
		log_error("reservation %s is revoked: %s; %zu of its %zu launches were running and "
		    "are killed", id, why, killed, n);
	}
}

static void *
walltime_main(void *arg)
{
	struct walltime_keeper *k = arg;
	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		pthread_mutex_unlock(&k->lock);
		reap_due(k);
		check_allocations(k);
		pthread_mutex_lock(&k->lock);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += WALLTIME_CHECK_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!k->stop && pthread_cond_timedwait(&k->wake, &k->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

struct walltime_keeper *
walltime_start(struct frontend *fe, char *err, size_t errlen)
{
	struct walltime_keeper *k = calloc(1, sizeof(*k));
	if (k == NULL || (k->launches = calloc((size_t)fe->cfg.max_launches,
	    sizeof(*k->launches))) == NULL || (k->worker = fe_worker_new(fe)) == NULL) {
		snprintf(err, errlen, "wall-time keeper: out of memory or no client context");
		if (k != NULL) {
			free(k->launches);
			free(k);
		}
		return NULL;
	}
	k->fe = fe;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	if (pthread_create(&k->thread, NULL, walltime_main, k) != 0) {
		snprintf(err, errlen, "cannot start the wall-time thread");
		fe_worker_free(k->worker);
		free(k->launches);
		free(k);
		return NULL;
	}
	return k;
}

void
walltime_stop(struct walltime_keeper *k)
{
	if (k == NULL)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_signal(&k->wake);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	fe_worker_free(k->worker);
	pthread_cond_destroy(&k->wake);
	pthread_mutex_destroy(&k->lock);
	free(k->launches);
	free(k);
}
