/*
 * delivery.c: the delivery queue and its thread (delivery.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "delivery.h"
#include "fe_config.h"
#include "soap_model.h"
#include "frontend.h"
#include "log.h"
#include "soap_client.h"

struct delivery_item {
	struct qcg_event event;
	size_t node;
	int attempts;
	double not_before; /* monotonic seconds */
};

struct delivery {
	const struct fe_config *cfg;
	struct soap *soap;                    /* the thread's own helper context (a connection
						 per call: see struct fe_worker) */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool stop;
	struct delivery_item *items;          /* DELIVERY_QUEUE_MAX, in arrival order */
	size_t count;
	unsigned long delivered, dropped, given_up;
};

static double
mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
delivery_enqueue(struct delivery *d, size_t node, const struct qcg_event *ev)
{
	pthread_mutex_lock(&d->lock);
	if (d->count == DELIVERY_QUEUE_MAX) {
		log_warn("delivery queue full: dropping event %lld for node %s",
		    (long long)d->items[0].event.sequence, d->cfg->nodes[d->items[0].node].name);
		memmove(&d->items[0], &d->items[1], (d->count - 1) * sizeof(d->items[0]));
		d->count--;
		d->dropped++;
	}
	struct delivery_item *it = &d->items[d->count++];
	it->event = *ev;
	it->node = node;
	it->attempts = 0;
	it->not_before = 0;
	pthread_cond_signal(&d->changed);
	pthread_mutex_unlock(&d->lock);
}

/* Wait for the first item that is due and take it out; false when stopping. */
static bool
take_due(struct delivery *d, struct delivery_item *out)
{
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		double now = mono_now(), soonest = now + 60;
		for (size_t i = 0; i < d->count; i++) {
			if (d->items[i].not_before <= now) {
				*out = d->items[i];
				memmove(&d->items[i], &d->items[i + 1],
				    (d->count - i - 1) * sizeof(d->items[0]));
				d->count--;
				pthread_mutex_unlock(&d->lock);
				return true;
			}
			if (d->items[i].not_before < soonest)
				soonest = d->items[i].not_before;
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		double wait = soonest - now;
		long ns = until.tv_nsec + (long)((wait - (double)(long)wait) * 1e9);
		until.tv_sec += (time_t)wait + ns / 1000000000L;
		until.tv_nsec = ns % 1000000000L;
		pthread_cond_timedwait(&d->changed, &d->lock, &until);
	}
	pthread_mutex_unlock(&d->lock);
	return false;
}

/* Returns 0 when delivered, 1 when the helper refused the event (a fault: retrying cannot
 * help), -1 when it could not be reached. */
static int
deliver_one(struct delivery *d, const struct delivery_item *it, char *err, size_t errlen)
{
	const struct fe_node *node = &d->cfg->nodes[it->node];
	soap_client_reset(d->soap);
	struct _qh__Deliver req = { 1, soap_model_event_new(d->soap, &it->event) };
	if (req.event == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct _qh__DeliverResponse resp;
	if (soap_call___qh__Deliver(d->soap, node->helper_url, NULL, &req, &resp) == SOAP_OK)
		return 0;
	int refused = fe_soap_is_fault(d->soap);
	soap_client_error(d->soap, err, errlen);
	soap_closesock(d->soap);
	return refused ? 1 : -1;
}

static void *
delivery_main(void *arg)
{
	struct delivery *d = arg;
	struct delivery_item it;
	char err[1024];

	while (take_due(d, &it)) {
		const char *node = d->cfg->nodes[it.node].name;
		int rc = deliver_one(d, &it, err, sizeof(err));
		if (rc == 0) {
			log_debug("delivered %s event %lld (job %s) to node %s",
			    event_kind_name(it.event.kind), (long long)it.event.sequence,
			    it.event.job, node);
			pthread_mutex_lock(&d->lock);
			d->delivered++;
			pthread_mutex_unlock(&d->lock);
			continue;
		}
		if (rc > 0) {
			log_warn("helper of node %s refused %s event %lld (job %s): %s", node,
			    event_kind_name(it.event.kind), (long long)it.event.sequence,
			    it.event.job, err);
			continue;
		}
		if (++it.attempts >= DELIVERY_ATTEMPTS) {
			log_error("gave up delivering %s event %lld (job %s) to node %s after %d "
			    "attempts: %s", event_kind_name(it.event.kind),
			    (long long)it.event.sequence, it.event.job, node, it.attempts, err);
			pthread_mutex_lock(&d->lock);
			d->given_up++;
			pthread_mutex_unlock(&d->lock);
			continue;
		}
		double delay = 0.25 * (double)(1 << it.attempts);
		log_warn("delivering %s event %lld to node %s failed (%s); retry in %.1f s",
		    event_kind_name(it.event.kind), (long long)it.event.sequence, node, err, delay);
		it.not_before = mono_now() + delay;
		pthread_mutex_lock(&d->lock);
		if (d->count < DELIVERY_QUEUE_MAX)
			d->items[d->count++] = it;
		pthread_mutex_unlock(&d->lock);
	}
	return NULL;
}

struct delivery *
delivery_start(const struct fe_config *cfg, const struct tls_settings *tls, char *err,
    size_t errlen)
{
	struct delivery *d = calloc(1, sizeof(*d));
	struct soap_client_settings s = { cfg->helper_timeout < 5 ? (int)cfg->helper_timeout : 5,
		(int)cfg->helper_timeout, 1 << 20 };
	if (d == NULL || (d->items = calloc(DELIVERY_QUEUE_MAX, sizeof(*d->items))) == NULL) {
		free(d);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->cfg = cfg;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->changed, NULL);
	d->soap = fe_client_without_keepalive(tls, &s, err, errlen);
	if (d->soap == NULL || pthread_create(&d->thread, NULL, delivery_main, d) != 0) {
		if (d->soap)
			snprintf(err, errlen, "cannot start the delivery thread");
		soap_client_free(d->soap);
		free(d->items);
		free(d);
		return NULL;
	}
	return d;
}

void
delivery_stop(struct delivery *d)
{
	if (d == NULL)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_broadcast(&d->changed);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	log_info("delivery: %lu events delivered, %lu given up, %lu dropped, %zu left in the queue",
	    d->delivered, d->given_up, d->dropped, d->count);
	soap_client_free(d->soap);
	pthread_cond_destroy(&d->changed);
	pthread_mutex_destroy(&d->lock);
	free(d->items);
	free(d);
}
