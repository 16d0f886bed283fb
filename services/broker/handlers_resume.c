/*
 * handlers_resume.c: ResumeRelay, which front-ends call for a node whose relay leg broke
 * (issue 14), and ReportReplay, the bytes an end sent again after a resume. Thin: it checks the caller speaks for the cluster it names, lets resume.c decide,
 * announces a new relay to its proxies as Resolve announces a first one, and turns refusals
 * into faults with their reason (logged: a refused resume may be an attack).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "broker.h"
#include "soap_model.h"
#include "log.h"
#include "registry.h"
#include "resolve.h"
#include "resume.h"
#include "soap_server.h"

/* The names both calls carry, checked alike: the job, the cluster (which the calling front-end
 * must own), the node and the relay id; op names the call in the faults. */
static int
require_relay_end(struct soap *soap, struct broker_call *call, const char *op, const char *job,
    const char *cluster, const char *node, const char *relay_id)
{
	char what[3][48];
	int rc;

	snprintf(what[0], sizeof(what[0]), "%s: job", op);
	snprintf(what[1], sizeof(what[1]), "%s: cluster", op);
	snprintf(what[2], sizeof(what[2]), "%s: node", op);
	if ((rc = soap_require_name(soap, job, QCG_NAME_MAX, what[0])) ||
	    (rc = soap_require_name(soap, cluster, QCG_NAME_MAX, what[1])) ||
	    (rc = soap_require_name(soap, node, QCG_NAME_MAX, what[2])))
		return rc;
	snprintf(what[0], sizeof(what[0]), "%s: relayId", op);
	if ((rc = soap_require_name(soap, relay_id, RELAY_ID_HEX_LEN + 1, what[0])))
		return rc;
	return broker_require_cluster_owner(soap, call, cluster);
}

/* Tell the new relay's proxies its id, as Resolve does for a first relay. */
static void
announce(struct broker_call *call, const struct resume_result *r)
{
	struct resolve_request req = { .job = r->now.job };
	struct resolve_result res;
	struct broker_event ev;

	memset(&res, 0, sizeof(res));
	res.decision = r->decision;
	for (size_t i = 0; i < r->decision.proxy_count; i++) {
		resolve_proxy_event(&req, &res, i, &ev);
		events_post(call->broker->events, &ev);
		registry_add_proxy_load(call->reg, r->decision.proxy[i].endpoint, 1);
	}
}

int
__qb__ReportReplay(struct soap *soap, struct _qb__ReportReplay *r,
    struct _qb__ReportReplayResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	char reason[768];
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, r, "ReportReplay")) ||
	    (rc = require_relay_end(soap, &call, "ReportReplay", r->job, r->cluster, r->node,
		r->relayId)))
		return rc;
	if (r->bytes < 0 || r->bytes > ((LONG64)1 << 40))
		return soap_fault_client(soap, "ReportReplay: bytes must be in [0, 2^40]");
	struct resume_request req = { .job = r->job, .cluster = r->cluster, .node = r->node,
		.relay_id = r->relayId };
	switch (resume_report_replay(call.reg, &req, (int64_t)r->bytes, reason, sizeof(reason))) {
	case RESUME_OK:
		break;
	case RESUME_ERROR:
		return soap_fault_server(soap, "ReportReplay: %s", reason);
	default:
		log_warn("ReportReplay refused for %s/%s of job %s (caller %s): %s", r->cluster,
		    r->node, r->job, call.caller_dn, reason);
		return soap_fault_client(soap, "not authorized: %s", reason);
	}
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__ResumeRelay(struct soap *soap, struct _qb__ResumeRelay *r,
    struct _qb__ResumeRelayResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct resume_result res;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, r, "ResumeRelay")) ||
	    (rc = require_relay_end(soap, &call, "ResumeRelay", r->job, r->cluster, r->node,
		r->relayId)))
		return rc;
	struct resume_request req = { .job = r->job, .cluster = r->cluster, .node = r->node,
		.relay_id = r->relayId };
	switch (resume_relay(call.reg, call.broker->liveness, &req, &call.broker->cursor,
	    &call.broker->cursor_lock, &res)) {
	case RESUME_OK:
		break;
	case RESUME_UNKNOWN:
	case RESUME_NOT_AN_END:
	case RESUME_STALE:
		log_warn("ResumeRelay refused for %s/%s of job %s (caller %s): %s", r->cluster,
		    r->node, r->job, call.caller_dn, res.reason);
		return soap_fault_client(soap, "not authorized: %s", res.reason);
	case RESUME_NO_PATH:
		log_warn("job %s: relay %s cannot be resumed: %s", r->job, res.old.id, res.reason);
		return soap_fault_client_kind(soap, QCG_FAULT_NO_METHOD, "job %s: relay %s cannot be "
		    "resumed: %s", r->job, res.old.id, res.reason);
	case RESUME_ERROR:
		log_warn("ResumeRelay of job %s: %s", r->job, res.reason);
		return soap_fault_server(soap, "ResumeRelay: %s", res.reason);
	}
	if (res.fresh) {
		announce(&call, &res);
		log_info("job %s: relay %s via %s resumed as %s via %s%s%s (asked by %s/%s)", r->job,
		    res.old.id, res.old.proxy[0], res.now.id, res.now.proxy[0],
		    res.now.proxy[1][0] ? " > " : "", res.now.proxy[1], r->cluster, r->node);
	}
	resp->decision = soap_malloc(soap, sizeof(*resp->decision));
	if (resp->decision == NULL)
		return soap_fault_server(soap, "out of memory");
	soap_model_decision_out(soap, &res.decision, resp->decision);
	return SOAP_OK;
}
