/*
 * proxy_main.c: qcg-proxy, the relay of qcg-ompi (DESIGN.md section 3, method "relay").
 *
 *   settings (file, then command line)  -> proxy_config.c
 *   data plane: listeners, workers      -> relay.c, relay_worker.c, relay_leg.c, relay_join.c
 *   which ids are allowed               -> relay_table.c, fed by the control socket
 *                                          (relay_control.c) and, later, the broker (SOAP)
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

#include "log.h"
#include "proxy_config.h"
#include "relay.h"
#include "relay_control.h"

static const struct option proxy_options[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "listen", required_argument, NULL, 0 },
	{ "threads", required_argument, NULL, 0 },
	{ "max-legs", required_argument, NULL, 0 },
	{ "max-ids", required_argument, NULL, 0 },
	{ "pipe-size", required_argument, NULL, 0 },
	{ "hello-timeout-ms", required_argument, NULL, 0 },
	{ "partner-timeout-ms", required_argument, NULL, 0 },
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
	    "usage: qcg-proxy [--config FILE] [--listen HOST:PORT] [--threads N]\n"
	    "                 [--max-legs N] [--max-ids N] [--pipe-size BYTES]\n"
	    "                 [--hello-timeout-ms MS] [--partner-timeout-ms MS]\n"
	    "                 [--used-id-ttl-ms MS] [--control PATH] [--ready-file PATH]\n"
	    "                 [--stats-interval S] [--log-level LEVEL] [--syslog]\n"
	    "                 [--accept-any-id  (INSECURE: tests and benchmarks only)]\n"
	    "Relays bytes between two legs that present the same relay id (see relay_hello.h).\n"
	    "The file takes the same settings as 'key = value' lines (proxy_config.h).\n");
}

/* Settings: the file named by --config first, then every other option over it. */
static void
proxy_parse_args(int argc, char **argv, struct proxy_config *cfg)
{
	char err[512];
	int c, index;

	proxy_config_defaults(cfg);
	/* First pass: only --config, silently (the second pass reports bad options). */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:h", proxy_options, &index)) != -1)
		if (c == 'c' && proxy_config_load(cfg, optarg, err, sizeof(err)) < 0)
			fatal("%s", err);
	opterr = 1;
	optind = 0; /* glibc: 0 restarts the scan from scratch */
	while ((c = getopt_long(argc, argv, "c:h", proxy_options, &index)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == 'c')
			continue;
		if (c != 0) {
			usage(stderr);
			exit(2);
		}
		const char *value = proxy_options[index].has_arg ? optarg : "yes";
		if (proxy_config_set(cfg, proxy_options[index].name, value, err, sizeof(err)) < 0)
			fatal("--%s", err);
	}
	if (optind < argc)
		fatal("unexpected argument '%s' (see --help)", argv[optind]);
}

/* Write "HOST:PORT\n" atomically (temporary file, then rename), for scripts and tests. */
static void
write_ready_file(const char *path, const struct relay_config *relay, uint16_t port)
{
	char tmp[PROXY_PATH_MAX + 8];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		fatal("ready file %s: %s", tmp, strerror(errno));
	fprintf(f, "%s:%u\n", relay->listen_host[0] ? relay->listen_host : "0.0.0.0", port);
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		fatal("ready file %s: %s", path, strerror(errno));
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

/* Wait for SIGINT/SIGTERM, logging statistics every interval. Returns the signal. */
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
	struct proxy_config cfg;
	struct relay_control *ctl = NULL;
	char err[512];
	sigset_t stop;

	log_init("qcg-proxy", LOG_LEVEL_INFO, 0); /* so option errors carry our name */
	proxy_parse_args(argc, argv, &cfg);
	log_init("qcg-proxy", (enum log_level)cfg.log_level, cfg.use_syslog);
	/* Blocked before any thread starts, so only sigtimedwait in this thread takes them. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	struct relay_plane *plane = relay_start(&cfg.relay, err, sizeof(err));
	if (plane == NULL)
		fatal("data plane: %s", err);
	if (cfg.control_path[0]) {
		ctl = relay_control_start(plane, cfg.control_path, err, sizeof(err));
		if (ctl == NULL)
			fatal("%s", err);
	}
	if (cfg.ready_file[0])
		write_ready_file(cfg.ready_file, &cfg.relay, relay_port(plane));

	int sig = proxy_wait(plane, &stop, cfg.stats_interval_s);
	log_info("signal %d: stopping", sig);
	relay_control_stop(ctl);
	log_stats(plane, " at exit");
	relay_stop(plane);
	if (cfg.ready_file[0])
		unlink(cfg.ready_file);
	return 0;
}
