/*
 * resolve.c: Resolve over the registry and the decision.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "registry.h"
#include "resolve.h"

/* Whether endpoint is one req must not use (resume.h: the broken relay's proxies). */
static bool
avoided_proxy(const struct resolve_request *req, const char *endpoint)
{
	for (size_t i = 0; i < req->navoid; i++)
		if (req->avoid[i][0] != '\0' && strcmp(req->avoid[i], endpoint) == 0)
			return true;
	return false;
}

enum resolve_status
resolve_connection(struct registry *reg, const struct resolve_request *req,
    struct decision_cursor *cursor, pthread_mutex_t *cursor_lock, struct resolve_result *out)
{
	struct cluster from, to;
	struct proxy *proxies = NULL;
	size_t nproxies = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = registry_find_access_point(reg, req->job, req->from_cluster, req->to_address,
	    req->to_port, &out->target);
	if (rc == REGISTRY_CACHE_MISS)
		return RESOLVE_CACHE_MISS;
	if (rc == REGISTRY_NOT_FOUND)
		return RESOLVE_NO_ACCESS_POINT;
	if (rc == REGISTRY_AMBIGUOUS)
		return RESOLVE_AMBIGUOUS;
	if (rc != 0)
		return RESOLVE_ERROR;
	if (req->from_row != NULL)
		from = *req->from_row;
	else
		rc = registry_get_cluster(reg, req->from_cluster, &from);
	if (rc == 0)
		rc = registry_get_cluster(reg, out->target.cluster, &to);
	if (rc == 0)
		rc = registry_list_proxies(reg, &proxies, &nproxies);
	if (rc == REGISTRY_CACHE_MISS)
		return RESOLVE_CACHE_MISS; /* before the decision: the cursor has not moved */
	if (rc == REGISTRY_NOT_FOUND)
		return RESOLVE_NO_CLUSTER;
	if (rc != 0)
		return RESOLVE_ERROR;

	/* A withdrawn proxy (its process or host is gone) is never offered: a relay through it
	 * would hang until the leg's timeout. The decision sees only the live ones. */
	size_t live = 0, avoided = 0;
	for (size_t i = 0; i < nproxies; i++) {
		if (proxies[i].live.withdrawn_at != 0)
			continue;
		if (avoided_proxy(req, proxies[i].endpoint)) {
			avoided++;
			continue;
		}
		proxies[live++] = proxies[i];
	}
	out->proxies_withdrawn = nproxies - live - avoided;
	out->proxies_avoided = avoided;
	nproxies = live;

	struct decision_side ini = { &from, req->from_node }, tgt = { &to, out->target.node };
	pthread_mutex_lock(cursor_lock);
	rc = decision_choose(&ini, &tgt, req->to_port, proxies, nproxies, req->after, cursor,
	    &out->decision);
	pthread_mutex_unlock(cursor_lock);
	free(proxies);
	if (rc != 0)
		return RESOLVE_NO_METHOD;
	snprintf(out->target_public_address, sizeof(out->target_public_address), "%s",
	    to.public_address);
	out->target_cluster = to;
	out->decision.has_target = true; /* the initiator's answer names its peer */
	out->decision.target = out->target;
	snprintf(out->decision.target_public_address,
	    sizeof(out->decision.target_public_address), "%s", to.public_address);
	snprintf(out->initiator_public_address, sizeof(out->initiator_public_address), "%s",
	    from.public_address);
	/* direct and port range need nothing from the target side; every other method does */
	out->needs_target_side = out->decision.method != METHOD_DIRECT &&
	    out->decision.method != METHOD_PORT_RANGE;
	/* ... through the target cluster's front-end, which must be there to pass it on. */
	if (out->needs_target_side && to.live.withdrawn_at != 0) {
		out->target_withdrawn_at = to.live.withdrawn_at;
		return RESOLVE_TARGET_WITHDRAWN;
	}
	return RESOLVE_OK;
}

int
resolve_same_decision_peers(struct registry *reg, const struct resolve_request *req,
    const struct resolve_result *res, size_t max, struct access_point **out, size_t *count)
{
	struct access_point *aps = NULL;
	size_t n = 0, kept = 0;

	*out = NULL;
	*count = 0;
	if (res->decision.method != METHOD_DIRECT && res->decision.method != METHOD_PORT_RANGE)
		return 0;
	if (registry_list_access_points(reg, req->job, &aps, &n) != 0)
		return -1;
	for (size_t i = 0; i < n && kept < max; i++)
		if (strcmp(aps[i].cluster, res->target.cluster) == 0 &&
		    decision_reaches_port(res->decision.method, &res->target_cluster, aps[i].port))
			aps[kept++] = aps[i];
	if (kept == 0) {
		free(aps);
		return 0;
	}
	*out = aps;
	*count = kept;
	return 0;
}

/* The decision as an event carries it to the target side or a proxy: without the target, which
 * is the receiver's own side. */
static void
event_decision(const struct resolve_result *res, struct qcg_event *e)
{
	e->has_decision = true;
	e->decision = res->decision;
	e->decision.has_target = false;
	memset(&e->decision.target, 0, sizeof(e->decision.target));
	e->decision.target_public_address[0] = '\0';
}

void
resolve_target_event(const struct resolve_request *req, const struct resolve_result *res,
    struct broker_event *ev)
{
	struct qcg_event *e = &ev->event;
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->queue, sizeof(ev->queue), "%s", res->target.cluster);
	e->kind = EVENT_CONNECT;
	snprintf(e->job, sizeof(e->job), "%s", req->job);
	snprintf(e->node, sizeof(e->node), "%s", res->target.node);
	e->has_port = true;
	e->port = res->target.port;
	e->has_initiator = true;
	snprintf(e->initiator.job, sizeof(e->initiator.job), "%s", req->job);
	snprintf(e->initiator.cluster, sizeof(e->initiator.cluster), "%s", req->from_cluster);
	snprintf(e->initiator.node, sizeof(e->initiator.node), "%s", req->from_node);
	snprintf(e->initiator.address, sizeof(e->initiator.address), "%s", req->from_address);
	e->initiator.port = req->from_port;
	snprintf(e->initiator_public_address, sizeof(e->initiator_public_address), "%s",
	    res->initiator_public_address);
	event_decision(res, e);
}

void
resolve_proxy_event(const struct resolve_request *req, const struct resolve_result *res, size_t i,
    struct broker_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->queue, sizeof(ev->queue), "proxy:%s", res->decision.proxy[i].endpoint);
	snprintf(ev->reader_dn, sizeof(ev->reader_dn), "%s", res->decision.proxy[i].owner_dn);
	ev->event.kind = EVENT_RELAY;
	snprintf(ev->event.job, sizeof(ev->event.job), "%s", req->job);
	event_decision(res, &ev->event);
}
