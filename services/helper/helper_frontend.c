/*
 * helper_frontend.c: SOAP calls from the helper to its front-end (helper_frontend.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "soap_model.h"
#include "helper.h"
#include "helper_frontend.h"
#include "relay_hello.h"
#include "soap_client.h"

#define FRONTEND_MAX_RESPONSE (1024 * 1024)

static struct soap *
client_for(struct helper *h, char *err, size_t errlen)
{
	struct soap_client_settings s = { .connect_timeout = 10,
		.io_timeout = h->cfg.frontend_timeout, .max_message = FRONTEND_MAX_RESPONSE };
	return soap_client_new(&h->tls, &s, err, errlen);
}

/* Say what failed, prefixed with the operation, and free the context. */
static int
call_failed(struct soap *soap, const char *op, char *err, size_t errlen)
{
	char detail[768];
	soap_client_error(soap, detail, sizeof(detail));
	snprintf(err, errlen, "front-end %s: %s", op, detail);
	soap_client_free(soap);
	return -1;
}

int
helper_frontend_register(struct helper *h, const struct access_point *ap, char *err,
    size_t errlen)
{
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	struct qcg__AccessPoint sap = { .job = (char *)ap->job, .cluster = (char *)ap->cluster,
		.node = (char *)ap->node, .address = (char *)ap->address, .port = ap->port,
		.process = (char *)ap->process };
	struct _qf__RegisterAccessPoint req = { .accessPoint = &sap };
	struct _qf__RegisterAccessPointResponse resp;
	if (soap_call___qf__RegisterAccessPoint(soap, h->cfg.frontend_url, NULL, &req, &resp) !=
	    SOAP_OK)
		return call_failed(soap, "RegisterAccessPoint", err, errlen);
	soap_client_free(soap);
	return 0;
}

/* Take the decision into out; -1 with err when the answer breaks the contract. */
static int
resolution_in(const struct qcg__Decision *d, struct decision *out, char *err, size_t errlen)
{
	char why[512];
	if (d == NULL) {
		snprintf(err, errlen, "front-end Resolve: the answer has no valid decision");
		return -1;
	}
	if (soap_model_decision_in(d, out, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "front-end Resolve: %s", why);
		return -1;
	}
	return 0;
}

int
helper_frontend_resolve(struct helper *h, const char *job, uint16_t from_port,
    const char *to_address, uint16_t to_port, int after, struct decision *out,
    enum helper_no_answer *no_answer, char *err, size_t errlen)
{
	enum qcg__Method after_m = soap_model_method_out((enum connect_method)after);
	unsigned short fport = from_port;
	struct _qf__Resolve req = { .job = (char *)job, .fromNode = h->cfg.node,
		.fromAddress = h->cfg.address, .fromPort = from_port ? &fport : NULL,
		.toAddress = (char *)to_address, .toPort = to_port,
		.after = after >= 0 ? &after_m : NULL };
	struct _qf__ResolveResponse resp = { NULL };
	*no_answer = HELPER_NO_ANSWER_FAILED;
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	if (soap_call___qf__Resolve(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK) {
		const char *kind = soap_client_fault_kind(soap);
		*no_answer = kind == NULL ? HELPER_NO_ANSWER_FAILED :
		    strcmp(kind, QCG_FAULT_NO_METHOD) == 0 ? HELPER_NO_ANSWER_NO_METHOD :
		    HELPER_NO_ANSWER_NO_ACCESS_POINT;
		call_failed(soap, "Resolve", err, errlen);
		return -1;
	}
	int rc = resolution_in(resp.decision, out, err, errlen);
	soap_client_free(soap);
	return rc;
}

int
helper_frontend_report(struct helper *h, const struct connection_record *rec, char *err,
    size_t errlen)
{
	struct qcg__Connection c = { .job = (char *)rec->job, .fromCluster = (char *)rec->from_cluster,
		.fromNode = (char *)rec->from_node, .toCluster = (char *)rec->to_cluster,
		.toNode = (char *)rec->to_node, .toPort = rec->to_port,
		.method = soap_model_method_out(rec->method),
		.succeeded = rec->succeeded ? xsd__boolean__true_ : xsd__boolean__false_,
		.setupMicroseconds = rec->setup_usec, .when = rec->when ? rec->when : time(NULL) };
	struct _qf__ReportOutcome req = { .connection = &c };
	struct _qf__ReportOutcomeResponse resp;
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	if (soap_call___qf__ReportOutcome(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "ReportOutcome", err, errlen);
	soap_client_free(soap);
	return 0;
}

int
helper_frontend_mcast_group(struct helper *h, const char *job, char address[QCG_ADDR_MAX],
    uint16_t *port, char *err, size_t errlen)
{
	struct _qf__AllocateMulticastGroup req = { .job = (char *)job };
	struct _qf__AllocateMulticastGroupResponse resp = { NULL };
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	if (soap_call___qf__AllocateMulticastGroup(soap, h->cfg.frontend_url, NULL, &req,
	    &resp) != SOAP_OK)
		return call_failed(soap, "AllocateMulticastGroup", err, errlen);
	int rc = 0;
	if (resp.group == NULL || resp.group->address == NULL ||
	    strlen(resp.group->address) >= QCG_ADDR_MAX || resp.group->port == 0) {
		snprintf(err, errlen, "front-end AllocateMulticastGroup: the answer has no valid "
		    "group");
		rc = -1;
	} else {
		snprintf(address, QCG_ADDR_MAX, "%s", resp.group->address);
		*port = resp.group->port;
	}
	soap_client_free(soap);
	return rc;
}
