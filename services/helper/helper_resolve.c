/*
 * helper_resolve.c: RESOLVE on the initiator's node. The helper opens a rendezvous listener
 * first (its port goes to the broker as fromPort, and is the port traversal uses on both
 * sides), asks the front-end, and then either tells the process where to connect (direct, port
 * range, relays) or sets the connection up itself and hands the socket over (reversal: the
 * target side connects to the rendezvous listener; traversal: simultaneous open from the same
 * port). A first connect into the front-end's direct networks is answered here, with no
 * Resolve (helper_direct.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"
#include "helper_api.h"
#include "helper_decision.h"
#include "helper_direct.h"
#include "helper_frontend.h"
#include "helper_net.h"
#include "helper_paircache.h"
#include "log.h"

/* First attempts asked of the front-end at once, per node. When a job's ranks all connect at
 * MPI_Init, a node of 128 ranks would otherwise open 128 TLS connections to its front-end for
 * targets in clusters it has not asked about yet, and the first answer for a cluster brings
 * every listener of it into the pair cache (helper_paircache.h) anyway. Those beyond the bound
 * wait for a place and look in the cache again. At P = 1024 all-to-all (bench/scale) the burst
 * timed out front-end handshakes after 30 s. The wait is bounded by the holders' calls, each
 * bounded by helper.frontend_timeout. */
#define FIRST_RESOLVES_AT_ONCE 8

static struct {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	unsigned busy;
} first_resolves = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };

static void
first_resolve_enter(const char *job)
{
	pthread_mutex_lock(&first_resolves.lock);
	if (first_resolves.busy >= FIRST_RESOLVES_AT_ONCE)
		log_debug("job %s: %d first Resolves at the front-end already; waiting for a place",
		    job, FIRST_RESOLVES_AT_ONCE);
	while (first_resolves.busy >= FIRST_RESOLVES_AT_ONCE)
		pthread_cond_wait(&first_resolves.freed, &first_resolves.lock);
	first_resolves.busy++;
	pthread_mutex_unlock(&first_resolves.lock);
}

static void
first_resolve_leave(void)
{
	pthread_mutex_lock(&first_resolves.lock);
	first_resolves.busy--;
	pthread_cond_signal(&first_resolves.freed);
	pthread_mutex_unlock(&first_resolves.lock);
}

/* Hand the set-up socket to the caller (and close our copy), or say why there is none. */
static int
hand_over(struct session *s, const struct decision *res, int fd, const char *why)
{
	char err[256];
	if (fd < 0) {
		log_warn("job %s: %s to %s/%s:%u failed: %s", s->job, connect_method_name(res->method),
		    res->target.cluster, res->target.node, res->target.port, why);
		return helper_wire_send_err(s->sock, HELPER_ERR_TIMEOUT, "%s: %s",
		    connect_method_name(res->method), why);
	}
	struct helper_msg m;
	helper_msg_init(&m, HELPER_MSG_HANDOFF);
	m.flags = HELPER_FLAG_FD;
	m.method = (uint8_t)res->method;
	snprintf(m.address, sizeof(m.address), "%s", res->target.address);
	m.port = res->target.port;
	memcpy(m.relay_id, res->relay_id.bytes, sizeof(m.relay_id));
	int rc = helper_wire_send(s->sock, &m, fd, err, sizeof(err));
	close(fd); /* the process has it now; the helper stays out of the data path */
	if (rc != 0)
		log_warn("job %s: hand-off to pid %d failed: %s", s->job, (int)s->pid, err);
	return rc;
}

/* The peer address traversal aims at: the target cluster's public mapping when it has one. */
static const char *
traversal_peer(const struct decision *res)
{
	return res->target_public_address[0] ? res->target_public_address : res->target.address;
}

/* Answer "direct" at once, as the broker would have, and remember it for the REPORT. */
static int
resolve_here(struct session *s, const struct helper_msg *req)
{
	struct helper_msg m;
	struct decision d = { .method = METHOD_DIRECT };
	char err[256];
	helper_session_remember_direct(s, req->address, req->port);
	snprintf(d.target.address, sizeof(d.target.address), "%s", req->address);
	d.target.port = req->port;
	helper_decision_to_msg(&d, &m);
	log_debug("job %s: %s:%u is direct, decided here", s->job, req->address, req->port);
	return helper_wire_send(s->sock, &m, -1, err, sizeof(err));
}

/* Answer with the node's kept decision for the target's cluster pair (helper_paircache.h):
 * direct or port range, the process connects by itself. */
static int
answer_from_pair(struct session *s, const struct helper_msg *req, const struct decision *d)
{
	struct helper_msg m;
	char err[256];
	helper_session_remember(s, req->address, req->port, d->target.cluster, d->target.node);
	helper_decision_to_msg(d, &m);
	log_debug("job %s: %s:%u by %s, the node's kept decision for cluster %s", s->job,
	    req->address, req->port, connect_method_name(d->method), d->target.cluster);
	return helper_wire_send(s->sock, &m, -1, err, sizeof(err));
}

/* The process's attempt at req's target failed and it asks for the next method: whatever the
 * node keeps for the target's cluster may be what failed, so it goes (the front-end drops its
 * own pair on the same request). */
static void
forget_failed_pair(struct session *s, const struct helper_msg *req)
{
	const struct session_recent *r = helper_session_recall(s, req->address, req->port);
	if (r != NULL && r->to_cluster[0] != '\0')
		helper_paircache_forget(s->job, r->to_cluster);
}

int
helper_session_resolve(struct session *s, const struct helper_msg *req)
{
	struct decision res;
	struct helper_msg m;
	char err[1024];
	enum helper_no_answer no_answer;
	int fd = -1;
	uint16_t port = 0;
	const struct helper_config *cfg = &s->h->cfg;

	/* A first attempt inside the direct networks needs nobody's advice (helper_direct.h). */
	if (req->method == HELPER_METHOD_NONE_WIRE &&
	    helper_direct_applies(s->h, s->job, req->address, req->port))
		return resolve_here(s, req);
	/* ... nor one to a listener the node's kept decision for its cluster reaches */
	if (req->method == HELPER_METHOD_NONE_WIRE &&
	    helper_paircache_lookup(s->job, req->address, req->port, &res))
		return answer_from_pair(s, req, &res);
	bool first = req->method == HELPER_METHOD_NONE_WIRE;
	if (first) {
		first_resolve_enter(s->job);
		/* a sibling's answer may have brought the target's cluster in while we waited */
		if (helper_paircache_lookup(s->job, req->address, req->port, &res)) {
			first_resolve_leave();
			return answer_from_pair(s, req, &res);
		}
	} else {
		forget_failed_pair(s, req);
	}
	int lfd = helper_net_listen_range(cfg->address, cfg->rendezvous_port_min,
	    cfg->rendezvous_port_max, &port, err, sizeof(err));
	if (lfd < 0) {
		if (first)
			first_resolve_leave();
		return helper_wire_send_err(s->sock, HELPER_ERR_INTERNAL, "%s", err);
	}
	int after = first ? -1 : req->method;
	int asked = helper_frontend_resolve(s->h, s->job, port, req->address, req->port, after,
	    &res, &no_answer, err, sizeof(err));
	if (first)
		first_resolve_leave();
	if (asked != 0) {
		close(lfd);
		/* Connections to addresses no process of the job listens on are not the job's (the
		 * shim then connects as usual): no warning for those. */
		if (no_answer != HELPER_NO_ANSWER_NO_ACCESS_POINT)
			log_warn("job %s: resolve %s:%u: %s", s->job, req->address, req->port, err);
		return helper_wire_send_err(s->sock,
		    no_answer == HELPER_NO_ANSWER_NO_METHOD ? HELPER_ERR_NO_METHOD :
		    no_answer == HELPER_NO_ANSWER_NO_ACCESS_POINT ? HELPER_ERR_NOT_FOUND :
		    HELPER_ERR_REMOTE, "%s", err);
	}
	if (res.method == METHOD_NONE) {
		close(lfd);
		return helper_wire_send_err(s->sock, HELPER_ERR_NO_METHOD,
		    "no method connects to %s:%u", req->address, req->port);
	}
	helper_session_remember(s, req->address, req->port, res.target.cluster, res.target.node);
	if (res.method != METHOD_REVERSAL)
		close(lfd); /* traversal binds the same port again for its own socket */
	helper_decision_to_msg(&res, &m);
	if (helper_wire_send(s->sock, &m, -1, err, sizeof(err)) != 0) {
		if (res.method == METHOD_REVERSAL)
			close(lfd);
		return -1;
	}
	switch (res.method) {
	case METHOD_REVERSAL:
		fd = helper_net_accept_hello(lfd, res.relay_id.bytes, cfg->rendezvous_ms, err, sizeof(err));
		close(lfd);
		return hand_over(s, &res, fd, err);
	case METHOD_TRAVERSAL:
		fd = helper_net_simultaneous_open(cfg->address, traversal_peer(&res), port,
		    res.relay_id.bytes, cfg->rendezvous_ms, err, sizeof(err));
		return hand_over(s, &res, fd, err);
	default:
		return 0; /* the process connects by itself */
	}
}
