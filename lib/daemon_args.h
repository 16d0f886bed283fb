/*
 * daemon_args.h: the command line every qcg daemon shares, and the pieces of its start that
 * daemon_serve.c puts together (logging from its section, the signals, the port file):
 *
 *   NAME -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE] [-n] [-h] [-V]
 *
 * The configuration file is read first and the -s overrides applied after it, so that the
 * command line always wins. -n checks the configuration and exits (daemon_serve.h).
 */
#ifndef QCG_DAEMON_ARGS_H
#define QCG_DAEMON_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct config;

#define DAEMON_LEGACY_MAX 32 /* old options one command line may use (each reported once) */

/* A long option of an earlier release that set a key (qcg-proxy's --max-legs=4): it keeps
 * working for one release, as "-s SECTION.KEY=VALUE" ("yes" without an argument), and the
 * daemon warns with the new spelling. */
struct daemon_legacy_option {
	const char *name;  /* "max-legs", without the dashes */
	bool has_arg;      /* false: a flag, which sets "yes" */
	const char *key;   /* the key of [section] it sets, as spelled now: "max_legs" */
};

/* How one daemon's command line is read. */
struct daemon_args_spec {
	const char *name;                            /* "qcg-broker": messages */
	void (*usage)(FILE *out);                    /* -h, and usage errors */
	bool config_optional;                        /* qcg-proxy runs on defaults without -c */
	const char *section;                         /* where legacy options set their keys */
	const struct daemon_legacy_option *legacy;   /* NULL, or ended by a NULL name */
};

/* What the command line said. */
struct daemon_args {
	const char *config_path;                     /* -c; NULL when absent */
	const char *port_file;                       /* --port-file; NULL when absent */
	bool check_only;                             /* -n */
	const struct daemon_legacy_option *legacy_used[DAEMON_LEGACY_MAX]; /* for the warning */
	size_t legacy_count;
};

/* Parse the command line into cfg and out. -h and -V print and exit 0; a usage error prints
 * usage to stderr and exits 2. Returns 0, or -1 with err saying what is wrong with the file
 * ("FILE:LINE: reason") or an override. */
int daemon_args_parse(int argc, char **argv, const struct daemon_args_spec *spec,
    struct config *cfg, struct daemon_args *out, char *err, size_t errlen);
/* Logging from [section] log_level (error|warn|info|debug, default info) and syslog (default
 * no), under name. Returns 0, or -1 with err naming the key. */
int daemon_start_logging(const struct config *cfg, const char *section, const char *name,
    char *err, size_t errlen);
/* SIGTERM and SIGINT stop the SOAP server's accept loop (soap_server_request_stop); SIGPIPE is
 * ignored (a peer that went away is an error on that call, not the end of the daemon). */
void daemon_catch_stop_signals(void);
/* SIGHUP (which would otherwise kill the daemon) calls reload(arg) on a thread of its own; the
 * service reloads its grid-mapfile and ACL there (gridmap_reload, acl_reload) and the CA
 * directory (tls_trust_reload_all). A file that fails to parse keeps the old contents. */
int daemon_catch_reload_signal(void (*reload)(void *), void *arg, char *err, size_t errlen);
/* Write the bound port to path (tests and scripts start daemons on port 0); fatal on error. */
void daemon_write_port_file(const char *path, int port);

#endif
