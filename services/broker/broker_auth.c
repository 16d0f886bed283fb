/*
 * broker_auth.c: who may call what. Services are authorized by the ACL, users by the
 * grid-mapfile; identity is always the end-entity DN that lib/soap_server.c established.
 */
#include "config.h"

#include <string.h>

#include "soapH.h"
#include "broker.h"
#include "log.h"
#include "registry.h"
#include "soap_server.h"
#include "tls.h"

struct broker_call
broker_call_of(struct soap *soap)
{
	struct soap_request *req = soap_request_of(soap);
	struct broker_call call = { req->app, req->worker_state, req->peer_dn };
	return call;
}

static const char *
role_name(enum acl_role role)
{
	switch (role) {
	case ACL_ROLE_FRONTEND: return "frontend";
	case ACL_ROLE_PROXY: return "proxy";
	case ACL_ROLE_HELPER: return "helper";
	case ACL_ROLE_BROKER: return "broker";
	case ACL_ROLE_ADMIN: return "admin";
	}
	return "?";
}

int
broker_require_role(struct soap *soap, const struct broker_call *call, enum acl_role role)
{
	if (acl_allows(&call->broker->acl, call->caller_dn, role) ||
	    acl_allows(&call->broker->acl, call->caller_dn, ACL_ROLE_ADMIN))
		return SOAP_OK;
	log_warn("denied: %s is not a %s in the broker ACL", call->caller_dn, role_name(role));
	return soap_fault_client(soap, "not authorized: %s is not a %s in the broker's ACL",
	    call->caller_dn, role_name(role));
}

int
broker_require_user(struct soap *soap, const struct broker_call *call)
{
	if (gridmap_account_of(&call->broker->gridmap, call->caller_dn, NULL))
		return SOAP_OK;
	log_warn("denied: %s is not in the grid-mapfile", call->caller_dn);
	return soap_fault_client(soap, "not authorized: %s is not in the grid-mapfile",
	    call->caller_dn);
}

int
broker_require_submitter(struct soap *soap, const struct broker_call *call)
{
	if (tls_peer_is_limited_proxy(soap)) {
		log_warn("denied: %s presented a limited proxy to start a job", call->caller_dn);
		return soap_fault_client(soap, "not authorized: a limited proxy may not start jobs "
		    "(make a full proxy, e.g. qcg-proxy-init without --limited)");
	}
	return broker_require_user(soap, call);
}

int
broker_require_reader(struct soap *soap, const struct broker_call *call)
{
	if (gridmap_account_of(&call->broker->gridmap, call->caller_dn, NULL) ||
	    acl_roles(&call->broker->acl, call->caller_dn) != 0)
		return SOAP_OK;
	log_warn("denied state query: %s is neither mapped nor in the ACL", call->caller_dn);
	return soap_fault_client(soap,
	    "not authorized: %s is neither in the grid-mapfile nor in the broker's ACL",
	    call->caller_dn);
}

int
broker_require_cluster_owner(struct soap *soap, const struct broker_call *call,
    const char *cluster)
{
	struct cluster c;

	return broker_require_cluster_owner_row(soap, call, cluster, &c);
}

int
broker_require_cluster_owner_row(struct soap *soap, const struct broker_call *call,
    const char *cluster, struct cluster *row)
{
	struct cluster c;
	/* A name the registry cannot hold is the client's mistake: checked here, it gets a Client
	 * fault; left to the registry it was a "registry error", a Server fault and an error log
	 * line (the broker's SOAP fuzz target found it through WaitEvents, whose queue names may
	 * be longer than a cluster's). */
	int rc = soap_require_name(soap, cluster, QCG_NAME_MAX, "cluster");
	if (rc)
		return rc;
	rc = registry_get_cluster(call->reg, cluster, &c);
	if (rc == REGISTRY_NOT_FOUND)
		return soap_fault_client(soap, "cluster '%s' is not registered", cluster);
	if (rc != 0)
		return broker_registry_fault(soap, call, rc, "cluster lookup");
	if ((rc = broker_check_cluster_owner(soap, call, &c)) == SOAP_OK)
		*row = c;
	return rc;
}

int
broker_check_cluster_owner(struct soap *soap, const struct broker_call *call,
    const struct cluster *c)
{
	if (strcmp(c->frontend_dn, call->caller_dn) == 0 ||
	    acl_allows(&call->broker->acl, call->caller_dn, ACL_ROLE_ADMIN))
		return SOAP_OK;
	return soap_fault_client(soap, "not authorized: cluster '%s' belongs to another front-end",
	    c->name);
}

bool
broker_is_admin(const struct broker_call *call)
{
	return acl_allows(&call->broker->acl, call->caller_dn, ACL_ROLE_ADMIN);
}

int
broker_require_proxy_owner(struct soap *soap, const struct broker_call *call,
    const char *endpoint)
{
	struct proxy p;
	int rc = broker_require_role(soap, call, ACL_ROLE_PROXY);

	if (rc != SOAP_OK || broker_is_admin(call))
		return rc;
	rc = registry_get_proxy(call->reg, endpoint, &p);
	/* Not registered, or unowned since schema 2: a proxy drains its queue before it registers
	 * (services/proxy), so the wait is allowed, and the handler has events_wait hand it only
	 * events decided while its own DN owned the endpoint. */
	if (rc == REGISTRY_NOT_FOUND)
		return SOAP_OK;
	if (rc != 0)
		return broker_registry_fault(soap, call, rc, "proxy lookup");
	if (p.owner_dn[0] == '\0' || strcmp(p.owner_dn, call->caller_dn) == 0)
		return SOAP_OK;
	log_warn("denied: %s may not read the events of proxy %s (registered by %s)",
	    call->caller_dn, endpoint, p.owner_dn);
	return soap_fault_client(soap, "not authorized: proxy '%s' is registered by another identity",
	    endpoint);
}

int
broker_registry_fault(struct soap *soap, const struct broker_call *call, int rc, const char *what)
{
	switch (rc) {
	case 0:
		return SOAP_OK;
	case REGISTRY_NOT_FOUND:
		return soap_fault_client(soap, "%s: not found", what);
	case REGISTRY_DENIED:
		return soap_fault_client(soap, "%s: not authorized (owned by another identity)", what);
	default:
		log_error("%s: %s", what, registry_error(call->reg));
		return soap_fault_server(soap, "%s: registry error: %s", what, registry_error(call->reg));
	}
}
