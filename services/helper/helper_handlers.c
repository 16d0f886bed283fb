/*
 * helper_handlers.c: the SOAP operations of wsdl/helper.wsdl. Thin: check the caller (ACL role
 * frontend, or admin) and the arguments, call the plain C modules, map errors to faults.
 */
#include "config.h"

#include <string.h>

#include "soapH.h"
#include "soap_model.h"
#include "helper.h"
#include "helper_direct.h"
#include "helper_paircache.h"
#include "helper_deliver.h"
#include "launch.h"
#include "log.h"
#include "relay_hello.h"
#include "soap_server.h"

static struct helper *
helper_of(struct soap *soap)
{
	return soap_request_of(soap)->app;
}

static int
require_frontend(struct soap *soap)
{
	struct soap_request *req = soap_request_of(soap);
	struct helper *h = req->app;
	if (acl_allows(&h->acl, req->peer_dn, ACL_ROLE_FRONTEND) ||
	    acl_allows(&h->acl, req->peer_dn, ACL_ROLE_ADMIN))
		return SOAP_OK;
	log_warn("denied: %s is not a frontend in the helper's ACL", req->peer_dn);
	return soap_fault_client(soap, "not authorized: %s is not a frontend in the helper's ACL",
	    req->peer_dn);
}

/* What a connect event must hold for this node; SOAP_OK or a fault naming the field. */
static int
check_connect(struct soap *soap, struct helper *h, const struct qcg_event *s)
{
	static const struct relay_id none;
	if (s->node[0] && strcmp(s->node, h->cfg.node) != 0)
		return soap_fault_client(soap, "event for node %.63s delivered to node %s", s->node,
		    h->cfg.node);
	if (!s->has_decision || !s->has_port)
		return soap_fault_client(soap, "a connect event needs port and decision");
	/* the broker draws a fresh, never all-zero id for every method that reaches here */
	if (memcmp(&s->decision.relay_id, &none, sizeof(none)) == 0)
		return soap_fault_client(soap, "decision.relayId must be 32 hex digits");
	for (size_t i = 0; i < s->decision.proxy_count; i++)
		if (s->decision.proxy[i].endpoint[0] == '\0')
			return soap_fault_client(soap, "decision.proxy.endpoint is required");
	return SOAP_OK;
}

static int
deliver_one(struct soap *soap, struct helper *h, const struct qcg_event *e)
{
	struct qcg_event ev = *e;
	char err[512];
	int rc;
	if (ev.job[0] == '\0')
		return soap_fault_client(soap, "event.job is required");
	if (ev.kind == EVENT_JOB_ENDED) {
		helper_jobs_forget(h->jobs, ev.job);
		helper_direct_forget_job(ev.job);
		helper_paircache_drop_job(ev.job);
		log_info("job %s ended: its tokens and waiting sockets are gone", ev.job);
		return SOAP_OK;
	}
	if (ev.kind == EVENT_POLICY_CHANGED) {
		size_t n = helper_paircache_policy_changed(ev.node, h->cfg.cluster);
		log_info("policy of cluster %s changed: %zu decisions kept on the node dropped",
		    ev.node, n);
		return SOAP_OK;
	}
	if (ev.kind != EVENT_CONNECT)
		return soap_fault_client(soap, "an event of kind '%s' is not for a helper",
		    event_kind_name(ev.kind));
	if ((rc = check_connect(soap, h, &ev)))
		return rc;
	if (helper_deliver_connect(h, &ev, err, sizeof(err)) != 0)
		return soap_fault_client(soap, "%s", err);
	return SOAP_OK;
}

int
__qh__Deliver(struct soap *soap, struct _qh__Deliver *req, struct _qh__DeliverResponse *resp)
{
	struct helper *h = helper_of(soap);
	int rc;
	if ((rc = require_frontend(soap)) || (rc = soap_require_body(soap, req, "Deliver")))
		return rc;
	if (req->__sizeevent < 1 || req->__sizeevent > 1024)
		return soap_fault_client(soap, "Deliver takes 1..1024 events");
	for (int i = 0; i < req->__sizeevent; i++) {
		struct qcg_event ev;
		char err[512];
		if (soap_model_event_in(&req->event[i], &ev, err, sizeof(err)) != 0)
			return soap_fault_client(soap, "%s", err);
		if ((rc = deliver_one(soap, h, &ev)))
			return rc;
	}
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qh__Launch(struct soap *soap, struct _qh__Launch *req, struct _qh__LaunchResponse *resp)
{
	struct helper *h = helper_of(soap);
	char id[LAUNCH_ID_MAX], err[512];
	int rc;
	if ((rc = require_frontend(soap)) || (rc = soap_require_body(soap, req, "Launch")))
		return rc;
	if ((rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "Launch: job")) ||
	    (rc = soap_require_name(soap, req->account, QCG_NAME_MAX, "Launch: account")))
		return rc;
	struct launch_request lr = { .job = req->job, .account = req->account,
		.argv = req->argument, .argc = req->__sizeargument, .env = req->environment,
		.envc = req->__sizeenvironment, .workdir = req->workingDirectory,
		.input = req->standardInput && *req->standardInput == xsd__boolean__true_ };
	if (launch_start(h->launches, &lr, id, err, sizeof(err)) != 0)
		return soap_fault_client(soap, "launch refused: %s", err);
	resp->launchId = soap_strdup(soap, id);
	return SOAP_OK;
}

int
__qh__ReadOutput(struct soap *soap, struct _qh__ReadOutput *req,
    struct _qh__ReadOutputResponse *resp)
{
	struct helper *h = helper_of(soap);
	struct launch_result res;
	char err[512];
	int rc;
	if ((rc = require_frontend(soap)) || (rc = soap_require_body(soap, req, "ReadOutput")))
		return rc;
	if (req->launchId == NULL)
		return soap_fault_client(soap, "launchId is required");
	if (launch_read(h->launches, req->launchId, req->standardOutputOffset,
		req->standardErrorOffset, req->timeoutSeconds, &res, err, sizeof(err)) != 0)
		return soap_fault_client(soap, "%s", err);
	struct output_chunk chunk = { res.out, res.err, res.out_len, res.err_len, res.exited,
		res.signaled, res.term_signal, res.exit_code };
	resp->output = soap_model_output_new(soap, &chunk); /* copies the bytes */
	launch_result_free(&res);
	return resp->output ? SOAP_OK : soap_fault_server(soap, "out of memory");
}

int
__qh__Signal(struct soap *soap, struct _qh__Signal *req, struct _qh__SignalResponse *resp)
{
	struct helper *h = helper_of(soap);
	char err[512];
	int rc;
	if ((rc = require_frontend(soap)) || (rc = soap_require_body(soap, req, "Signal")))
		return rc;
	if (req->launchId == NULL)
		return soap_fault_client(soap, "launchId is required");
	if (launch_signal(h->launches, req->launchId, req->signal, err, sizeof(err)) != 0)
		return soap_fault_client(soap, "%s", err);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}
