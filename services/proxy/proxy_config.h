/*
 * proxy_config.h: qcg-proxy's settings, from an INI-style file and the command line.
 *
 * The file holds "key = value" lines, '#' or ';' comments, blank lines, and an optional
 * "[proxy]" section header (other sections belong to other parts of the proxy, such as its
 * SOAP registration, and are skipped). Keys are the long option names without "--":
 *
 *   listen = HOST:PORT          relay port (default *:7300; port 0 = any free port)
 *   threads = N                 data-plane threads (default one per core)
 *   max-legs = N                legs open at once; more are refused
 *   max-ids = N                 relay ids remembered at once
 *   pipe-size = BYTES           buffer per direction of a relay
 *   hello-timeout-ms = MS       a leg must send its whole hello within this
 *   partner-timeout-ms = MS     a first leg waits this long for its partner (default 30000)
 *   used-id-ttl-ms = MS         a used id is refused as "reused" for this long
 *   accept-any-id = yes|no      INSECURE: join any two legs with the same id (tests only)
 *   control = PATH              local control socket (relay_control.h); none by default
 *   ready-file = PATH           written with "HOST:PORT" once the relay port listens
 *   stats-interval = SECONDS    log a statistics line this often (0 = never)
 *   log-level = error|warn|info|debug
 *   syslog = yes|no
 *
 * Command-line options override the file, whatever their order relative to --config.
 */
#ifndef QCG_PROXY_CONFIG_H
#define QCG_PROXY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "relay.h"

#define PROXY_PATH_MAX 108 /* a unix socket path's limit, used for every path for simplicity */
#define PROXY_CONFIG_LINE_MAX 1024
#define PROXY_CONFIG_LINES_MAX 10000
#define PROXY_STATS_INTERVAL_MAX 86400

struct proxy_config {
	struct relay_config relay;       /* the data plane's settings */
	char control_path[PROXY_PATH_MAX]; /* "" = no control socket */
	char ready_file[PROXY_PATH_MAX];   /* "" = none */
	unsigned stats_interval_s;       /* 0 = no periodic statistics line */
	int log_level;                   /* enum log_level */
	bool use_syslog;
};

/* Defaults: relay_config_defaults, no control socket, statistics every 60 s, level info. */
void proxy_config_defaults(struct proxy_config *cfg);

/* Set one key (a long option name without "--") to value. Returns 0, or -1 with the reason
 * naming the key in err. */
int proxy_config_set(struct proxy_config *cfg, const char *key, const char *value, char *err,
    size_t errlen);

/* Apply one line of a configuration file; *in_section tracks whether the current section is
 * ours. Returns 0, or -1 with the reason in err. */
int proxy_config_line(struct proxy_config *cfg, char *line, bool *in_section, char *err,
    size_t errlen);

/* Read a whole file; errors name the file and line. Returns 0 or -1. */
int proxy_config_load(struct proxy_config *cfg, const char *path, char *err, size_t errlen);

#endif
