/*
 * proxy_main.c: qcg-proxy, the relay of qcg-ompi (DESIGN.md section 3, method "relay").
 *
 *   settings (file, then command line)  -> proxy_config.c (lib/config_file)
 *   data plane: listeners, workers      -> relay.c, relay_worker.c, relay_leg.c, relay_join.c
 *   which ids are allowed               -> relay_table.c, fed by the broker link
 *                                          (proxy_broker.c) and the local control socket
 *                                          (relay_control.c)
 *   statistics over SOAP                -> proxy_soap.c (wsdl/proxy.wsdl)
 *   main thread: waits for signals and logs statistics
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config_file.h"
#include "log.h"
#include "proxy_broker.h"
#include "proxy_config.h"
#include "proxy_soap.h"
#include "tls_trust.h"
#include "relay.h"
#include "relay_control.h"

/* Long options other than --config, --set and --help are [proxy] keys of the same name. */
static const struct option proxy_options[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "set", required_argument, NULL, 's' },
	{ "listen", required_argument, NULL, 0 },
	{ "threads", required_argument, NULL, 0 },
	{ "max-legs", required_argument, NULL, 0 },
	{ "max-ids", required_argument, NULL, 0 },
	{ "pipe-size", required_argument, NULL, 0 },
	{ "hello-timeout-ms", required_argument, NULL, 0 },
	{ "partner-timeout-ms", required_argument, NULL, 0 },
	{ "unknown-id-wait-ms", required_argument, NULL, 0 },
	{ "used-id-ttl-ms", required_argument, NULL, 0 },
	{ "accept-any-id", no_argument, NULL, 0 },
	{ "control", required_argument, NULL, 0 },
	{ "ready-file", required_argument, NULL, 0 },
	{ "stats-interval", required_argument, NULL, 0 },
	{ "log-level", required_argument, NULL, 0 },
	{ "syslog", no_argument, NULL, 0 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-proxy [--config FILE] [-s SECTION.KEY=VALUE ...] [--listen HOST:PORT]\n"
	    "                 [--threads N] [--max-legs N] [--max-ids N] [--pipe-size BYTES]\n"
	    "                 [--hello-timeout-ms MS] [--partner-timeout-ms MS]\n"
	    "                 [--unknown-id-wait-ms MS] [--used-id-ttl-ms MS]\n"
	    "                 [--control PATH] [--ready-file PATH]\n"
	    "                 [--stats-interval S] [--log-level LEVEL] [--syslog]\n"
	    "                 [--accept-any-id  (INSECURE: benchmarks without a broker only)]\n"
	    "Relays bytes between two legs that present the same relay id (see relay_hello.h).\n"
	    "The file is INI ([proxy], [control], [tls]; keys in proxy_config.h); an option\n"
	    "--NAME=VALUE sets proxy.NAME; -s sets any key, e.g. -s proxy.broker=https://b:8443/\n");
}

/* Settings: the file named by --config first, then every other option over it, in order. */
static void
proxy_parse_args(int argc, char **argv, struct config *file, struct proxy_config *cfg)
{
	char err[512], key[CONFIG_KEY_MAX];
	int c, index;

	config_init(file);
	/* First pass: only --config, silently (the second pass reports bad options). */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:s:h", proxy_options, &index)) != -1)
		if (c == 'c' && config_load_file(file, optarg, err, sizeof(err)) < 0)
			fatal("%s", err);
	opterr = 1;
	optind = 0; /* glibc: 0 restarts the scan from scratch */
	while ((c = getopt_long(argc, argv, "c:s:h", proxy_options, &index)) != -1) {
		int rc = 0;
		if (c == 'h') {
			usage(stdout);
			exit(0);
		} else if (c == 's') {
			rc = config_apply_override(file, optarg, err, sizeof(err));
		} else if (c == 0) {
			snprintf(key, sizeof(key), "proxy.%s", proxy_options[index].name);
			rc = config_set(file, key, proxy_options[index].has_arg ? optarg : "yes", err,
			    sizeof(err));
		} else if (c != 'c') {
			usage(stderr);
			exit(2);
		}
		if (rc != 0)
			fatal("%s", err);
	}
	if (optind < argc)
		fatal("unexpected argument '%s' (see --help)", argv[optind]);
	if (proxy_config_read(file, cfg, err, sizeof(err)) != 0 ||
	    proxy_config_services(file, cfg, err, sizeof(err)) != 0)
		fatal("%s", err);
}

/* Write "HOST:PORT\n" (and "control URL\n") atomically (temporary file, then rename), for
 * scripts and tests. */
static void
write_ready_file(const char *path, const struct relay_config *relay, uint16_t port,
    const char *control_url)
{
	char tmp[PROXY_PATH_MAX + 8];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		fatal("ready file %s: %s", tmp, strerror(errno));
	fprintf(f, "%s:%u\n", relay->listen_host[0] ? relay->listen_host : "0.0.0.0", port);
	if (control_url[0])
		fprintf(f, "control %s\n", control_url);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		fatal("ready file %s: %s", path, strerror(errno));
}

/* "host:port", with brackets around an IPv6 address. */
static void
format_endpoint(char *buf, size_t len, const char *host, unsigned port)
{
	snprintf(buf, len, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
}

/* The control service's URL as others reach it: a wildcard listen address is replaced by the
 * advertised host. */
static void
control_url_of(const struct proxy_config *cfg, int port, char *buf, size_t len)
{
	const char *host = cfg->control.host;
	char hostport[QCG_ADDR_MAX + 8]; /* "[host]:port" */

	if (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0 || host[0] == '\0')
		host = cfg->advertise_host;
	format_endpoint(hostport, sizeof(hostport), host, (unsigned)port);
	snprintf(buf, len, "https://%s/", hostport);
}

static struct proxy_broker *
start_broker_link(struct relay_plane *plane, const struct proxy_config *cfg,
    const char *control_url)
{
	static struct proxy_broker_settings s; /* large (TLS paths); copied by the link */
	char err[512];

	memset(&s, 0, sizeof(s));
	snprintf(s.url, sizeof(s.url), "%s", cfg->broker_url);
	format_endpoint(s.endpoint, sizeof(s.endpoint), cfg->advertise_host,
	    cfg->advertise_port ? cfg->advertise_port : relay_port(plane));
	snprintf(s.control_url, sizeof(s.control_url), "%s", control_url);
	snprintf(s.networks, sizeof(s.networks), "%s", cfg->networks);
	snprintf(s.cluster, sizeof(s.cluster), "%s", cfg->cluster);
	s.id_ttl_s = cfg->id_ttl_s;
	s.wait_s = cfg->broker_wait_s;
	s.tls = cfg->tls;
	struct proxy_broker *pb = proxy_broker_start(plane, &s, err, sizeof(err));
	if (pb == NULL)
		fatal("%s", err);
	return pb;
}

static void
log_stats(struct relay_plane *plane, const char *when)
{
	struct relay_stats st;
	char line[1024];

	relay_stats(plane, &st);
	relay_stats_format(&st, line, sizeof(line));
	log_info("stats%s: %s", when, line);
}

/* Wait for SIGINT/SIGTERM/SIGHUP, logging statistics every interval. Returns the signal. */
static int
proxy_wait(struct relay_plane *plane, const sigset_t *stop, unsigned interval_s)
{
	for (;;) {
		struct timespec ts = { interval_s ? interval_s : 3600, 0 };
		int sig = sigtimedwait(stop, NULL, &ts);
		if (sig > 0)
			return sig;
		if (errno == EAGAIN && interval_s)
			log_stats(plane, "");
	}
}

int
main(int argc, char **argv)
{
	static struct config file;     /* large: the parsed file and overrides */
	static struct proxy_config cfg;
	struct relay_control *ctl = NULL;
	struct proxy_soap *soap = NULL;
	struct proxy_broker *broker = NULL;
	char err[512], control_url[QCG_ENDPOINT_MAX] = "";
	sigset_t stop;

	log_init("qcg-proxy", LOG_LEVEL_INFO, 0); /* so option errors carry our name */
	proxy_parse_args(argc, argv, &file, &cfg);
	log_init("qcg-proxy", (enum log_level)cfg.log_level, cfg.use_syslog);
	if (cfg.broker_url[0] || cfg.control_enabled)
		tls_global_init();
	/* Blocked before any thread starts, so only sigtimedwait in this thread takes them. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP); /* reload, below */
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	struct relay_plane *plane = relay_start(&cfg.relay, err, sizeof(err));
	if (plane == NULL)
		fatal("data plane: %s", err);
	if (cfg.control_path[0] &&
	    (ctl = relay_control_start(plane, cfg.control_path, err, sizeof(err))) == NULL)
		fatal("%s", err);
	if (cfg.control_enabled) {
		if ((soap = proxy_soap_start(plane, &cfg, err, sizeof(err))) == NULL)
			fatal("%s", err);
		control_url_of(&cfg, proxy_soap_port(soap), control_url, sizeof(control_url));
	}
	if (cfg.broker_url[0])
		broker = start_broker_link(plane, &cfg, control_url);
	if (cfg.ready_file[0])
		write_ready_file(cfg.ready_file, &cfg.relay, relay_port(plane), control_url);

	int sig;
	while ((sig = proxy_wait(plane, &stop, cfg.stats_interval_s)) == SIGHUP) {
		log_info("SIGHUP: reloading the ACL, grid-mapfile and CA directory");
		proxy_soap_reload(soap, &cfg);
		tls_trust_reload_all();
	}
	log_info("signal %d: stopping", sig);
	proxy_broker_stop(broker); /* first: the broker stops handing this proxy out */
	proxy_soap_stop(soap);
	relay_control_stop(ctl);
	log_stats(plane, " at exit");
	relay_stop(plane);
	if (cfg.ready_file[0])
		unlink(cfg.ready_file);
	return 0;
}
