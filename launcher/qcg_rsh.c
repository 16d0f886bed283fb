/*
 * qcg_rsh.c: qcg-rsh, Open MPI's plm_rsh_agent for the grid: no ssh, the command starts on the
 * node through its cluster's front-end and the node's helper (DESIGN.md section 4).
 *
 *   qcg-rsh [-w DIR] [-m MAP] HOST COMMAND [ARG...]
 *
 * Like ssh, the words of COMMAND are joined with spaces and run by /bin/sh -c on the node:
 * Open MPI writes orted's command line for a remote shell (it quotes the HNP URI, for one).
 * HOST is looked up in the hosts map ($QCG_RSH_MAP or -m, launcher/rsh_map.h) that qcg-submit
 * writes: it gives the front-end URL, the reservation to launch under and the node's own
 * variables (its helper socket, its port window). The environment carried is the allow-list
 * of env_allow.h less what describes only this host (mpirun's helper socket and window), plus
 * the node's variables and Open MPI's port parameters for its window (rsh_map_node_env): the
 * preload and the job's identity travel from mpirun's environment. stdin is not carried. stdout and stderr stream
 * back; signals SIGINT, SIGTERM and SIGHUP are forwarded. The working directory is -w,
 * $QCG_RSH_WORKDIR, or else the mapped account's home.
 *
 * Exit code: the remote command's, 128+N when signal N ended it, 255 when qcg-rsh itself
 * failed (as ssh does), with the reason on stderr.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soapH.h"
#include "env_allow.h"
#include "remote_run.h"
#include "rsh_map.h"
#include "soap_client.h"
#include "user_creds.h"

#define RSH_FAILED 255
#define RSH_COMMAND_MAX (256 * 1024) /* bytes of the joined command line */
#define RSH_TIMEOUT 30               /* seconds to connect and per request */

extern char **environ;

/* Signals received and not yet forwarded: a small ring written only by the handler. */
static volatile sig_atomic_t pending[8];
static volatile sig_atomic_t pending_head, pending_tail;

static void
on_signal(int sig)
{
	int next = (pending_head + 1) % 8;
	if (next != pending_tail) { /* a full ring drops the signal: 7 are queued already */
		pending[pending_head] = sig;
		pending_head = next;
	}
}

static int
next_pending_signal(void)
{
	if (pending_tail == pending_head)
		return 0;
	int sig = pending[pending_tail];
	pending_tail = (pending_tail + 1) % 8;
	return sig;
}

static void
catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void
usage(FILE *out)
{
	fprintf(out, "usage: qcg-rsh [-w DIR] [-m MAP] HOST COMMAND [ARG...]\n"
	    "  -m MAP   hosts map (default $QCG_RSH_MAP): lines HOST FRONTEND-URL RESERVATION-ID\n"
	    "           [NAME=VALUE...] (the node's own variables, e.g. QCG_NET_PORTS=MIN-MAX)\n"
	    "  -w DIR   working directory on the node (default $QCG_RSH_WORKDIR, else home)\n");
}

/* Join words with single spaces, as ssh does before handing them to the remote shell. */
static char *
join_command(char **words, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	if (len > RSH_COMMAND_MAX)
		return NULL;
	char *s = malloc(len);
	if (s == NULL)
		return NULL;
	s[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

/* Launch on target and stream until the command ends; returns qcg-rsh's exit code. */
static int
run_on(const struct rsh_target *target, const struct user_creds *creds, char *command,
    const char *workdir)
{
	static char *carried[ENV_ALLOW_MAX], *node_env[ENV_ALLOW_MAX];
	static struct rsh_node_derived derived;
	char err[1024], launch_id[REMOTE_LAUNCH_ID_MAX];
	int n = env_allow_collect(environ, carried, ENV_ALLOW_MAX);
	if (n < 0) {
		fprintf(stderr, "qcg-rsh: more than %d variables to carry\n", ENV_ALLOW_MAX);
		return RSH_FAILED;
	}
	int envc = rsh_map_node_env(target, carried, n, node_env, ENV_ALLOW_MAX, &derived, err,
	    sizeof(err));
	if (envc < 0) {
		fprintf(stderr, "qcg-rsh: %s\n", err);
		return RSH_FAILED;
	}
	struct soap_client_settings settings = { RSH_TIMEOUT, RSH_TIMEOUT + REMOTE_POLL_SECONDS,
		8 * 1024 * 1024 };
	struct soap *soap = soap_client_new(&creds->tls, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "qcg-rsh: %s\n", err);
		return RSH_FAILED;
	}
	char *argv[] = { "/bin/sh", "-c", command };
	struct remote_command cmd = { target->frontend_url, target->reservation, target->host,
		argv, 3, node_env, envc, workdir };
	struct remote_status st;
	int code = RSH_FAILED;
	if (remote_launch(soap, &cmd, launch_id, err, sizeof(err)) != 0 ||
	    remote_stream(soap, target->frontend_url, launch_id, next_pending_signal, stdout,
		stderr, &st, err, sizeof(err)) != 0)
		fprintf(stderr, "qcg-rsh: %s\n", err);
	else
		code = remote_status_code(&st);
	soap_client_free(soap);
	return code;
}

int
main(int argc, char **argv)
{
	const char *map = getenv("QCG_RSH_MAP"), *workdir = getenv("QCG_RSH_WORKDIR");
	struct user_creds creds;
	struct rsh_target target;
	char err[1024];
	int opt;

	while ((opt = getopt(argc, argv, "+m:w:h")) != -1) {
		switch (opt) {
		case 'm': map = optarg; break;
		case 'w': workdir = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return RSH_FAILED;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return RSH_FAILED;
	}
	const char *host = argv[optind];
	if (map == NULL || map[0] == '\0') {
		fprintf(stderr, "qcg-rsh: no hosts map: set QCG_RSH_MAP (qcg-submit does) or -m\n");
		return RSH_FAILED;
	}
	int rc = rsh_map_lookup(map, host, &target, err, sizeof(err));
	if (rc != 0) {
		if (rc > 0)
			fprintf(stderr, "qcg-rsh: host %s is not in the hosts map %s\n", host, map);
		else
			fprintf(stderr, "qcg-rsh: %s\n", err);
		return RSH_FAILED;
	}
	char *command = join_command(argv + optind + 1, argc - optind - 1);
	if (command == NULL) {
		fprintf(stderr, "qcg-rsh: command longer than %d bytes\n", RSH_COMMAND_MAX);
		return RSH_FAILED;
	}
	catch_signals(); /* before credentials: a signal from now on reaches the command */
	tls_global_init();
	memset(&creds, 0, sizeof(creds));
	creds.tls.crl_required = true;
	if (user_creds_load(&creds, time(NULL), err, sizeof(err)) != 0) {
		fprintf(stderr, "qcg-rsh: %s\n", err);
		free(command);
		return RSH_FAILED;
	}
	int code = run_on(&target, &creds, command, workdir && workdir[0] ? workdir : NULL);
	free(command);
	return code;
}
