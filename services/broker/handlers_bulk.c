/*
 * handlers_bulk.c: RegisterAccessPoints, a node's listeners registered in one call (issue 15):
 * a helper batches the REGISTERs its processes send together, and the front-end passes the
 * batch on, so a job's registrations cost the broker one call per node and moment instead of
 * one per listener. Each access point is checked and stored as RegisterAccessPoint does.
 */
#include "config.h"

#include "soapH.h"
#include "broker.h"
#include "log.h"
#include "registry.h"
#include "soap_model.h"
#include "soap_server.h"

#define REGISTRATIONS_MAX 256 /* the WSDL's maxOccurs */

int
__qb__RegisterAccessPoints(struct soap *soap, struct _qb__RegisterAccessPoints *req,
    struct _qb__RegisterAccessPointsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct access_point ap;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, req, "RegisterAccessPoints")))
		return rc;
	if (req->__sizeaccessPoint < 1 || req->__sizeaccessPoint > REGISTRATIONS_MAX ||
	    req->accessPoint == NULL)
		return soap_fault_client(soap, "RegisterAccessPoints: 1-%d access points per call, "
		    "got %d", REGISTRATIONS_MAX, req->__sizeaccessPoint);
	for (int i = 0; i < req->__sizeaccessPoint; i++) {
		if ((rc = soap_model_request_access_point_in(soap, &req->accessPoint[i], &ap)) ||
		    (rc = broker_require_cluster_owner(soap, &call, ap.cluster)))
			return rc;
		/* as RegisterAccessPoint: a missing row is a job nobody recorded */
		if ((rc = registry_put_access_point(call.reg, &ap)) == REGISTRY_NOT_FOUND)
			return soap_fault_client(soap, "RegisterAccessPoints: %s",
			    registry_error(call.reg));
		if ((rc = broker_registry_fault(soap, &call, rc, "RegisterAccessPoints")))
			return rc;
	}
	log_debug("RegisterAccessPoints: %d access points of job %s", req->__sizeaccessPoint,
	    req->accessPoint[0].job);
	resp->registered = req->__sizeaccessPoint;
	return SOAP_OK;
}
