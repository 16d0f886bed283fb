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
 *   qcg-helper -c /etc/qcg/helper.conf [-s section.key=value ...] [--port-file FILE]
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soapH.h"
#include "config_file.h"
#include "daemon_args.h"
#include "helper.h"
#include "helper_api.h"
#include "launch.h"
#include "log.h"
#include "privsep_client.h"
#include "privsep_drop.h"
#include "privsep_launcher.h"
#include "soap_server.h"
#include "tls_trust.h"

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-helper -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE]\n"
	    "  -c, --config FILE      configuration file (INI); see doc/qcg-helper.conf.example\n"
	    "  -s, --set KEY=VALUE    override one setting, e.g. -s helper.listen=0.0.0.0:8445\n"
	    "      --port-file FILE   write the bound SOAP port there once listening (for port 0)\n"
	    "  -h, --help             this text;   -V, --version\n");
}

/* Everything the handlers and sessions share; fatal on a configuration error. Forks the
 * launcher first, while the process has one thread; *launcher is NULL without separation. */
static void
prepare(struct helper *h, const struct config *cfg, struct soap_server_settings *server,
    struct privsep_client **launcher)
{
	char err[512];
	int fd;
	*launcher = NULL;
	if (helper_config_load(cfg, &h->cfg, err, sizeof(err)) != 0 ||
	    tls_settings_from_config(cfg, "tls", &h->tls, false, err, sizeof(err)) != 0 ||
	    soap_server_settings_from_config(cfg, "helper", server, err, sizeof(err)) != 0 ||
	    acl_load(&h->acl, h->cfg.acl_path, err, sizeof(err)) != 0)
		fatal("%s", err);
	if (geteuid() == 0 && h->cfg.user[0] != '\0') {
		struct privsep_launcher_config lc = { .allow_root = h->cfg.allow_root_launch,
			.max_launches = h->cfg.max_launches };
		snprintf(lc.grid_mapfile, sizeof(lc.grid_mapfile), "%s", h->cfg.grid_mapfile);
		pid_t pid = privsep_launcher_fork(&lc, &fd, err, sizeof(err));
		if (pid < 0 || (*launcher = privsep_client_new(fd)) == NULL)
			fatal("%s", pid < 0 ? err : "out of memory");
		/* before the first thread: the flag is per thread, and threads inherit it */
		if (privsep_no_new_privs(err, sizeof(err)) != 0)
			fatal("%s", err);
		log_info("launcher pid %d keeps root; launches only as accounts of %s", (int)pid,
		    lc.grid_mapfile);
	}
	h->jobs = helper_jobs_new(h->cfg.token_file, h->cfg.park_ms);
	h->launches = h->jobs == NULL ? NULL : launch_table_new(h->cfg.node, h->cfg.max_launches,
	    h->cfg.output_cap, h->cfg.allow_root_launch, h->jobs);
	if (h->launches == NULL)
		fatal("out of memory");
	if (*launcher != NULL)
		launch_table_use_launcher(h->launches, *launcher);
	pthread_mutex_init(&h->setups_lock, NULL);
	if (geteuid() != 0)
		log_warn("not running as root: Launch can start processes only as uid %u",
		    (unsigned)geteuid());
	else if (*launcher == NULL)
		log_warn("running as root without privilege separation: set helper.user to a "
		    "service account");
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

int
main(int argc, char **argv)
{
	static struct config cfg;
	static struct helper helper;
	struct soap_server_settings server_settings;
	struct soap_server *server;
	struct helper_api *api;
	struct privsep_client *launcher;
	const char *port_file = NULL;
	char err[512];

	config_init(&cfg);
	if (daemon_args_parse(argc, argv, "qcg-helper", usage, &cfg, &port_file) != 0 ||
	    daemon_start_logging(&cfg, "helper", "qcg-helper") != 0)
		return 2;
	tls_global_init();
	prepare(&helper, &cfg, &server_settings, &launcher);

	struct soap_service service = { .serve = soap_serve, .app = &helper };
	daemon_catch_stop_signals();
	if (daemon_catch_reload_signal(reload_policies, &helper, err, sizeof(err)) != 0 ||
	    helper_api_start(&helper, &api, err, sizeof(err)) != 0 ||
	    soap_server_open(&server, &server_settings, &helper.tls, &service, err,
		sizeof(err)) != 0)
		fatal("%s", err);
	/* The port file may lie where only root writes (a test's or testbed's directory). */
	if (port_file)
		daemon_write_port_file(port_file, soap_server_port(server));
	/* The sockets are open and bound: nothing further needs root but the launcher. */
	if (launcher != NULL) {
		if (privsep_drop_to(helper.cfg.user, err, sizeof(err)) != 0)
			fatal("%s", err);
		log_info("running as %s with no capabilities; only the launcher keeps root",
		    helper.cfg.user);
	}
	log_info("qcg-helper %s: node %s, local API on %s, SOAP on %s:%d, front-end %s",
	    PACKAGE_VERSION, helper.cfg.node, helper.cfg.socket_path, server_settings.host,
	    soap_server_port(server), helper.cfg.frontend_url);
	soap_server_run(server);
	log_info("stopping");
	helper_api_stop(api);
	launch_table_shutdown(helper.launches); /* first: long polls return, workers can stop */
	soap_server_close(server);
	launch_table_free(helper.launches);
	privsep_client_free(launcher); /* the launcher sees the end and exits */
	acl_free(&helper.acl);
	return 0;
}
