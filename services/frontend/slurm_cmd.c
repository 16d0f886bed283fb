/*
 * slurm_cmd.c: a Slurm command as a child with bounded time and output (slurm_cmd.h).
 */
#define _GNU_SOURCE /* pipe2: close-on-exec from the start, so that no other child of this
                     * threaded process inherits the pipes */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurm_cmd.h"

extern char **environ;

#define SLURM_CMD_ENV_MAX 512 /* environment entries passed on */

static long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Our environment with SLURM_CONF replaced by conf (when not empty), into env[] (NULL-ended). */
static int
child_env(const char *conf, char *conf_entry, size_t entry_len, char **env, size_t max)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "SLURM_CONF=", 11) == 0 && conf[0])
			continue;
		if (n + 2 >= max)
			return -1;
		env[n++] = *e;
	}
	if (conf[0]) {
		if ((size_t)snprintf(conf_entry, entry_len, "SLURM_CONF=%s", conf) >= entry_len)
			return -1;
		env[n++] = conf_entry;
	}
	env[n] = NULL;
	return 0;
}

/* Append what fd has to buf (used bytes in *len); returns 0 at end of file, 1 for more. */
static int
drain(int fd, char *buf, size_t *len, bool *truncated)
{
	char chunk[4096];
	ssize_t r = read(fd, chunk, sizeof(chunk));
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (r == 0)
		return 0;
	size_t room = SLURM_CMD_OUTPUT_MAX - 1 - *len;
	if ((size_t)r > room) {
		*truncated = true;
		r = (ssize_t)room;
	}
	memcpy(buf + *len, chunk, (size_t)r);
	*len += (size_t)r;
	buf[*len] = '\0';
	return 1;
}

/* Wait for pid at most ms milliseconds; 1 when it was reaped (status in *status). */
static int
reap_within(pid_t pid, long ms, int *status)
{
	long until = now_ms() + ms;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return r == pid;
		if (now_ms() >= until)
			return 0;
		struct timespec pause = { 0, 20 * 1000000L };
		nanosleep(&pause, NULL);
	}
}

int
slurm_cmd_run(char *const argv[], const char *slurm_conf, long timeout_ms,
    struct slurm_cmd_result *res, char *why, size_t whylen)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, status = 0, rc = -1;
	char *env[SLURM_CMD_ENV_MAX], conf_entry[1100];
	size_t out_len = 0, err_len = 0;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	if (child_env(slurm_conf ? slurm_conf : "", conf_entry, sizeof(conf_entry), env,
		SLURM_CMD_ENV_MAX) != 0) {
		snprintf(why, whylen, "%s: environment too large", argv[0]);
		return -1;
	}
	if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
		snprintf(why, whylen, "%s: pipe: %s", argv[0], strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
	if (e != 0) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0], strerror(e));
		goto out;
	}
	long deadline = now_ms() + timeout_ms;
	bool out_open = true, err_open = true;
	while (out_open || err_open) {
		long left = deadline - now_ms();
		if (left <= 0) {
			res->timed_out = true;
			break;
		}
		struct pollfd p[2] = { { out_open ? outp[0] : -1, POLLIN, 0 },
			{ err_open ? errp[0] : -1, POLLIN, 0 } };
		int n = poll(p, 2, (int)(left > 1000 ? 1000 : left));
		if (n < 0 && errno != EINTR)
			break;
		if (out_open && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			out_open = drain(outp[0], res->out, &out_len, &res->truncated);
		if (err_open && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			err_open = drain(errp[0], res->err, &err_len, &res->truncated);
	}
	/* Output closed: the child is ending; give it the rest of its time to exit. */
	long left = deadline - now_ms();
	if (!res->timed_out && reap_within(pid, left > 0 ? left : 0, &status)) {
		res->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		rc = 0;
		goto out;
	}
	res->timed_out = true;
	kill(pid, SIGTERM);
	if (!reap_within(pid, SLURM_CMD_KILL_GRACE_MS, &status)) {
		kill(pid, SIGKILL);
		reap_within(pid, 60000, &status); /* SIGKILL cannot be refused */
	}
	snprintf(why, whylen, "%s did not finish within %ld ms and was stopped", argv[0],
	    timeout_ms);
out:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return rc;
}
