/*
 * handlers_helper.c: what the cluster's helpers call: RegisterAccessPoint (and
 * RegisterAccessPoints, a node's batch), Resolve and ReportOutcome. Each checks that the caller is one of our nodes' helpers, speaks for its own
 * node only, fills in our cluster, and forwards to the broker over the worker's own kept-alive
 * connection. Resolve answers from the per-job caches when it can: the answer for this very
 * target (resolve_cache.h), else the decision for the job's cluster pair (pair_cache.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "broker_pool.h"
#include "soap_model.h"
#include "frontend.h"
#include "log.h"
#include "net_text.h"
#include "local_listeners.h"
#include "resolve_cache.h"
#include "pair_cache.h"
#include "soap_server.h"

/* The node a helper names must be its own (or left empty for us to fill in). */
static int
require_own_node(struct soap *soap, const struct fe_node *node, const char *named, const char *what)
{
	if (named == NULL || named[0] == '\0' || strcmp(named, node->name) == 0)
		return SOAP_OK;
	if (soap_has_control_char(named))
		return soap_fault_client(soap, "%s must not hold control characters", what);
	log_warn("denied: the helper of node %s tried to act for node %.63s (%s)", node->name,
	    named, what);
	return soap_fault_client(soap, "not authorized: the helper of node %s may not act for node "
	    "%.63s (%s)", node->name, named, what);
}

/* A helper's access point (as soap_model_request_any_access_point_in read it), checked, with
 * our cluster and its node filled in. */
static int
access_point_of_helper(struct soap *soap, const struct fe_call *call, const struct fe_node *node,
    struct access_point *ap)
{
	int rc;

	if ((rc = require_own_node(soap, node, ap->node, "accessPoint.node")))
		return rc;
	if (ap->job[0] == '\0' || ap->address[0] == '\0' || ap->port == 0)
		return soap_fault_client(soap, "accessPoint needs a job, an address and a port 1-65535");
	/* the broker refuses garbage too; refusing here names the node's request at once */
	if (!net_text_is_ip(ap->address))
		return soap_fault_client(soap, "accessPoint.address must be an IP address, got '%s'",
		    ap->address);
	snprintf(ap->cluster, sizeof(ap->cluster), "%s", call->fe->cfg.cluster.name);
	snprintf(ap->node, sizeof(ap->node), "%s", node->name);
	return SOAP_OK;
}

/* Remember a registered listener for the helpers' direct connects (local_listeners.h). */
static void
remember_listener(const struct fe_call *call, const struct access_point *ap)
{
	if (local_listeners_add(call->fe->listeners, ap->job, ap->address, ap->port) != 0)
		log_debug("job %s: %s:%u is not in the helpers' listener list (full): connects to "
		    "it are resolved", ap->job, ap->address, ap->port);
}

int
__qf__RegisterAccessPoint(struct soap *soap, struct _qf__RegisterAccessPoint *req,
    struct _qf__RegisterAccessPointResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	struct access_point ap;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "RegisterAccessPoint")) ||
	    (rc = soap_model_request_any_access_point_in(soap, req->accessPoint, &ap)) ||
	    (rc = access_point_of_helper(soap, &call, node, &ap)))
		return rc;

	struct _qb__RegisterAccessPoint breq = { soap_model_access_points_new(soap, &ap, 1) };
	struct _qb__RegisterAccessPointResponse bresp;
	if (breq.accessPoint == NULL)
		return soap_fault_server(soap, "out of memory");
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	rc = soap_call___qb__RegisterAccessPoint(broker, call.fe->cfg.broker_url, NULL, &breq, &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker RegisterAccessPoint");
	broker_pool_return(call.fe->brokers, broker);
	if (rc != SOAP_OK)
		return rc;
	log_debug("job %s: %s/%s listens on %s:%u", ap.job, ap.cluster, ap.node, ap.address,
	    ap.port);
	remember_listener(&call, &ap);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

#define REGISTRATIONS_MAX 256 /* the WSDL's maxOccurs */

/* RegisterAccessPoints: a node's batch, each checked as above, to the broker in one call. */
int
__qf__RegisterAccessPoints(struct soap *soap, struct _qf__RegisterAccessPoints *req,
    struct _qf__RegisterAccessPointsResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "RegisterAccessPoints")))
		return rc;
	int n = req->__sizeaccessPoint;
	if (n < 1 || n > REGISTRATIONS_MAX || req->accessPoint == NULL)
		return soap_fault_client(soap, "RegisterAccessPoints: 1-%d access points per call, "
		    "got %d", REGISTRATIONS_MAX, n);
	struct access_point *aps = soap_malloc(soap, (size_t)n * sizeof(*aps));
	if (aps == NULL)
		return soap_fault_server(soap, "out of memory");
	for (int i = 0; i < n; i++)
		if ((rc = soap_model_request_any_access_point_in(soap, &req->accessPoint[i],
			 &aps[i])) ||
		    (rc = access_point_of_helper(soap, &call, node, &aps[i])))
			return rc;
	struct _qb__RegisterAccessPoints breq = { .__sizeaccessPoint = n,
		.accessPoint = soap_model_access_points_new(soap, aps, (size_t)n) };
	if (breq.accessPoint == NULL)
		return soap_fault_server(soap, "out of memory");
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	struct _qb__RegisterAccessPointsResponse bresp;
	rc = soap_call___qb__RegisterAccessPoints(broker, call.fe->cfg.broker_url, NULL, &breq,
	    &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker RegisterAccessPoints");
	broker_pool_return(call.fe->brokers, broker);
	if (rc != SOAP_OK)
		return rc;
	for (int i = 0; i < n; i++)
		remember_listener(&call, &aps[i]);
	log_debug("job %s: %s registered %d listeners at once", aps[0].job, node->name, n);
	resp->registered = n;
	return SOAP_OK;
}

/* Keep a first answer's decision for the job's pair with the target's cluster, reaching the
 * peers the broker listed with it (pair_cache.h). */
static void
store_pair(const struct fe_call *call, const char *job, const struct decision *d,
    const struct _qb__ResolveResponse *bresp)
{
	int n = bresp->__sizepeer;
	if (n <= 0 || bresp->peer == NULL)
		return;
	struct access_point *peers = calloc((size_t)n, sizeof(*peers));
	char err[256];
	size_t kept = 0;
	if (peers == NULL)
		return;
	for (int i = 0; i < n; i++)
		if (soap_model_access_point_in(&bresp->peer[i], &peers[kept], err, sizeof(err)) == 0)
			kept++;
		else
			log_warn("job %s: a peer in the broker's answer is malformed (%s): left out",
			    job, err);
	if (pair_cache_store(call->fe->pairs, job, d, peers, kept))
		log_debug("job %s: %s to cluster %s kept for %zu of its listeners", job,
		    connect_method_name(d->method), d->target.cluster, kept);
	free(peers);
}

/* Ask the broker; store a replayable answer in the caches. */
static int
resolve_at_broker(struct soap *soap, const struct fe_call *call, const struct fe_node *node,
    struct _qf__Resolve *req, struct decision *out)
{
	char err[256];
	int rc;
	enum xsd__boolean want_peers = xsd__boolean__true_;
	struct _qb__Resolve breq = {
		.job = req->job,
		.fromCluster = call->fe->cfg.cluster.name,
		.fromNode = (char *)node->name,
		.fromAddress = req->fromAddress,
		.fromPort = req->fromPort,
		.toAddress = req->toAddress,
		.toPort = req->toPort,
		.after = req->after,
		.wantPeers = req->after == NULL && call->fe->cfg.pair_cache ? &want_peers : NULL,
	};
	struct _qb__ResolveResponse bresp;
	struct soap *broker = broker_pool_borrow(call->fe->brokers);
	rc = soap_call___qb__Resolve(broker, call->fe->cfg.broker_url, NULL, &breq, &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker Resolve");
	else if (bresp.decision == NULL ||
	    soap_model_decision_in(bresp.decision, out, err, sizeof(err)) != 0)
		rc = soap_fault_server(soap, "broker Resolve: malformed decision: %s",
		    bresp.decision ? err : "none");
	if (rc == SOAP_OK && req->after == NULL) {
		resolve_cache_store(call->fe->cache, req->job, req->toAddress, req->toPort, out);
		store_pair(call, req->job, out, &bresp);
	}
	broker_pool_return(call->fe->brokers, broker); /* the answer is copied out by now */
	return rc;
}

/* The helper asked for the peers its node may reach with d without asking again: those of the
 * job's pair with d's target cluster, when d is one the pair cache keeps (pair_cache.h). */
static int
add_pair_peers(struct soap *soap, const struct fe_call *call, const char *job,
    const struct decision *d, struct _qf__ResolveResponse *resp)
{
	size_t n = 0;
	if (!resolve_cache_replayable(d) || !d->has_target)
		return SOAP_OK;
	struct access_point *peers = pair_cache_peers(call->fe->pairs, job, d->target.cluster, &n);
	if (peers == NULL)
		return SOAP_OK;
	resp->peer = soap_model_access_points_new(soap, peers, n);
	free(peers);
	if (resp->peer == NULL)
		return soap_fault_server(soap, "out of memory");
	resp->__sizepeer = (int)n;
	return SOAP_OK;
}

int
__qf__Resolve(struct soap *soap, struct _qf__Resolve *req, struct _qf__ResolveResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	struct decision d;
	int rc, cached = 0;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "Resolve")) ||
	    (rc = require_own_node(soap, node, req->fromNode, "fromNode")))
		return rc;
	if ((rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "Resolve: job")) ||
	    (rc = soap_require_name(soap, req->toAddress, QCG_ADDR_MAX, "Resolve: toAddress")))
		return rc;
	if (req->after != NULL) { /* that answer failed: never replay it, nor its pair's */
		resolve_cache_forget(call.fe->cache, req->job, req->toAddress, req->toPort);
		if (pair_cache_lookup(call.fe->pairs, req->job, req->toAddress, req->toPort, &d))
			pair_cache_forget(call.fe->pairs, req->job, d.target.cluster);
	} else if (resolve_cache_lookup(call.fe->cache, req->job, req->toAddress, req->toPort,
	    &d)) {
		cached = 1;
	} else if (pair_cache_lookup(call.fe->pairs, req->job, req->toAddress, req->toPort, &d)) {
		cached = 2;
		resolve_cache_store(call.fe->cache, req->job, req->toAddress, req->toPort, &d);
	}
	if (!cached && (rc = resolve_at_broker(soap, &call, node, req, &d)))
		return rc;
	log_debug("job %s: %s -> %s:%u by %s%s", req->job, node->name, req->toAddress,
	    req->toPort, connect_method_name(d.method),
	    cached == 1 ? " (cached)" : cached == 2 ? " (pair cached)" : "");
	resp->decision = soap_malloc(soap, sizeof(*resp->decision));
	if (resp->decision == NULL)
		return soap_fault_server(soap, "out of memory");
	soap_model_decision_out(soap, &d, resp->decision);
	if (req->wantPeers != NULL && *req->wantPeers == xsd__boolean__true_ && req->after == NULL)
		return add_pair_peers(soap, &call, req->job, &d, resp);
	return SOAP_OK;
}

int
__qf__ReportOutcome(struct soap *soap, struct _qf__ReportOutcome *req,
    struct _qf__ReportOutcomeResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "ReportOutcome")))
		return rc;
	struct connection_report report;
	if ((rc = soap_model_request_report_in(soap, req->connection, 0, &report)) ||
	    (rc = require_own_node(soap, node, report.rec.from_node, "connection.fromNode")))
		return rc;
	snprintf(report.rec.from_cluster, sizeof(report.rec.from_cluster), "%s",
	    call.fe->cfg.cluster.name);
	snprintf(report.rec.from_node, sizeof(report.rec.from_node), "%s", node->name);

	struct _qb__ReportOutcome breq = { soap_model_reports_new(soap, &report, 1) };
	if (breq.connection == NULL)
		return soap_fault_server(soap, "out of memory");
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	struct _qb__ReportOutcomeResponse bresp;
	rc = soap_call___qb__ReportOutcome(broker, call.fe->cfg.broker_url, NULL, &breq, &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker ReportOutcome");
	broker_pool_return(call.fe->brokers, broker);
	if (rc != SOAP_OK)
		return rc;
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}
