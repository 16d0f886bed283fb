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

/* Run argv (argc words) on the first node, from "/", with only a PATH, and wait for it: 0 when
 * it exited 0, else -1 with err (its first line of stderr). For mkdir and rm. */
static int
run_small(struct submit_remote *r, char **argv, int argc, char *err, size_t errlen)
{
	static char path[] = "PATH=/usr/bin:/bin";
	char *env[] = { path }, id[REMOTE_LAUNCH_ID_MAX], line[512];
	const struct coalloc_part *p = submit_remote_part(r);
	struct remote_command cmd = { p->frontend_url, p->reservation, submit_remote_node(r),
		argv, argc, env, 1, "/" };
	struct remote_status st;
	FILE *errs = tmpfile();
	if (errs == NULL) {
		snprintf(err, errlen, "tmpfile: %s", strerror(errno));
		return -1;
	}
	int rc = remote_launch(r->soap, &cmd, id, err, errlen) == 0 &&
	    remote_stream(r->soap, p->frontend_url, id, NULL, errs, errs, &st, err, errlen) == 0 ?
	    0 : -1;
	if (rc == 0 && remote_status_code(&st) != 0) {
		rewind(errs);
		size_t n = fread(line, 1, sizeof(line) - 1, errs);
		line[n] = '\0';
		line[strcspn(line, "\n")] = '\0';
		snprintf(err, errlen, "%s on %s: exit %d: %s", argv[0], submit_remote_node(r),
		    remote_status_code(&st), n ? line : "(no message)");
		rc = -1;
	}
	fclose(errs);
	return rc;
}

/* Stage local_dir/name (or path, when given) into the node's directory as name. */
static int
put(struct submit_remote *r, const char *path, const char *name, char *err, size_t errlen)
{
	char local[4200];
	if (path == NULL)
		snprintf(local, sizeof(local), "%s/%s", r->local_dir, name);
	return stage_put_file(r->soap, submit_remote_part(r), submit_remote_node(r),
	    path ? path : local, name, r->node_dir, err, errlen);
}

int
submit_remote_prepare(struct submit_remote *r, char *err, size_t errlen)
{
	char proxy[4200], why[1024];
	snprintf(r->node_dir, sizeof(r->node_dir), SUBMIT_REMOTE_DIR_FMT, r->alloc->job_id);
	/* mkdir without -p: a directory already there is not ours to use. */
	char *mk[] = { "mkdir", "-m", "0700", "--", r->node_dir };
	if (run_small(r, mk, 5, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "the job's directory %s on %s: %s", r->node_dir,
		    submit_remote_node(r), why);
		return -1;
	}
	r->dir_made = true;
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
	snprintf(buf, sizeof(buf), "%s/hosts", r->node_dir);
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_RSH_MAP", buf);
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_RSH_WORKDIR",
	    r->job->workdir.line ? r->job->workdir.text : "/tmp");
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_JOB_ID", plan->job_id);
	bad |= add_env(env, &n, storage, storage_len, &used, "QCG_JOB_TOKEN", plan->token);
	snprintf(buf, sizeof(buf), "%s/%s", r->node_dir, SUBMIT_REMOTE_PROXY);
	bad |= add_env(env, &n, storage, storage_len, &used, "X509_USER_PROXY", buf);
	/* The CA directory as the user's host has it (the testbed's is shared); a site that
	 * keeps it elsewhere is found at the default, /etc/grid-security/certificates. */
	if (cert_dir && cert_dir[0])
		bad |= add_env(env, &n, storage, storage_len, &used, "X509_CERT_DIR", cert_dir);
	job_topology_word(r->alloc, 0, 0, word, sizeof(word));
	if (word[0] && n < SUBMIT_REMOTE_ENV_MAX)
		bad |= add_env(env, &n, storage, storage_len, &used, JOB_TOPOLOGY_COLORS_ENV,
		    strchr(word, '=') + 1);
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
	snprintf(in, sizeof(in), "%s/%s", r->node_dir, SUBMIT_REMOTE_STDIN);
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

void
submit_remote_clean(struct submit_remote *r)
{
	char why[1024];
	char *rm[] = { "rm", "-rf", "--", r->node_dir };
	if (!r->dir_made)
		return;
	if (run_small(r, rm, 4, why, sizeof(why)) != 0)
		fprintf(stderr, "qcg-submit: could not remove the job's directory %s on %s (the "
		    "delegated proxy is in it): %s\n", r->node_dir, submit_remote_node(r), why);
	else
		r->dir_made = false;
}
