/*
 * resume.c: resuming a relay on another proxy (resume.h, issue 14).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "liveness.h"
#include "log.h"
#include "relay_id.h"
#include "resolve.h"
#include "resume.h"

/* Resumes are decided one at a time in the broker process: the two ends of a relay ask at
 * nearly the same moment, and the second must find the first one's relay rather than make
 * another (registry_record_resume refuses a second successor as well). Resumes are rare (a
 * proxy died), so one lock costs nothing. */
static pthread_mutex_t resume_lock = PTHREAD_MUTEX_INITIALIZER;

int
resume_record_relay(struct registry *reg, const struct resolve_request *req,
    const struct resolve_result *res)
{
	const struct decision *d = &res->decision;
	struct relay_record r;

	memset(&r, 0, sizeof(r));
	relay_id_format(d->relay_id.bytes, r.id);
	snprintf(r.job, sizeof(r.job), "%s", req->job);
	snprintf(r.from_cluster, sizeof(r.from_cluster), "%s", req->from_cluster);
	snprintf(r.from_node, sizeof(r.from_node), "%s", req->from_node);
	snprintf(r.to_cluster, sizeof(r.to_cluster), "%s", res->target.cluster);
	snprintf(r.to_node, sizeof(r.to_node), "%s", res->target.node);
	snprintf(r.to_address, sizeof(r.to_address), "%s", res->target.address);
	r.to_port = res->target.port;
	r.method = d->method;
	for (size_t i = 0; i < d->proxy_count && i < 2; i++)
		snprintf(r.proxy[i], sizeof(r.proxy[i]), "%s", d->proxy[i].endpoint);
	r.decided_at = (int64_t)time(NULL);
	return registry_record_relay(reg, &r);
}

/* Whether the caller is one of r's two ends; otherwise why not, into why. */
static bool
is_an_end(const struct relay_record *r, const struct resume_request *req, char *why,
    size_t whylen)
{
	if (strcmp(r->job, req->job) != 0) {
		snprintf(why, whylen, "relay %s belongs to another job than %s", r->id, req->job);
		return false;
	}
	if ((strcmp(r->from_cluster, req->cluster) == 0 && strcmp(r->from_node, req->node) == 0) ||
	    (strcmp(r->to_cluster, req->cluster) == 0 && strcmp(r->to_node, req->node) == 0))
		return true;
	snprintf(why, whylen, "relay %s of job %s joins %s/%s and %s/%s, not %s/%s", r->id, r->job,
	    r->from_cluster, r->from_node, r->to_cluster, r->to_node, req->cluster, req->node);
	return false;
}

/* The decision a recorded relay stands for (its proxies as registered now, when they are). */
static void
decision_of_record(struct registry *reg, const struct relay_record *r, struct decision *d)
{
	memset(d, 0, sizeof(*d));
	d->method = r->method;
	relay_id_parse(r->id, d->relay_id.bytes);
	for (size_t i = 0; i < 2 && r->proxy[i][0]; i++) {
		if (registry_get_proxy(reg, r->proxy[i], &d->proxy[i]) != 0) {
			memset(&d->proxy[i], 0, sizeof(d->proxy[i]));
			snprintf(d->proxy[i].endpoint, sizeof(d->proxy[i].endpoint), "%s",
			    r->proxy[i]);
		}
		d->proxy_count = i + 1;
	}
}

/* Mark the old relay's proxies withdrawn unless they are seen alive (a WaitEvents poll of
 * theirs is open): a proxy killed is withdrawn at once (its poll closed; this only makes sure
 * when the resume comes first), one whose host vanished is out before its lease runs out, and
 * comes back when it polls again (registry_renew_lease) or registers. A live proxy is left
 * alone: a leg also breaks when the peer process exits, and a job's end must not take its
 * proxies from other jobs. (Either way this resume avoids them: choose_new_path.) */
static void
suspect_proxies(struct registry *reg, struct liveness_watch *lw, const struct relay_record *old)
{
	for (size_t i = 0; i < 2 && old->proxy[i][0]; i++) {
		char queue[EVENTS_QUEUE_MAX];
		snprintf(queue, sizeof(queue), "proxy:%s", old->proxy[i]);
		if (lw != NULL && liveness_polls_open(lw, queue) > 0)
			continue;
		bool withdrawn = false;
		if (registry_withdraw(reg, REGISTRY_LEASE_PROXY, old->proxy[i], (int64_t)time(NULL),
			&withdrawn) != 0)
			log_warn("resume of relay %s: marking proxy %s withdrawn failed: %s", old->id,
			    old->proxy[i], registry_error(reg));
		else if (withdrawn)
			log_warn("proxy %s withdrawn: relay %s through it broke (job %s); chosen again "
			    "once it polls", old->proxy[i], old->id, old->job);
	}
}

/* Choose a new relay between old's two ends, with the old proxies withdrawn: Resolve after
 * traversal, which leaves a single relay, else a chain. */
static enum resume_status
choose_new_path(struct registry *reg, const struct relay_record *old,
    struct decision_cursor *cursor, pthread_mutex_t *cursor_lock, struct resume_result *out)
{
	struct resolve_request rreq = { .job = old->job, .from_cluster = old->from_cluster,
		.from_node = old->from_node, .from_address = "", .from_port = 0,
		.to_address = old->to_address, .to_port = old->to_port,
		.after = METHOD_TRAVERSAL, .avoid = old->proxy, .navoid = 2 };
	struct resolve_result res;
	enum resolve_status st = resolve_connection(reg, &rreq, cursor, cursor_lock, &res);

	bool relayed = res.decision.method == METHOD_RELAY ||
	    res.decision.method == METHOD_RELAY_CHAIN;
	/* The target's end asks for itself: its front-end's being withdrawn does not matter. */
	if ((st == RESOLVE_OK || st == RESOLVE_TARGET_WITHDRAWN) && !relayed)
		st = RESOLVE_NO_METHOD;
	switch (st) {
	case RESOLVE_OK:
	case RESOLVE_TARGET_WITHDRAWN:
		break;
	case RESOLVE_NO_METHOD:
		snprintf(out->reason, sizeof(out->reason), "no other proxy serves %s/%s and %s/%s "
		    "(%zu withdrawn prox%s left out)", old->from_cluster, old->from_node,
		    old->to_cluster, old->to_node, res.proxies_withdrawn + res.proxies_avoided,
		    res.proxies_withdrawn + res.proxies_avoided == 1 ? "y" : "ies");
		return RESUME_NO_PATH;
	case RESOLVE_NO_ACCESS_POINT:
	case RESOLVE_NO_CLUSTER:
		snprintf(out->reason, sizeof(out->reason), "the target %s:%u of relay %s is no longer "
		    "registered (the job or its cluster is gone)", old->to_address, old->to_port,
		    old->id);
		return RESUME_NO_PATH;
	default:
		snprintf(out->reason, sizeof(out->reason), "registry: %s", registry_error(reg));
		return RESUME_ERROR;
	}
	out->decision = res.decision;
	out->decision.has_target = false;
	out->decision.resumable = true; /* only a resumable relay is ever resumed */
	out->now = *old;
	relay_id_format(res.decision.relay_id.bytes, out->now.id);
	memset(out->now.proxy, 0, sizeof(out->now.proxy));
	for (size_t i = 0; i < res.decision.proxy_count && i < 2; i++)
		snprintf(out->now.proxy[i], sizeof(out->now.proxy[i]), "%s",
		    res.decision.proxy[i].endpoint);
	out->now.method = res.decision.method;
	out->now.decided_at = (int64_t)time(NULL);
	snprintf(out->now.resumed_from, sizeof(out->now.resumed_from), "%s", old->id);
	out->now.successor[0] = '\0';
	out->now.bytes_replayed = 0;
	if (registry_record_resume(reg, &out->now) != 0) {
		snprintf(out->reason, sizeof(out->reason), "registry: %s", registry_error(reg));
		return RESUME_ERROR;
	}
	out->fresh = true;
	return RESUME_OK;
}

/* The relay that replaced old already (the other end resumed first), unless it was replaced
 * in turn: then this resume is a replay of an old id. */
static enum resume_status
successor_of(struct registry *reg, const struct relay_record *old, struct resume_result *out)
{
	int rc = registry_get_relay(reg, old->successor, &out->now);
	if (rc != 0) {
		snprintf(out->reason, sizeof(out->reason), "relay %s was replaced by %s, which is "
		    "gone: %s", old->id, old->successor, rc == REGISTRY_NOT_FOUND ? "pruned" :
		    registry_error(reg));
		return rc == REGISTRY_NOT_FOUND ? RESUME_STALE : RESUME_ERROR;
	}
	if (out->now.successor[0] != '\0') {
		snprintf(out->reason, sizeof(out->reason), "relay %s was replaced by %s, itself "
		    "replaced by %s: a replayed resume", old->id, old->successor,
		    out->now.successor);
		return RESUME_STALE;
	}
	decision_of_record(reg, &out->now, &out->decision);
	out->decision.resumable = true;
	return RESUME_OK;
}

enum resume_status
resume_report_replay(struct registry *reg, const struct resume_request *req, int64_t bytes,
    char *reason, size_t reasonlen)
{
	uint8_t b[QCG_RELAY_ID_BYTES];
	char id[RELAY_ID_HEX_LEN + 1];
	struct relay_record r;

	if (relay_id_parse(req->relay_id, b) != 0) {
		snprintf(reason, reasonlen, "relayId must be %d hex digits", RELAY_ID_HEX_LEN);
		return RESUME_UNKNOWN;
	}
	relay_id_format(b, id);
	int rc = registry_get_relay(reg, id, &r);
	if (rc == REGISTRY_NOT_FOUND || (rc == 0 && r.resumed_from[0] == '\0')) {
		snprintf(reason, reasonlen, "relay %s is not a resumed relay the broker handed out",
		    id);
		return RESUME_UNKNOWN;
	}
	if (rc == 0 && !is_an_end(&r, req, reason, reasonlen))
		return RESUME_NOT_AN_END;
	if (rc == 0)
		rc = registry_add_relay_replayed(reg, id, bytes);
	if (rc != 0) {
		snprintf(reason, reasonlen, "registry: %s", registry_error(reg));
		return RESUME_ERROR;
	}
	return RESUME_OK;
}

enum resume_status
resume_relay(struct registry *reg, struct liveness_watch *lw, const struct resume_request *req,
    struct decision_cursor *cursor, pthread_mutex_t *cursor_lock, struct resume_result *out)
{
	uint8_t bytes[QCG_RELAY_ID_BYTES];
	enum resume_status st;

	memset(out, 0, sizeof(*out));
	if (relay_id_parse(req->relay_id, bytes) != 0) {
		snprintf(out->reason, sizeof(out->reason), "relayId must be %d hex digits",
		    RELAY_ID_HEX_LEN);
		return RESUME_UNKNOWN;
	}
	char id[RELAY_ID_HEX_LEN + 1];
	relay_id_format(bytes, id); /* the registry's form: lowercase */
	pthread_mutex_lock(&resume_lock);
	int rc = registry_get_relay(reg, id, &out->old);
	if (rc == REGISTRY_NOT_FOUND) {
		snprintf(out->reason, sizeof(out->reason), "relay %s was never handed out (forged, "
		    "or pruned)", id);
		st = RESUME_UNKNOWN;
	} else if (rc != 0) {
		snprintf(out->reason, sizeof(out->reason), "registry: %s", registry_error(reg));
		st = RESUME_ERROR;
	} else if (!is_an_end(&out->old, req, out->reason, sizeof(out->reason))) {
		st = RESUME_NOT_AN_END;
	} else if (out->old.successor[0] != '\0') {
		st = successor_of(reg, &out->old, out);
	} else {
		suspect_proxies(reg, lw, &out->old);
		st = choose_new_path(reg, &out->old, cursor, cursor_lock, out);
	}
	pthread_mutex_unlock(&resume_lock);
	return st;
}
