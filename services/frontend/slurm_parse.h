/*
 * slurm_parse.h: the text exchanged with Slurm's commands, apart from running them
 * (slurm_cmd.h), so that every rule is unit-tested (test_slurm_parse.c): the command lines
 * the front-end builds, and strict parsing of what the commands print. Anything that does
 * not have the expected shape is refused with a sentence, never guessed at.
 */
#ifndef QCG_SLURM_PARSE_H
#define QCG_SLURM_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

#define SLURM_JOB_ID_MAX 24     /* decimal digits of a job id, with the NUL */
#define SLURM_ALLOC_NODES_MAX 200 /* nodes of one allocation (FE_NODES_MAX) */

/* What salloc --no-shell said on stderr. */
enum slurm_salloc_outcome {
	SLURM_SALLOC_GRANTED,    /* "Granted job allocation N" */
	SLURM_SALLOC_PENDING,    /* queued, and given up (--immediate or our bound) */
	SLURM_SALLOC_IMPOSSIBLE, /* the request can never be met by this partition or account */
	SLURM_SALLOC_FAILED,     /* any other error */
};

/* Classify salloc's stderr; *job_id gets the job id it named ("" if none). why gets salloc's
 * own error line (or a sentence) for every outcome but GRANTED. */
enum slurm_salloc_outcome slurm_parse_salloc(const char *stderr_text,
    char job_id[SLURM_JOB_ID_MAX], char *why, size_t whylen);

/* One node of an allocation and the CPUs Slurm gave the job on it. */
struct slurm_alloc_node {
	char name[QCG_NAME_MAX];
	int cpus;
};

/* Expand a Slurm hostlist ("a1,b[1-3,07]c") into names; -1 with err on anything else (nested
 * or several bracket groups, ranges backwards, more than max names). */
int slurm_hostlist_expand(const char *list, struct slurm_alloc_node *nodes, size_t max,
    size_t *count, char *err, size_t errlen);

/* Count a CPU id list ("0-3,6"); -1 if malformed. */
int slurm_cpu_ids_count(const char *ids);

/* Parse `scontrol -o show job -d ID`: its JobState, and its nodes with their CPUs from the
 * "Nodes=... CPU_IDs=..." pairs. -1 with err when the text lacks or garbles them. */
int slurm_parse_job_detail(const char *text, char *state, size_t statelen,
    struct slurm_alloc_node *nodes, size_t max, size_t *count, char *err, size_t errlen);

/* Whether a node state from `sinfo -h -N -o '%N %t'` (compact form, possibly with a flag
 * suffix such as '*' or '~') means the node is lost to its jobs: down, drained or draining,
 * failed. */
bool slurm_node_state_lost(const char *state);

/* The words for such a state in a message ("drng" is "draining", "down*" is "down (not
 * responding)"), into buf, which it returns; a state it does not know is shown as it is. */
const char *slurm_node_state_word(const char *state, char *buf, size_t buflen);

/* Minutes for Slurm's --time from seconds, rounded up, at least 1. */
long slurm_minutes(long seconds);

#define SLURM_ARGV_MAX 24       /* arguments of one command line we build */
#define SLURM_ARGV_STORAGE 2048 /* bytes of their text */

/* What salloc is asked for. */
struct slurm_salloc_request {
	const char *grid_job;         /* the grid job id: in the job name and comment */
	int tasks;                    /* --ntasks */
	int per_node;                 /* --ntasks-per-node; 0: Slurm decides */
	const char *const *nodes;     /* --nodelist; NULL/0: any */
	size_t node_count;
	long time_seconds;            /* --time, rounded up to minutes; 0: the partition's */
	long pending_seconds;         /* --immediate: how long it may stay pending */
	const char *partition, *account, *qos; /* "" = Slurm's default */
	const char *run_as;           /* a local account to run salloc as (runuser), so that the
	                                 job and its steps belong to it; "" = as ourselves */
	const char *cluster;          /* the front-end's cluster: in the comment, so that its
	                                 next life finds the jobs of this one */
};

/* The comment of a grid job's allocation: "qcg-ompi grid job JOB, front-end of cluster C". */
#define SLURM_COMMENT_HEAD "qcg-ompi grid job "
#define SLURM_COMMENT_OWNER ", front-end of cluster "

/* From `squeue -h -o '%i %k'` (job id, comment), the ids of the jobs whose comment says they
 * are allocations of cluster's front-end, into ids (at most max). Lines of other jobs, and of
 * jobs without a plain decimal id (array tasks, heterogeneous components), are skipped; -1
 * with err when more than max jobs are ours. */
int slurm_parse_own_jobs(const char *text, const char *cluster,
    char (*ids)[SLURM_JOB_ID_MAX], size_t max, size_t *count, char *err, size_t errlen);

/* Build `salloc --no-shell ...` for r into argv (NULL-ended; text in storage). -1 with err if
 * it does not fit. */
int slurm_salloc_argv(const struct slurm_salloc_request *r, char *argv[SLURM_ARGV_MAX],
    char *storage, size_t storage_len, char *err, size_t errlen);

/* The srun prefix that runs a program as one task of job job_id on node, overlapping the
 * allocation (--overlap: the orted and each node's ranks share the allocation's CPUs), and
 * with LD_PRELOAD moved from the environment into --export: srun itself must not load the
 * preloaded library, the program it starts must. With slurm_conf not empty the prefix starts
 * with `env SLURM_CONF=slurm_conf`, so that srun finds its site's Slurm. env is the launch's environment; the index of
 * the LD_PRELOAD entry moved goes to *moved (-1: none). Returns the number of arguments put
 * into prefix (pointers into storage), -1 with err. */
int slurm_step_prefix(const char *job_id, const char *node, const char *slurm_conf,
    char *const *env, int env_count,
    const char **prefix, size_t prefix_max, char *storage, size_t storage_len, int *moved,
    char *err, size_t errlen);

/* Where launch argument arg holds the word --daemonize (bounded by spaces or its ends): its
 * offset, or -1. Under srun a daemon must stay the step's task, so the front-end drops the
 * word from what it runs inside an allocation (handlers_launch.c says why). */
long slurm_daemonize_word(const char *arg);

#endif
