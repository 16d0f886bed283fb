/*
 * proc_identity.h: a process named by its pid and its start time, so that a pid written down
 * earlier (a job's record) is signalled only while it still names the same process. Pids are
 * reused (pid_max is 32768 on many hosts); the start time, in clock ticks since boot from
 * /proc/PID/stat, is not shared by two processes that held the same pid.
 */
#ifndef QCG_PROC_IDENTITY_H
#define QCG_PROC_IDENTITY_H

#include <stdbool.h>
#include <sys/types.h>

struct proc_identity {
	pid_t pid;
	unsigned long long start; /* clock ticks after boot; 0: unknown */
};

/* The identity of the running process pid; 0, or -1 (errno) when it does not exist. */
int proc_identity_of(pid_t pid, struct proc_identity *out);

/* Whether id still names a running process: the same pid with the same start time. An
 * identity whose start is unknown (0) never matches. */
bool proc_identity_alive(const struct proc_identity *id);

/* Send sig to the process group led by id->pid, only while it is still that group: its leader
 * is the same process, or the leader has exited and the group still has members (the kernel
 * does not hand out a pid that names a live process group, so the number is still ours).
 * 0, or -1 with errno (ESRCH: nothing of it is left, or the pid now names another process). */
int proc_identity_kill_group(const struct proc_identity *id, int sig);

#endif
