/*
 * launch_exec.h: starting one launched process (launch_exec.c); internal to launch.c.
 */
#ifndef QCG_LAUNCH_EXEC_H
#define QCG_LAUNCH_EXEC_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "launch.h"

/* Where the child failed, reported through the status pipe. */
enum launch_stage {
	LAUNCH_STAGE_SETSID = 1,
	LAUNCH_STAGE_STDIO = 2,
	LAUNCH_STAGE_IDENTITY = 3,
	LAUNCH_STAGE_CHDIR = 4,
	LAUNCH_STAGE_EXEC = 5,
};

struct launch_pipes {
	pid_t pid;   /* also the process group and session id */
	int out_fd;  /* read ends, non-blocking */
	int err_fd;
	int in_fd;   /* write end of its stdin (blocking): staging streams a file into it; whoever
	              * has nothing to send closes it, and the process reads end of file */
};

/* Fork and exec req as id; returns once exec succeeded (0) or failed (-1, err says at which
 * step and why, and the child is reaped). */
int launch_exec(const struct launch_request *req, const struct launch_identity *id,
    struct launch_pipes *out, char *err, size_t errlen);

/* Signal every process but this one whose environment carries launch id's mark
 * (LAUNCH_MARK_ENV), only those of uid owner unless owner is (uid_t)-1; returns how many were
 * signalled. This is what reaches a daemonized orted and its ranks.
 *
 * Members of process group signalled_group (> 0: the caller has just signalled it) are left
 * alone: they had this signal already, and a second wave killed the clean-up a trapped
 * signal starts (a stage-in receiver's `rm` of its temporary file, test_stage_put.sh). */
int launch_signal_marked(const char *id, int sig, uid_t owner, pid_t signalled_group);

#endif
