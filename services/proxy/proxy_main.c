/*
 * proxy_main.c: qcg-proxy, the relay of qcg-ompi (DESIGN.md section 3, method "relay").
 *
 *   start-up, -n, signals               -> lib/daemon_serve.c
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl.h"
#include "config_file.h"
#include "daemon_serve.h"
#include "gridmap.h"
#include "log.h"
#include "proxy_broker.h"
#include "proxy_config.h"
#include "proxy_soap.h"
#include "tls_trust.h"
#include "relay.h"
#include "relay_control.h"

/* The options of the earlier command line, each a [proxy] key: they work for one release,
 * with a warning naming the new spelling (lib/daemon_args.h). */
static const struct daemon_legacy_option proxy_legacy_options[] = {
	{ "listen", true, "listen" },
	{ "threads", true, "threads" },
	{ "max-legs", true, "max_legs" },
	{ "max-ids", true, "max_ids" },
	{ "pipe-size", true, "pipe_size" },
	{ "hello-timeout-ms", true, "hello_timeout_ms" },
	{ "partner-timeout-ms", true, "partner_timeout_ms" },
	{ "unknown-id-wait-ms", true, "unknown_id_wait_ms" },
	{ "used-id-ttl-ms", true, "used_id_ttl_ms" },
	{ "accept-any-id", false, "accept_any_id" },
	{ "control", true, "control" },
	{ "ready-file", true, "port_file" },
	{ "stats-interval", true, "stats_interval" },
	{ "log-level", true, "log_level" },
	{ "syslog", false, "syslog" },
	{ NULL, false, NULL },
};

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-proxy [-c CONFIG] [-s SECTION.KEY=VALUE ...] [--port-file FILE] [-n]\n"
	    "  -c, --config FILE      configuration file (INI: [proxy], [control], [tls]; keys in\n"
	    "                         proxy_config.h); without it, the defaults\n"
	    "  -s, --set KEY=VALUE    override one setting, e.g. -s proxy.listen=0.0.0.0:7300\n"
	    "      --port-file FILE   once listening, write \"HOST:PORT\" of the relay port there\n"
	    "                         (and \"control URL\" when the SOAP control service runs)\n"
	    "  -n, --check            check the configuration and the files it names, and exit\n"
	    "  -h, --help             this text;   -V, --version\n"
	    "Relays bytes between two legs that present the same relay id (see relay_hello.h).\n"
	    "-s proxy.accept_any_id=yes is INSECURE: benchmarks without a broker only.\n"
	    "The options --listen, --threads, --max-legs, ... of the earlier release still set\n"
	    "the [proxy] key of that name, with a warning.\n");
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

/* The proxy and what its start-up holds between the callbacks. */
struct proxy_daemon {
	struct proxy_config cfg;
	struct relay_plane *plane;
	struct relay_control *ctl;       /* NULL without proxy.control */
	struct proxy_soap *soap;         /* NULL without proxy.control_listen */
	struct proxy_broker *broker;     /* NULL without proxy.broker */
	char control_url[QCG_ENDPOINT_MAX];
};

/* What a start would read: the ACL and grid-mapfile of the statistics readers. */
static int
check_readers(const struct proxy_config *cfg, char *err, size_t errlen)
{
	struct acl acl = { 0 };
	struct gridmap gridmap = { 0 };
	int rc = 0;
	if (cfg->acl_path[0] && (rc = acl_load(&acl, cfg->acl_path, err, errlen)) == 0)
		acl_free(&acl);
	if (rc == 0 && cfg->gridmap_path[0] &&
	    (rc = gridmap_load(&gridmap, cfg->gridmap_path, err, errlen)) == 0)
		gridmap_free(&gridmap);
	return rc;
}

static int
proxy_configure(void *app, const struct config *file, const struct daemon_args *args,
    char *err, size_t errlen)
{
	struct proxy_daemon *d = app;
	struct proxy_config *cfg = &d->cfg;
	if (proxy_config_read(file, cfg, err, errlen) != 0 ||
	    proxy_config_services(file, cfg, err, errlen) != 0)
		return -1;
	log_set_level((enum log_level)cfg->log_level); /* proxy.log-level, the old spelling */
	if (args->port_file != NULL) {
		if (strlen(args->port_file) >= sizeof(cfg->port_file)) {
			snprintf(err, errlen, "--port-file: longer than %zu bytes",
			    sizeof(cfg->port_file) - 1);
			return -1;
		}
		strcpy(cfg->port_file, args->port_file);
	}
	if (cfg->broker_url[0] || cfg->control_enabled) {
		if (tls_settings_check(&cfg->tls, err, errlen) != 0)
			return -1;
	}
	return cfg->control_enabled ? check_readers(cfg, err, errlen) : 0;
}

static int
proxy_start(void *app, char *err, size_t errlen)
{
	struct proxy_daemon *d = app;
	struct proxy_config *cfg = &d->cfg;

	d->plane = relay_start(&cfg->relay, err, errlen);
	if (d->plane == NULL) {
		char reason[512];
		snprintf(reason, sizeof(reason), "%s", err);
		snprintf(err, errlen, "data plane: %s", reason);
		return -1;
	}
	if (cfg->control_path[0] &&
	    (d->ctl = relay_control_start(d->plane, cfg->control_path, err, errlen)) == NULL)
		return -1;
	if (cfg->control_enabled) {
		if ((d->soap = proxy_soap_start(d->plane, cfg, err, errlen)) == NULL)
			return -1;
		control_url_of(cfg, proxy_soap_port(d->soap), d->control_url,
		    sizeof(d->control_url));
	}
	if (cfg->broker_url[0])
		d->broker = start_broker_link(d->plane, cfg, d->control_url);
	return 0;
}

/* The port file named by --port-file or proxy.port_file (the option wins, in configure). */
static void
proxy_write_port_file(void *app, const char *path)
{
	struct proxy_daemon *d = app;
	(void)path;
	if (d->cfg.port_file[0])
		write_ready_file(d->cfg.port_file, &d->cfg.relay, relay_port(d->plane),
		    d->control_url);
}

/* Wait for SIGINT/SIGTERM, logging statistics every interval; SIGHUP reloads. */
static void
proxy_run(void *app)
{
	struct proxy_daemon *d = app;
	sigset_t stop;
	int sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	while ((sig = proxy_wait(d->plane, &stop, d->cfg.stats_interval_s)) == SIGHUP) {
		log_info("SIGHUP: reloading the ACL, grid-mapfile and CA directory");
		proxy_soap_reload(d->soap, &d->cfg);
		tls_trust_reload_all();
	}
	log_info("signal %d", sig);
}

static void
proxy_stop(void *app)
{
	struct proxy_daemon *d = app;
	proxy_broker_stop(d->broker); /* first: the broker stops handing this proxy out */
	proxy_soap_stop(d->soap);
	relay_control_stop(d->ctl);
	log_stats(d->plane, " at exit");
	relay_stop(d->plane);
	if (d->cfg.port_file[0])
		unlink(d->cfg.port_file);
}

int
main(int argc, char **argv)
{
	static struct proxy_daemon daemon; /* large: the settings */
	const struct daemon_service service = {
		.args = { .name = "qcg-proxy", .usage = usage, .config_optional = true,
			.section = "proxy", .legacy = proxy_legacy_options },
		.section = "proxy",
		.configure = proxy_configure,
		.start = proxy_start,
		.write_port_file = proxy_write_port_file,
		.run = proxy_run,
		.stop = proxy_stop,
		.run_takes_signals = true,
		.app = &daemon,
	};
	return daemon_serve(argc, argv, &service);
}
