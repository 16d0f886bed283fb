/*
 * proc_identity.c: pid + start time (proc_identity.h).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "proc_identity.h"

int
proc_identity_of(pid_t pid, struct proc_identity *out)
{
	char path[64], stat[1024];
	if (pid <= 0) {
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	size_t n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	/* "pid (comm) state ppid ..." where comm may hold spaces and ')': fields count from the
	 * last ')'. starttime is field 22; after ')' come field 3 (state) onwards. */
	const char *p = strrchr(stat, ')');
	unsigned long long start = 0;
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
	    "%*d %*d %*d %*d %*d %llu", &start) != 1 || start == 0) {
		errno = EIO;
		return -1;
	}
	out->pid = pid;
	out->start = start;
	return 0;
}

bool
proc_identity_alive(const struct proc_identity *id)
{
	struct proc_identity now;
	return id->start != 0 && proc_identity_of(id->pid, &now) == 0 && now.start == id->start;
}

int
proc_identity_kill_group(const struct proc_identity *id, int sig)
{
	struct proc_identity now;
	if (id->pid <= 1 || id->start == 0) {
		errno = EINVAL;
		return -1;
	}
	if (proc_identity_of(id->pid, &now) == 0 && now.start != id->start) {
		errno = ESRCH; /* the pid is another process's now: not our group */
		return -1;
	}
	return kill(-id->pid, sig);
}
