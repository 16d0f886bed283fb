/*
 * frontend_main.c: qcg-frontend, one per cluster on its gateway (DESIGN.md section 1, paper 000
 * section 3.2). Declares the cluster to the broker and keeps it declared, relays helpers'
 * requests to the broker and the broker's events to helpers, caches resolutions per job, and
 * reserves and launches on the cluster's nodes for grid users.
 *
 *   qcg-frontend -c /etc/qcg/frontend.conf [-s section.key=value ...] [--port-file FILE] [-n]
 *
 * Its start is lib/daemon_serve.h's: configure (settings, ACL, grid-mapfile, credentials),
 * start (SOAP server, delivery, broker link, walltime keeper), run, stop.
 *
 * Threads: the SOAP server's accept loop (this one) and workers, the broker link and the
 * delivery thread. SIGTERM/SIGINT stop them all; the cluster stays registered with the broker
 * (a front-end restart is not the cluster going away).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "broker_link.h"
#include "broker_pool.h"
#include "config_file.h"
#include "daemon_serve.h"
#include "delivery.h"
#include "allocator.h"
#include "frontend.h"
#include "helper_probe.h"
#include "log.h"
#include "reservations.h"
#include "stage_quota.h"
#include "resolve_cache.h"
#include "pair_cache.h"
#include "local_listeners.h"
#include "soap_server.h"
#include "tls_trust.h"
#include "walltime.h"

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-frontend -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE] [-n]\n"
	    "  -c, --config FILE      configuration file (INI); see doc/qcg-frontend.conf.example\n"
	    "  -s, --set KEY=VALUE    override one setting, e.g. -s frontend.listen=0.0.0.0:8444\n"
	    "      --port-file FILE   write the bound port there once listening (for port 0)\n"
	    "  -n, --check            check the configuration and the files it names, and exit\n"
	    "  -h, --help             this text;   -V, --version\n");
}

/* Everything the workers share, from the configuration. */
static int
load_state(struct frontend *fe, const struct config *cfg, const struct soap_server_settings *srv,
    char *err, size_t errlen)
{
	if (tls_settings_from_config(cfg, "tls", &fe->tls, false, err, errlen) != 0 ||
	    tls_settings_check(&fe->tls, err, errlen) != 0 ||
	    fe_config_parse(cfg, srv->host, srv->port, &fe->cfg, err, errlen) != 0 ||
	    acl_load(&fe->acl, fe->cfg.acl_path, err, errlen) != 0 ||
	    gridmap_load(&fe->gridmap, fe->cfg.gridmap_path, err, errlen) != 0)
		return -1;
	fe->cache = resolve_cache_new((size_t)fe->cfg.cache_max_entries,
	    (size_t)fe->cfg.cache_max_per_job);
	fe->reservations = resv_table_new(fe->cfg.nodes, fe->cfg.node_count,
	    (size_t)fe->cfg.max_reservations, (size_t)fe->cfg.max_launches);
	fe->helpers = helper_probe_new(fe->cfg.nodes, fe->cfg.node_count);
	fe->listeners = local_listeners_new();
	fe->stage_quota = fe_stage_quota_new(fe);
	fe->pairs = pair_cache_new();
	if (fe->cache == NULL || fe->reservations == NULL || fe->helpers == NULL ||
	    fe->listeners == NULL || fe->stage_quota == NULL || fe->pairs == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((fe->allocator = allocator_new(&fe->cfg, fe->reservations, err, errlen)) == NULL)
		return -1;
	struct soap_client_settings bs = fe_broker_client_settings(fe, 0);
	fe->brokers = broker_pool_new((size_t)fe->cfg.broker_connections, &fe->tls, &bs, err, errlen);
	if (fe->brokers == NULL)
		return -1;
	log_info("cluster %s (%s), nodes allocated by %s", fe->cfg.cluster.name,
	    cluster_policy_name(fe->cfg.cluster.policy), allocator_name(fe->allocator));
	log_info("cluster %s (%s), %zu nodes, %zu helper ACL rules from %s, %zu users from %s",
	    fe->cfg.cluster.name, cluster_policy_name(fe->cfg.cluster.policy), fe->cfg.node_count,
	    fe->acl.count, fe->cfg.acl_path, fe->gridmap.count, fe->cfg.gridmap_path);
	return 0;
}

/* SIGHUP: the helper ACL, the grid-mapfile and the CA directory again; a file that fails to
 * parse keeps what was loaded. */
static void
reload_policies(void *arg)
{
	struct frontend *fe = arg;
	char err[512];
	if (acl_reload(&fe->acl, fe->cfg.acl_path, err, sizeof(err)) != 0 ||
	    gridmap_reload(&fe->gridmap, fe->cfg.gridmap_path, err, sizeof(err)) != 0)
		log_error("reload: %s; keeping the rules loaded before", err);
	else
		log_info("reloaded %zu helper ACL rules from %s, %zu users from %s", fe->acl.count,
		    fe->cfg.acl_path, fe->gridmap.count, fe->cfg.gridmap_path);
	tls_trust_reload_all();
}

/* A cluster's policy changed (or it left): the decisions cached for pairs with it may be
 * wrong now. Our own cluster's change touches every pair (we are one side of each). */
static void
policy_changed(struct frontend *fe, const struct qcg_event *ev)
{
	bool ours = strcmp(ev->node, fe->cfg.cluster.name) == 0;
	size_t dropped = ours ? pair_cache_clear(fe->pairs) :
	    pair_cache_drop_cluster(fe->pairs, ev->node);
	size_t answers = resolve_cache_drop_cluster(fe->cache, ours ? NULL : ev->node);
	log_info("policy of cluster %s changed: %zu pair decisions and %zu cached answers dropped",
	    ev->node, dropped, answers);
	/* the helpers keep pairs too (services/helper/helper_paircache.h) */
	for (size_t i = 0; i < fe->cfg.node_count; i++)
		delivery_enqueue(fe->delivery, i, ev);
}

/* The broker link's callback: "connect" to the event's node, "job-ended" to every node (and
 * the job's cached answers go, and its reservations after a grace), "policy-changed" empties
 * the caches of the pairs it touches. */
static void
route_event(void *arg, const struct qcg_event *ev)
{
	struct frontend *fe = arg;
	if (ev->kind == EVENT_POLICY_CHANGED) {
		policy_changed(fe, ev);
		return;
	}
	if (ev->kind == EVENT_JOB_ENDED) {
		size_t dropped = resolve_cache_drop_job(fe->cache, ev->job);
		size_t pairs = pair_cache_drop_job(fe->pairs, ev->job);
		local_listeners_drop_job(fe->listeners, ev->job);
		size_t held = resv_end_job(fe->reservations, fe_now(), ev->job,
		    (double)fe->cfg.job_end_grace);
		log_info("job %s ended: %zu cached answers dropped (and %zu pair decisions); %zu "
		    "reservations held for it are released in %ld s unless its launcher releases "
		    "them", ev->job, dropped, pairs, held, fe->cfg.job_end_grace);
		for (size_t i = 0; i < fe->cfg.node_count; i++)
			delivery_enqueue(fe->delivery, i, ev);
		return;
	}
	if (ev->kind != EVENT_CONNECT) {
		log_debug("event %lld of kind %s ignored", (long long)ev->sequence,
		    event_kind_name(ev->kind));
		return;
	}
	const struct fe_node *node = fe_config_node(&fe->cfg, ev->node);
	if (node == NULL) {
		log_warn("connect event %lld for job %s names node '%s', which is not ours",
		    (long long)ev->sequence, ev->job, ev->node);
		return;
	}
	log_debug("connect event %lld: job %s, node %s port %u", (long long)ev->sequence, ev->job,
	    node->name, ev->port);
	delivery_enqueue(fe->delivery, (size_t)(node - fe->cfg.nodes), ev);
}

/* The front-end and what its start-up holds between the callbacks. */
struct frontend_daemon {
	struct frontend fe;
	struct soap_server_settings srv;
	struct soap_server *server;
	struct walltime_keeper *walltime;
};

static int
frontend_configure(void *app, const struct config *cfg, const struct daemon_args *args,
    char *err, size_t errlen)
{
	struct frontend_daemon *d = app;
	(void)args;
	return soap_server_settings_from_config(cfg, "frontend", &d->srv, err, errlen) != 0 ||
	    load_state(&d->fe, cfg, &d->srv, err, errlen) != 0 ? -1 : 0;
}

static int
frontend_start(void *app, char *err, size_t errlen)
{
	struct frontend_daemon *d = app;
	struct frontend *fe = &d->fe;
	static struct soap_service service = {
		.serve = soap_serve,
		.worker_init = fe_worker_new,
		.worker_fini = fe_worker_free,
		.put = fe_stage_put,
	};
	service.app = fe;
	if (soap_server_open(&d->server, &d->srv, &fe->tls, &service, err, errlen) != 0)
		return -1;
	if (fe->cfg.cluster.frontend_endpoint[0] == '\0') /* listening on port 0 */
		snprintf(fe->cfg.cluster.frontend_endpoint,
		    sizeof(fe->cfg.cluster.frontend_endpoint), "https://%s:%d/", d->srv.host,
		    soap_server_port(d->server));
	if ((fe->delivery = delivery_start(&fe->cfg, &fe->tls, err, errlen)) == NULL ||
	    (fe->link = broker_link_start(&fe->cfg, &fe->tls, route_event, fe, err,
		 errlen)) == NULL ||
	    (d->walltime = walltime_start(fe, err, errlen)) == NULL)
		return -1;
	log_info("qcg-frontend %s for cluster %s listening on %s:%d with %d workers; broker %s",
	    PACKAGE_VERSION, fe->cfg.cluster.name, d->srv.host, soap_server_port(d->server),
	    d->srv.workers, fe->cfg.broker_url);
	return 0;
}

static void
frontend_reload(void *app)
{
	reload_policies(&((struct frontend_daemon *)app)->fe);
}

static void
frontend_stop(void *app)
{
	struct frontend_daemon *d = app;
	struct frontend *fe = &d->fe;
	walltime_stop(d->walltime);
	broker_link_stop(fe->link);
	delivery_stop(fe->delivery);
	soap_server_close(d->server);
	broker_pool_free(fe->brokers);
	allocator_free(fe->allocator); /* ends every Slurm allocation it still holds */
	resv_table_free(fe->reservations);
	stage_quota_free(fe->stage_quota);
	helper_probe_free(fe->helpers);
	resolve_cache_free(fe->cache);
	pair_cache_free(fe->pairs);
	local_listeners_free(fe->listeners);
	acl_free(&fe->acl);
	gridmap_free(&fe->gridmap);
}

int
main(int argc, char **argv)
{
	static struct frontend_daemon daemon;
	const struct daemon_service service = {
		.args = { .name = "qcg-frontend", .usage = usage },
		.section = "frontend",
		.configure = frontend_configure,
		.start = frontend_start,
		.server = &daemon.server,
		.reload = frontend_reload,
		.stop = frontend_stop,
		.app = &daemon,
	};
	return daemon_serve(argc, argv, &service);
}
