/*
 * fe_worker.c: per-thread client contexts, the call context of a handler, and how a failed
 * call to the broker or a helper becomes a fault for our own caller.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "frontend.h"
#include "log.h"
#include "reservations.h"
#include "soap_server.h"

#define FE_CONNECT_TIMEOUT 5     /* seconds to reach the broker or a helper */
#define FE_MAX_RESPONSE (16 << 20) /* bytes of one response (output chunks are the largest) */

double
fe_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct fe_call
fe_call_of(struct soap *soap)
{
	struct soap_request *req = soap_request_of(soap);
	struct fe_call call = { req->app, req->worker_state, req->peer_dn };
	return call;
}

struct soap_client_settings
fe_broker_client_settings(const struct frontend *fe, int extra_wait)
{
	struct soap_client_settings s = { FE_CONNECT_TIMEOUT, (int)fe->cfg.broker_timeout +
		extra_wait, FE_MAX_RESPONSE };
	return s;
}

struct soap_client_settings
fe_helper_client_settings(const struct frontend *fe, int extra_wait)
{
	int connect = fe->cfg.helper_timeout < FE_CONNECT_TIMEOUT ? (int)fe->cfg.helper_timeout
								 : FE_CONNECT_TIMEOUT;
	struct soap_client_settings s = { connect, (int)fe->cfg.helper_timeout + extra_wait,
		FE_MAX_RESPONSE };
	return s;
}

void *
fe_worker_new(void *frontend)
{
	struct frontend *fe = frontend;
	struct fe_worker *w = calloc(1, sizeof(*w));
	char err[512];
	if (w == NULL)
		return NULL;
	w->fe = fe;
	struct soap_client_settings hs = fe_helper_client_settings(fe, (int)fe->cfg.output_wait_max);
	w->helper = fe_client_without_keepalive(&fe->tls, &hs, err, sizeof(err));
	if (w->helper == NULL) {
		log_error("worker: client context: %s", err);
		fe_worker_free(w);
		return NULL;
	}
	return w;
}

void
fe_worker_free(void *worker)
{
	struct fe_worker *w = worker;
	if (w == NULL)
		return;
	soap_client_free(w->helper);
	free(w);
}

struct soap *
fe_client_without_keepalive(const struct tls_settings *tls,
    const struct soap_client_settings *settings, char *err, size_t errlen)
{
	struct soap *soap = soap_client_new(tls, settings, err, errlen);
	if (soap) {
		soap_clr_imode(soap, SOAP_IO_KEEPALIVE);
		soap_clr_omode(soap, SOAP_IO_KEEPALIVE);
	}
	return soap;
}

struct soap *
fe_worker_helper(struct fe_worker *w, const struct fe_node *node)
{
	(void)node;
	soap_client_reset(w->helper);
	return w->helper;
}

int
fe_signal_launch(struct fe_worker *w, const struct resv_launch_info *l, int sig)
{
	const struct fe_node *node = fe_config_node(&w->fe->cfg, l->node);
	if (node == NULL)
		return SOAP_ERR;
	struct soap *helper = fe_worker_helper(w, node);
	struct _qh__Signal hreq = { (char *)l->helper_launch_id, sig };
	struct _qh__SignalResponse hresp;
	return soap_call___qh__Signal(helper, node->helper_url, NULL, &hreq, &hresp);
}

size_t
fe_kill_launches(struct fe_worker *w, const char *reservation,
    const struct resv_launch_info *launches, size_t n)
{
	char err[256];
	size_t killed = 0;
	for (size_t i = 0; i < n; i++) {
		if (fe_signal_launch(w, &launches[i], SIGKILL) == SOAP_OK) {
			killed++;
			continue;
		}
		int refused = fe_soap_is_fault(w->helper);
		soap_client_error(w->helper, err, sizeof(err));
		if (refused)
			log_debug("release %s: launch %s on %s: %s", reservation,
			    launches[i].helper_launch_id, launches[i].node, err);
		else
			log_warn("release %s: could not kill launch %s on %s: %s", reservation,
			    launches[i].helper_launch_id, launches[i].node, err);
	}
	return killed;
}

int
fe_soap_is_fault(const struct soap *soap)
{
	/* gSOAP reports a received fault as SOAP_CLI_FAULT or SOAP_SVR_FAULT by its code, and as
	 * SOAP_FAULT when the code is neither */
	return soap->error == SOAP_FAULT || soap->error == SOAP_CLI_FAULT ||
	    soap->error == SOAP_SVR_FAULT;
}

int
fe_relay_failure(struct soap *soap, struct soap *peer, const char *what)
{
	char detail[1024];
	if (fe_soap_is_fault(peer)) {
		const char *reason = soap_fault_string(peer);
		const char *kind = soap_client_fault_kind(peer);
		if (kind != NULL) /* the helper acts on the kind: pass it on */
			return soap_fault_client_kind(soap, kind, "%s: %s", what, reason ? reason : kind);
		if (peer->error == SOAP_SVR_FAULT)
			return soap_fault_server(soap, "%s: %s", what, reason ? reason : "fault");
		return soap_fault_client(soap, "%s: %s", what, reason ? reason : "fault");
	}
	soap_client_error(peer, detail, sizeof(detail));
	soap_closesock(peer); /* the connection's state is unknown: start afresh next time */
	log_warn("%s: %s", what, detail);
	return soap_fault_server(soap, "%s: %s", what, detail);
}
