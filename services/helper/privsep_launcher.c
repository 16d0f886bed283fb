/*
 * privsep_launcher.c: the privileged launcher (privsep_launcher.h): its table of launches,
 * the account checks, and the request loop.
 */
#define _GNU_SOURCE /* close_range */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gridmap.h"
#include "launch.h"
#include "launch_exec.h"
#include "log.h"
#include "privsep_launcher.h"
#include "privsep_proto.h"

struct child {
	int used;
	char id[LAUNCH_ID_MAX];
	pid_t pid;                 /* its process group and session too */
	uid_t uid;
	int reaped, status;
	int reported;              /* its status went back in a REAP reply */
	unsigned long seq;         /* start order: the oldest reported slot is reused first */
};

struct launcher {
	const struct privsep_launcher_config *cfg;
	struct child *children;
	size_t nchildren;
	unsigned long seq;
	int stopped;               /* after STOP nothing starts */
};

static uint8_t packet[PRIVSEP_MSG_MAX + 1];

static struct child *
child_find(struct launcher *L, const char *id)
{
	for (size_t i = 0; i < L->nchildren; i++)
		if (L->children[i].used && strcmp(L->children[i].id, id) == 0)
			return &L->children[i];
	return NULL;
}

/* Collect the exit status of every launch that ended. */
static void
reap_children(struct launcher *L)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (size_t i = 0; i < L->nchildren; i++)
			if (L->children[i].used && !L->children[i].reaped &&
			    L->children[i].pid == pid) {
				L->children[i].reaped = 1;
				L->children[i].status = status;
			}
}

/* A slot for a new launch: a free one, else the oldest whose end the helper has seen. */
static struct child *
child_slot(struct launcher *L, char *err, size_t errlen)
{
	struct child *oldest = NULL;
	int running = 0;
	for (size_t i = 0; i < L->nchildren; i++) {
		struct child *c = &L->children[i];
		if (!c->used)
			return c;
		if (!c->reaped)
			running++;
		else if (c->reported && (oldest == NULL || c->seq < oldest->seq))
			oldest = c;
	}
	if (running >= L->cfg->max_launches || oldest == NULL) {
		snprintf(err, errlen, "%d launches run already (helper.max_launches)", running);
		return NULL;
	}
	return oldest;
}

/* Whether the grid-mapfile names an account whose uid is uid. */
static int
account_mapped(const char *path, uid_t uid, char *err, size_t errlen)
{
	struct gridmap map = { 0 };
	int found = 0;
	if (gridmap_load(&map, path, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < map.count && !found; i++) {
		struct passwd pw, *pp = NULL;
		char buf[4096];
		found = getpwnam_r(map.entries[i].account, &pw, buf, sizeof(buf), &pp) == 0 &&
		    pp != NULL && pw.pw_uid == uid;
	}
	gridmap_free(&map);
	if (!found)
		snprintf(err, errlen, "uid %u is not an account of the grid-mapfile %.128s",
		    (unsigned)uid, path);
	return found ? 0 : -1;
}

/* Whether initgroups would give the account group 0 (the root group) among its groups. */
static bool
in_root_group(const struct passwd *pw)
{
	gid_t groups[NGROUPS_MAX];
	int n = NGROUPS_MAX;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return true; /* more groups than a process can have: initgroups would fail anyway */
	for (int i = 0; i < n; i++)
		if (groups[i] == 0)
			return true;
	return false;
}

/* Who uid is, if the launcher may start processes as it. */
static int
identity_allowed(struct launcher *L, uid_t uid, struct launch_identity *id, char *err,
    size_t errlen)
{
	struct passwd pw, *pp = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pp) != 0 || pp == NULL) {
		snprintf(err, errlen, "no local account has uid %u", (unsigned)uid);
		return -1;
	}
	if ((pw.pw_uid == 0 || pw.pw_gid == 0) && !L->cfg->allow_root) {
		snprintf(err, errlen, "refusing to launch as root (uid %u, gid %u)",
		    (unsigned)pw.pw_uid, (unsigned)pw.pw_gid);
		return -1;
	}
	if (!L->cfg->allow_root && in_root_group(&pw)) {
		snprintf(err, errlen, "refusing to launch as '%s': a member of group 0", pw.pw_name);
		return -1;
	}
	if (account_mapped(L->cfg->grid_mapfile, uid, err, errlen) != 0)
		return -1;
	if (strlen(pw.pw_name) >= sizeof(id->name) || strlen(pw.pw_dir) >= sizeof(id->home)) {
		snprintf(err, errlen, "account '%s': name or home directory too long", pw.pw_name);
		return -1;
	}
	id->uid = pw.pw_uid;
	id->gid = pw.pw_gid;
	strcpy(id->name, pw.pw_name);
	strcpy(id->home, pw.pw_dir);
	return 0;
}

/* Start a launch; on success its pipes' read ends and its stdin's write end go in fds. The environment gets the
 * launch's mark here, and any mark the request carried is dropped: only the launcher
 * decides which processes a SIGNAL reaches. */
static int
do_launch(struct launcher *L, struct privsep_request *rq, struct privsep_reply_msg *reply,
    int fds[PRIVSEP_LAUNCH_FDS])
{
	char *err = reply->reason, mark[sizeof(LAUNCH_MARK_ENV) + LAUNCH_ID_MAX];
	size_t errlen = sizeof(reply->reason), marklen = strlen(LAUNCH_MARK_ENV);
	struct launch_identity who;
	struct launch_pipes p;
	struct child *c;
	int envc = 0;

	if (L->stopped) {
		snprintf(err, errlen, "the launcher is stopping");
		return -1;
	}
	if (child_find(L, rq->id) != NULL) {
		snprintf(err, errlen, "launch id '%.100s' is in use", rq->id);
		return -1;
	}
	if ((c = child_slot(L, err, errlen)) == NULL ||
	    identity_allowed(L, rq->uid, &who, err, errlen) != 0)
		return -1;
	for (int i = 0; i < rq->envc; i++)
		if (!(strncmp(rq->env[i], LAUNCH_MARK_ENV, marklen) == 0 &&
			rq->env[i][marklen] == '='))
			rq->env[envc++] = rq->env[i];
	snprintf(mark, sizeof(mark), "%s=%s", LAUNCH_MARK_ENV, rq->id);
	rq->env[envc++] = mark; /* fits: the decoder allocated envc + 1 entries */
	struct launch_request req = { .job = "", .account = who.name, .argv = rq->argv,
		.argc = rq->argc, .env = rq->env, .envc = envc, .workdir = rq->workdir };
	if (launch_request_check(&req, err, errlen) != 0 ||
	    launch_exec(&req, &who, &p, err, errlen) != 0)
		return -1;
	memset(c, 0, sizeof(*c));
	c->used = 1;
	snprintf(c->id, sizeof(c->id), "%s", rq->id);
	c->pid = p.pid;
	c->uid = who.uid;
	c->seq = ++L->seq;
	reply->pid = p.pid;
	fds[0] = p.out_fd;
	fds[1] = p.err_fd;
	fds[2] = p.in_fd;
	log_info("launcher: launch %s, pid %d as %s: %s", c->id, (int)c->pid, who.name,
	    req.argv[0]);
	return 0;
}

static int
do_signal(struct launcher *L, const struct privsep_request *rq, struct privsep_reply_msg *reply)
{
	struct child *c = child_find(L, rq->id);
	if (c == NULL) {
		snprintf(reply->reason, sizeof(reply->reason), "no launch '%.100s' on this node",
		    rq->id);
		return -1;
	}
	int group = !c->reaped && kill(-c->pid, rq->sig) == 0;
	int group_errno = errno;
	int marked = launch_signal_marked(c->id, rq->sig, c->uid, group ? c->pid : 0);
	reply->signalled = (uint32_t)(group + marked);
	if (group || marked > 0)
		return 0;
	if (c->reaped)
		snprintf(reply->reason, sizeof(reply->reason), "launch %s has exited already, and "
		    "no process of it is left", c->id);
	else
		snprintf(reply->reason, sizeof(reply->reason), "kill process group %d: %s",
		    (int)c->pid, strerror(group_errno));
	return -1;
}

static void
do_reap(struct launcher *L, struct privsep_reply_msg *reply)
{
	for (size_t i = 0; i < L->nchildren && reply->nreaped < PRIVSEP_REAP_MAX; i++) {
		struct child *c = &L->children[i];
		if (c->used && c->reaped && !c->reported) {
			reply->reaped[reply->nreaped++] = (struct privsep_reaped){ c->pid, c->status };
			c->reported = 1;
		}
	}
}

/* TERM every running launch, give them 2 s, then KILL; and KILL whatever carries a mark. */
static void
kill_all(struct launcher *L)
{
	int left = 0;
	for (size_t i = 0; i < L->nchildren; i++)
		if (L->children[i].used && !L->children[i].reaped &&
		    kill(-L->children[i].pid, SIGTERM) == 0)
			left++;
	for (int tick = 0; left > 0 && tick < 20; tick++) {
		struct timespec pause = { 0, 100 * 1000000L };
		nanosleep(&pause, NULL);
		reap_children(L);
		left = 0;
		for (size_t i = 0; i < L->nchildren; i++)
			left += L->children[i].used && !L->children[i].reaped;
	}
	for (size_t i = 0; i < L->nchildren; i++) {
		struct child *c = &L->children[i];
		if (c->used && !c->reaped) {
			log_warn("launcher: launch %s still runs after SIGTERM; SIGKILL", c->id);
			kill(-c->pid, SIGKILL);
			if (waitpid(c->pid, &c->status, 0) == c->pid)
				c->reaped = 1;
		}
		if (c->used)
			launch_signal_marked(c->id, SIGKILL, c->uid, 0);
	}
}

/* Answer one packet of n bytes (n > PRIVSEP_MSG_MAX: it was longer than that). */
static void
handle(struct launcher *L, int fd, size_t n)
{
	struct privsep_reply_msg reply;
	struct privsep_request rq;
	int fds[PRIVSEP_LAUNCH_FDS] = { -1, -1, -1 }, rc = -1;
	char why[PRIVSEP_REASON_MAX];

	memset(&reply, 0, sizeof(reply));
	reply.hdr = (struct privsep_hdr){ PRIVSEP_REPLY, sizeof(reply) };
	reap_children(L);
	if (privsep_request_decode(packet, n, &rq, reply.reason, sizeof(reply.reason)) == 0) {
		switch (rq.type) {
		case PRIVSEP_LAUNCH: rc = do_launch(L, &rq, &reply, fds); break;
		case PRIVSEP_SIGNAL: rc = do_signal(L, &rq, &reply); break;
		case PRIVSEP_REAP: do_reap(L, &reply); rc = 0; break;
		case PRIVSEP_STOP: L->stopped = 1; kill_all(L); rc = 0; break;
		default: snprintf(reply.reason, sizeof(reply.reason), "unexpected type"); break;
		}
		privsep_request_free(&rq);
	}
	reply.ok = rc == 0;
	if (rc != 0) {
		snprintf(why, sizeof(why), "%s", reply.reason);
		log_warn("launcher: request refused: %s", why);
	}
	struct iovec iov = { &reply, sizeof(reply) };
	union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(fds))]; } ctl;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (fds[0] >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	}
	if (sendmsg(fd, &msg, MSG_NOSIGNAL) != (ssize_t)sizeof(reply))
		log_warn("launcher: cannot answer the helper: %s", strerror(errno));
	for (int i = 0; i < PRIVSEP_LAUNCH_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]); /* the helper has its copies now */
}

void
privsep_launcher_serve(int fd, const struct privsep_launcher_config *cfg)
{
	struct launcher L = { .cfg = cfg };
	L.nchildren = (size_t)cfg->max_launches * 2;
	L.children = calloc(L.nchildren, sizeof(*L.children));
	if (L.children == NULL)
		fatal("launcher: out of memory");
	for (;;) {
		/* MSG_TRUNC: the packet's real length, so an oversized one is told apart */
		ssize_t n = recv(fd, packet, sizeof(packet), MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the helper closed its end */
		handle(&L, fd, (size_t)n);
	}
	kill_all(&L);
	free(L.children);
}

pid_t
privsep_launcher_fork(const struct privsep_launcher_config *cfg, int *fd, char *err,
    size_t errlen)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		snprintf(err, errlen, "launcher socketpair: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork the launcher: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* Only the socket and stdio stay: nothing of the helper's reaches the launches
		 * through the launcher, and stopping the helper's terminal or unit does not stop it
		 * before the helper: it ends when the helper's end closes. */
		close(sv[0]);
		if (sv[1] > 3)
			close_range(3, (unsigned)sv[1] - 1, 0);
		close_range((unsigned)sv[1] + 1, ~0U, 0);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_NAME, "qcg-launcher", 0, 0, 0);
		privsep_launcher_serve(sv[1], cfg);
		_exit(0);
	}
	close(sv[1]);
	*fd = sv[0];
	return pid;
}
