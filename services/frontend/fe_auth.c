/*
 * fe_auth.c: who may call what on the front-end. Helpers are host certificates in the service
 * ACL (role helper), and each must be the helper of one of our configured nodes; users are
 * mapped by the grid-mapfile. Identity is the end-entity DN lib/soap_server.c established.
 */
#include "config.h"

#include "soapH.h"
#include "frontend.h"
#include "log.h"
#include "soap_server.h"
#include "tls.h"

int
fe_require_helper(struct soap *soap, const struct fe_call *call, const struct fe_node **node)
{
	if (!acl_allows(&call->fe->acl, call->caller_dn, ACL_ROLE_HELPER)) {
		log_warn("denied: %s is not a helper in the front-end's ACL", call->caller_dn);
		return soap_fault_client(soap, "not authorized: %s is not a helper in the front-end's "
		    "ACL", call->caller_dn);
	}
	*node = fe_config_node_of_dn(&call->fe->cfg, call->caller_dn);
	if (*node == NULL) {
		log_warn("denied: %s is a helper but of none of this cluster's nodes",
		    call->caller_dn);
		return soap_fault_client(soap, "not authorized: %s is not the helper of any node of "
		    "cluster %s", call->caller_dn, call->fe->cfg.cluster.name);
	}
	return SOAP_OK;
}

int
fe_require_user(struct soap *soap, const struct fe_call *call, const char **account)
{
	/* A copy, per worker thread: a SIGHUP reload may free the map's entries meanwhile, and
	 * the handler uses the account until its request is answered. */
	static __thread char mapped[GRIDMAP_ACCOUNT_MAX];
	*account = NULL;
	if (gridmap_account_of(&call->fe->gridmap, call->caller_dn, mapped)) {
		*account = mapped;
		return SOAP_OK;
	}
	log_warn("denied: %s is not in the front-end's grid-mapfile", call->caller_dn);
	return soap_fault_client(soap, "not authorized: %s is not in the front-end's grid-mapfile",
	    call->caller_dn);
}

int
fe_require_submitter(struct soap *soap, const struct fe_call *call, const char **account)
{
	if (tls_peer_is_limited_proxy(soap)) {
		log_warn("denied: %s presented a limited proxy to start a job", call->caller_dn);
		return soap_fault_client(soap, "not authorized: a limited proxy may not reserve or "
		    "launch (make a full proxy, e.g. qcg-proxy-init without --limited)");
	}
	return fe_require_user(soap, call, account);
}
