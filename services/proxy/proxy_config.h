/*
 * proxy_config.h: qcg-proxy's settings, read with lib/config_file (the project's one INI
 * parser) from the file named by --config, then the command line (`-s section.key=value`
 * overrides, which win whatever their order relative to --config; lib/daemon_args.h).
 *
 * The keys are spelled as the other daemons' are (log_level, not log-level). The hyphenated
 * spelling of an earlier release (max-legs, log-level, ..., and ready-file for port_file) and
 * its options (--max-legs=N, --ready-file F, ...) still work for one release, with a warning
 * in the log naming the new spelling.
 *
 *   [proxy]
 *   listen = HOST:PORT          relay (data) port (default *:7300; port 0 = any free port)
 *   threads = N                 data-plane threads (default one per core)
 *   max_legs = N                legs open at once; more are refused
 *   max_ids = N                 relay ids remembered at once
 *   pipe_size = BYTES           buffer per direction of a relay
 *   hello_timeout_ms = MS       a leg must send its whole hello within this
 *   partner_timeout_ms = MS     a first leg waits this long for its partner (default 30000)
 *   unknown_id_wait_ms = MS     a leg whose id is not announced yet waits this long for the
 *                               broker's announcement before it is refused (default 5000;
 *                               0 refuses at once)
 *   used_id_ttl_ms = MS         a used id is refused as "reused" for this long
 *   accept_any_id = yes|no      INSECURE: join any two legs with the same id (benchmarks);
 *                               refused together with a broker
 *   control = PATH              local control socket (relay_control.h); none by default
 *   port_file = PATH            written once listening (or --port-file): "HOST:PORT" of the
 *                               relay port, and a second line "control URL" when the SOAP
 *                               control service runs
 *   stats_interval = SECONDS    log a statistics line this often (0 = never)
 *   log_level = error|warn|info|debug
 *   syslog = yes|no
 *
 *   broker = URL                the broker to register with and take relays from; none by
 *                               default (then only the control socket announces ids)
 *   advertise = HOST[:PORT]     the relay endpoint the broker hands out (may differ from
 *                               listen, e.g. a gateway's WAN address); no port or port 0 =
 *                               the bound relay port; default: listen's host (not a wildcard)
 *   networks = CIDR,...         served networks; 0.0.0.0/0 is the WAN (default 0.0.0.0/0). A
 *                               closed cluster's gateway proxy lists the cluster's private
 *                               network and 0.0.0.0/0. lib/cidr's rules: no spaces, no host
 *                               bits (10.0.0.1/8 refuses to start: the broker would skip it)
 *   cluster = NAME              the cluster whose gateway hosts this proxy, or empty
 *   control_listen = HOST:PORT  the SOAP control service (wsdl/proxy.wsdl: GetStatistics,
 *                               mutual TLS); none by default. Its URL is registered with the
 *                               broker so that qcg-query can read the statistics
 *   acl = PATH                  who may read the statistics (lib/acl.h: any role), besides
 *   gridmap = PATH              every user of this grid-mapfile
 *   id_ttl = SECONDS            how long an id the broker announced waits for its first leg
 *                               (default 60)
 *   broker_wait = SECONDS       the broker long poll (WaitEvents) timeout (default 30)
 *
 *   [control]                   tunables of the SOAP server (lib/soap_server.h): workers
 *                               (default 4), queue, io_timeout, transfer_timeout, max_message,
 *                               max_keep_alive
 *   [tls] cert, key, ca_dir, crl_required   required with broker or control_listen
 *
 * Keys of [proxy] not listed here are refused: a typo must not silently fall back to a default.
 */
#ifndef QCG_PROXY_CONFIG_H
#define QCG_PROXY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "relay.h"
#include "soap_server.h"
#include "tls.h"

struct config;

#define PROXY_PATH_MAX 108 /* a unix socket path's limit, used for every path for simplicity */
#define PROXY_STATS_INTERVAL_MAX 86400
#define PROXY_BROKER_WAIT_MAX 300 /* the broker's own limit on a WaitEvents timeout */
#define PROXY_CONTROL_WORKERS_DEFAULT 4

struct proxy_config {
	struct relay_config relay;         /* the data plane's settings */
	char control_path[PROXY_PATH_MAX]; /* "" = no control socket */
	char port_file[PROXY_PATH_MAX];    /* "" = none */
	unsigned stats_interval_s;         /* 0 = no periodic statistics line */
	int log_level;                     /* enum log_level */
	bool use_syslog;

	char broker_url[QCG_ENDPOINT_MAX]; /* "" = no broker link */
	char advertise_host[QCG_ADDR_MAX]; /* host of the endpoint the broker hands out */
	uint16_t advertise_port;           /* 0 = the bound relay port */
	char networks[QCG_NETWORKS_MAX];   /* served networks, as registered */
	char cluster[QCG_NAME_MAX];        /* "" = a WAN proxy */
	unsigned id_ttl_s;                 /* life of an announced id before its first leg */
	unsigned broker_wait_s;            /* WaitEvents timeout */

	bool control_enabled;              /* control_listen was given */
	struct soap_server_settings control; /* the SOAP control service (host and port from
	                                      * proxy_config_read, the rest from
	                                      * proxy_config_services) */
	char acl_path[PROXY_PATH_MAX];     /* "" = no ACL (then only the grid-mapfile) */
	char gridmap_path[PROXY_PATH_MAX]; /* "" = no grid-mapfile */
	struct tls_settings tls;           /* from proxy_config_services */
};

/* Read every setting from cfg (a file and overrides already applied) over the defaults (no
 * broker, no control service, the data plane's defaults, statistics every 60 s, level info),
 * except those proxy_config_services reads. Returns 0, or -1 with the offending key and value
 * named in err. Needs neither gSOAP nor OpenSSL (the data plane's tests link it alone). */
int proxy_config_read(const struct config *cfg, struct proxy_config *out, char *err,
    size_t errlen);

/* After proxy_config_read: the SOAP server's [control] tunables (lib/soap_server.h; workers
 * default to PROXY_CONTROL_WORKERS_DEFAULT) and [tls] (required with a broker or a control
 * service). Part of the daemon (proxy_config_services.c), which links lib/tls and gSOAP. */
int proxy_config_services(const struct config *cfg, struct proxy_config *out, char *err,
    size_t errlen);

/* Parse "HOST:PORT", "[V6]:PORT" or "*:PORT" ("*" and "" mean the wildcard, stored as "");
 * with port_optional, "HOST" alone gives port 0. `what` names the setting in errors. */
int proxy_parse_hostport(const char *what, const char *value, bool port_optional, char *host,
    size_t hostlen, uint16_t *port, char *err, size_t errlen);

#endif
