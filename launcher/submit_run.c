/*
 * submit_run.c: mpirun's command line and start (submit_run.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_topology.h"
#include "node_env.h"
#include "submit_run.h"

#ifndef QCG_LIBDIR
#define QCG_LIBDIR "/usr/local/lib"
#endif

const char *
submit_find_net_lib(const char *self_dir)
{
	static char path[4096];
	const char *env = getenv("QCG_NET_LIB");
	if (env != NULL)
		return env[0] && access(env, R_OK) == 0 ? env : NULL;
	snprintf(path, sizeof(path), "%s/../mpi-glue/net/.libs/libqcgnet.so", self_dir);
	if (access(path, R_OK) == 0)
		return path;
	snprintf(path, sizeof(path), "%s/libqcgnet.so", QCG_LIBDIR);
	return access(path, R_OK) == 0 ? path : NULL;
}

/* Both come from configure through launcher/local.mk: there is no sensible guess. */
#if !defined(QCG_COMPONENT_DIR) || !defined(QCG_OMPI_PKGLIBDIR)
#error "QCG_COMPONENT_DIR and QCG_OMPI_PKGLIBDIR must be defined (launcher/local.mk)"
#endif

const char *
submit_component_path(const char *self_dir)
{
	static char path[3 * 4096 + 2];
	char ours[4096];
	const char *home = getenv("HOME");
	/* Run from the build tree, our own component is the build's (mpi-glue/coll/components
	 * holds only the .so); installed, it is where configure put it. */
	snprintf(ours, sizeof(ours), "%s/../mpi-glue/coll/components/mca_coll_qcg.so", self_dir);
	if (access(ours, R_OK) == 0)
		snprintf(ours, sizeof(ours), "%s/../mpi-glue/coll/components", self_dir);
	else if (strcmp(QCG_COMPONENT_DIR, QCG_OMPI_PKGLIBDIR) == 0)
		return NULL; /* installed among Open MPI's own: its default path finds it */
	else
		snprintf(ours, sizeof(ours), "%s", QCG_COMPONENT_DIR);
	/* Setting the parameter replaces Open MPI's default, "<its pkglibdir>:$HOME/.openmpi/
	 * components", so both come after ours. The pkglibdir is configure's (ompi_info's),
	 * fixed for the Open MPI we were built against. HOME is the submitting user's, not
	 * configure's: ompi_info's printed default holds whoever ran configure; on nodes where
	 * the mapped account's home differs, the entry names a missing directory, which Open
	 * MPI skips. */
	if (home != NULL && home[0] == '/')
		snprintf(path, sizeof(path), "%s:%s:%s/.openmpi/components", ours,
		    QCG_OMPI_PKGLIBDIR, home);
	else
		snprintf(path, sizeof(path), "%s:%s", ours, QCG_OMPI_PKGLIBDIR);
	return path;
}

int
submit_mpirun_argv(const struct submit_plan *p, char **argv)
{
	static char hostfile[4096], np[16], workdir[JOB_STRING_MAX];
	int n = 0;
	snprintf(hostfile, sizeof(hostfile), "%s/hostfile", p->dir);
	snprintf(np, sizeof(np), "%d", p->processes);
	argv[n++] = (char *)p->mpirun;
	if (getuid() == 0)
		argv[n++] = "--allow-run-as-root";
	/* Ranks in the hostfile's order (job_files.h), bound as the description says. */
	argv[n++] = "--hostfile"; argv[n++] = hostfile;
	argv[n++] = "--map-by"; argv[n++] = (char *)job_files_map_by(p->form);
	argv[n++] = "--bind-to"; argv[n++] = (char *)job_binding_name(p->job->binding);
	argv[n++] = "-np"; argv[n++] = np;
	argv[n++] = "--mca"; argv[n++] = "plm_rsh_agent"; argv[n++] = (char *)p->rsh;
	/* mpirun passes it on to every orted and rank: they all load mca_coll_qcg from there. */
	if (p->component_path) {
		argv[n++] = "--mca"; argv[n++] = "mca_base_component_path";
		argv[n++] = (char *)p->component_path;
	}
	/* Only this process holds the user's proxy: every orted is started from here. */
	argv[n++] = "--mca"; argv[n++] = "plm_rsh_no_tree_spawn"; argv[n++] = "1";
	/* orted daemonizes, so its launch "succeeds" even when it then fails to call mpirun
	 * back (a connection through the grid that never came up): without a bound, mpirun
	 * would wait for it for ever. */
	argv[n++] = "--mca"; argv[n++] = "orte_startup_timeout"; argv[n++] = SUBMIT_STARTUP_TIMEOUT;
	/* Every rank: its colors must have come with its node's environment (job_topology.h);
	 * one without them then says so instead of coll/qcg stepping aside unnoticed. */
	argv[n++] = "-x"; argv[n++] = JOB_TOPOLOGY_REQUIRED_ENV "=1";
	if (p->net_lib) {
		argv[n++] = "-x";
		argv[n++] = "LD_PRELOAD";
		/* What libqcgnet.so handles (mpi-glue/net/README.md): TCP over IPv4, no IPv6. */
		argv[n++] = "--mca"; argv[n++] = "pml"; argv[n++] = "ob1";
		argv[n++] = "--mca"; argv[n++] = "btl"; argv[n++] = "self,vader,tcp";
		argv[n++] = "--mca"; argv[n++] = "btl_tcp_disable_family"; argv[n++] = "6";
		argv[n++] = "--mca"; argv[n++] = "oob_tcp_disable_ipv6_family"; argv[n++] = "1";
	}
	for (int i = 0; i < p->job->envc; i++) {
		argv[n++] = "-x";
		argv[n++] = (char *)p->job->env[i].text;
	}
	if (p->job->workdir.line) {
		snprintf(workdir, sizeof(workdir), "%s", p->job->workdir.text);
		argv[n++] = "--wdir";
		argv[n++] = workdir;
	}
	if (p->tag_output)
		argv[n++] = "--tag-output";
	if (p->exec_per_node) {
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = SUBMIT_EXEC_SCRIPT;
	}
	argv[n++] = (char *)p->job->executable.text;
	for (int i = 0; i < p->job->argc; i++)
		argv[n++] = (char *)p->job->arg[i].text;
	argv[n] = NULL;
	return n;
}

/* Point fd at path (the description's stdin/stdout/stderr), relative to the job's cwd. */
static int
redirect(int fd, const struct job_string *s, int flags)
{
	if (s->line == 0)
		return 0;
	int f = open(s->text, flags, 0644);
	if (f < 0 || dup2(f, fd) < 0)
		return -1;
	close(f);
	return 0;
}

pid_t
submit_start(const struct submit_plan *p, char *err, size_t errlen)
{
	static char *argv[SUBMIT_ARGV_MAX];
	char path[4096];
	submit_mpirun_argv(p, argv);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0)
		return pid;
	/* Its own process group: the launcher decides how mpirun is stopped. */
	setpgid(0, 0);
	snprintf(path, sizeof(path), "%s/hosts", p->dir);
	setenv("QCG_RSH_MAP", path, 1);
	/* Only mpirun's own ranks read this (orted and their ranks get their node's from the
	 * hosts map); none when mpirun's host is not one of the job's nodes. */
	if (p->topology_word && p->topology_word[0])
		putenv((char *)p->topology_word);
	else
		unsetenv(JOB_TOPOLOGY_COLORS_ENV);
	if (p->job->workdir.line)
		setenv("QCG_RSH_WORKDIR", p->job->workdir.text, 1);
	else
		setenv("QCG_RSH_WORKDIR", "/tmp", 1);
	if (p->job_id && p->token) {
		setenv("QCG_JOB_ID", p->job_id, 1);       /* carried to the nodes by qcg-rsh: */
		setenv("QCG_JOB_TOKEN", p->token, 1);     /* the helpers learn the token so */
	}
	if (p->net_lib) {
		setenv("LD_PRELOAD", p->net_lib, 1); /* carried to the nodes by qcg-rsh and -x */
		/* mpirun's own listeners (orted dial them) in its window, registered through the
		 * local helper when there is one; without, the shim stays out of mpirun. */
		snprintf(path, sizeof(path), "%d-%d", p->launcher_port,
		    p->launcher_port + NODE_ENV_WINDOW - 1);
		setenv("QCG_NET_PORTS", path, 1);
		if (p->launcher_helper)
			setenv("QCG_NET", "1", 1);
		else
			unsetenv("QCG_NET");
	}
	if (redirect(0, &p->job->in, O_RDONLY) || redirect(1, &p->job->out,
	    O_WRONLY | O_CREAT | O_TRUNC) || redirect(2, &p->job->err, O_WRONLY | O_CREAT |
	    O_TRUNC)) {
		fprintf(stderr, "qcg-submit: redirecting the job's streams: %s\n", strerror(errno));
		_exit(127);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "qcg-submit: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}
