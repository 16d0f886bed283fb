/*
 * handlers_resume.c: ResumeRelay, which a helper calls when a relay leg of a process on its
 * node broke (issue 14), and ReportReplay, what the process sent again after the resume. The front-end speaks for its cluster: it fills in the cluster and the
 * calling helper's node (a helper cannot resume for another node) and passes the call on to the
 * broker, which checks that they are one of the relay's two ends. Never cached: every resume
 * is a new decision (or the other end's, which the broker keeps).
 */
#include "config.h"

#include <stdio.h>

#include "soapH.h"
#include "broker_pool.h"
#include "soap_model.h"
#include "frontend.h"
#include "log.h"
#include "relay_id.h"
#include "soap_server.h"

/* The names both calls carry, checked alike: the job and the relay id; op names the call in
 * the faults. */
static int
require_job_and_relay(struct soap *soap, const char *op, const char *job, const char *relay_id)
{
	char what[2][48];
	int rc;

	snprintf(what[0], sizeof(what[0]), "%s: job", op);
	snprintf(what[1], sizeof(what[1]), "%s: relayId", op);
	if ((rc = soap_require_name(soap, job, QCG_NAME_MAX, what[0])))
		return rc;
	return soap_require_name(soap, relay_id, RELAY_ID_HEX_LEN + 1, what[1]);
}

int
__qf__ReportReplay(struct soap *soap, struct _qf__ReportReplay *req,
    struct _qf__ReportReplayResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "ReportReplay")) ||
	    (rc = require_job_and_relay(soap, "ReportReplay", req->job, req->relayId)))
		return rc;
	struct _qb__ReportReplay breq = { .job = req->job, .cluster = call.fe->cfg.cluster.name,
		.node = (char *)node->name, .relayId = req->relayId, .bytes = req->bytes };
	struct _qb__ReportReplayResponse bresp;
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	rc = soap_call___qb__ReportReplay(broker, call.fe->cfg.broker_url, NULL, &breq, &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker ReportReplay");
	broker_pool_return(call.fe->brokers, broker);
	if (rc != SOAP_OK)
		return rc;
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qf__ResumeRelay(struct soap *soap, struct _qf__ResumeRelay *req,
    struct _qf__ResumeRelayResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	struct decision d;
	char err[256];
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "ResumeRelay")) ||
	    (rc = require_job_and_relay(soap, "ResumeRelay", req->job, req->relayId)))
		return rc;
	struct _qb__ResumeRelay breq = { .job = req->job, .cluster = call.fe->cfg.cluster.name,
		.node = (char *)node->name, .relayId = req->relayId };
	struct _qb__ResumeRelayResponse bresp;
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	rc = soap_call___qb__ResumeRelay(broker, call.fe->cfg.broker_url, NULL, &breq, &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker ResumeRelay");
	else if (soap_model_decision_in(bresp.decision, &d, err, sizeof(err)) != 0)
		rc = soap_fault_server(soap, "broker ResumeRelay: malformed decision: %s", err);
	broker_pool_return(call.fe->brokers, broker); /* the answer is copied out by now */
	if (rc != SOAP_OK)
		return rc;
	log_info("job %s: relay %s of node %s resumed through %s", req->job, req->relayId,
	    node->name, d.proxy_count > 0 ? d.proxy[0].endpoint : "-");
	resp->decision = soap_malloc(soap, sizeof(*resp->decision));
	if (resp->decision == NULL)
		return soap_fault_server(soap, "out of memory");
	soap_model_decision_out(soap, &d, resp->decision);
	return SOAP_OK;
}
