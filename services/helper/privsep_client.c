/*
 * privsep_client.c: requests to the privileged launcher (privsep_client.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "privsep_client.h"

/* A reply takes at most an exec (LAUNCH) or TERM, 2 s, KILL (STOP): far below this. */
#define PRIVSEP_REPLY_TIMEOUT_S 30

struct privsep_client {
	pthread_mutex_t lock;
	int fd;
	int broken;    /* a reply did not come in time: a late one would answer the next request */
};

struct privsep_client *
privsep_client_new(int fd)
{
	struct timeval tv = { PRIVSEP_REPLY_TIMEOUT_S, 0 };
	struct privsep_client *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_mutex_init(&c->lock, NULL);
	c->fd = fd;
	return c;
}

void
privsep_client_free(struct privsep_client *c)
{
	if (c == NULL)
		return;
	close(c->fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Send one packet and receive its reply, and the descriptors that come with it
 * (fds[PRIVSEP_LAUNCH_FDS], -1 when none); -1 with err on an I/O error or a malformed reply.
 * Lock held. */
static int
exchange(struct privsep_client *c, const void *req, size_t len,
    struct privsep_reply_msg *reply, int fds[PRIVSEP_LAUNCH_FDS], char *err, size_t errlen)
{
	union { struct cmsghdr h; char buf[CMSG_SPACE(PRIVSEP_LAUNCH_FDS * sizeof(int))]; } ctl;
	struct iovec iov = { reply, sizeof(*reply) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	for (int i = 0; i < PRIVSEP_LAUNCH_FDS; i++)
		fds[i] = -1;
	if (c->broken) {
		snprintf(err, errlen, "the launcher stopped answering; no launches until qcg-helper "
		    "restarts");
		return -1;
	}
	if (send(c->fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
		snprintf(err, errlen, "cannot reach the launcher: %s", strerror(errno));
		return -1;
	}
	do
		n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		snprintf(err, errlen, "no answer from the launcher: %s",
		    n == 0 ? "it exited" : strerror(errno));
		c->broken = 1;
		return -1;
	}
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(PRIVSEP_LAUNCH_FDS * sizeof(int)))
			memcpy(fds, CMSG_DATA(cm), PRIVSEP_LAUNCH_FDS * sizeof(int));
	if (privsep_reply_check(reply, (size_t)n, err, errlen) != 0 ||
	    (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		snprintf(err, errlen, "the launcher sent a malformed reply");
		for (int i = 0; i < PRIVSEP_LAUNCH_FDS; i++) {
			if (fds[i] >= 0)
				close(fds[i]);
			fds[i] = -1;
		}
		return -1;
	}
	return 0;
}

/* One request whose reply carries no descriptors; -1 with err when refused. */
static int
call(struct privsep_client *c, const void *req, size_t len, struct privsep_reply_msg *reply,
    char *err, size_t errlen)
{
	int fds[PRIVSEP_LAUNCH_FDS];
	pthread_mutex_lock(&c->lock);
	int rc = exchange(c, req, len, reply, fds, err, errlen);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < PRIVSEP_LAUNCH_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (rc == 0 && !reply->ok) {
		snprintf(err, errlen, "%s", reply->reason);
		rc = -1;
	}
	return rc;
}

int
privsep_client_launch(struct privsep_client *c, const char *id, uid_t uid, const char *workdir,
    char *const *argv, int argc, char *const *env, int envc, pid_t *pid, int *out_fd,
    int *err_fd, int *in_fd, char *err, size_t errlen)
{
	struct privsep_reply_msg reply;
	uint8_t *pkt;
	size_t len;
	int fds[PRIVSEP_LAUNCH_FDS];
	if (privsep_launch_encode(id, uid, workdir, argv, argc, env, envc, &pkt, &len, err,
		errlen) != 0)
		return -1;
	pthread_mutex_lock(&c->lock);
	int rc = exchange(c, pkt, len, &reply, fds, err, errlen);
	pthread_mutex_unlock(&c->lock);
	free(pkt);
	if (rc == 0 && (!reply.ok || fds[0] < 0 || fds[1] < 0 || fds[2] < 0)) {
		snprintf(err, errlen, "%s", reply.ok ? "the launcher sent no pipes" : reply.reason);
		for (int i = 0; i < PRIVSEP_LAUNCH_FDS; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		rc = -1;
	}
	if (rc != 0)
		return -1;
	*pid = reply.pid;
	*out_fd = fds[0];
	*err_fd = fds[1];
	*in_fd = fds[2];
	fcntl(fds[0], F_SETFL, O_NONBLOCK); /* the flag is the file's: set by the launcher too */
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	return 0;
}

int
privsep_client_signal(struct privsep_client *c, const char *id, int sig, char *err,
    size_t errlen)
{
	struct privsep_signal_msg m;
	struct privsep_reply_msg reply;
	if (strlen(id) >= sizeof(m.id)) {
		snprintf(err, errlen, "no launch '%.100s' on this node", id);
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.hdr = (struct privsep_hdr){ PRIVSEP_SIGNAL, sizeof(m) };
	m.sig = sig;
	memcpy(m.id, id, strlen(id) + 1);
	return call(c, &m, sizeof(m), &reply, err, errlen);
}

int
privsep_client_reap(struct privsep_client *c, struct privsep_reaped out[PRIVSEP_REAP_MAX],
    char *err, size_t errlen)
{
	struct privsep_hdr h = { PRIVSEP_REAP, sizeof(h) };
	struct privsep_reply_msg reply;
	if (call(c, &h, sizeof(h), &reply, err, errlen) != 0)
		return -1;
	memcpy(out, reply.reaped, reply.nreaped * sizeof(out[0]));
	return (int)reply.nreaped;
}

int
privsep_client_stop(struct privsep_client *c, char *err, size_t errlen)
{
	struct privsep_hdr h = { PRIVSEP_STOP, sizeof(h) };
	struct privsep_reply_msg reply;
	return call(c, &h, sizeof(h), &reply, err, errlen);
}
