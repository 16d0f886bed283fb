/*
 * broker_main.c: qcg-broker, the grid's connection broker (DESIGN.md section 1, paper 000
 * section 3.1). Reads its configuration, opens the registry, and serves the broker WSDL over
 * mutual TLS until SIGTERM or SIGINT.
 *
 *   qcg-broker -c /etc/qcg/broker.conf [-s section.key=value ...] [--port-file FILE]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "broker.h"
#include "config_file.h"
#include "daemon_args.h"
#include "liveness.h"
#include "log.h"
#include "prune.h"
#include "registry.h"
#include "soap_server.h"
#include "tls_trust.h"

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-broker -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE]\n"
	    "  -c, --config FILE      configuration file (INI); see doc/qcg-broker.conf.example\n"
	    "  -s, --set KEY=VALUE    override one setting, e.g. -s broker.listen=0.0.0.0:9443\n"
	    "      --port-file FILE   write the bound port there once listening (for port 0)\n"
	    "  -h, --help             this text;   -V, --version\n");
}

/* Each worker thread gets its own registry connection: SQLite connections are not shared. */
static void *
worker_open_registry(void *app)
{
	struct broker *b = app;
	struct registry *reg;
	char err[512];
	if (registry_open(b->db_path, &reg, err, sizeof(err)) != 0) {
		log_error("worker: %s", err);
		return NULL;
	}
	return reg;
}

static void
worker_close_registry(void *state)
{
	registry_close(state);
}

/* Where the ACL and grid-mapfile come from, for SIGHUP. */
static const char *acl_path, *gridmap_path;

static int
load_policies(struct broker *b, const struct config *cfg, char *err, size_t errlen)
{
	acl_path = config_get(cfg, "broker.acl", "/etc/qcg/broker.acl");
	gridmap_path = config_get(cfg, "broker.gridmap", "/etc/grid-security/grid-mapfile");
	if (acl_load(&b->acl, acl_path, err, errlen) != 0 ||
	    gridmap_load(&b->gridmap, gridmap_path, err, errlen) != 0)
		return -1;
	log_info("%zu ACL rules from %s, %zu users from %s", b->acl.count, acl_path,
	    b->gridmap.count, gridmap_path);
	return 0;
}

/* SIGHUP: the files again; one that fails to parse keeps what was loaded (and says so). */
static void
reload_policies(void *arg)
{
	struct broker *b = arg;
	char err[512];
	if (acl_reload(&b->acl, acl_path, err, sizeof(err)) != 0 ||
	    gridmap_reload(&b->gridmap, gridmap_path, err, sizeof(err)) != 0)
		log_error("reload: %s; keeping the rules loaded before", err);
	else
		log_info("reloaded %zu ACL rules from %s, %zu users from %s", b->acl.count,
		    acl_path, b->gridmap.count, gridmap_path);
	tls_trust_reload_all();
}

/* Apply migrations once, before workers open their own connections. */
static int
prepare_registry(struct broker *b, const struct config *cfg, char *err, size_t errlen)
{
	struct registry *reg;
	if (config_copy(cfg, "broker.database", "/var/lib/qcg/broker.db", b->db_path,
	    sizeof(b->db_path), err, errlen) != 0)
		return -1;
	if (registry_open(b->db_path, &reg, err, errlen) != 0)
		return -1;
	log_info("registry %s at schema version %d", b->db_path, registry_schema_version(reg));
	registry_close(reg);
	return 0;
}

int
main(int argc, char **argv)
{
	static struct config cfg;
	static struct broker broker;
	struct soap_server_settings server_settings;
	struct tls_settings tls;
	struct soap_server *server;
	struct prune_settings prune;
	struct pruner *pruner;
	struct liveness_settings liveness;
	const char *port_file = NULL;
	char err[512];

	config_init(&cfg);
	if (daemon_args_parse(argc, argv, "qcg-broker", usage, &cfg, &port_file) != 0 ||
	    daemon_start_logging(&cfg, "broker", "qcg-broker") != 0)
		return 2;
	tls_global_init();
	if (tls_settings_from_config(&cfg, "tls", &tls, false, err, sizeof(err)) != 0 ||
	    soap_server_settings_from_config(&cfg, "broker", &server_settings, err,
		sizeof(err)) != 0 ||
	    load_policies(&broker, &cfg, err, sizeof(err)) != 0 ||
	    prune_settings_from_config(&cfg, &prune, err, sizeof(err)) != 0 ||
	    liveness_settings_from_config(&cfg, &liveness, err, sizeof(err)) != 0 ||
	    prepare_registry(&broker, &cfg, err, sizeof(err)) != 0 ||
	    pruner_start(broker.db_path, &prune, &pruner, err, sizeof(err)) != 0 ||
	    liveness_start(broker.db_path, &liveness, &broker.liveness, err, sizeof(err)) != 0)
		fatal("%s", err);
	broker.events = events_new();
	if (broker.events == NULL)
		fatal("out of memory");
	pthread_mutex_init(&broker.cursor_lock, NULL);
	broker.started = time(NULL);

	struct soap_service service = {
		.serve = soap_serve,
		.worker_init = worker_open_registry,
		.worker_fini = worker_close_registry,
		.app = &broker,
	};
	daemon_catch_stop_signals();
	if (daemon_catch_reload_signal(reload_policies, &broker, err, sizeof(err)) != 0 ||
	    soap_server_open(&server, &server_settings, &tls, &service, err, sizeof(err)) != 0)
		fatal("%s", err);
	log_info("qcg-broker %s listening on %s:%d with %d workers", PACKAGE_VERSION,
	    server_settings.host, soap_server_port(server), server_settings.workers);
	if (port_file)
		daemon_write_port_file(port_file, soap_server_port(server));
	soap_server_run(server);
	log_info("stopping");
	events_shutdown(broker.events);
	pruner_stop(pruner);
	soap_server_close(server);
	liveness_stop(broker.liveness);
	events_free(broker.events);
	acl_free(&broker.acl);
	gridmap_free(&broker.gridmap);
	return 0;
}
