/*
 * broker_main.c: qcg-broker, the grid's connection broker (DESIGN.md section 1, paper 000
 * section 3.1). Reads its configuration, opens the registry, and serves the broker WSDL over
 * mutual TLS until SIGTERM or SIGINT.
 *
 *   qcg-broker -c /etc/qcg/broker.conf [-s section.key=value ...] [--port-file FILE] [-n]
 *
 * Its start is lib/daemon_serve.h's: configure (settings, ACL, grid-mapfile, credentials),
 * start (registry, pruner, liveness, SOAP server), run, stop.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* sysconf */

#include "soapH.h"
#include "broker.h"
#include "config_file.h"
#include "daemon_serve.h"
#include "liveness.h"
#include "log.h"
#include "prune.h"
#include "registry.h"
#include "soap_server.h"
#include "tls.h"
#include "tls_trust.h"

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-broker -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE] [-n]\n"
	    "  -c, --config FILE      configuration file (INI); see doc/qcg-broker.conf.example\n"
	    "  -s, --set KEY=VALUE    override one setting, e.g. -s broker.listen=0.0.0.0:9443\n"
	    "      --port-file FILE   write the bound port there once listening (for port 0)\n"
	    "  -n, --check            check the configuration and the files it names, and exit\n"
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
prepare_registry(struct broker *b, char *err, size_t errlen)
{
	struct registry *reg;
	if (registry_open(b->db_path, &reg, err, errlen) != 0)
		return -1;
	log_info("registry %s at schema version %d", b->db_path, registry_schema_version(reg));
	registry_close(reg);
	return 0;
}

/* The broker and what its start-up holds between the callbacks. */
struct broker_daemon {
	struct broker broker;
	struct soap_server_settings server_settings;
	struct tls_settings tls;
	struct prune_settings prune;
	struct liveness_settings liveness;
	struct soap_server *server;
	struct pruner *pruner;
};

/* The broker's handlers compute and return, WaitEvents excepted, which gives its place back
 * while it waits (soap_server_wait_begin): unless broker.max_serving says otherwise, one
 * request per CPU is served at a time (two on one CPU, so that a handler waiting on the disk
 * does not stop the broker), however many workers cover the front-ends' long polls. At 64
 * busy clients on 2 CPUs, 16 workers with 2 places gave p99 4.4 ms; with 4, 5.2-5.6 ms; with
 * none, 8.8-9.7 ms; at the same throughput or better (bench/broker/README.md). */
static int
default_max_serving(const struct config *cfg, struct soap_server_settings *s)
{
	if (config_get(cfg, "broker.max_serving", NULL) != NULL)
		return 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->max_serving = cpus > 1 ? (int)(cpus < 1024 ? cpus : 1024) : 2;
	return 0;
}

static int
broker_configure(void *app, const struct config *cfg, const struct daemon_args *args,
    char *err, size_t errlen)
{
	struct broker_daemon *d = app;
	(void)args;
	return config_copy(cfg, "broker.database", "/var/lib/qcg/broker.db", d->broker.db_path,
		   sizeof(d->broker.db_path), err, errlen) != 0 ||
	    tls_settings_from_config(cfg, "tls", &d->tls, false, err, errlen) != 0 ||
	    tls_settings_check(&d->tls, err, errlen) != 0 ||
	    soap_server_settings_from_config(cfg, "broker", &d->server_settings, err,
		errlen) != 0 ||
	    default_max_serving(cfg, &d->server_settings) != 0 ||
	    load_policies(&d->broker, cfg, err, errlen) != 0 ||
	    prune_settings_from_config(cfg, &d->prune, err, errlen) != 0 ||
	    liveness_settings_from_config(cfg, &d->liveness, err, errlen) != 0 ||
	    config_get_bool(cfg, "broker.resumable_relays", true, &d->broker.resumable_relays, err,
		errlen) != 0 ? -1 : 0;
}

static int
broker_start(void *app, char *err, size_t errlen)
{
	struct broker_daemon *d = app;
	struct broker *b = &d->broker;
	if (prepare_registry(b, err, errlen) != 0 ||
	    pruner_start(b->db_path, &d->prune, &d->pruner, err, errlen) != 0 ||
	    liveness_start(b->db_path, &d->liveness, &b->liveness, err, errlen) != 0)
		return -1;
	b->events = events_new();
	if (b->events == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&b->cursor_lock, NULL);
	b->started = time(NULL);

	static struct soap_service service = {
		.serve = soap_serve,
		.worker_init = worker_open_registry,
		.worker_fini = worker_close_registry,
	};
	service.app = b;
	if (soap_server_open(&d->server, &d->server_settings, &d->tls, &service, err,
	    errlen) != 0)
		return -1;
	log_info("qcg-broker %s listening on %s:%d with %d workers, serving %d requests at once",
	    PACKAGE_VERSION, d->server_settings.host, soap_server_port(d->server),
	    d->server_settings.workers, d->server_settings.max_serving > 0 ?
	    d->server_settings.max_serving : d->server_settings.workers);
	return 0;
}

static void
broker_reload(void *app)
{
	reload_policies(&((struct broker_daemon *)app)->broker);
}

static void
broker_stop(void *app)
{
	struct broker_daemon *d = app;
	events_shutdown(d->broker.events);
	pruner_stop(d->pruner);
	soap_server_close(d->server);
	liveness_stop(d->broker.liveness);
	events_free(d->broker.events);
	acl_free(&d->broker.acl);
	gridmap_free(&d->broker.gridmap);
}

int
main(int argc, char **argv)
{
	static struct broker_daemon daemon;
	const struct daemon_service service = {
		.args = { .name = "qcg-broker", .usage = usage },
		.section = "broker",
		.configure = broker_configure,
		.start = broker_start,
		.server = &daemon.server,
		.reload = broker_reload,
		.stop = broker_stop,
		.app = &daemon,
	};
	return daemon_serve(argc, argv, &service);
}
