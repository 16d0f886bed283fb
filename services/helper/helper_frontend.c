/*
 * helper_frontend.c: SOAP calls from the helper to its front-end (helper_frontend.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "soap_model.h"
#include "helper.h"
#include "cidr.h"
#include "helper_direct.h"
#include "helper_outcomes.h"
#include "helper_frontend.h"
#include "helper_paircache.h"
#include "log.h"
#include "helper_registrations.h"
#include "relay_hello.h"
#include "soap_client.h"

#define FRONTEND_MAX_RESPONSE (1024 * 1024)
#define FRONTEND_IDLE_MAX 4 /* kept-alive contexts the helper keeps between calls */

/*
 * Contexts whose last call went well, their connections to the front-end kept alive. A job's
 * start makes a call per listener and per connection set-up of its processes (REGISTER,
 * RESOLVE, outcomes), and a new connection each would cost a TCP and a full TLS handshake on
 * both sides while the node's processes start and want the CPU (issue 15). The helper has one
 * front-end, so one list serves every call: a caller takes an idle context or makes one (no
 * waiting: a slow Resolve must not hold up a REGISTER), and gives it back after a call that
 * went well. A failed call's context is freed: its connection's state is unknown. The
 * front-end closes what stays idle past its keep-alive timeout; gSOAP sees that before it
 * sends on a kept connection and connects afresh. FRONTEND_IDLE_MAX keeps what a front-end
 * holds per node small.
 */
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct soap *idle[FRONTEND_IDLE_MAX];
static size_t idle_count;

static struct soap *
client_for(struct helper *h, char *err, size_t errlen)
{
	struct soap *soap = NULL;
	pthread_mutex_lock(&idle_lock);
	if (idle_count > 0)
		soap = idle[--idle_count];
	pthread_mutex_unlock(&idle_lock);
	if (soap != NULL)
		return soap;
	struct soap_client_settings s = { .connect_timeout = 10,
		.io_timeout = h->cfg.frontend_timeout, .max_message = FRONTEND_MAX_RESPONSE };
	return soap_client_new(&h->tls, &s, err, errlen);
}

/* A call on soap went well: keep it for the next (its response's memory freed), or free it
 * when enough are kept. */
static void
client_done(struct soap *soap)
{
	soap_client_reset(soap);
	pthread_mutex_lock(&idle_lock);
	if (idle_count < FRONTEND_IDLE_MAX) {
		idle[idle_count++] = soap;
		soap = NULL;
	}
	pthread_mutex_unlock(&idle_lock);
	soap_client_free(soap);
}

/* The request could not be built; free the context. */
static int
out_of_memory(struct soap *soap, const char *op, char *err, size_t errlen)
{
	snprintf(err, errlen, "front-end %s: out of memory", op);
	soap_client_free(soap);
	return -1;
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
	struct _qf__RegisterAccessPoint req = { soap_model_access_points_new(soap, ap, 1) };
	struct _qf__RegisterAccessPointResponse resp;
	if (req.accessPoint == NULL)
		return out_of_memory(soap, "RegisterAccessPoint", err, errlen);
	if (soap_call___qf__RegisterAccessPoint(soap, h->cfg.frontend_url, NULL, &req, &resp) !=
	    SOAP_OK)
		return call_failed(soap, "RegisterAccessPoint", err, errlen);
	client_done(soap);
	return 0;
}

/* The tail of a call answered with a decision: its conversion's result rc (with its reason
 * why) for op gives 0, or -1 with err when the answer breaks the contract; either way the
 * call's memory is freed (the decision is copied out by now). */
static int
decision_answer(struct soap *soap, int rc, const char *op, const char *why, char *err,
    size_t errlen)
{
	if (rc != 0)
		snprintf(err, errlen, "front-end %s: %s", op, why);
	client_done(soap);
	return rc != 0 ? -1 : 0;
}

/* The front-end named the listeners its decision for the pair reaches: keep them on the node
 * (helper_paircache.h). A malformed list is only logged: the decision itself stands. */
static void
keep_pair(struct soap *soap, const char *job, const struct decision *d,
    const struct _qf__ResolveResponse *resp)
{
	char why[256];
	struct access_point *peers = soap_model_access_points_in(soap, resp->peer, resp->__sizepeer,
	    why, sizeof(why));
	if (peers == NULL)
		log_warn("job %s: the front-end's peers for cluster %s: %s; not kept", job,
		    d->target.cluster, why);
	else
		helper_paircache_store(job, d, peers, (size_t)resp->__sizepeer);
}

int
helper_frontend_resolve(struct helper *h, const char *job, uint16_t from_port,
    const char *to_address, uint16_t to_port, int after, struct decision *out,
    enum helper_no_answer *no_answer, char *err, size_t errlen)
{
	*no_answer = HELPER_NO_ANSWER_FAILED;
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	struct _qf__Resolve req = { .job = (char *)job, .fromNode = h->cfg.node,
		.fromAddress = h->cfg.address,
		.fromPort = from_port ? soap_model_ushort_out(soap, from_port) : NULL,
		.toAddress = (char *)to_address, .toPort = to_port,
		.after = after >= 0 ? soap_model_method_new(soap, (enum connect_method)after) : NULL };
	enum xsd__boolean want_peers = xsd__boolean__true_;
	if (after < 0 && h->cfg.pair_cache)
		req.wantPeers = &want_peers;
	struct _qf__ResolveResponse resp = { NULL };
	if ((from_port && req.fromPort == NULL) || (after >= 0 && req.after == NULL))
		return out_of_memory(soap, "Resolve", err, errlen);
	if (soap_call___qf__Resolve(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK) {
		const char *kind = soap_client_fault_kind(soap);
		*no_answer = kind == NULL ? HELPER_NO_ANSWER_FAILED :
		    strcmp(kind, QCG_FAULT_NO_METHOD) == 0 ? HELPER_NO_ANSWER_NO_METHOD :
		    HELPER_NO_ANSWER_NO_ACCESS_POINT;
		call_failed(soap, "Resolve", err, errlen);
		return -1;
	}
	char why[512];
	int rc = soap_model_decision_in(resp.decision, out, why, sizeof(why));
	if (rc == 0 && resp.__sizepeer > 0)
		keep_pair(soap, job, out, &resp);
	return decision_answer(soap, rc, "Resolve", why, err, errlen);
}

int
helper_frontend_resume_relay(struct helper *h, const char *job, const char *relay_id,
    struct decision *out, bool *refused, char *err, size_t errlen)
{
	struct _qf__ResumeRelay req = { .job = (char *)job, .relayId = (char *)relay_id };
	struct _qf__ResumeRelayResponse resp = { NULL };
	*refused = false;
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	if (soap_call___qf__ResumeRelay(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK) {
		*refused = soap_client_fault_kind(soap) != NULL || soap->error == SOAP_FAULT;
		return call_failed(soap, "ResumeRelay", err, errlen);
	}
	char why[512];
	return decision_answer(soap, soap_model_decision_in(resp.decision, out, why, sizeof(why)),
	    "ResumeRelay", why, err, errlen);
}

int
helper_frontend_report_replay(struct helper *h, const char *job, const char *relay_id,
    uint64_t bytes, char *err, size_t errlen)
{
	struct _qf__ReportReplay req = { .job = (char *)job, .relayId = (char *)relay_id,
		.bytes = (LONG64)bytes };
	struct _qf__ReportReplayResponse resp;
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	if (soap_call___qf__ReportReplay(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "ReportReplay", err, errlen);
	client_done(soap);
	return 0;
}

int
helper_frontend_report(struct helper *h, const struct connection_record *rec, char *err,
    size_t errlen)
{
	struct connection_report report = { .rec = *rec };
	if (report.rec.when == 0)
		report.rec.when = time(NULL);
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	struct _qf__ReportOutcome req = { soap_model_reports_new(soap, &report, 1) };
	struct _qf__ReportOutcomeResponse resp;
	if (req.connection == NULL)
		return out_of_memory(soap, "ReportOutcome", err, errlen);
	if (soap_call___qf__ReportOutcome(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "ReportOutcome", err, errlen);
	client_done(soap);
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
	client_done(soap);
	return rc;
}

/* "ADDRESS:PORT" into t; -1 when it is not that. */
static int
target_in(const char *text, struct direct_target *t)
{
	const char *colon = text ? strrchr(text, ':') : NULL;
	char *end;
	if (colon == NULL || (size_t)(colon - text) >= sizeof(t->address) || colon == text)
		return -1;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || port == 0 || port > 65535)
		return -1;
	memcpy(t->address, text, (size_t)(colon - text));
	t->address[colon - text] = '\0';
	t->port = (uint16_t)port;
	return 0;
}

int
helper_frontend_connect_info(struct helper *h, const char *job, char networks[QCG_NETWORKS_MAX],
    struct direct_target **listeners, size_t *count, char *err, size_t errlen)
{
	struct _qf__GetConnectInfo req = { .job = (char *)job };
	struct _qf__GetConnectInfoResponse resp = { NULL };
	char why[256];
	*listeners = NULL;
	*count = 0;
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	if (soap_call___qf__GetConnectInfo(soap, h->cfg.frontend_url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "GetConnectInfo", err, errlen);
	int rc = -1;
	const char *nets = resp.directNetworks ? resp.directNetworks : "";
	if (strlen(nets) >= QCG_NETWORKS_MAX ||
	    (nets[0] && cidr_list_parse(nets, NULL, why, sizeof(why)) != 0)) {
		snprintf(err, errlen, "front-end GetConnectInfo: directNetworks is not a CIDR list");
		goto done;
	}
	snprintf(networks, QCG_NETWORKS_MAX, "%s", nets);
	if (resp.__sizelistener > 0) {
		*listeners = calloc((size_t)resp.__sizelistener, sizeof(**listeners));
		if (*listeners == NULL) {
			snprintf(err, errlen, "front-end GetConnectInfo: out of memory");
			goto done;
		}
	}
	for (int i = 0; i < resp.__sizelistener; i++)
		if (target_in(resp.listener[i], &(*listeners)[*count]) == 0)
			(*count)++;
	rc = 0;
done:
	client_done(soap);
	return rc;
}

int
helper_frontend_report_batch(struct helper *h, const struct connection_report *recs, size_t n,
    char *err, size_t errlen)
{
	if (n > OUTCOME_SEND_MAX) {
		snprintf(err, errlen, "front-end ReportOutcomes: %zu records, at most %d", n,
		    OUTCOME_SEND_MAX);
		return -1;
	}
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	struct _qf__ReportOutcomes req = { .__sizeconnection = (int)n,
		.connection = soap_model_reports_new(soap, recs, n) };
	struct _qf__ReportOutcomesResponse resp;
	if (req.connection == NULL)
		return out_of_memory(soap, "ReportOutcomes", err, errlen);
	if (soap_call___qf__ReportOutcomes(soap, h->cfg.frontend_url, NULL, &req, &resp) !=
	    SOAP_OK)
		return call_failed(soap, "ReportOutcomes", err, errlen);
	client_done(soap);
	return 0;
}

int
helper_frontend_register_batch(struct helper *h, const struct access_point *aps, size_t n,
    char *err, size_t errlen)
{
	if (n < 1 || n > REG_BATCH_MAX) {
		snprintf(err, errlen, "front-end RegisterAccessPoints: %zu access points, 1-%d", n,
		    REG_BATCH_MAX);
		return -1;
	}
	struct soap *soap = client_for(h, err, errlen);
	if (soap == NULL)
		return -1;
	struct _qf__RegisterAccessPoints req = { .__sizeaccessPoint = (int)n,
		.accessPoint = soap_model_access_points_new(soap, aps, n) };
	struct _qf__RegisterAccessPointsResponse resp;
	if (req.accessPoint == NULL)
		return out_of_memory(soap, "RegisterAccessPoints", err, errlen);
	if (soap_call___qf__RegisterAccessPoints(soap, h->cfg.frontend_url, NULL, &req, &resp) !=
	    SOAP_OK)
		return call_failed(soap, "RegisterAccessPoints", err, errlen);
	client_done(soap);
	return 0;
}
