/*
 * launch_exec.c: checking a launch request, finding its account, and starting the process
 * (fork, identity, exec). The table and the supervisor are in launch.c.
 */
#define _GNU_SOURCE /* pipe2, close_range */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "launch.h"
#include "launch_exec.h"
#include "log.h"

int
launch_request_check(const struct launch_request *req, char *err, size_t errlen)
{
	if (req->argc < 1 || req->argc > LAUNCH_ARGS_MAX || req->envc < 0 ||
	    req->envc > LAUNCH_ENV_MAX) {
		snprintf(err, errlen, "a launch needs 1..%d arguments and at most %d environment "
		    "entries", LAUNCH_ARGS_MAX, LAUNCH_ENV_MAX);
		return -1;
	}
	if (req->argv[0] == NULL || req->argv[0][0] == '\0') {
		snprintf(err, errlen, "argument 0 (the program) is empty");
		return -1;
	}
	for (int i = 0; i < req->argc; i++)
		if (req->argv[i] == NULL || strlen(req->argv[i]) > LAUNCH_STRING_MAX) {
			snprintf(err, errlen, "argument %d is missing or longer than %d bytes", i,
			    LAUNCH_STRING_MAX);
			return -1;
		}
	for (int i = 0; i < req->envc; i++) {
		const char *e = req->env[i];
		if (e == NULL || e[0] == '=' || strchr(e, '=') == NULL ||
		    strlen(e) > LAUNCH_STRING_MAX) {
			snprintf(err, errlen, "environment entry %d is not NAME=value (or is longer than "
			    "%d bytes)", i, LAUNCH_STRING_MAX);
			return -1;
		}
	}
	if (req->workdir && req->workdir[0] != '\0' && req->workdir[0] != '/') {
		snprintf(err, errlen, "workingDirectory must be absolute, got '%.100s'", req->workdir);
		return -1;
	}
	return 0;
}

int
launch_identity_of(const char *account, uid_t helper_uid, bool allow_root,
    struct launch_identity *out, char *err, size_t errlen)
{
	struct passwd pw, *found = NULL;
	char buf[4096];
	if (account == NULL || getpwnam_r(account, &pw, buf, sizeof(buf), &found) != 0 ||
	    found == NULL) {
		snprintf(err, errlen, "no local account '%.64s' on this node", account ? account : "");
		return -1;
	}
	if (pw.pw_uid == 0 && !allow_root) {
		snprintf(err, errlen, "refusing to launch as root (account '%s'); see "
		    "helper.allow_root_launch", account);
		return -1;
	}
	if (helper_uid != 0 && helper_uid != pw.pw_uid) {
		snprintf(err, errlen, "qcg-helper runs as uid %u and cannot start processes as '%s'",
		    (unsigned)helper_uid, account);
		return -1;
	}
	if (strlen(pw.pw_name) >= sizeof(out->name) || strlen(pw.pw_dir) >= sizeof(out->home)) {
		snprintf(err, errlen, "account '%s': name or home directory too long", account);
		return -1;
	}
	out->uid = pw.pw_uid;
	out->gid = pw.pw_gid;
	strcpy(out->name, pw.pw_name);
	strcpy(out->home, pw.pw_dir);
	return 0;
}

/* The directory a launch starts in: the one asked for, else the account's home when it exists
 * (nobody's /nonexistent does not), else "/". */
static const char *
launch_default_workdir(const struct launch_request *req, const struct launch_identity *id)
{
	struct stat st;
	if (req->workdir && req->workdir[0])
		return req->workdir;
	if (stat(id->home, &st) == 0 && S_ISDIR(st.st_mode))
		return id->home;
	return "/";
}

/* In the child: report errno on the status pipe and leave. */
static void
child_fail(int status_fd, int stage)
{
	int report[2] = { stage, errno };
	ssize_t w = write(status_fd, report, sizeof(report));
	(void)w;
	_exit(127);
}

/* In the child, after fork: become the launch. Never returns. */
static void
child_become(const struct launch_request *req, const struct launch_identity *id, int in_fd,
    int out_fd, int err_fd, int status_fd)
{
	extern char **environ;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL); /* the helper ignores SIGPIPE; its children must not */
	if (setsid() < 0)
		child_fail(status_fd, LAUNCH_STAGE_SETSID);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		child_fail(status_fd, LAUNCH_STAGE_STDIO);
	/* Nothing of the helper's (sockets, the TLS key's file) may leak into the job. */
	if (status_fd > 3)
		close_range(3, (unsigned)status_fd - 1, 0);
	close_range((unsigned)status_fd + 1, ~0U, 0);
	if (geteuid() == 0 && (initgroups(id->name, id->gid) != 0 || setgid(id->gid) != 0 ||
				  setuid(id->uid) != 0))
		child_fail(status_fd, LAUNCH_STAGE_IDENTITY);
	if (chdir(req->workdir) != 0)
		child_fail(status_fd, LAUNCH_STAGE_CHDIR);
	/* execvp searches the PATH of environ, which is now exactly the job's environment */
	environ = (char **)req->env;
	execvp(req->argv[0], (char *const *)req->argv);
	child_fail(status_fd, LAUNCH_STAGE_EXEC);
}

static const char *
stage_name(int stage)
{
	switch (stage) {
	case LAUNCH_STAGE_SETSID: return "setsid";
	case LAUNCH_STAGE_STDIO: return "redirect stdio";
	case LAUNCH_STAGE_IDENTITY: return "switch to the account";
	case LAUNCH_STAGE_CHDIR: return "enter the working directory";
	default: return "execute";
	}
}

/* Wait for exec (the status pipe closes) or the child's report of why it failed. */
static int
await_exec(int status_fd, const struct launch_request *req, char *err, size_t errlen)
{
	int report[2];
	ssize_t n;
	do
		n = read(status_fd, report, sizeof(report));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(report)) {
		snprintf(err, errlen, "cannot %s '%.200s': %s", stage_name(report[0]),
		    report[0] == LAUNCH_STAGE_CHDIR ? req->workdir : req->argv[0],
		    strerror(report[1]));
		return -1;
	}
	return 0;
}

int
launch_exec(const struct launch_request *req, const struct launch_identity *id,
    struct launch_pipes *out, char *err, size_t errlen)
{
	int opipe[2] = { -1, -1 }, epipe[2] = { -1, -1 }, spipe[2] = { -1, -1 };
	int ipipe[2] = { -1, -1 };
	char **envz = calloc((size_t)req->envc + 1, sizeof(char *));
	char **argz = calloc((size_t)req->argc + 1, sizeof(char *));
	int rc = -1;
	if (envz == NULL || argz == NULL || pipe2(opipe, O_CLOEXEC) != 0 ||
	    pipe2(epipe, O_CLOEXEC) != 0 || pipe2(spipe, O_CLOEXEC) != 0 ||
	    pipe2(ipipe, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot prepare the launch: %s", strerror(errno));
		goto done;
	}
	/* NULL-terminated copies, made before fork so the child does not allocate */
	memcpy(envz, req->env, (size_t)req->envc * sizeof(char *));
	memcpy(argz, req->argv, (size_t)req->argc * sizeof(char *));
	struct launch_request r = *req;
	r.env = envz;
	r.argv = argz;
	r.workdir = launch_default_workdir(req, id);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0)
		child_become(&r, id, ipipe[0], opipe[1], epipe[1], spipe[1]);
	close(spipe[1]);
	spipe[1] = -1;
	if (await_exec(spipe[0], &r, err, errlen) != 0) {
		waitpid(pid, NULL, 0);
		goto done;
	}
	out->pid = pid;
	out->out_fd = opipe[0];
	out->err_fd = epipe[0];
	out->in_fd = ipipe[1];
	opipe[0] = epipe[0] = ipipe[1] = -1;
	fcntl(out->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(out->err_fd, F_SETFL, O_NONBLOCK);
	rc = 0;
done:
	for (int i = 0; i < 2; i++) {
		if (opipe[i] >= 0)
			close(opipe[i]);
		if (epipe[i] >= 0)
			close(epipe[i]);
		if (spipe[i] >= 0)
			close(spipe[i]);
		if (ipipe[i] >= 0)
			close(ipipe[i]);
	}
	free(envz);
	free(argz);
	return rc;
}

/* Whether process pid's environment holds the entry `entry` (NAME=value), read from
 * /proc/PID/environ (NUL-separated). A process that cannot be read (gone, not ours) has not. */
static bool
environ_has(pid_t pid, const char *entry)
{
	char path[64], buf[8192];
	size_t want = strlen(entry) + 1, have = 0; /* the entry and its NUL */
	bool found = false;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* Scan entry by entry across reads; an entry longer than the buffer is skipped. */
	bool at_start = true, skipping = false;
	while (!found && (n = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		size_t len = have + (size_t)n, pos = 0;
		while (pos < len) {
			char *nul = memchr(buf + pos, '\0', len - pos);
			if (nul == NULL)
				break;
			size_t elen = (size_t)(nul - (buf + pos)) + 1;
			if (at_start && !skipping && elen == want && memcmp(buf + pos, entry, want) == 0)
				found = true;
			pos += elen;
			at_start = true;
			skipping = false;
		}
		have = len - pos;
		if (have == sizeof(buf)) { /* one entry fills the buffer: not ours, skip it */
			have = 0;
			skipping = true;
		} else {
			memmove(buf, buf + pos, have);
		}
	}
	close(fd);
	return found;
}

/* Whether process pid runs as uid owner (its /proc directory belongs to its real uid). */
static bool
owned_by(pid_t pid, uid_t owner)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 && st.st_uid == owner;
}

int
launch_signal_marked(const char *id, int sig, uid_t owner, pid_t signalled_group)
{
	char entry[sizeof(LAUNCH_MARK_ENV) + LAUNCH_ID_MAX];
	struct dirent *d;
	int count = 0;
	DIR *proc = opendir("/proc");

	if (proc == NULL) {
		log_warn("launch %s: cannot look for its processes in /proc: %s", id, strerror(errno));
		return 0;
	}
	snprintf(entry, sizeof(entry), "%s=%s", LAUNCH_MARK_ENV, id);
	while ((d = readdir(proc)) != NULL) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		if (*end != '\0' || pid <= 1 || pid == (long)getpid())
			continue;
		if (owner != (uid_t)-1 && !owned_by((pid_t)pid, owner))
			continue;
		if (signalled_group > 0 && getpgid((pid_t)pid) == signalled_group)
			continue;
		if (environ_has((pid_t)pid, entry) && kill((pid_t)pid, sig) == 0) {
			log_info("launch %s: signal %d to pid %ld (left the launch's process group)",
			    id, sig, pid);
			count++;
		}
	}
	closedir(proc);
	return count;
}
