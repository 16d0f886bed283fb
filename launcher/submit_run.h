/*
 * submit_run.h: build mpirun's command line for a co-allocated job and supervise it: Open MPI
 * starts orted on every node through qcg-rsh (plm_rsh_agent, no tree spawn: only the launcher
 * holds the user's proxy), ranks follow the hostfile, bound as the description says
 * (--bind-to, default none), each rank finds its topology colors in its own environment
 * (job_topology.h), and libqcgnet.so is preloaded when it exists.
 */
#ifndef QCG_SUBMIT_RUN_H
#define QCG_SUBMIT_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "coalloc.h"
#include "job_files.h"

#define SUBMIT_STARTUP_TIMEOUT "60" /* seconds for every orted to call mpirun back */
/* When clusters install the program at paths of their own (mpirun inside the job), every
 * rank starts through this: the node's SUBMIT_EXEC_ENV (from its hosts-map line, through
 * qcg-rsh and orted; mpirun's own from its environment), else the job's executable ($0). */
#define SUBMIT_EXEC_ENV "QCG_EXECUTABLE"
#define SUBMIT_EXEC_SCRIPT "p=${" SUBMIT_EXEC_ENV ":-$0}; exec \"$p\" \"$@\""
#define SUBMIT_ARGV_MAX (64 + 2 * JOB_ENV_MAX + JOB_ARGS_MAX)

struct submit_plan {
	const struct job_desc *job;
	const char *dir;          /* the job directory (hostfile, hosts, topology) */
	const char *mpirun;       /* $QCG_MPIRUN or "mpirun" */
	const char *rsh;          /* plm_rsh_agent: qcg-rsh (with QCG_NET unset) */
	const char *net_lib;      /* libqcgnet.so, or NULL to run without it */
	bool tag_output;          /* prefix each line with its rank */
	int processes;
	const char *job_id;       /* QCG_JOB_ID, QCG_JOB_TOKEN: the job's processes prove */
	const char *token;        /* themselves to their helper with these */
	int launcher_port;        /* mpirun's window of ports (node_env.h), with net_lib */
	bool launcher_helper;     /* a helper serves mpirun's host: libqcgnet acts in mpirun */
	enum job_files_form form; /* how the hostfile places ranks (--map-by) */
	const char *component_path; /* mca_base_component_path with mca_coll_qcg, or NULL */
	const char *topology_word;  /* QCG_TOPOLOGY_COLORS=... of mpirun's host when it is one
	                             * of the job's nodes (its ranks' colors), else NULL */
	bool exec_per_node;         /* ranks start through SUBMIT_EXEC_SCRIPT */
};

/* Fill argv (SUBMIT_ARGV_MAX entries, pointers into static storage and plan); returns argc. */
int submit_mpirun_argv(const struct submit_plan *plan, char **argv);

/* Start mpirun in its own process group with the launcher environment (QCG_RSH_MAP,
 * QCG_TOPOLOGY_COLORS of its own node or none, QCG_RSH_WORKDIR, the job's id and token, LD_PRELOAD for the
 * nodes). Returns its pid, or -1. */
pid_t submit_start(const struct submit_plan *plan, char *err, size_t errlen);

/* Where libqcgnet.so is: $QCG_NET_LIB, next to our build (mpi-glue/net/.libs), or installed;
 * NULL when none exists. */
const char *submit_find_net_lib(const char *self_dir);

/* Open MPI's mca_base_component_path for the job: the directory of mca_coll_qcg (the build
 * tree's mpi-glue/coll/components next to self_dir, or the installed one), then Open MPI's own
 * default path. NULL when mca_coll_qcg is installed among Open MPI's own components, which its
 * default path already covers. */
const char *submit_component_path(const char *self_dir);

#endif
