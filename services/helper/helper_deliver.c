/*
 * helper_deliver.c: carry out the target side of a connection (helper_deliver.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "helper_deliver.h"
#include "helper_net.h"
#include "log.h"
#include "relay_hello.h"

struct setup_run {
	struct helper *h;
	struct qcg_event s;
};

/* Reversal: the initiator's node address first; its cluster's public address when that fails
 * (a NATed initiator is reachable only there). */
static int
reversal(struct helper *h, const struct qcg_event *s, char *err, size_t errlen)
{
	const uint8_t *id = s->decision.relay_id.bytes;
	const char *public = s->initiator_public_address;
	int fd = helper_net_connect_hello(s->initiator.address, s->initiator.port, id, 0,
	    h->cfg.rendezvous_ms, err, errlen);
	if (fd < 0 && public[0] != '\0' && strcmp(public, s->initiator.address) != 0)
		fd = helper_net_connect_hello(public, s->initiator.port, id, 0,
		    h->cfg.rendezvous_ms, err, errlen);
	return fd;
}

/* Relays: the target's leg goes to the last proxy of the chain. */
static int
relay(struct helper *h, const struct qcg_event *s, char *err, size_t errlen)
{
	const struct decision *d = &s->decision;
	char host[QCG_ADDR_MAX];
	uint16_t port;
	if (helper_net_split_endpoint(d->proxy[d->proxy_count - 1].endpoint, host, &port, err,
		errlen) != 0)
		return -1;
	/* A resumable relay's leg (handed over with HELPER_FLAG_RESUMABLE) asks for the proxy's
	 * peer-gone mark, which its stream reads (relay_hello.h). */
	return helper_net_connect_hello(host, port, d->relay_id.bytes,
	    d->resumable ? RELAY_HELLO_FLAG_PEER_GONE_MARK : 0, h->cfg.rendezvous_ms, err, errlen);
}

static int
establish(struct helper *h, const struct qcg_event *s, char *err, size_t errlen)
{
	switch (s->decision.method) {
	case METHOD_REVERSAL:
		return reversal(h, s, err, errlen);
	case METHOD_TRAVERSAL:
		return helper_net_simultaneous_open(h->cfg.address,
		    s->initiator_public_address[0] ? s->initiator_public_address :
		    s->initiator.address, s->initiator.port, s->decision.relay_id.bytes,
		    h->cfg.rendezvous_ms, err, errlen);
	case METHOD_RELAY:
	case METHOD_RELAY_CHAIN:
		return relay(h, s, err, errlen);
	default:
		snprintf(err, errlen, "method %s needs nothing from the target side",
		    connect_method_name(s->decision.method));
		return -1;
	}
}

static void *
setup_thread(void *arg)
{
	struct setup_run *run = arg;
	struct helper *h = run->h;
	const struct qcg_event *s = &run->s;
	const char *method = connect_method_name(s->decision.method);
	struct helper_msg m;
	char err[512];

	int fd = establish(h, s, err, sizeof(err));
	if (fd < 0) {
		log_warn("job %s: %s for port %u from %s:%u failed: %s", s->job, method, s->port,
		    s->initiator.address, s->initiator.port, err);
	} else {
		helper_msg_init(&m, HELPER_MSG_HANDOFF);
		m.method = (uint8_t)s->decision.method;
		/* what the accepting process must see as its peer: the initiator's node */
		snprintf(m.address, sizeof(m.address), "%s", s->initiator.address);
		m.port = s->initiator.port;
		memcpy(m.relay_id, s->decision.relay_id.bytes, sizeof(m.relay_id));
		if (s->decision.resumable && (s->decision.method == METHOD_RELAY ||
		    s->decision.method == METHOD_RELAY_CHAIN))
			m.flags |= HELPER_FLAG_RESUMABLE; /* the process keeps the leg resumable */
		if (helper_jobs_hand_inbound(h->jobs, s->job, s->port, fd, &m, err, sizeof(err)) != 0)
			log_warn("job %s: hand-off on port %u failed: %s", s->job, s->port, err);
		else
			log_debug("job %s: %s socket for port %u handed over", s->job, method,
			    s->port);
	}
	pthread_mutex_lock(&h->setups_lock);
	h->setups--;
	pthread_mutex_unlock(&h->setups_lock);
	free(run);
	return NULL;
}

static int
check_setup(const struct qcg_event *s, char *err, size_t errlen)
{
	enum connect_method method = s->decision.method;
	int relay = method == METHOD_RELAY || method == METHOD_RELAY_CHAIN;
	if (method != METHOD_REVERSAL && method != METHOD_TRAVERSAL && !relay) {
		snprintf(err, errlen, "job %s: a connect event with method %s has nothing for the "
		    "target side to do", s->job, connect_method_name(method));
		return -1;
	}
	if (s->port == 0 || (!relay && (s->initiator.address[0] == '\0' ||
					  s->initiator.port == 0))) {
		snprintf(err, errlen, "job %s: a %s event needs port, initiator.address and "
		    "initiator.port", s->job, connect_method_name(method));
		return -1;
	}
	if (relay && s->decision.proxy_count == 0) {
		snprintf(err, errlen, "job %s: a relay event needs a proxy", s->job);
		return -1;
	}
	return 0;
}

int
helper_deliver_connect(struct helper *h, const struct qcg_event *s, char *err, size_t errlen)
{
	pthread_attr_t attr;
	pthread_t t;
	if (check_setup(s, err, errlen) != 0)
		return -1;
	struct setup_run *run = malloc(sizeof(*run));
	if (run == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	run->h = h;
	run->s = *s;
	pthread_mutex_lock(&h->setups_lock);
	int full = h->setups >= h->cfg.max_setups;
	if (!full)
		h->setups++;
	pthread_mutex_unlock(&h->setups_lock);
	if (full) {
		free(run);
		snprintf(err, errlen, "%d connection set-ups are in progress (helper.max_setups)",
		    h->cfg.max_setups);
		return -1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&t, &attr, setup_thread, run);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		free(run);
		pthread_mutex_lock(&h->setups_lock);
		h->setups--;
		pthread_mutex_unlock(&h->setups_lock);
		snprintf(err, errlen, "cannot start a set-up thread");
		return -1;
	}
	return 0;
}
