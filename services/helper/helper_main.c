/*
 * helper_main.c: qcg-helper, the per-node agent (DESIGN.md section 1, paper 000 section 3.4).
 * Reads its configuration, opens the local API's unix socket for the node's processes, and
 * serves wsdl/helper.wsdl to its front-end over mutual TLS until SIGTERM or SIGINT; then it
 * stops accepting, kills what it launched, and removes its socket.
 *
 * Started as root with helper.user set, it is privilege-separated, relayd-style: before
 * anything else it forks the launcher (privsep_launcher.h), the only process that keeps root;
 * then it opens its sockets and credentials and drops to helper.user (privsep_drop.h) before
 * it reads a byte from the network. Launches go through the launcher (launch.c).
 *
 *   qcg-helper -c /etc/qcg/helper.conf [-s section.key=value ...] [--port-file FILE] [-n]
 *
 * Its start is lib/daemon_serve.h's: configure (settings, ACL, credentials), start (the
 * launcher, the local API, the SOAP server), ready (the privilege drop), run, stop.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soapH.h"
#include "config_file.h"
#include "daemon_serve.h"
#include "helper.h"
#include "helper_input_put.h"
#include "helper_api.h"
#include "launch.h"
#include "log.h"
#include "privsep_client.h"
#include "node_topology.h"
#include "privsep_drop.h"
#include "privsep_launcher.h"
#include "soap_server.h"
#include "tls_trust.h"

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-helper -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE] [-n]\n"
	    "  -c, --config FILE      configuration file (INI); see doc/qcg-helper.conf.example\n"
	    "  -s, --set KEY=VALUE    override one setting, e.g. -s helper.listen=0.0.0.0:8445\n"
	    "      --port-file FILE   write the bound SOAP port there once listening (for port 0)\n"
	    "  -n, --check            check the configuration and the files it names, and exit\n"
	    "  -h, --help             this text;   -V, --version\n");
}

/* The helper and what its start-up holds between the callbacks. */
struct helper_daemon {
	struct helper helper;
	struct soap_server_settings server_settings;
	struct soap_server *server;
	struct helper_api *api;
	struct privsep_client *launcher; /* NULL without privilege separation */
};

/* Settings, credentials and the ACL: what -n checks. */
static int
helper_configure(void *app, const struct config *cfg, const struct daemon_args *args,
    char *err, size_t errlen)
{
	struct helper_daemon *d = app;
	struct helper *h = &d->helper;
	(void)args;
	return helper_config_load(cfg, &h->cfg, err, errlen) != 0 ||
	    tls_settings_from_config(cfg, "tls", &h->tls, false, err, errlen) != 0 ||
	    tls_settings_check(&h->tls, err, errlen) != 0 ||
	    soap_server_settings_from_config(cfg, "helper", &d->server_settings, err,
		errlen) != 0 ||
	    acl_load(&h->acl, h->cfg.acl_path, err, errlen) != 0 ? -1 : 0;
}

/* Everything the handlers and sessions share. Forks the launcher first, while the process has
 * one thread; d->launcher stays NULL without separation. */
static int
prepare(struct helper_daemon *d, char *err, size_t errlen)
{
	struct helper *h = &d->helper;
	int fd;
	if (geteuid() == 0 && h->cfg.user[0] != '\0') {
		struct privsep_launcher_config lc = { .allow_root = h->cfg.allow_root_launch,
			.max_launches = h->cfg.max_launches };
		snprintf(lc.grid_mapfile, sizeof(lc.grid_mapfile), "%s", h->cfg.grid_mapfile);
		pid_t pid = privsep_launcher_fork(&lc, &fd, err, errlen);
		if (pid < 0)
			return -1;
		if ((d->launcher = privsep_client_new(fd)) == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		/* before the first thread: the flag is per thread, and threads inherit it */
		if (privsep_no_new_privs(err, errlen) != 0)
			return -1;
		log_info("launcher pid %d keeps root; launches only as accounts of %s", (int)pid,
		    lc.grid_mapfile);
	}
	h->jobs = helper_jobs_new(h->cfg.token_file, h->cfg.park_ms);
	h->launches = h->jobs == NULL ? NULL : launch_table_new(h->cfg.node, h->cfg.max_launches,
	    h->cfg.output_cap, h->cfg.allow_root_launch, h->jobs);
	if (h->launches == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (d->launcher != NULL)
		launch_table_use_launcher(h->launches, d->launcher);
	if (h->cfg.topology_xml[0] != '\0') {
		char why[512];
		if (node_topology_write(h->cfg.topology_xml, why, sizeof(why)) == 0) {
			launch_table_use_topology(h->launches, h->cfg.topology_xml);
			log_info("node topology in %s, for the job's processes",
			    h->cfg.topology_xml);
		} else {
			log_warn("%s; the job's processes discover the node themselves", why);
		}
	}
	pthread_mutex_init(&h->setups_lock, NULL);
	if (geteuid() != 0)
		log_warn("not running as root: Launch can start processes only as uid %u",
		    (unsigned)geteuid());
	else if (d->launcher == NULL)
		log_warn("running as root without privilege separation: set helper.user to a "
		    "service account");
	return 0;
}

/* SIGHUP: the ACL and the CA directory again; an ACL that fails to parse keeps the old one. */
static void
reload_policies(void *arg)
{
	struct helper *h = arg;
	char err[512];
	if (acl_reload(&h->acl, h->cfg.acl_path, err, sizeof(err)) != 0)
		log_error("reload: %s; keeping the rules loaded before", err);
	else
		log_info("reloaded %zu ACL rules from %s", h->acl.count, h->cfg.acl_path);
	tls_trust_reload_all();
}

static int
helper_start(void *app, char *err, size_t errlen)
{
	struct helper_daemon *d = app;
	static struct soap_service service = { .serve = soap_serve, .put = helper_input_put };
	service.app = &d->helper;
	return prepare(d, err, errlen) != 0 ||
	    helper_api_start(&d->helper, &d->api, err, errlen) != 0 ||
	    soap_server_open(&d->server, &d->server_settings, &d->helper.tls, &service, err,
		errlen) != 0 ? -1 : 0;
}

/* After the port file, which may lie where only root writes (a test's or testbed's
 * directory): the sockets are open and bound, nothing further needs root but the launcher. */
static int
helper_ready(void *app, char *err, size_t errlen)
{
	struct helper_daemon *d = app;
	struct helper *h = &d->helper;
	if (d->launcher != NULL) {
		if (privsep_drop_to(h->cfg.user, err, errlen) != 0)
			return -1;
		log_info("running as %s with no capabilities; only the launcher keeps root",
		    h->cfg.user);
	}
	log_info("qcg-helper %s: node %s, local API on %s, SOAP on %s:%d, front-end %s",
	    PACKAGE_VERSION, h->cfg.node, h->cfg.socket_path, d->server_settings.host,
	    soap_server_port(d->server), h->cfg.frontend_url);
	return 0;
}

static void
helper_reload(void *app)
{
	reload_policies(&((struct helper_daemon *)app)->helper);
}

static void
helper_stop(void *app)
{
	struct helper_daemon *d = app;
	helper_api_stop(d->api);
	launch_table_shutdown(d->helper.launches); /* first: long polls return, workers can stop */
	soap_server_close(d->server);
	launch_table_free(d->helper.launches);
	privsep_client_free(d->launcher); /* the launcher sees the end and exits */
	acl_free(&d->helper.acl);
}

int
main(int argc, char **argv)
{
	static struct helper_daemon daemon;
	const struct daemon_service service = {
		.args = { .name = "qcg-helper", .usage = usage },
		.section = "helper",
		.configure = helper_configure,
		.start = helper_start,
		.server = &daemon.server,
		.ready = helper_ready,
		.reload = helper_reload,
		.stop = helper_stop,
		.app = &daemon,
	};
	return daemon_serve(argc, argv, &service);
}
