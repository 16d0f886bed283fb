/*
 * handlers_direct.c: what a helper needs to decide connections by itself (issue 15):
 * GetConnectInfo (our cluster, its policy, frontend.direct_networks and a job's listeners
 * here) and ReportOutcomes
 * (the batched record of such connections, forwarded to the broker in one call).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "broker_pool.h"
#include "frontend.h"
#include "local_listeners.h"
#include "log.h"
#include "soap_model.h"
#include "soap_server.h"


int
__qf__GetConnectInfo(struct soap *soap, struct _qf__GetConnectInfo *req,
    struct _qf__GetConnectInfoResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "GetConnectInfo")))
		return rc;
	resp->cluster = call.fe->cfg.cluster.name;
	resp->policy = (char *)cluster_policy_name(call.fe->cfg.cluster.policy);
	resp->directNetworks = call.fe->cfg.direct_networks;
	if (req->job != NULL &&
	    (rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "GetConnectInfo: job")))
		return rc;
	if (req->job == NULL || call.fe->cfg.direct_networks[0] == '\0')
		return SOAP_OK; /* without direct networks the list would serve nothing */
	struct local_listener *v = malloc(LOCAL_LISTENERS_PER_JOB * sizeof(*v));
	if (v == NULL)
		return soap_fault_server(soap, "out of memory");
	size_t n = local_listeners_of_job(call.fe->listeners, req->job, v,
	    LOCAL_LISTENERS_PER_JOB);
	resp->listener = n ? soap_malloc(soap, n * sizeof(*resp->listener)) : NULL;
	for (size_t i = 0; resp->listener != NULL && i < n; i++) {
		char text[QCG_ADDR_MAX + 8];
		snprintf(text, sizeof(text), "%s:%u", v[i].address, v[i].port);
		resp->listener[i] = soap_strdup(soap, text);
	}
	resp->__sizelistener = resp->listener ? (int)n : 0;
	free(v);
	log_debug("job %s: GetConnectInfo from %s: %zu listeners", req->job, node->name, n);
	return SOAP_OK;
}

int
__qf__ReportOutcomes(struct soap *soap, struct _qf__ReportOutcomes *req,
    struct _qf__ReportOutcomesResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "ReportOutcomes")))
		return rc;
	int n = req->__sizeconnection;
	if (n < 0 || n > QCG_OUTCOMES_PER_CALL || (n > 0 && req->connection == NULL))
		return soap_fault_client(soap, "ReportOutcomes: 0-%d connections per call, got %d",
		    QCG_OUTCOMES_PER_CALL, n);
	struct connection_report *reports = soap_malloc(soap, (size_t)(n ? n : 1) * sizeof(*reports));
	if (reports == NULL)
		return soap_fault_server(soap, "out of memory");
	/* Each record speaks for the calling helper's node, in our cluster, whatever it said. */
	for (int i = 0; i < n; i++) {
		struct connection_record *r = &reports[i].rec;
		if ((rc = soap_model_request_report_in(soap, &req->connection[i], 0, &reports[i])))
			return rc;
		if (r->from_node[0] != '\0' && strcmp(r->from_node, node->name) != 0) {
			log_warn("denied: the helper of node %s reported a connection of node %s",
			    node->name, r->from_node);
			return soap_fault_client(soap, "not authorized: the helper of node %s may not "
			    "report for node %s", node->name, r->from_node);
		}
		snprintf(r->from_cluster, sizeof(r->from_cluster), "%s", call.fe->cfg.cluster.name);
		snprintf(r->from_node, sizeof(r->from_node), "%s", node->name);
	}
	struct _qb__ReportOutcomes breq = { .__sizeconnection = n,
		.connection = soap_model_reports_new(soap, reports, (size_t)n) };
	if (breq.connection == NULL)
		return soap_fault_server(soap, "out of memory");
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	struct _qb__ReportOutcomesResponse bresp = { 0 };
	rc = soap_call___qb__ReportOutcomes(broker, call.fe->cfg.broker_url, NULL, &breq, &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker ReportOutcomes");
	broker_pool_return(call.fe->brokers, broker);
	if (rc != SOAP_OK)
		return rc;
	resp->recorded = bresp.recorded;
	return SOAP_OK;
}
