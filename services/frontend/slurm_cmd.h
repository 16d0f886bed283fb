/*
 * slurm_cmd.h: run one Slurm command (salloc, scancel, scontrol, squeue, sinfo) as a child
 * with a bounded time and bounded output. The front-end never waits on Slurm without a bound:
 * a command that outlives its time gets SIGTERM (salloc then withdraws a pending
 * allocation itself), then SIGKILL after a grace. No shell is involved: argv goes to execvp.
 */
#ifndef QCG_SLURM_CMD_H
#define QCG_SLURM_CMD_H

#include <stdbool.h>
#include <stddef.h>

#define SLURM_CMD_OUTPUT_MAX 16384 /* bytes kept of stdout, and of stderr */
#define SLURM_CMD_KILL_GRACE_MS 3000 /* after SIGTERM, before SIGKILL */

struct slurm_cmd_result {
	int exit_status;                  /* the exit code; -1 when killed or not run */
	bool timed_out;                   /* the bound passed and the child was stopped */
	bool truncated;                   /* output exceeded SLURM_CMD_OUTPUT_MAX: do not parse */
	char out[SLURM_CMD_OUTPUT_MAX];   /* stdout, NUL-terminated */
	char err[SLURM_CMD_OUTPUT_MAX];   /* stderr, NUL-terminated */
};

/* Run argv (argv[0] looked up in PATH) with SLURM_CONF=slurm_conf in its environment when
 * slurm_conf is not empty, for at most timeout_ms. Returns 0 when the child ran to its end
 * (whatever its status), -1 when it could not start or was stopped at the bound; why says
 * which in a sentence. */
int slurm_cmd_run(char *const argv[], const char *slurm_conf, long timeout_ms,
    struct slurm_cmd_result *res, char *why, size_t whylen);

#endif
