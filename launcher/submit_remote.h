/*
 * submit_remote.h: mpirun inside the job. The user's host runs no qcg service (no front-end,
 * no helper) and takes no inbound connection: Open MPI's HNP (mpirun) runs on the first node
 * of the job's first cluster, started through that cluster's front-end and the node's helper
 * (Launch, as the mapped account), and qcg-submit only streams its output (ReadOutput) and
 * forwards signals (Signal).
 *
 * Every node of the job gets a directory of its own, SUBMIT_REMOTE_DIR_FMT, mode 0700, made
 * before anything is staged and removed at the end whatever happened (rm -rf: what the job
 * wrote there too). It is the ranks' working directory when the description names none
 * (Open MPI would otherwise send mpirun's own directory to every node), so the staged-in
 * files land there. Staged into SUBMIT_REMOTE_OWN in the first node's (stage.h
 * stage_put_file, mode 0600; apart from the job's files, whose names are the user's): the hostfile and qcg-rsh's hosts map (job_files.h),
 * the description's stdin file when it names one, and a proxy certificate delegated for the
 * job (proxy_delegate.h): qcg-rsh there reaches every front-end of the job with it
 * (X509_USER_PROXY). Never the user's long-term key, and never longer than the job may run.
 *
 * mpirun there gets the node's own words from the hosts map (QCG_NET=1, its helper's socket,
 * its port window: no orted runs on that node, so mpirun and the ranks it forks use the
 * node's window), its topology colors, the job's id and token (the helper admits its
 * listeners with them), libqcgnet.so preloaded, and the OMPI_* and PMIX_* variables of the
 * submitting environment. Programs are found at the paths they have here: the sites are
 * expected to install the same packages (the testbed shares its build tree read-only).
 */
#ifndef QCG_SUBMIT_REMOTE_H
#define QCG_SUBMIT_REMOTE_H

#include <stdbool.h>
#include <stdio.h>

#include "coalloc.h"
#include "remote_run.h"
#include "submit_run.h"
#include "user_creds.h"

#define SUBMIT_REMOTE_DIR_FMT "/tmp/qcg-job-%s" /* the job id */
#define SUBMIT_REMOTE_OWN ".qcg"                /* in the first node's job directory: the
                                                 * launcher's files, apart from the job's */
#define SUBMIT_REMOTE_PROXY "x509_proxy"        /* the delegated proxy's name there */
#define SUBMIT_REMOTE_STDIN "stdin"             /* the description's stdin, staged */
#define SUBMIT_REMOTE_ENV_MAX 64                /* entries of mpirun's environment */

struct submit_remote {
	struct soap *soap;
	const struct coalloc *alloc;
	const struct job_desc *job;
	const struct user_creds *creds;  /* what the delegated proxy is signed with */
	const char *local_dir;           /* the job's directory here (hostfile, hosts) */
	const char *self_dir;            /* qcg-rsh's directory, the same on the nodes */
	long proxy_seconds;              /* the delegated proxy's lifetime */
	char node_dir[128];              /* the job's directory on every node */
	char own_dir[160];               /* node_dir/SUBMIT_REMOTE_OWN on the first node */
	char launch_id[REMOTE_LAUNCH_ID_MAX]; /* mpirun's launch, "" before it started */
	bool dir_made;                   /* node_dir may exist somewhere: clean it */
};

/* The first node of the first cluster: where mpirun runs. */
const struct coalloc_part *submit_remote_part(const struct submit_remote *r);
const char *submit_remote_node(const struct submit_remote *r);

/* Make the job's directory on every node (mode 0700; one already there must be ours). 0, or -1
 * with err naming the node; submit_remote_clean removes what was made. */
int submit_remote_make_dirs(struct submit_remote *r, char *err, size_t errlen);

/* Stage the job's files and the delegated proxy into the first node's job directory (the
 * local copy of the proxy is removed once sent). 0, or -1 with err. */
int submit_remote_prepare(struct submit_remote *r, char *err, size_t errlen);

/* Start mpirun (plan: its command line, plan->dir being node_dir) on the node. 0, or -1. */
int submit_remote_start(struct submit_remote *r, const struct submit_plan *plan, char *err,
    size_t errlen);

/* Stream mpirun's output to out and errout until it ends, forwarding what next_signal hands
 * out. 0 with *st, or -1 with err when its front-end stopped answering. */
int submit_remote_wait(struct submit_remote *r, remote_signal_source next_signal, FILE *out,
    FILE *errout, struct remote_status *st, char *err, size_t errlen);

/* Remove the job's directory on every node (the proxy with it); a failure is said on
 * stderr. A job that ran and whose description asks to keep it (keep_directory_line) keeps
 * it, all but SUBMIT_REMOTE_OWN on the first node (the proxy). */
void submit_remote_clean(struct submit_remote *r);

/* mpirun's environment on the node into env (SUBMIT_REMOTE_ENV_MAX entries, pointing into
 * storage of storage_len bytes and into environ). Returns the count, or -1 with err. Split
 * out so that the unit tests see what the node gets. */
int submit_remote_env(const struct submit_remote *r, const struct submit_plan *plan,
    char **env, char *storage, size_t storage_len, char *err, size_t errlen);

#endif
