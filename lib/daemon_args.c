/*
 * daemon_args.c: the daemons' shared command line, logging start, stop signals and port file.
 */
#include "config.h"

#include <getopt.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "config_file.h"
#include "daemon_args.h"
#include "log.h"
#include "soap_server.h"

int
daemon_args_parse(int argc, char **argv, const char *name, void (*usage)(FILE *out),
    struct config *cfg, const char **port_file)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' }, { "set", required_argument, NULL, 's' },
		{ "port-file", required_argument, NULL, 'p' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	const char *config_path = NULL;
	char err[512];
	int opt, noverrides = 0;
	/* Overrides must win over the file, so they are collected and applied after it. */
	char **overrides = calloc((size_t)argc, sizeof(char *));

	if (overrides == NULL) {
		fprintf(stderr, "%s: out of memory\n", name);
		return -1;
	}
	*port_file = NULL;
	while ((opt = getopt_long(argc, argv, "c:s:hV", options, NULL)) != -1) {
		switch (opt) {
		case 'c': config_path = optarg; break;
		case 's': overrides[noverrides++] = optarg; break;
		case 'p': *port_file = optarg; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("%s %s\n", name, PACKAGE_VERSION); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc || config_path == NULL) {
		usage(stderr);
		exit(2);
	}
	int rc = config_load_file(cfg, config_path, err, sizeof(err));
	for (int i = 0; rc == 0 && i < noverrides; i++)
		rc = config_apply_override(cfg, overrides[i], err, sizeof(err));
	free(overrides);
	if (rc != 0)
		fprintf(stderr, "%s: %s\n", name, err);
	return rc;
}

void
daemon_write_port_file(const char *path, int port)
{
	FILE *f = fopen(path, "w");
	if (f == NULL || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0)
		fatal("cannot write port file %s", path);
}

int
daemon_start_logging(const struct config *cfg, const char *section, const char *name)
{
	char key[CONFIG_KEY_MAX], err[256] = "";
	bool use_syslog;
	snprintf(key, sizeof(key), "%s.log_level", section);
	int level = log_level_parse(config_get(cfg, key, "info"));
	if (level < 0) {
		fprintf(stderr, "%s: %s must be error|warn|info|debug\n", name, key);
		return -1;
	}
	snprintf(key, sizeof(key), "%s.syslog", section);
	if (config_get_bool(cfg, key, false, &use_syslog, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		return -1;
	}
	log_init(name, (enum log_level)level, use_syslog);
	return 0;
}

static void
on_stop_signal(int sig)
{
	(void)sig;
	soap_server_request_stop();
}

/* SIGHUP hands over to a thread: reloading parses files and takes locks, which a signal
 * handler may not do; sem_post is async-signal-safe. */
static sem_t reload_sem;
static void (*reload_fn)(void *);
static void *reload_arg;

static void
on_reload_signal(int sig)
{
	(void)sig;
	sem_post(&reload_sem);
}

static void *
reload_main(void *unused)
{
	(void)unused;
	for (;;) {
		if (sem_wait(&reload_sem) != 0)
			continue; /* EINTR */
		log_info("SIGHUP: reloading the grid-mapfile, ACL and CA directory");
		reload_fn(reload_arg);
	}
	return NULL;
}

int
daemon_catch_reload_signal(void (*reload)(void *), void *arg, char *err, size_t errlen)
{
	pthread_t thread;
	struct sigaction sa = { .sa_handler = on_reload_signal, .sa_flags = SA_RESTART };

	reload_fn = reload;
	reload_arg = arg;
	sigemptyset(&sa.sa_mask);
	if (sem_init(&reload_sem, 0, 0) != 0 ||
	    pthread_create(&thread, NULL, reload_main, NULL) != 0) {
		snprintf(err, errlen, "cannot start the SIGHUP reload thread: %s", strerror(errno));
		return -1;
	}
	pthread_detach(thread);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

void
daemon_catch_stop_signals(void)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_stop_signal);
	signal(SIGINT, on_stop_signal);
}
