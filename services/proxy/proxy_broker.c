/*
 * proxy_broker.c: the broker link of qcg-proxy (proxy_broker.h): registration, the WaitEvents
 * long poll, and what a relay event makes the data plane do.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "soapH.h"
#include "soap_model.h"
#include "log.h"
#include "proxy_broker.h"
#include "soap_client.h"

#define PROXY_QUEUE_MAX (QCG_ENDPOINT_MAX + 8) /* "proxy:" + endpoint */

struct proxy_broker {
	struct proxy_broker_settings s;
	struct relay_plane *plane;
	char queue[PROXY_QUEUE_MAX];
	struct soap *soap;              /* used by the thread only (and by stop once joined) */
	pthread_t thread;
	pthread_mutex_t lock;           /* guards the fields below */
	pthread_cond_t wake;            /* signalled by stop, to cut a backoff short */
	bool stopping;
	bool registered;
	SOAP_SOCKET fd;                 /* the broker connection now open, to cut a long poll */
	SOAP_SOCKET (*gsoap_fopen)(struct soap *, const char *, const char *, int);
	int (*gsoap_fclosesocket)(struct soap *, SOAP_SOCKET);
	int64_t after;                  /* the last event sequence seen (thread only) */
};

/* The proxy[] entry of a decision that names self, or -1. */
static int
decision_position(const char *self, const struct decision *d)
{
	for (size_t i = 0; i < d->proxy_count && i < 2; i++)
		if (strcmp(d->proxy[i].endpoint, self) == 0)
			return (int)i;
	return -1;
}

int
proxy_broker_plan(const char *self, const struct qcg_event *ev, struct proxy_relay_plan *out,
    char *err, size_t errlen)
{
	static const struct relay_id none;
	const struct decision *d = &ev->decision;

	memset(out, 0, sizeof(*out));
	if (ev->kind != EVENT_RELAY) {
		snprintf(err, errlen, "event of kind '%s' is not for a proxy",
		    event_kind_name(ev->kind));
		return 1;
	}
	if (!ev->has_decision || (d->method != METHOD_RELAY && d->method != METHOD_RELAY_CHAIN)) {
		snprintf(err, errlen, "relay event without a relay decision");
		return -1;
	}
	if (memcmp(&d->relay_id, &none, sizeof(none)) == 0) {
		snprintf(err, errlen, "relay event whose relayId is not %d hex digits",
		    RELAY_ID_HEX_LEN);
		return -1;
	}
	out->id = d->relay_id;
	int pos = decision_position(self, d);
	if (pos < 0) {
		snprintf(err, errlen, "relay event that does not name this proxy (%s)", self);
		return 1;
	}
	if (d->method == METHOD_RELAY_CHAIN && pos == 0) {
		if (d->proxy_count != 2 || d->proxy[1].endpoint[0] == '\0') {
			snprintf(err, errlen, "relay-chain event without a usable proxy[1]");
			return -1;
		}
		out->forward = true;
		snprintf(out->next_hop, sizeof(out->next_hop), "%s", d->proxy[1].endpoint);
	}
	return 0;
}

/* Carry out one event; problems are logged, never fatal (the broker may send garbage). */
static void
handle_event(struct proxy_broker *pb, const struct qcg_event *ev)
{
	struct proxy_relay_plan plan;
	char why[256], hex[RELAY_ID_HEX_LEN + 1];
	int rc = proxy_broker_plan(pb->s.endpoint, ev, &plan, why, sizeof(why));

	if (rc != 0) {
		if (rc < 0)
			log_warn("broker event %lld (job %s): %s", (long long)ev->sequence,
			    ev->job, why);
		else
			log_debug("broker event %lld: %s", (long long)ev->sequence, why);
		return;
	}
	relay_id_format(plan.id.bytes, hex);
	rc = plan.forward
	    ? relay_forward(pb->plane, &plan.id, plan.next_hop, pb->s.id_ttl_s, why, sizeof(why))
	    : relay_expect(pb->plane, &plan.id, pb->s.id_ttl_s, why, sizeof(why));
	if (rc != 0)
		log_warn("relay %s (job %s): %s", hex, ev->job, why);
	else
		log_debug("relay %s (job %s): %s%s for %u s", hex, ev->job,
		    plan.forward ? "forward to " : "expected",
		    plan.forward ? plan.next_hop : "", pb->s.id_ttl_s);
}

/* gSOAP opens and closes the broker connection through these, so that stop can find it. */
static SOAP_SOCKET
hook_fopen(struct soap *soap, const char *endpoint, const char *host, int port)
{
	struct proxy_broker *pb = soap->user;
	SOAP_SOCKET fd = pb->gsoap_fopen(soap, endpoint, host, port);

	pthread_mutex_lock(&pb->lock);
	pb->fd = fd;
	if (pb->stopping && soap_valid_socket(fd))
		shutdown(fd, SHUT_RDWR);
	pthread_mutex_unlock(&pb->lock);
	return fd;
}

static int
hook_fclosesocket(struct soap *soap, SOAP_SOCKET fd)
{
	struct proxy_broker *pb = soap->user;

	/* Closing under the lock: stop never shuts down a descriptor number reused elsewhere. */
	pthread_mutex_lock(&pb->lock);
	if (pb->fd == fd)
		pb->fd = SOAP_INVALID_SOCKET;
	int rc = pb->gsoap_fclosesocket(soap, fd);
	pthread_mutex_unlock(&pb->lock);
	return rc;
}

static bool
is_stopping(struct proxy_broker *pb)
{
	pthread_mutex_lock(&pb->lock);
	bool stopping = pb->stopping;
	pthread_mutex_unlock(&pb->lock);
	return stopping;
}

/* Sleep ms unless stop comes first. */
static void
backoff_sleep(struct proxy_broker *pb, unsigned ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&pb->lock);
	while (!pb->stopping && pthread_cond_timedwait(&pb->wake, &pb->lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&pb->lock);
}

static void
set_registered(struct proxy_broker *pb, bool registered)
{
	pthread_mutex_lock(&pb->lock);
	pb->registered = registered;
	pthread_mutex_unlock(&pb->lock);
}

static int
call_register(struct proxy_broker *pb)
{
	struct proxy self;
	memset(&self, 0, sizeof(self));
	snprintf(self.endpoint, sizeof(self.endpoint), "%s", pb->s.endpoint);
	snprintf(self.networks, sizeof(self.networks), "%s", pb->s.networks);
	snprintf(self.cluster, sizeof(self.cluster), "%s", pb->s.cluster);
	snprintf(self.control_endpoint, sizeof(self.control_endpoint), "%s", pb->s.control_url);
	struct _qb__RegisterProxy req = { soap_model_proxy_registration_new(pb->soap, &self) };
	struct _qb__RegisterProxyResponse resp;

	int rc = req.proxy ? soap_call___qb__RegisterProxy(pb->soap, pb->s.url, NULL, &req, &resp) :
	    SOAP_EOM;
	soap_client_reset(pb->soap);
	return rc;
}

/* One long poll; acts on what came unless only draining. Returns gSOAP's result and the
 * number of events in *count. */
static int
call_wait(struct proxy_broker *pb, int timeout_s, bool act, int *count)
{
	struct _qb__WaitEvents req = { pb->queue, pb->after, timeout_s };
	struct _qb__WaitEventsResponse resp;

	int rc = soap_call___qb__WaitEvents(pb->soap, pb->s.url, NULL, &req, &resp);
	*count = rc == SOAP_OK ? resp.__sizeevent : 0;
	for (int i = 0; i < *count; i++) {
		struct qcg_event ev;
		char why[256];
		int malformed = soap_model_event_in(&resp.event[i], &ev, why, sizeof(why)) != 0;
		if (ev.sequence <= pb->after)
			continue; /* a broker must not send these; never act twice on one */
		pb->after = ev.sequence;
		if (malformed)
			log_warn("broker event %lld: %s", (long long)ev.sequence, why);
		else if (act)
			handle_event(pb, &ev);
		else
			log_info("skipping broker event %lld (job %s): queued before this proxy started",
			    (long long)ev.sequence, ev.job);
	}
	soap_client_reset(pb->soap);
	return rc;
}

static void
log_broker_error(struct proxy_broker *pb, const char *what, unsigned backoff_ms)
{
	char why[768];

	soap_client_error(pb->soap, why, sizeof(why));
	log_warn("broker %s: %s failed: %s; retrying in %u ms", pb->s.url, what, why, backoff_ms);
}

/* What the link does next. */
enum link_state {
	LINK_DRAIN,    /* skip what an earlier incarnation left queued (before registering, so
	                * that no relay decided for this process can be skipped) */
	LINK_REGISTER, /* RegisterProxy */
	LINK_POLL,     /* WaitEvents, acting on relay events */
};

/* One step of the link; returns the next state, or -1 on a broker failure. */
static int
link_step(struct proxy_broker *pb, enum link_state state, const char **what)
{
	int n = 0;

	switch (state) {
	case LINK_DRAIN:
		*what = "WaitEvents (skipping old events)";
		if (call_wait(pb, 0, false, &n) != SOAP_OK)
			return -1;
		return n > 0 ? LINK_DRAIN : LINK_REGISTER; /* until an empty answer */
	case LINK_REGISTER:
		*what = "RegisterProxy";
		if (call_register(pb) != SOAP_OK)
			return -1;
		log_info("registered with %s as %s (networks %s%s%s)", pb->s.url, pb->s.endpoint,
		    pb->s.networks, pb->s.cluster[0] ? ", cluster " : "", pb->s.cluster);
		set_registered(pb, true);
		return LINK_POLL;
	case LINK_POLL:
		*what = "WaitEvents";
		return call_wait(pb, (int)pb->s.wait_s, true, &n) == SOAP_OK ? LINK_POLL : -1;
	}
	return -1;
}

static void *
broker_run(void *arg)
{
	struct proxy_broker *pb = arg;
	unsigned backoff = PROXY_BROKER_BACKOFF_MIN_MS;
	enum link_state state = LINK_DRAIN;

	while (!is_stopping(pb)) {
		const char *what = "";
		int next = link_step(pb, state, &what);
		if (is_stopping(pb))
			break;
		if (next >= 0) {
			state = (enum link_state)next;
			backoff = PROXY_BROKER_BACKOFF_MIN_MS;
			continue;
		}
		log_broker_error(pb, what, backoff);
		soap_closesock(pb->soap); /* a fresh connection next time */
		set_registered(pb, false);
		if (state == LINK_POLL)
			state = LINK_REGISTER; /* the broker may have restarted with another registry */
		backoff_sleep(pb, backoff);
		backoff = backoff * 2 > PROXY_BROKER_BACKOFF_MAX_MS ? PROXY_BROKER_BACKOFF_MAX_MS
		    : backoff * 2;
	}
	return NULL;
}

static struct soap *
client_new(struct proxy_broker *pb, char *err, size_t errlen)
{
	struct soap_client_settings cs = {
		.connect_timeout = PROXY_BROKER_CONNECT_TIMEOUT_S,
		.io_timeout = (int)pb->s.wait_s + PROXY_BROKER_IO_SLACK_S,
		.max_message = 4 * 1024 * 1024,
	};
	struct soap *soap = soap_client_new(&pb->s.tls, &cs, err, errlen);

	if (soap == NULL)
		return NULL;
	soap->user = pb;
	pb->gsoap_fopen = soap->fopen;
	pb->gsoap_fclosesocket = soap->fclosesocket;
	soap->fopen = hook_fopen;
	soap->fclosesocket = hook_fclosesocket;
	return soap;
}

struct proxy_broker *
proxy_broker_start(struct relay_plane *plane, const struct proxy_broker_settings *settings,
    char *err, size_t errlen)
{
	struct proxy_broker *pb = calloc(1, sizeof(*pb));

	if (pb == NULL) {
		snprintf(err, errlen, "broker link: out of memory");
		return NULL;
	}
	pb->s = *settings;
	pb->plane = plane;
	pb->fd = SOAP_INVALID_SOCKET;
	snprintf(pb->queue, sizeof(pb->queue), "proxy:%s", pb->s.endpoint);
	pthread_mutex_init(&pb->lock, NULL);
	pthread_cond_init(&pb->wake, NULL);
	if ((pb->soap = client_new(pb, err, errlen)) == NULL)
		goto fail;
	int rc = pthread_create(&pb->thread, NULL, broker_run, pb);
	if (rc != 0) {
		snprintf(err, errlen, "broker link: thread: %s", strerror(rc));
		goto fail;
	}
	log_info("broker link to %s started (queue %s)", pb->s.url, pb->queue);
	return pb;
fail:
	soap_client_free(pb->soap);
	pthread_mutex_destroy(&pb->lock);
	pthread_cond_destroy(&pb->wake);
	free(pb);
	return NULL;
}

bool
proxy_broker_registered(struct proxy_broker *pb)
{
	pthread_mutex_lock(&pb->lock);
	bool registered = pb->registered;
	pthread_mutex_unlock(&pb->lock);
	return registered;
}

/* Tell the broker to stop handing this proxy out (best effort: it may be gone). */
static void
unregister(struct proxy_broker *pb)
{
	struct _qb__UnregisterProxy req = { pb->s.endpoint };
	struct _qb__UnregisterProxyResponse resp;
	char why[768];

	pb->stopping = false; /* the hooks must not cut this call; the thread has ended */
	pb->soap->connect_timeout = 2;
	pb->soap->send_timeout = pb->soap->recv_timeout = 2;
	if (soap_call___qb__UnregisterProxy(pb->soap, pb->s.url, NULL, &req, &resp) == SOAP_OK)
		log_info("unregistered from %s", pb->s.url);
	else {
		soap_client_error(pb->soap, why, sizeof(why));
		log_warn("could not unregister from %s: %s", pb->s.url, why);
	}
	soap_client_reset(pb->soap);
}

void
proxy_broker_stop(struct proxy_broker *pb)
{
	if (pb == NULL)
		return;
	pthread_mutex_lock(&pb->lock);
	pb->stopping = true;
	if (soap_valid_socket(pb->fd))
		shutdown(pb->fd, SHUT_RDWR);
	pthread_cond_broadcast(&pb->wake);
	pthread_mutex_unlock(&pb->lock);
	pthread_join(pb->thread, NULL);
	soap_closesock(pb->soap);
	if (pb->registered)
		unregister(pb);
	soap_client_free(pb->soap);
	pthread_mutex_destroy(&pb->lock);
	pthread_cond_destroy(&pb->wake);
	free(pb);
}
