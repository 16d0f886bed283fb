/*
 * submit_remote.c: mpirun on the job's first node, through its front-end (submit_remote.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soapH.h"
#include "job_topology.h"
#include "node_env.h"
#include "proxy_delegate.h"
#include "soap_client.h"
#include "stage.h"
#include "submit_remote.h"

extern char **environ;

const struct coalloc_part *
submit_remote_part(const struct submit_remote *r)
{
	return &r->alloc->part[0];
}

const char *
submit_remote_node(const struct submit_remote *r)
{
	return r->alloc->part[0].node[0].name;
}

/* Start argv (argc words) on node of part p, from "/", with only a PATH; its launch id goes
 * to id. 0, or -1 with err. */
static int
start_small(struct submit_remote *r, const struct coalloc_part *p, const char *node,
    char **argv, int argc, char id[REMOTE_LAUNCH_ID_MAX], char *err, size_t errlen)
{
	static char path[] = "PATH=/usr/bin:/bin";
	char *env[] = { path };
	struct remote_command cmd = { p->frontend_url, p->reservation, node, argv, argc, env, 1,
		"/" };
	return remote_launch(r->soap, &cmd, id, err, errlen);
}

/* Wait for launch id of start_small (what: its program, for the message): 0 when it exited 0,
 * else -1 with err (its first line of stderr). */
static int
await_small(struct submit_remote *r, const struct coalloc_part *p, const char *node,
    const char *what, const char *id, char *err, size_t errlen)
{
	char line[512];
	struct remote_status st;
	FILE *errs = tmpfile();
	if (errs == NULL) {
		snprintf(err, errlen, "tmpfile: %s", strerror(errno));
		return -1;
	}
	int rc = remote_stream(r->soap, p->frontend_url, id, NULL, errs, errs, &st, err,
	    errlen) == 0 ? 0 : -1;
	if (rc == 0 && remote_status_code(&st) != 0) {
		rewind(errs);
		size_t n = fread(line, 1, sizeof(line) - 1, errs);
		line[n] = '\0';
		line[strcspn(line, "\n")] = '\0';
		snprintf(err, errlen, "%s on %s: exit %d: %s", what, node,
		    remote_status_code(&st), n ? line : "(no message)");
		rc = -1;
	}
	fclose(errs);
	return rc;
}

/* Run argv on one node and wait for it (start_small, await_small). */
static int
run_small(struct submit_remote *r, const struct coalloc_part *p, const char *node, char **argv,
    int argc, char *err, size_t errlen)
{
	char id[REMOTE_LAUNCH_ID_MAX];
	if (start_small(r, p, node, argv, argc, id, err, errlen) != 0)
		return -1;
	return await_small(r, p, node, argv[0], id, err, errlen);
}

/* Run argv on every node of the job: all started first, then each waited for, so that the
 * nodes work at once (one round trip each, not one after the other). Returns how many failed;
 * each failure goes to stderr after prefix (and the first also to err). */
static int
run_everywhere(struct submit_remote *r, char **argv, int argc, const char *prefix, char *err,
    size_t errlen)
{
	static char id[JOB_CLUSTERS_MAX][COALLOC_SLOTS_MAX][REMOTE_LAUNCH_ID_MAX];
	char why[1024];
	int failed = 0;
	err[0] = '\0';
	for (int i = 0; i < r->alloc->count; i++)
		for (int n = 0; n < r->alloc->part[i].node_count; n++) {
			const struct coalloc_part *p = &r->alloc->part[i];
			id[i][n][0] = '\0';
			if (start_small(r, p, p->node[n].name, argv, argc, id[i][n], why,
			    sizeof(why)) == 0)
				continue;
			if (failed++ == 0)
				snprintf(err, errlen, "%s", why);
			fprintf(stderr, "qcg-submit: %s on %s: %s\n", prefix, p->node[n].name, why);
		}
	for (int i = 0; i < r->alloc->count; i++)
		for (int n = 0; n < r->alloc->part[i].node_count; n++) {
			const struct coalloc_part *p = &r->alloc->part[i];
			if (id[i][n][0] == '\0' || await_small(r, p, p->node[n].name, argv[0], id[i][n],
			    why, sizeof(why)) == 0)
				continue;
			if (failed++ == 0)
				snprintf(err, errlen, "%s", why);
			fprintf(stderr, "qcg-submit: %s on %s: %s\n", prefix, p->node[n].name, why);
		}
	return failed;
}

/* Stage local_dir/name (or path, when given) into the first node's SUBMIT_REMOTE_OWN. */
static int
put(struct submit_remote *r, const char *path, const char *name, char *err, size_t errlen)
{
	char local[4200], there[128];
	if (path == NULL)
		snprintf(local, sizeof(local), "%s/%s", r->local_dir, name);
	snprintf(there, sizeof(there), "%s/%s", SUBMIT_REMOTE_OWN, name);
	return stage_put_file(r->soap, submit_remote_part(r), submit_remote_node(r),
	    path ? path : local, there, r->node_dir, err, errlen);
}

int
submit_remote_make_dirs(struct submit_remote *r, char *err, size_t errlen)
{
	char why[1024];
	snprintf(r->node_dir, sizeof(r->node_dir), SUBMIT_REMOTE_DIR_FMT, r->alloc->job_id);
	snprintf(r->own_dir, sizeof(r->own_dir), "%s/%s", r->node_dir, SUBMIT_REMOTE_OWN);
	/* Made here, or already made for this job by a node that shares the filesystem (a
	 * cluster's nodes often do): then it must be a directory of ours, not a link, mode 0700.
	 * Anything else there is not ours to use. */
	static char script[] = "mkdir -m 0700 -- \"$1\" 2>/dev/null && exit 0; "
		"if [ -d \"$1\" ] && [ ! -L \"$1\" ] && [ -O \"$1\" ] && "
		"[ \"$(stat -c %a -- \"$1\")\" = 700 ]; then exit 0; fi; "
		"echo \"$1 exists and is not this job's directory\" >&2; exit 1";
	char *mk[] = { "/bin/sh", "-c", script, "qcg-job-dir", r->node_dir };
	r->dir_made = true; /* a failure may still have made some: clean every node */
	if (run_everywhere(r, mk, 5, "making the job's directory", why, sizeof(why)) != 0) {
		snprintf(err, errlen, "the job's directory %s: %s", r->node_dir, why);
		return -1;
	}
	return 0;
}

int
submit_remote_prepare(struct submit_remote *r, char *err, size_t errlen)
{
	char proxy[4200], why[1024];
	snprintf(proxy, sizeof(proxy), "%s/%s", r->local_dir, SUBMIT_REMOTE_PROXY);
	if (proxy_delegate_write(r->creds, r->proxy_seconds, time(NULL), proxy, why,
	    sizeof(why)) != 0) {
		snprintf(err, errlen, "delegating a proxy for the job: %s", why);
		return -1;
	}
	int rc = put(r, NULL, "hostfile", err, errlen) == 0 && put(r, NULL, "hosts", err,
	    errlen) == 0 && put(r, proxy, SUBMIT_REMOTE_PROXY, err, errlen) == 0 &&
	    (!r->job->in.line || put(r, r->job->in.text, SUBMIT_REMOTE_STDIN, err, errlen) == 0)
	    ? 0 : -1;
	unlink(proxy); /* it lives on the node only, for this job */
	return rc;
}

/* Append "NAME=value" made with fmt to env, in storage. */
static int
add_env(char **env, int *n, char *storage, size_t len, size_t *used, const char *name,
    const char *value)
{
	size_t need = strlen(name) + 1 + strlen(value) + 1;
	if (*n >= SUBMIT_REMOTE_ENV_MAX || *used + need > len)
		return -1;
	snprintf(storage + *used, need, "%s=%s", name, value);
	env[(*n)++] = storage + *used;
	*used += need;
	return 0;
}

int
submit_remote_env(const struct submit_remote *r, const struct submit_plan *plan, char **env,
    char *storage, size_t storage_len, char *err, size_t errlen)
{
	char buf[4400], word[JOB_TOPOLOGY_WORD_MAX];
	size_t used = 0;
	int n = 0, bad = 0;
	const char *cert_dir = getenv("X509_CERT_DIR");
	snprintf(buf, sizeof(buf), "%s:/usr/local/bin:/usr/bin:/bin", r->self_dir);
	bad |= add_env(env, &n, storage, storage_len, &used, "PATH", buf);
	/* Open MPI keeps per-user files under HOME; the job's directory is the one that is
	 * surely there and the user's on that node. */
	bad |= add_env(env, &n, storage, storage_len, &used, "HOME", r->node_dir);
	snprintf(buf, sizeof(buf), "%s/hosts", r->own_dir);
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_RSH_MAP", buf);
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_RSH_WORKDIR",
	    r->job->workdir.line ? r->job->workdir.text : "/tmp");
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_JOB_ID", plan->job_id);
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_JOB_TOKEN", plan->token);
	snprintf(buf, sizeof(buf), "%s/%s", r->own_dir, SUBMIT_REMOTE_PROXY);
	bad |= add_env(env, &n, storage, storage_len, &used, "X509_USER_PROXY", buf);
	/* The CA directory as the user's host has it (the testbed's is shared); a site that
	 * keeps it elsewhere is found at the default, /etc/grid-security/certificates. */
	if (cert_dir && cert_dir[0])
		bad |= add_env(env, &n, storage, storage_len, &used, "X509_CERT_DIR", cert_dir);
	job_topology_word(r->alloc, 0, 0, word, sizeof(word));
	if (word[0] && n < SUBMIT_REMOTE_ENV_MAX)
		bad |= add_env(env, &n, storage, storage_len, &used, JOB_TOPOLOGY_COLORS_ENV,
		    strchr(word, '=') + 1);
	/* mpirun's own ranks: its cluster's program (the other nodes' come with orted). */
	const struct job_cluster *first = submit_remote_part(r)->cluster;
	if (plan->exec_per_node && first->executable.line)
		bad |= add_env(env, &n, storage, storage_len, &used, SUBMIT_EXEC_ENV,
		    first->executable.text);
	if (plan->net_lib) {
		struct rsh_target t;
		memset(&t, 0, sizeof(t));
		bad |= add_env(env, &n, storage, storage_len, &used, "LD_PRELOAD", plan->net_lib);
		/* The node's own words: QCG_NET=1, its helper's socket, its port window. */
		if (node_env_words(&submit_remote_part(r)->node[0], r->alloc->helper_socket, &t) != 0)
			bad = 1;
		for (int i = 0; i < t.envc && !bad; i++) {
			char *eq = strchr(t.env[i], '=');
			*eq = '\0';
			bad |= add_env(env, &n, storage, storage_len, &used, t.env[i], eq + 1);
		}
	}
	/* Open MPI's own settings of the submitting environment (OMPI_ALLOW_RUN_AS_ROOT, MCA
	 * parameters): what qcg-rsh would carry to orted from a local mpirun. */
	for (char **e = environ; *e != NULL && !bad; e++)
		if (strncmp(*e, "OMPI_", 5) == 0 || strncmp(*e, "PMIX_", 5) == 0) {
			if (n >= SUBMIT_REMOTE_ENV_MAX)
				bad = 1;
			else
				env[n++] = *e;
		}
	if (bad) {
		snprintf(err, errlen, "mpirun's environment on %s needs more than %d entries or "
		    "%zu bytes", submit_remote_node(r), SUBMIT_REMOTE_ENV_MAX, storage_len);
		return -1;
	}
	return n;
}

int
submit_remote_start(struct submit_remote *r, const struct submit_plan *plan, char *err,
    size_t errlen)
{
	static char *mpirun[SUBMIT_ARGV_MAX], *argv[SUBMIT_ARGV_MAX + 4], *env[SUBMIT_REMOTE_ENV_MAX];
	static char storage[16384], in[200];
	static char script[] = "exec \"$@\" <\"$0\"";
	int envc = submit_remote_env(r, plan, env, storage, sizeof(storage), err, errlen);
	if (envc < 0)
		return -1;
	int argc = submit_mpirun_argv(plan, mpirun), n = 0;
	/* mpirun hands its stdin to rank 0: the staged file, or nothing. */
	snprintf(in, sizeof(in), "%s/%s", r->own_dir, SUBMIT_REMOTE_STDIN);
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = r->job->in.line ? in : "/dev/null";
	for (int i = 0; i < argc; i++)
		argv[n++] = mpirun[i];
	const struct coalloc_part *p = submit_remote_part(r);
	struct remote_command cmd = { p->frontend_url, p->reservation, submit_remote_node(r),
		argv, n, env, envc, r->node_dir };
	return remote_launch(r->soap, &cmd, r->launch_id, err, errlen);
}

int
submit_remote_wait(struct submit_remote *r, remote_signal_source next_signal, FILE *out,
    FILE *errout, struct remote_status *st, char *err, size_t errlen)
{
	return remote_stream(r->soap, submit_remote_part(r)->frontend_url, r->launch_id,
	    next_signal, out, errout, st, err, errlen);
}

/* The description asked to keep the job's directories: only the launcher's own files go from
 * the first node's (the delegated proxy must not outlive the job), and the user is told where
 * the rest is. */
static void
keep_dirs(struct submit_remote *r)
{
	char why[1024], own[200];
	snprintf(own, sizeof(own), "%s", r->own_dir);
	char *rm[] = { "rm", "-rf", "--", own };
	if (run_small(r, submit_remote_part(r), submit_remote_node(r), rm, 4, why,
	    sizeof(why)) != 0)
		fprintf(stderr, "qcg-submit: could not remove %s on %s (the delegated proxy is in "
		    "it): %s\n", r->own_dir, submit_remote_node(r), why);
	fprintf(stderr, "qcg-submit: job %s: its directory %s is kept on every node (%s:%d)\n",
	    r->alloc->job_id, r->node_dir, r->job->origin, r->job->keep_directory_line);
	r->dir_made = false;
}

void
submit_remote_clean(struct submit_remote *r)
{
	char why[1024];
	char *rm[] = { "rm", "-rf", "--", r->node_dir };
	if (!r->dir_made)
		return;
	if (r->job->keep_directory_line && r->launch_id[0]) {
		keep_dirs(r);
		return;
	}
	/* A failure on the first node leaves the delegated proxy there until the node is
	 * cleaned: said, with the node, by run_everywhere. */
	r->dir_made = run_everywhere(r, rm, 4, "could not remove the job's directory (on the "
	    "first node, with the delegated proxy in it)", why, sizeof(why)) != 0;
}
