/*
 * broker_link.c: registration and the event long poll (broker_link.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "soapH.h"
#include "soap_model.h"
#include "broker_link.h"
#include "fe_config.h"
#include "log.h"
#include "soap_client.h"

#define LINK_CONNECT_TIMEOUT 5   /* seconds to reach the broker */
#define LINK_REPLY_MARGIN 15     /* seconds a long poll's reply may come after its timeout */

struct broker_link {
	const struct fe_config *cfg;
	broker_event_fn on_event;
	void *arg;
	struct soap *soap;           /* used by the link's thread only (but see interrupt) */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;                   /* guarded by lock */
	unsigned long registrations; /* guarded by lock */
	int64_t last_seq;            /* guarded by lock */
};

/* Sleep up to seconds, or until stop; returns whether to stop. */
static bool
link_pause(struct broker_link *l, double seconds)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	long ns = until.tv_nsec + (long)((seconds - (double)(long)seconds) * 1e9);
	until.tv_sec += (time_t)seconds + ns / 1000000000L;
	until.tv_nsec = ns % 1000000000L;
	pthread_mutex_lock(&l->lock);
	while (!l->stop && pthread_cond_timedwait(&l->wake, &l->lock, &until) != ETIMEDOUT)
		;
	bool stop = l->stop;
	pthread_mutex_unlock(&l->lock);
	return stop;
}

static bool
link_stopping(struct broker_link *l)
{
	pthread_mutex_lock(&l->lock);
	bool stop = l->stop;
	pthread_mutex_unlock(&l->lock);
	return stop;
}

static int
register_cluster(struct broker_link *l, char *err, size_t errlen)
{
	soap_client_reset(l->soap);
	struct _qb__RegisterCluster req = {
		soap_model_cluster_registration_new(l->soap, &l->cfg->cluster) };
	struct _qb__RegisterClusterResponse resp;
	if (req.cluster == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (soap_call___qb__RegisterCluster(l->soap, l->cfg->broker_url, NULL, &req, &resp) ==
	    SOAP_OK)
		return 0;
	soap_client_error(l->soap, err, errlen);
	soap_closesock(l->soap);
	return -1;
}

/* One long poll; events go to the callback. Returns -1 with err on failure. */
static int
poll_events(struct broker_link *l, char *err, size_t errlen)
{
	struct qcg_event ev;
	pthread_mutex_lock(&l->lock);
	int64_t after = l->last_seq;
	pthread_mutex_unlock(&l->lock);
	struct _qb__WaitEvents req = { (char *)l->cfg->cluster.name, after,
		(int)l->cfg->poll_timeout };
	struct _qb__WaitEventsResponse resp;
	soap_client_reset(l->soap);
	if (soap_call___qb__WaitEvents(l->soap, l->cfg->broker_url, NULL, &req, &resp) != SOAP_OK) {
		soap_client_error(l->soap, err, errlen);
		soap_closesock(l->soap);
		return -1;
	}
	for (int i = 0; i < resp.__sizeevent; i++) {
		if (resp.event[i].sequence <= after)
			continue; /* already handled */
		if (soap_model_event_in(&resp.event[i], &ev, err, errlen) != 0)
			log_warn("broker event %lld skipped: %s", (long long)resp.event[i].sequence, err);
		else
			l->on_event(l->arg, &ev);
		after = resp.event[i].sequence;
		pthread_mutex_lock(&l->lock);
		l->last_seq = after;
		pthread_mutex_unlock(&l->lock);
	}
	return 0;
}

static void *
link_main(void *arg)
{
	struct broker_link *l = arg;
	double backoff = BROKER_LINK_BACKOFF_MIN;
	bool registered = false;
	char err[1024];

	while (!link_stopping(l)) {
		int rc = registered ? poll_events(l, err, sizeof(err))
				    : register_cluster(l, err, sizeof(err));
		if (rc == 0) {
			if (!registered) {
				pthread_mutex_lock(&l->lock);
				unsigned long n = ++l->registrations;
				pthread_mutex_unlock(&l->lock);
				log_info("cluster %s registered with the broker at %s (registration %lu)",
				    l->cfg->cluster.name, l->cfg->broker_url, n);
			}
			registered = true;
			backoff = BROKER_LINK_BACKOFF_MIN;
			continue;
		}
		if (link_stopping(l))
			break;
		log_warn("broker %s: %s: %s; %s in %.1f s", l->cfg->broker_url,
		    registered ? "event poll failed" : "registration failed", err,
		    "registering again", backoff);
		registered = false;
		if (link_pause(l, backoff))
			break;
		backoff = backoff * 2 > BROKER_LINK_BACKOFF_MAX ? BROKER_LINK_BACKOFF_MAX : backoff * 2;
	}
	return NULL;
}

struct broker_link *
broker_link_start(const struct fe_config *cfg, const struct tls_settings *tls,
    broker_event_fn on_event, void *arg, char *err, size_t errlen)
{
	struct broker_link *l = calloc(1, sizeof(*l));
	if (l == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct soap_client_settings s = { LINK_CONNECT_TIMEOUT,
		(int)(cfg->poll_timeout > cfg->broker_timeout ? cfg->poll_timeout
							      : cfg->broker_timeout) +
		    LINK_REPLY_MARGIN,
		16 << 20 };
	l->cfg = cfg;
	l->on_event = on_event;
	l->arg = arg;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->wake, NULL);
	l->soap = soap_client_new(tls, &s, err, errlen);
	if (l->soap == NULL || pthread_create(&l->thread, NULL, link_main, l) != 0) {
		if (l->soap)
			snprintf(err, errlen, "cannot start the broker link thread");
		soap_client_free(l->soap);
		free(l);
		return NULL;
	}
	return l;
}

void
broker_link_stop(struct broker_link *l)
{
	if (l == NULL)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_broadcast(&l->wake);
	/* Cut a long poll short: the blocked recv returns and the thread sees stop. The socket is
	 * the thread's; reading its number here races with the thread closing it (it could then
	 * name a descriptor just reused elsewhere), which is tolerable only because this runs at
	 * exit. Without it, stopping could take up to poll_timeout. */
	if (soap_valid_socket(l->soap->socket))
		shutdown(l->soap->socket, SHUT_RDWR);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	soap_client_free(l->soap);
	pthread_cond_destroy(&l->wake);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void
broker_link_stats(struct broker_link *l, unsigned long *registrations, int64_t *last_seq)
{
	pthread_mutex_lock(&l->lock);
	*registrations = l->registrations;
	*last_seq = l->last_seq;
	pthread_mutex_unlock(&l->lock);
}
