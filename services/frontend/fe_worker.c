/*
 * fe_worker.c: per-thread client contexts, the call context of a handler, and how a failed
 * call to the broker or a helper becomes a fault for our own caller.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "frontend.h"
#include "log.h"
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
	struct soap_client_settings bs = fe_broker_client_settings(fe, 0);
	struct soap_client_settings hs = fe_helper_client_settings(fe, (int)fe->cfg.output_wait_max);
	w->broker = soap_client_new(&fe->tls, &bs, err, sizeof(err));
	if (w->broker)
		w->helper = soap_client_new(&fe->tls, &hs, err, sizeof(err));
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
	soap_client_free(w->broker);
	soap_client_free(w->helper);
	free(w);
}

struct soap *
fe_worker_helper(struct fe_worker *w, const struct fe_node *node)
{
	soap_client_reset(w->helper);
	/* One context serves every helper in turn: never reuse a kept-alive connection made to
	 * another helper. */
	if (strcmp(w->helper_url, node->helper_url) != 0) {
		soap_closesock(w->helper);
		snprintf(w->helper_url, sizeof(w->helper_url), "%s", node->helper_url);
	}
	return w->helper;
}

struct soap *
fe_worker_broker(struct fe_worker *w)
{
	soap_client_reset(w->broker);
	return w->broker;
}

int
fe_relay_failure(struct soap *soap, struct soap *peer, const char *what)
{
	char detail[1024];
	if (peer->error == SOAP_FAULT) {
		const char *code = *soap_faultcode(peer);
		const char *reason = soap_fault_string(peer);
		int server = code && (strstr(code, "Server") || strstr(code, "Receiver"));
		if (server)
			return soap_fault_server(soap, "%s: %s", what, reason ? reason : "fault");
		return soap_fault_client(soap, "%s: %s", what, reason ? reason : "fault");
	}
	soap_client_error(peer, detail, sizeof(detail));
	soap_closesock(peer); /* the connection's state is unknown: start afresh next time */
	log_warn("%s: %s", what, detail);
	return soap_fault_server(soap, "%s: %s", what, detail);
}
