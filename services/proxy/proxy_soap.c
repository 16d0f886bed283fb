/*
 * proxy_soap.c: the SOAP control service of qcg-proxy (proxy_soap.h). The handler is thin: it
 * checks the caller and copies relay_stats() into the response.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "log.h"
#include "proxy_config.h"
#include "proxy_soap.h"
#include "soap_server.h"

struct proxy_soap {
	struct proxy_soap_app app;
	struct soap_server *server;
	pthread_t thread;
	bool running; /* the thread was started */
};

bool
proxy_soap_may_read(const struct proxy_soap_app *app, const char *dn)
{
	return acl_roles(&app->acl, dn) != 0 || gridmap_account_of(&app->gridmap, dn, NULL);
}

int
__qp__GetStatistics(struct soap *soap, struct _qp__GetStatistics *req,
    struct _qp__GetStatisticsResponse *resp)
{
	struct soap_request *r = soap_request_of(soap);
	const struct proxy_soap_app *app = r->app;
	struct relay_stats st;

	(void)req;
	if (!proxy_soap_may_read(app, r->peer_dn)) {
		log_warn("denied statistics to %s (%s): neither in the ACL nor the grid-mapfile",
		    r->peer_dn, r->peer_address);
		return soap_fault_client(soap, "not authorized: %s is neither in the grid-mapfile "
		    "nor in the proxy's ACL", r->peer_dn);
	}
	relay_stats(app->plane, &st);
	memset(resp, 0, sizeof(*resp));
	resp->legs = (LONG64)st.legs_open;
	resp->activeRelays = (LONG64)st.relays_active;
	resp->pendingLegs = (LONG64)st.legs_waiting;
	resp->relaysCompleted = (LONG64)st.relays_completed;
	resp->bytesForwarded = (LONG64)(st.bytes_first_to_second + st.bytes_second_to_first);
	/* every hello that was turned away: malformed, or naming an id nobody announced or
	 * one already used */
	resp->rejectedHellos = (LONG64)(st.hellos_rejected + st.ids_unknown + st.ids_reused);
	resp->timeouts = (LONG64)(st.timeouts_hello + st.timeouts_partner);
	return SOAP_OK;
}

static void *
proxy_soap_run(void *arg)
{
	struct proxy_soap *ps = arg;

	soap_server_run(ps->server);
	return NULL;
}

static int
load_readers(struct proxy_soap_app *app, const struct proxy_config *cfg, char *err,
    size_t errlen)
{
	if (cfg->acl_path[0] && acl_load(&app->acl, cfg->acl_path, err, errlen) != 0)
		return -1;
	if (cfg->gridmap_path[0] && gridmap_load(&app->gridmap, cfg->gridmap_path, err,
	    errlen) != 0)
		return -1;
	log_info("statistics readers: %zu ACL rules from %s, %zu users from %s", app->acl.count,
	    cfg->acl_path[0] ? cfg->acl_path : "(none)", app->gridmap.count,
	    cfg->gridmap_path[0] ? cfg->gridmap_path : "(none)");
	return 0;
}

void
proxy_soap_reload(struct proxy_soap *ps, const struct proxy_config *cfg)
{
	char err[512];
	if (ps == NULL)
		return;
	if ((cfg->acl_path[0] && acl_reload(&ps->app.acl, cfg->acl_path, err, sizeof(err)) != 0) ||
	    (cfg->gridmap_path[0] &&
		gridmap_reload(&ps->app.gridmap, cfg->gridmap_path, err, sizeof(err)) != 0))
		log_error("reload: %s; keeping the readers loaded before", err);
	else
		log_info("reloaded statistics readers: %zu ACL rules, %zu users", ps->app.acl.count,
		    ps->app.gridmap.count);
}

struct proxy_soap *
proxy_soap_start(struct relay_plane *plane, const struct proxy_config *cfg, char *err,
    size_t errlen)
{
	struct proxy_soap *ps = calloc(1, sizeof(*ps));

	if (ps == NULL) {
		snprintf(err, errlen, "control service: out of memory");
		return NULL;
	}
	ps->app.plane = plane;
	struct soap_service service = { .serve = soap_serve, .app = &ps->app };
	if (load_readers(&ps->app, cfg, err, errlen) != 0 ||
	    soap_server_open(&ps->server, &cfg->control, &cfg->tls, &service, err, errlen) != 0)
		goto fail;
	int rc = pthread_create(&ps->thread, NULL, proxy_soap_run, ps);
	if (rc != 0) {
		snprintf(err, errlen, "control service: thread: %s", strerror(rc));
		goto fail;
	}
	ps->running = true;
	log_info("control service (GetStatistics) on https://%s:%d/ with %d workers",
	    cfg->control.host, proxy_soap_port(ps), cfg->control.workers);
	return ps;
fail:
	proxy_soap_stop(ps);
	return NULL;
}

int
proxy_soap_port(const struct proxy_soap *ps)
{
	return soap_server_port(ps->server);
}

void
proxy_soap_stop(struct proxy_soap *ps)
{
	if (ps == NULL)
		return;
	if (ps->running) {
		soap_server_request_stop();
		pthread_join(ps->thread, NULL);
	}
	soap_server_close(ps->server);
	acl_free(&ps->app.acl);
	gridmap_free(&ps->app.gridmap);
	free(ps);
}
