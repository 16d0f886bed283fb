/*
 * handlers_outcomes.c: ReportOutcomes, the batched record of connections helpers decided by
 * themselves (direct inside a cluster, issue 15) or the front-end's pair cache answered. One
 * request carries up to QCG_OUTCOMES_PER_CALL records, so a job's connections cost the broker
 * one call per batch instead of a Resolve and a ReportOutcome each, and one transaction. The
 * target's cluster and node come from the job's access point at toAddress:toPort, as Resolve
 * would have found them.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "broker.h"
#include "log.h"
#include "registry.h"
#include "soap_model.h"
#include "soap_server.h"

/* Check one connection (what soap_model_request_report_in read) and complete its target; adds
 * it to out[*kept], skips it (its target is no access point of the job), or returns a SOAP
 * fault code. */
static int
check_one(struct soap *soap, struct broker_call *call, struct connection_report *in,
    struct connection_record *out, int *kept)
{
	struct connection_record *rec = &in->rec;
	struct access_point ap;
	int rc;

	if (in->to_address[0] != '\0') {
		rc = registry_find_access_point(call->reg, rec->job, rec->from_cluster,
		    in->to_address, rec->to_port, &ap);
		/* not one of the job's connections, or not one Resolve could have named: nothing
		 * to record */
		if (rc == REGISTRY_NOT_FOUND || rc == REGISTRY_AMBIGUOUS)
			return SOAP_OK;
		if ((rc = broker_registry_fault(soap, call, rc, "ReportOutcomes")))
			return rc;
		memcpy(rec->to_cluster, ap.cluster, sizeof(rec->to_cluster));
		memcpy(rec->to_node, ap.node, sizeof(rec->to_node));
	}
	if ((rc = broker_require_cluster_owner(soap, call, rec->from_cluster)))
		return rc;
	if (rec->when == 0)
		rec->when = (int64_t)time(NULL);
	out[(*kept)++] = *rec;
	return SOAP_OK;
}

int
__qb__ReportOutcomes(struct soap *soap, struct _qb__ReportOutcomes *req,
    struct _qb__ReportOutcomesResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	int rc, kept = 0;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, req, "ReportOutcomes")))
		return rc;
	if (req->__sizeconnection < 0 || req->__sizeconnection > QCG_OUTCOMES_PER_CALL ||
	    (req->__sizeconnection > 0 && req->connection == NULL))
		return soap_fault_client(soap, "ReportOutcomes: 0-%d connections per call, got %d",
		    QCG_OUTCOMES_PER_CALL, req->__sizeconnection);
	struct connection_record *recs =
	    soap_malloc(soap, (size_t)(req->__sizeconnection ? req->__sizeconnection : 1) *
		sizeof(*recs));
	if (recs == NULL)
		return soap_fault_server(soap, "out of memory");
	for (int i = 0; i < req->__sizeconnection; i++) {
		struct connection_report report;
		if ((rc = soap_model_request_report_in(soap, &req->connection[i], 1, &report)) ||
		    (rc = check_one(soap, &call, &report, recs, &kept)))
			return rc;
	}
	if ((rc = broker_registry_fault(soap, &call,
		 registry_log_connections(call.reg, recs, (size_t)kept), "ReportOutcomes")))
		return rc;
	log_debug("ReportOutcomes: %d of %d connections recorded", kept, req->__sizeconnection);
	resp->recorded = kept;
	return SOAP_OK;
}
