/*
 * handlers_mcast.c: AllocateMulticastGroup, what a helper calls when a process of its job (the
 * multicast broadcast of mca_coll_qcg, through the helper's MCAST_GROUP request) needs a
 * multicast group. Only one of our nodes' helpers may ask (the helper vouches for the process
 * with the job's token); the request is relayed to the broker, which keeps the registry of
 * groups so that no two jobs hold the same one, and takes them back when the job ends.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "broker_pool.h"
#include "frontend.h"
#include "log.h"
#include "soap_model.h"
#include "soap_server.h"

/* The broker's group (read into g) into our answer for job; a fault if the broker broke the
 * contract. */
static int
group_out(struct soap *soap, int read, const struct multicast_group *g, const char *job,
    struct _qf__AllocateMulticastGroupResponse *resp)
{
	if (read != 0 || g->address[0] == '\0' || g->port == 0)
		return soap_fault_server(soap, "broker AllocateMulticastGroup: malformed group");
	struct multicast_group ours = *g;
	snprintf(ours.job, sizeof(ours.job), "%s", job);
	resp->group = soap_malloc(soap, sizeof(*resp->group));
	if (resp->group == NULL)
		return soap_fault_server(soap, "out of memory");
	soap_model_multicast_out(soap, &ours, resp->group);
	return resp->group->job && resp->group->address ? SOAP_OK :
	    soap_fault_server(soap, "out of memory");
}

int
__qf__AllocateMulticastGroup(struct soap *soap, struct _qf__AllocateMulticastGroup *req,
    struct _qf__AllocateMulticastGroupResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_node *node;
	int rc;

	if ((rc = fe_require_helper(soap, &call, &node)) ||
	    (rc = soap_require_body(soap, req, "AllocateMulticastGroup")))
		return rc;
	if ((rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "AllocateMulticastGroup: job")))
		return rc;
	struct soap *broker = broker_pool_borrow(call.fe->brokers);
	struct _qb__AllocateMulticastGroup breq = { .job = req->job };
	struct _qb__AllocateMulticastGroupResponse bresp = { NULL };
	rc = soap_call___qb__AllocateMulticastGroup(broker, call.fe->cfg.broker_url, NULL, &breq,
	    &bresp);
	if (rc != SOAP_OK)
		rc = fe_relay_failure(soap, broker, "broker AllocateMulticastGroup");
	else {
		struct multicast_group g;
		char err[256];
		int read = soap_model_multicast_in(bresp.group, &g, err, sizeof(err));
		rc = group_out(soap, read, &g, req->job, resp);
	}
	broker_pool_return(call.fe->brokers, broker); /* the answer is copied out by now */
	if (rc != SOAP_OK)
		return rc;
	log_info("job %s: multicast group %s:%u for node %s", req->job, resp->group->address,
	    resp->group->port, node->name);
	return SOAP_OK;
}
