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
#include <string.h>

#include "config_file.h"
#include "daemon_args.h"
#include "log.h"
#include "soap_server.h"

enum { OPT_PORT_FILE = 0x100, OPT_LEGACY = 0x200 };

/* The shared options, then the spec's legacy ones (their index in spec->legacy, offset by
 * OPT_LEGACY, is what getopt_long returns for them). */
static struct option *
build_options(const struct daemon_args_spec *spec)
{
	static const struct option shared[] = {
		{ "config", required_argument, NULL, 'c' }, { "set", required_argument, NULL, 's' },
		{ "port-file", required_argument, NULL, OPT_PORT_FILE },
		{ "check", no_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	size_t nshared = sizeof(shared) / sizeof(shared[0]), nlegacy = 0;
	while (spec->legacy != NULL && spec->legacy[nlegacy].name != NULL)
		nlegacy++;
	struct option *all = calloc(nshared + nlegacy + 1, sizeof(*all));
	if (all == NULL)
		return NULL;
	memcpy(all, shared, sizeof(shared));
	for (size_t i = 0; i < nlegacy; i++)
		all[nshared + i] = (struct option){ spec->legacy[i].name,
			spec->legacy[i].has_arg ? required_argument : no_argument, NULL,
			OPT_LEGACY + (int)i };
	return all;
}

/* A legacy option as the override it stands for: "SECTION.NAME=VALUE". */
static char *
legacy_assignment(const struct daemon_args_spec *spec, int index, const char *arg)
{
	const struct daemon_legacy_option *o = &spec->legacy[index];
	const char *value = o->has_arg ? arg : "yes";
	size_t n = strlen(spec->section) + strlen(o->key) + strlen(value) + 3;
	char *s = malloc(n);
	if (s != NULL)
		snprintf(s, n, "%s.%s=%s", spec->section, o->key, value);
	return s;
}

int
daemon_args_parse(int argc, char **argv, const struct daemon_args_spec *spec,
    struct config *cfg, struct daemon_args *out, char *err, size_t errlen)
{
	int opt, noverrides = 0, rc = -1;
	/* Overrides must win over the file, so they are collected and applied after it. */
	char **overrides = calloc((size_t)argc, sizeof(char *));
	bool *owned = calloc((size_t)argc, sizeof(bool));
	struct option *options = build_options(spec);

	memset(out, 0, sizeof(*out));
	if (overrides == NULL || owned == NULL || options == NULL) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	while ((opt = getopt_long(argc, argv, "c:s:nhV", options, NULL)) != -1) {
		switch (opt) {
		case 'c': out->config_path = optarg; break;
		case 's': overrides[noverrides++] = optarg; break;
		case 'n': out->check_only = true; break;
		case OPT_PORT_FILE: out->port_file = optarg; break;
		case 'h': spec->usage(stdout); exit(0);
		case 'V': printf("%s %s\n", spec->name, PACKAGE_VERSION); exit(0);
		default:
			if (opt < OPT_LEGACY) {
				spec->usage(stderr);
				exit(2);
			}
			if ((overrides[noverrides] = legacy_assignment(spec, opt - OPT_LEGACY,
			    optarg)) == NULL) {
				snprintf(err, errlen, "out of memory");
				goto done;
			}
			owned[noverrides++] = true;
			if (out->legacy_count < DAEMON_LEGACY_MAX)
				out->legacy_used[out->legacy_count++] = &spec->legacy[opt - OPT_LEGACY];
		}
	}
	if (optind != argc || (out->config_path == NULL && !spec->config_optional)) {
		spec->usage(stderr);
		exit(2);
	}
	rc = out->config_path == NULL ? 0 : config_load_file(cfg, out->config_path, err, errlen);
	for (int i = 0; rc == 0 && i < noverrides; i++)
		rc = config_apply_override(cfg, overrides[i], err, errlen);
done:
	for (int i = 0; owned != NULL && i < noverrides; i++)
		if (owned[i])
			free(overrides[i]);
	free(overrides);
	free(owned);
	free(options);
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
daemon_start_logging(const struct config *cfg, const char *section, const char *name,
    char *err, size_t errlen)
{
	char key[CONFIG_KEY_MAX];
	bool use_syslog;
	snprintf(key, sizeof(key), "%s.log_level", section);
	const char *value = config_get(cfg, key, "info");
	int level = log_level_parse(value);
	if (level < 0) {
		snprintf(err, errlen, "%s must be error|warn|info|debug, got '%.40s'", key, value);
		return -1;
	}
	snprintf(key, sizeof(key), "%s.syslog", section);
	if (config_get_bool(cfg, key, false, &use_syslog, err, errlen) != 0)
		return -1;
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
