/*
 * helper_registrations.c: REGISTERs in bulk (helper_registrations.h). Callers queue a waiter on
 * their own stack and sleep on `answered`; one thread per process gathers a batch, sends it,
 * and wakes them. The lock is never held during a call to the front-end.
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
#include "helper_registrations.h"
#include "log.h"

struct reg_waiter {
	struct access_point ap;
	bool done;
	int rc;
	char err[512];
	struct reg_waiter *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t arrived;    /* a waiter was queued (CLOCK_MONOTONIC) */
	pthread_cond_t answered;   /* a batch is done */
	bool started;
	struct reg_waiter *head, **tail;
	size_t count;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .answered = PTHREAD_COND_INITIALIZER };

/* Send one batch (w[0..n-1], taken off the queue) and fill in each answer. */
static void
register_batch(struct helper *h, struct reg_waiter **w, size_t n)
{
	static struct access_point aps[REG_BATCH_MAX];
	char err[512];
	for (size_t i = 0; i < n; i++)
		aps[i] = w[i]->ap;
	if (n > 1 && helper_frontend_register_batch(h, aps, n, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < n; i++)
			w[i]->rc = 0;
		return;
	}
	if (n > 1)
		log_debug("RegisterAccessPoints of %zu: %s; registering them one by one", n, err);
	for (size_t i = 0; i < n; i++)
		w[i]->rc = helper_frontend_register(h, &aps[i], w[i]->err, sizeof(w[i]->err));
}

static void *
batch_thread(void *arg)
{
	struct helper *h = arg;
	struct reg_waiter *w[REG_BATCH_MAX];
	pthread_mutex_lock(&reg.lock);
	for (;;) {
		while (reg.count == 0)
			pthread_cond_wait(&reg.arrived, &reg.lock);
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		struct timespec until = batch_thread_deadline(&now, h->cfg.register_window_ms);
		while (reg.count < REG_BATCH_MAX &&
		    pthread_cond_timedwait(&reg.arrived, &reg.lock, &until) == 0)
			;
		size_t n = 0;
		while (reg.head != NULL && n < REG_BATCH_MAX) {
			w[n++] = reg.head;
			reg.head = reg.head->next;
			reg.count--;
		}
		if (reg.head == NULL)
			reg.tail = &reg.head;
		pthread_mutex_unlock(&reg.lock);
		register_batch(h, w, n);
		pthread_mutex_lock(&reg.lock);
		for (size_t i = 0; i < n; i++)
			w[i]->done = true;
		pthread_cond_broadcast(&reg.answered);
	}
	return NULL;
}

/* Start the batch thread once (with the lock held); false when it cannot run. */
static bool
batch_started(struct helper *h)
{
	if (reg.started)
		return true;
	reg.tail = &reg.head;
	if (batch_thread_start(&reg.arrived, batch_thread, h) != 0)
		return false;
	reg.started = true;
	return true;
}

int
helper_registrations_submit(struct helper *h, const struct access_point *ap, char *err,
    size_t errlen)
{
	struct reg_waiter w = { .ap = *ap };
	pthread_mutex_lock(&reg.lock);
	if (!batch_started(h)) {
		pthread_mutex_unlock(&reg.lock);
		return helper_frontend_register(h, ap, err, errlen); /* on its own, then */
	}
	*reg.tail = &w;
	reg.tail = &w.next;
	reg.count++;
	pthread_cond_signal(&reg.arrived);
	/* bounded: each batch ends when its front-end calls do (their timeouts) */
	while (!w.done)
		pthread_cond_wait(&reg.answered, &reg.lock);
	pthread_mutex_unlock(&reg.lock);
	if (w.rc != 0)
		snprintf(err, errlen, "%s", w.err);
	return w.rc;
}
