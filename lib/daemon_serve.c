/*
 * daemon_serve.c: the one start-up of the qcg daemons (daemon_serve.h).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "config_file.h"
#include "daemon_serve.h"
#include "log.h"
#include "soap_server.h"
#include "tls.h"

/* An old option's new spelling: "-s proxy.max_legs=VALUE" for --max-legs. */
static void
warn_legacy_options(const struct daemon_service *svc, const struct daemon_args *args)
{
	for (size_t i = 0; i < args->legacy_count; i++) {
		const struct daemon_legacy_option *o = args->legacy_used[i];
		log_warn("option --%s is the old spelling and goes in the next release: write "
		    "-s %s.%s=%s (or %s in [%s] of the configuration file)", o->name,
		    svc->args.section, o->key, o->has_arg ? "VALUE" : "yes", o->key,
		    svc->args.section);
	}
}

/* SIGINT, SIGTERM and SIGHUP blocked in this thread and every thread it starts. */
static void
block_stop_signals(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int
daemon_serve(int argc, char **argv, const struct daemon_service *svc)
{
	static struct config cfg; /* large; one per process */
	struct daemon_args args;
	const char *name = svc->args.name;
	char err[1024];

	config_init(&cfg);
	log_init(name, LOG_LEVEL_INFO, 0); /* so that errors before the configuration carry our name */
	if (daemon_args_parse(argc, argv, &svc->args, &cfg, &args, err, sizeof(err)) != 0 ||
	    daemon_start_logging(&cfg, svc->section, name, err, sizeof(err)) != 0)
		goto bad_config;
	warn_legacy_options(svc, &args);
	tls_global_init();
	if (svc->configure(svc->app, &cfg, &args, err, sizeof(err)) != 0)
		goto bad_config;
	if (args.check_only) {
		printf("%s: configuration %s is good\n", name,
		    args.config_path ? args.config_path : "(defaults)");
		return 0;
	}

	if (svc->run_takes_signals)
		block_stop_signals();
	else
		daemon_catch_stop_signals();
	if (svc->start(svc->app, err, sizeof(err)) != 0)
		fatal("%s", err);
	if (svc->reload != NULL &&
	    daemon_catch_reload_signal(svc->reload, svc->app, err, sizeof(err)) != 0)
		fatal("%s", err);
	if (svc->write_port_file != NULL)
		svc->write_port_file(svc->app, args.port_file);
	else if (args.port_file != NULL)
		daemon_write_port_file(args.port_file, soap_server_port(*svc->server));
	if (svc->ready != NULL && svc->ready(svc->app, err, sizeof(err)) != 0)
		fatal("%s", err);
	if (svc->server != NULL)
		soap_server_run(*svc->server);
	else
		svc->run(svc->app);
	log_info("stopping");
	svc->stop(svc->app);
	return 0;

bad_config:
	/* The same words for -n and for a start: the file and line, and the reason. */
	config_locate_error(&cfg, args.config_path ? args.config_path : "command line", err,
	    sizeof(err));
	if (args.check_only) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	fatal("%s", err);
}
