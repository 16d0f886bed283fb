/*
 * daemon_serve.h: how every qcg daemon (qcg-broker, qcg-frontend, qcg-helper, qcg-proxy)
 * starts, checks its configuration, runs and stops. A daemon's main is its callbacks and one
 * call:
 *
 *   command line (daemon_args.h) -> logging from [section] -> configure -> -n: exit here
 *   -> stop signals -> start -> SIGHUP reload thread -> port file -> ready -> run -> stop
 *
 * configure parses and validates every setting and loads every file the settings name
 * (certificates, key, CA directory, ACL, grid-mapfile), without opening a socket or starting
 * a thread; so `NAME -n -c FILE` runs exactly the checks a start runs, and exits 0 when they
 * pass, or 1 with "FILE:LINE: reason" on stderr (config_locate_error). A start that fails the
 * same checks says the same thing, through fatal().
 */
#ifndef QCG_DAEMON_SERVE_H
#define QCG_DAEMON_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "daemon_args.h"

struct config;
struct soap_server;

struct daemon_service {
	struct daemon_args_spec args;  /* name, usage, and the command line's variations */
	const char *section;           /* [section] log_level and syslog */
	/* Settings and files into app; no sockets, no threads (it is all -n runs). args is the
	 * command line (the proxy's legacy options, its --port-file). */
	int (*configure)(void *app, const struct config *cfg, const struct daemon_args *args,
	    char *err, size_t errlen);
	/* Open the sockets and start the threads (the helper forks its launcher first). */
	int (*start)(void *app, char *err, size_t errlen);
	/* A SOAP daemon's server, which start opens: then the port file holds its port and run is
	 * soap_server_run. Otherwise write_port_file, called always (path NULL without
	 * --port-file), for a daemon whose file says more and may be named in its configuration
	 * too (the proxy's), and run. */
	struct soap_server *const *server;
	void (*write_port_file)(void *app, const char *path);
	/* After the port file: the helper drops its privileges here. May be NULL. */
	int (*ready)(void *app, char *err, size_t errlen);
	/* Serve until a stop signal (without server). */
	void (*run)(void *app);
	/* SIGHUP: reload the ACL, grid-mapfile and CA directory, on a thread of its own. NULL
	 * when run takes the signals itself (run_takes_signals). */
	void (*reload)(void *app);
	/* Stop the threads and free what start made. */
	void (*stop)(void *app);
	/* run waits for SIGINT, SIGTERM and SIGHUP itself (sigtimedwait): daemon_serve blocks
	 * them before start, so that every thread inherits the block. */
	bool run_takes_signals;
	void *app;
};

/* Run the daemon: returns main's exit status (0 after a stop signal; 1 when -n finds the
 * configuration bad; 2 for a bad command line). Fatal errors after configure exit 1. */
int daemon_serve(int argc, char **argv, const struct daemon_service *svc);

#endif
