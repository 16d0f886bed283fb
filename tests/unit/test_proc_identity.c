/*
 * test_proc_identity.c: lib/proc_identity names a process by pid and start time; a recorded
 * identity whose pid now belongs to another process (or to none) is not signalled.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "proc_identity.h"

/* A child in a process group of its own that waits to be killed. */
static pid_t
group_leader(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(pid, pid); /* also here: whichever runs first, the group exists on return */
	return pid;
}

int
main(void)
{
	struct proc_identity me, again;
	CHECK_INT_EQ(proc_identity_of(getpid(), &me), 0);
	CHECK(me.start > 0);
	CHECK_INT_EQ(proc_identity_of(getpid(), &again), 0);
	CHECK(again.start == me.start);
	CHECK(proc_identity_alive(&me));

	/* the same pid with another start time: another process, never ours */
	struct proc_identity other = { me.pid, me.start + 1 };
	CHECK(!proc_identity_alive(&other));
	errno = 0;
	CHECK_INT_EQ(proc_identity_kill_group(&other, 0), -1);
	CHECK_INT_EQ(errno, ESRCH);
	/* an unknown start time (an old record) never matches and is never signalled */
	struct proc_identity unknown = { me.pid, 0 };
	CHECK(!proc_identity_alive(&unknown));
	CHECK_INT_EQ(proc_identity_kill_group(&unknown, 0), -1);
	CHECK_INT_EQ(proc_identity_of(0, &again), -1);

	/* a live group whose leader is the recorded process is signalled */
	pid_t leader = group_leader();
	struct proc_identity lid;
	CHECK_INT_EQ(proc_identity_of(leader, &lid), 0);
	CHECK(proc_identity_alive(&lid));
	CHECK_INT_EQ(proc_identity_kill_group(&lid, SIGKILL), 0);
	int st = 0;
	CHECK(waitpid(leader, &st, 0) == leader && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* once reaped, nothing of it is left: not alive, and no group to signal */
	CHECK(!proc_identity_alive(&lid));
	errno = 0;
	CHECK_INT_EQ(proc_identity_kill_group(&lid, 0), -1);
	CHECK_INT_EQ(errno, ESRCH);
	return check_exit();
}
