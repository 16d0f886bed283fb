/*
 * daemon_args.h: the command line every qcg daemon shares, and the rest of its start (logging
 * from its section, the stop signals):
 *
 *   NAME -c CONFIG [-s SECTION.KEY=VALUE ...] [--port-file FILE] [-h] [-V]
 *
 * The configuration file is read first and the -s overrides applied after it, so that the
 * command line always wins.
 */
#ifndef QCG_DAEMON_ARGS_H
#define QCG_DAEMON_ARGS_H

#include <stdio.h>

struct config;

/* Parse the command line into cfg and *port_file (NULL when absent). -h and -V print and exit
 * 0; a usage error prints usage to stderr and exits 2. Returns 0, or -1 after printing
 * "NAME: reason" when the file or an override is bad. */
int daemon_args_parse(int argc, char **argv, const char *name, void (*usage)(FILE *out),
    struct config *cfg, const char **port_file);
/* Logging from [section] log_level (error|warn|info|debug, default info) and syslog (default
 * no), under name. Returns 0, or -1 after printing "NAME: reason". */
int daemon_start_logging(const struct config *cfg, const char *section, const char *name);
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
