/*
 * handlers_connect.c: the connection operations front-ends call for their nodes: Resolve,
 * ReportOutcome and the WaitEvents long poll.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "broker.h"
#include "soap_model.h"
#include "liveness.h"
#include "log.h"
#include "registry.h"
#include "resolve.h"
#include "resume.h"
#include "soap_server.h"

#define RESOLVE_PEERS_MAX 4096 /* the WSDL's maxOccurs of ResolveResponse.peer */

/* With wantPeers: the job's other access points the same decision reaches, so that the
 * initiator's front-end answers connects to them for this cluster pair without asking again
 * (issue 15). A registry failure here costs only the cache: the decision still goes out. */
static void
answer_peers(struct soap *soap, struct broker_call *call, const struct resolve_request *req,
    const struct resolve_result *res, struct _qb__ResolveResponse *resp)
{
	struct access_point *aps;
	size_t n;

	if (resolve_same_decision_peers(call->reg, req, res, RESOLVE_PEERS_MAX, &aps, &n) != 0) {
		log_warn("job %s: listing the peers of %s for %s's cache failed: %s", req->job,
		    res->target.cluster, req->from_cluster, registry_error(call->reg));
		return;
	}
	if (n == 0)
		return;
	resp->peer = soap_malloc(soap, n * sizeof(*resp->peer));
	if (resp->peer != NULL) {
		for (size_t i = 0; i < n; i++)
			soap_model_access_point_out(soap, &aps[i], &resp->peer[i]);
		resp->__sizepeer = (int)n;
	}
	free(aps);
}

/* Post what the target side and the proxies must do for a decision. */
static void
post_decision_events(struct broker_call *call, const struct resolve_request *req,
    const struct resolve_result *res)
{
	struct broker_event ev;

	if (res->needs_target_side) {
		resolve_target_event(req, res, &ev);
		events_post(call->broker->events, &ev);
	}
	for (size_t i = 0; i < res->decision.proxy_count; i++) {
		resolve_proxy_event(req, res, i, &ev);
		events_post(call->broker->events, &ev);
		registry_add_proxy_load(call->reg, res->decision.proxy[i].endpoint, 1);
	}
}

/* The ownership check and the decision from the process's cache of hot registry rows alone
 * (db/registry_cache.c): no SQLite at all when nothing was committed since a Resolve read them,
 * as in a storm of Resolves. false when a row was not cached: nothing was decided (the reads
 * all come before the decision), and the database must be read. */
static bool
resolve_from_cache(struct soap *soap, struct broker_call *call, struct resolve_request *req,
    struct resolve_result *res, enum resolve_status *status, int *rc)
{
	struct cluster from;
	bool done = false;

	if (registry_read_begin_cached(call->reg) != 0)
		return false;
	if (registry_get_cluster(call->reg, req->from_cluster, &from) == 0) {
		*rc = broker_check_cluster_owner(soap, call, &from);
		if (*rc != SOAP_OK) {
			done = true;
		} else {
			req->from_row = &from;
			*status = resolve_connection(call->reg, req, &call->broker->cursor,
			    &call->broker->cursor_lock, res);
			req->from_row = NULL; /* it points into this frame */
			done = *status != RESOLVE_CACHE_MISS;
		}
	}
	registry_read_end(call->reg);
	return done;
}

/* The ownership check and every read of the decision in one registry snapshot: one SQLite read
 * transaction instead of five, and one consistent state (a cluster re-registered between two
 * reads cannot mix old and new). Ended before anything writes (the proxies' load). The
 * initiator's cluster row the ownership check reads is the one the decision uses: the same
 * snapshot, so reading it twice could only cost time (a sixth of Resolve's SQLite work). */
static int
resolve_in_snapshot(struct soap *soap, struct broker_call *call, struct resolve_request *req,
    struct resolve_result *res, enum resolve_status *status)
{
	struct cluster from;
	int rc;

	if (resolve_from_cache(soap, call, req, res, status, &rc))
		return rc;
	if (registry_read_begin(call->reg) != 0)
		return broker_registry_fault(soap, call, -1, "Resolve");
	rc = broker_require_cluster_owner_row(soap, call, req->from_cluster, &from);
	if (rc == SOAP_OK) {
		req->from_row = &from;
		*status = resolve_connection(call->reg, req, &call->broker->cursor,
		    &call->broker->cursor_lock, res);
		req->from_row = NULL; /* it points into this frame */
	}
	registry_read_end(call->reg);
	return rc;
}

/* The request's elements into req, each required one checked (r, and any string in it, is
 * NULL when the element was nil or missing). */
static int
resolve_request_in(struct soap *soap, const struct _qb__Resolve *r, struct resolve_request *req)
{
	int rc;

	if ((rc = soap_require_body(soap, r, "Resolve")) ||
	    (rc = soap_require_name(soap, r->job, QCG_NAME_MAX, "Resolve: job")) ||
	    (rc = soap_require_name(soap, r->fromCluster, QCG_NAME_MAX, "Resolve: fromCluster")) ||
	    (rc = soap_require_name(soap, r->fromNode, QCG_NAME_MAX, "Resolve: fromNode")) ||
	    (rc = soap_require_name(soap, r->toAddress, QCG_ADDR_MAX, "Resolve: toAddress")))
		return rc;
	*req = (struct resolve_request){
		.job = r->job,
		.from_cluster = r->fromCluster,
		.from_node = r->fromNode,
		.from_address = r->fromAddress ? r->fromAddress : "",
		.from_port = r->fromPort ? *r->fromPort : 0,
		.to_address = r->toAddress,
		.to_port = r->toPort,
		.after = r->after ? (int)*r->after : -1,
	};
	return SOAP_OK;
}

/*
 * A refused Resolve goes into the connection log as a failed "none": the initiator gives up on
 * it, and nobody else would ever learn of it. An orted that cannot reach mpirun this way exits
 * before calling back (its stderr is /dev/null once it daemonizes), and mpirun then waited for
 * it for ever; qcg-submit reads the log (launcher/startup_watch.h) to fail the job at once,
 * naming the node. Only a refusal with a known target is logged (it names the target node).
 */
static void
log_refusal(struct broker_call *call, const struct resolve_request *req,
    const struct resolve_result *res)
{
	struct connection_record rec = { .method = METHOD_NONE, .succeeded = false,
		.when = (int64_t)time(NULL), .to_port = req->to_port };
	snprintf(rec.job, sizeof(rec.job), "%s", req->job);
	snprintf(rec.from_cluster, sizeof(rec.from_cluster), "%s", req->from_cluster);
	snprintf(rec.from_node, sizeof(rec.from_node), "%s", req->from_node);
	snprintf(rec.to_cluster, sizeof(rec.to_cluster), "%s", res->target.cluster);
	snprintf(rec.to_node, sizeof(rec.to_node), "%s", res->target.node);
	if (registry_log_connection(call->reg, &rec) != 0)
		log_warn("job %s: the refusal of %s/%s -> %s:%u could not be logged", req->job,
		    req->from_cluster, req->from_node, req->to_address, req->to_port);
}

int
__qb__Resolve(struct soap *soap, struct _qb__Resolve *r, struct _qb__ResolveResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct resolve_request req;
	struct resolve_result res;
	enum resolve_status status = RESOLVE_ERROR;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = resolve_request_in(soap, r, &req)) ||
	    (rc = resolve_in_snapshot(soap, &call, &req, &res, &status)))
		return rc;
	switch (status) {
	case RESOLVE_OK:
		break;
	case RESOLVE_NO_ACCESS_POINT:
		return soap_fault_client_kind(soap, QCG_FAULT_NO_ACCESS_POINT,
		    "job %s: no process listens on %s:%u", req.job,
		    req.to_address, req.to_port);
	case RESOLVE_NO_CLUSTER:
		return soap_fault_client(soap, "job %s: a cluster of this connection is not registered",
		    req.job);
	case RESOLVE_AMBIGUOUS:
		return soap_fault_client(soap, "Resolve: %s", registry_error(call.reg));
	case RESOLVE_NO_METHOD: {
		char left_out[128] = "";
		log_refusal(&call, &req, &res);
		if (res.proxies_withdrawn > 0)
			snprintf(left_out, sizeof(left_out), " (%zu withdrawn prox%s left out: process "
			    "or host gone)", res.proxies_withdrawn,
			    res.proxies_withdrawn == 1 ? "y" : "ies");
		return soap_fault_client_kind(soap, QCG_FAULT_NO_METHOD,
		    "job %s: no %smethod connects %s/%s to %s:%u%s", req.job,
		    req.after >= 0 ? "further " : "", req.from_cluster, req.from_node,
		    req.to_address, req.to_port, left_out);
	}
	case RESOLVE_TARGET_WITHDRAWN:
		log_refusal(&call, &req, &res);
		return soap_fault_client_kind(soap, QCG_FAULT_NO_METHOD,
		    "job %s: %s to %s/%s:%u needs cluster %s's front-end, withdrawn %lld s ago "
		    "(its WaitEvents poll stopped): nobody there would take part", req.job,
		    connect_method_name(res.decision.method), res.target.cluster,
		    res.target.node, req.to_port, res.target.cluster,
		    (long long)(time(NULL) - res.target_withdrawn_at));
	case RESOLVE_ERROR:
	case RESOLVE_CACHE_MISS: /* not from a database snapshot; never here */
		return broker_registry_fault(soap, &call, -1, "Resolve");
	}
	/* Relays are kept in the resumable stream by both ends when the broker says so; the target
	 * learns it from its event, so it is set before the events go out. */
	if (res.decision.method == METHOD_RELAY || res.decision.method == METHOD_RELAY_CHAIN)
		res.decision.resumable = call.broker->resumable_relays;
	post_decision_events(&call, &req, &res);
	/* A relay is recorded so that its two ends, and nobody else, can resume it (resume.h). */
	if ((res.decision.method == METHOD_RELAY || res.decision.method == METHOD_RELAY_CHAIN) &&
	    resume_record_relay(call.reg, &req, &res) != 0)
		log_warn("job %s: relay to %s:%u not recorded, it cannot be resumed: %s", req.job,
		    req.to_address, req.to_port, registry_error(call.reg));
	log_debug("job %s: %s/%s -> %s/%s:%u by %s", req.job, req.from_cluster, req.from_node,
	    res.target.cluster, res.target.node, req.to_port,
	    connect_method_name(res.decision.method));
	resp->decision = soap_malloc(soap, sizeof(*resp->decision));
	if (resp->decision == NULL)
		return soap_fault_server(soap, "out of memory");
	soap_model_decision_out(soap, &res.decision, resp->decision);
	if (r->wantPeers != NULL && *r->wantPeers == xsd__boolean__true_ && req.after < 0) {
		answer_peers(soap, &call, &req, &res, resp);
		log_debug("job %s: %d peers in %s for %s's pair cache", req.job, resp->__sizepeer,
		    res.target.cluster, req.from_cluster);
	}
	return SOAP_OK;
}

int
__qb__ReportOutcome(struct soap *soap, struct _qb__ReportOutcome *req,
    struct _qb__ReportOutcomeResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct connection_record rec;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, req, "ReportOutcome")) ||
	    (rc = soap_model_request_connection_in(soap, req->connection, &rec)) ||
	    (rc = broker_require_cluster_owner(soap, &call, rec.from_cluster)))
		return rc;
	if (rec.when == 0)
		rec.when = (int64_t)time(NULL);
	if ((rc = broker_registry_fault(soap, &call, registry_log_connection(call.reg, &rec),
		 "ReportOutcome")))
		return rc;
	if (!rec.succeeded)
		log_info("job %s: %s from %s/%s to %s/%s:%u failed; the next method follows", rec.job,
		    connect_method_name(rec.method), rec.from_cluster, rec.from_node, rec.to_cluster,
		    rec.to_node, rec.to_port);
	else
		log_debug("ReportOutcome: job %s: %s from %s/%s to %s/%s:%u worked", rec.job,
		    connect_method_name(rec.method), rec.from_cluster, rec.from_node, rec.to_cluster,
		    rec.to_node, rec.to_port);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

/* Front-ends wait on their own cluster's queue; proxies on "proxy:<the endpoint they
 * registered>", and see only the relays decided while their DN owned it (*reader_dn; NULL for
 * cluster queues and admins, who see the whole queue). */
static int
authorize_queue(struct soap *soap, struct broker_call *call, const char *queue,
    const char **reader_dn)
{
	*reader_dn = NULL;
	if (strncmp(queue, "proxy:", 6) == 0) {
		int rc = broker_require_proxy_owner(soap, call, queue + 6);
		if (rc == SOAP_OK && !broker_is_admin(call))
			*reader_dn = call->caller_dn;
		return rc;
	}
	int rc = broker_require_role(soap, call, ACL_ROLE_FRONTEND);
	return rc ? rc : broker_require_cluster_owner(soap, call, queue);
}

/* The poller's connection, for the slices of a long poll (events_gone_fn). */
static bool
poller_gone(void *arg)
{
	return liveness_peer_closed(((struct soap *)arg)->socket);
}

/* A poll from the queue's owner renews its lease; returns whether it did (the caller owns the
 * row). A proxy draining its queue before registering, or an admin, renews nothing. */
static bool
renew_lease(struct broker_call *call, const char *queue, int timeout_s)
{
	const char *name;
	enum registry_lease_kind kind = liveness_queue_kind(queue, &name);
	int64_t now = (int64_t)time(NULL);
	bool back = false;

	int rc = registry_renew_lease(call->reg, kind, name, call->caller_dn, now,
	    now + liveness_poll_lease(call->broker->liveness, timeout_s), &back);
	if (rc == REGISTRY_NOT_FOUND)
		return false;
	if (rc != 0) {
		/* The poll still serves its events; the sweeper may withdraw the service later, and
		 * its next poll brings it back. */
		log_warn("WaitEvents %s: renewing the lease failed: %s", queue,
		    registry_error(call->reg));
		return false;
	}
	if (back)
		log_info("%s %s is alive again (polling as %s)",
		    kind == REGISTRY_LEASE_PROXY ? "proxy" : "cluster", name, call->caller_dn);
	return true;
}

/* The owner's poll ended because its connection closed: unless another poll of the queue is
 * open (a restarted process already polls), the service is gone. */
static void
withdraw_closed(struct broker_call *call, const char *queue, size_t polls_left)
{
	const char *name;
	enum registry_lease_kind kind = liveness_queue_kind(queue, &name);
	bool withdrawn = false;

	if (polls_left > 0)
		return;
	if (registry_withdraw(call->reg, kind, name, (int64_t)time(NULL), &withdrawn) != 0)
		log_warn("WaitEvents %s: withdrawing failed: %s (the lease will lapse instead)",
		    queue, registry_error(call->reg));
	else if (withdrawn)
		log_warn("%s %s withdrawn: its WaitEvents connection closed (the %s is gone)",
		    kind == REGISTRY_LEASE_PROXY ? "proxy" : "cluster", name,
		    kind == REGISTRY_LEASE_PROXY ? "proxy process" : "front-end");
}

int
__qb__WaitEvents(struct soap *soap, struct _qb__WaitEvents *req,
    struct _qb__WaitEventsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct broker_event *events;
	bool owner, gone = false;
	int rc;

	/* who may wait depends on the queue named, so the request is read before authorizing */
	if ((rc = soap_require_body(soap, req, "WaitEvents")))
		return rc;
	if (req->cluster == NULL || strlen(req->cluster) >= EVENTS_QUEUE_MAX ||
	    soap_has_control_char(req->cluster))
		return soap_fault_client(soap, "cluster must name a queue of under %d bytes, without "
		    "control characters", EVENTS_QUEUE_MAX);
	if (req->timeoutSeconds < 0 || req->timeoutSeconds > BROKER_WAIT_MAX_SECONDS)
		return soap_fault_client(soap, "timeoutSeconds must be in [0, %d]",
		    BROKER_WAIT_MAX_SECONDS);
	const char *reader_dn;
	if ((rc = authorize_queue(soap, &call, req->cluster, &reader_dn)))
		return rc;
	events = soap_malloc(soap, EVENTS_WAIT_MAX * sizeof(*events));
	if (events == NULL)
		return soap_fault_server(soap, "out of memory");
	owner = renew_lease(&call, req->cluster, req->timeoutSeconds);
	/* Only the owner's polls are watched: they are what keeps the service alive. */
	bool counted = owner && liveness_poll_begin(call.broker->liveness, req->cluster) == 0;
	log_debug("WaitEvents %s: waiting up to %d s for events after %lld", req->cluster,
	    req->timeoutSeconds, (long long)req->afterSequence);
	soap_server_wait_begin(soap); /* the wait holds a worker, not a place among max_serving */
	size_t n = events_wait_watching(call.broker->events, req->cluster, reader_dn,
	    req->afterSequence, req->timeoutSeconds * 1000, counted ? poller_gone : NULL, soap,
	    &gone, events, EVENTS_WAIT_MAX);
	soap_server_wait_end(soap);
	if (counted) {
		size_t left = liveness_poll_end(call.broker->liveness, req->cluster);
		if (gone) {
			withdraw_closed(&call, req->cluster, left);
			return soap->error = SOAP_EOF; /* nobody to answer */
		}
	}
	resp->event = soap_malloc(soap, (n ? n : 1) * sizeof(*resp->event));
	if (resp->event == NULL)
		return soap_fault_server(soap, "out of memory");
	for (size_t i = 0; i < n; i++)
		soap_model_event_out(soap, &events[i].event, &resp->event[i]);
	resp->__sizeevent = (int)n;
	return SOAP_OK;
}
