/*
 * helper_jobs.c: job tokens, inbound waiters and parked sockets (see helper_jobs.h). Tables
 * are small fixed arrays searched linearly under one mutex: they hold the jobs and listening
 * sockets of one node.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper_jobs.h"
#include "helper_wire.h"
#include "log.h"

struct job_entry {
	char job[QCG_NAME_MAX];
	char token[HELPER_TOKEN_MAX + 1];
	uid_t uid; /* the job's account */
};

struct waiter {
	char job[QCG_NAME_MAX];
	uint16_t port;
	int sock; /* -1: free slot */
};

struct parked {
	char job[QCG_NAME_MAX];
	uint16_t port;
	int fd; /* -1: free slot */
	struct helper_msg handoff;
	long deadline_ms;
};

struct helper_jobs {
	pthread_mutex_t lock;
	char token_file[4096];
	int park_ms;
	struct job_entry jobs[HELPER_JOBS_MAX];
	size_t njobs;
	struct waiter waiters[HELPER_WAITERS_MAX];
	struct parked parked[HELPER_PARKED_MAX];
};

static long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

struct helper_jobs *
helper_jobs_new(const char *token_file, int park_ms)
{
	struct helper_jobs *j = calloc(1, sizeof(*j));
	if (j == NULL)
		return NULL;
	pthread_mutex_init(&j->lock, NULL);
	snprintf(j->token_file, sizeof(j->token_file), "%s", token_file ? token_file : "");
	j->park_ms = park_ms;
	for (size_t i = 0; i < HELPER_WAITERS_MAX; i++)
		j->waiters[i].sock = -1;
	for (size_t i = 0; i < HELPER_PARKED_MAX; i++)
		j->parked[i].fd = -1;
	return j;
}

void
helper_jobs_free(struct helper_jobs *j)
{
	if (j == NULL)
		return;
	for (size_t i = 0; i < HELPER_PARKED_MAX; i++)
		if (j->parked[i].fd >= 0)
			close(j->parked[i].fd);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

static struct job_entry *
find_job(struct helper_jobs *j, const char *job)
{
	for (size_t i = 0; i < j->njobs; i++)
		if (strcmp(j->jobs[i].job, job) == 0)
			return &j->jobs[i];
	return NULL;
}

/* Add or confirm an entry; the caller holds the lock. */
static int
set_token_locked(struct helper_jobs *j, const char *job, const char *token, uid_t uid, char *err,
    size_t errlen)
{
	struct job_entry *e = find_job(j, job);
	if (strlen(job) >= sizeof(e->job) || strlen(token) < HELPER_TOKEN_MIN ||
	    strlen(token) > HELPER_TOKEN_MAX) {
		snprintf(err, errlen, "job %.63s: the name or the token (%d..%d bytes) has a bad length",
		    job, HELPER_TOKEN_MIN, HELPER_TOKEN_MAX);
		return -1;
	}
	if (e != NULL) {
		if (strcmp(e->token, token) != 0 || e->uid != uid) {
			snprintf(err, errlen, "job %s already has a different token or account", job);
			return -1;
		}
		return 0;
	}
	if (j->njobs == HELPER_JOBS_MAX) {
		snprintf(err, errlen, "too many jobs on this node (%d)", HELPER_JOBS_MAX);
		return -1;
	}
	e = &j->jobs[j->njobs++];
	strcpy(e->job, job);
	strcpy(e->token, token);
	e->uid = uid;
	return 0;
}

int
helper_jobs_set_token(struct helper_jobs *j, const char *job, const char *token, uid_t uid,
    char *err, size_t errlen)
{
	pthread_mutex_lock(&j->lock);
	int rc = set_token_locked(j, job, token, uid, err, errlen);
	pthread_mutex_unlock(&j->lock);
	return rc;
}

int
helper_token_line_parse(const char *line, char job[QCG_NAME_MAX], char token[HELPER_TOKEN_MAX + 1],
    char account[64], char *err, size_t errlen)
{
	char f[3][256];
	int n = 0;
	const char *p = line;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0' || *p == '#')
		return 1;
	while (*p != '\0' && n < 4) {
		size_t len = strcspn(p, " \t\r\n");
		if (n == 3 || len >= sizeof(f[0])) {
			snprintf(err, errlen, n == 3 ? "more than three fields" : "a field is too long");
			return -1;
		}
		memcpy(f[n], p, len);
		f[n++][len] = '\0';
		p += len;
		while (isspace((unsigned char)*p))
			p++;
	}
	if (n != 3) {
		snprintf(err, errlen, "expected JOB TOKEN ACCOUNT");
		return -1;
	}
	if (strlen(f[0]) >= QCG_NAME_MAX || strlen(f[1]) < HELPER_TOKEN_MIN ||
	    strlen(f[1]) > HELPER_TOKEN_MAX || strlen(f[2]) >= 64) {
		snprintf(err, errlen, "job name, token (%d..%d bytes) or account has a bad length",
		    HELPER_TOKEN_MIN, HELPER_TOKEN_MAX);
		return -1;
	}
	strcpy(job, f[0]);
	strcpy(token, f[1]);
	strcpy(account, f[2]);
	return 0;
}

/* Read the token file into the table (lock held). Bad lines are logged and skipped. */
static void
load_token_file(struct helper_jobs *j)
{
	char line[1024], job[QCG_NAME_MAX], token[HELPER_TOKEN_MAX + 1], account[64], err[256];
	if (j->token_file[0] == '\0')
		return;
	FILE *f = fopen(j->token_file, "r");
	if (f == NULL) {
		log_warn("token file %s: %s", j->token_file, strerror(errno));
		return;
	}
	for (int lineno = 1; fgets(line, sizeof(line), f) != NULL; lineno++) {
		int rc = helper_token_line_parse(line, job, token, account, err, sizeof(err));
		struct passwd pw, *found = NULL;
		char pwbuf[4096];
		if (rc == 0 && (getpwnam_r(account, &pw, pwbuf, sizeof(pwbuf), &found) != 0 ||
				   found == NULL)) {
			snprintf(err, sizeof(err), "no such account '%s'", account);
			rc = -1;
		}
		if (rc == 0 && set_token_locked(j, job, token, pw.pw_uid, err, sizeof(err)) != 0)
			rc = -1;
		if (rc < 0)
			log_warn("%s:%d: %s; line skipped", j->token_file, lineno, err);
	}
	fclose(f);
}

/* Compare without an early exit, so timing does not tell how much of a guess was right. */
static int
tokens_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = (unsigned char)(la != lb);
	for (size_t i = 0; i < la && i < lb; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

int
helper_jobs_check(struct helper_jobs *j, const char *job, const char *token, uid_t peer_uid,
    char *err, size_t errlen)
{
	int rc = 0;
	pthread_mutex_lock(&j->lock);
	struct job_entry *e = find_job(j, job);
	if (e == NULL) {
		load_token_file(j);
		e = find_job(j, job);
	}
	if (e == NULL || !tokens_equal(e->token, token)) {
		snprintf(err, errlen, "job %s: unknown job or wrong token", job);
		rc = HELPER_ERR_DENIED;
	} else if (peer_uid != 0 && peer_uid != e->uid) {
		snprintf(err, errlen, "job %s: caller uid %u is not the job's account (uid %u)", job,
		    (unsigned)peer_uid, (unsigned)e->uid);
		rc = HELPER_ERR_DENIED;
	}
	pthread_mutex_unlock(&j->lock);
	return rc;
}

void
helper_jobs_forget(struct helper_jobs *j, const char *job)
{
	pthread_mutex_lock(&j->lock);
	for (size_t i = 0; i < j->njobs; i++)
		if (strcmp(j->jobs[i].job, job) == 0) {
			j->jobs[i] = j->jobs[--j->njobs];
			break;
		}
	/* Waiters' connection threads notice the shutdown and remove themselves. */
	for (size_t i = 0; i < HELPER_WAITERS_MAX; i++)
		if (j->waiters[i].sock >= 0 && strcmp(j->waiters[i].job, job) == 0)
			shutdown(j->waiters[i].sock, SHUT_RDWR);
	for (size_t i = 0; i < HELPER_PARKED_MAX; i++)
		if (j->parked[i].fd >= 0 && strcmp(j->parked[i].job, job) == 0) {
			close(j->parked[i].fd);
			j->parked[i].fd = -1;
		}
	pthread_mutex_unlock(&j->lock);
}

/* Send a HANDOFF with fd on sock and close fd (lock held). */
static int
send_handoff(int sock, int fd, const struct helper_msg *handoff, char *err, size_t errlen)
{
	struct helper_msg m = *handoff;
	m.type = HELPER_MSG_HANDOFF;
	m.flags = HELPER_FLAG_FD | (handoff->flags & HELPER_FLAG_RESUMABLE);
	int rc = helper_wire_send(sock, &m, fd, err, errlen);
	close(fd); /* the process has its own copy now: the helper is out of the data path */
	return rc;
}

static struct waiter *
find_waiter(struct helper_jobs *j, const char *job, uint16_t port)
{
	for (size_t i = 0; i < HELPER_WAITERS_MAX; i++)
		if (j->waiters[i].sock >= 0 && j->waiters[i].port == port &&
		    strcmp(j->waiters[i].job, job) == 0)
			return &j->waiters[i];
	return NULL;
}

int
helper_jobs_add_waiter(struct helper_jobs *j, const char *job, uint16_t port, int sock, char *err,
    size_t errlen)
{
	char serr[256];
	int rc = -1;
	pthread_mutex_lock(&j->lock);
	if (find_waiter(j, job, port) != NULL) {
		snprintf(err, errlen, "job %s: another process already waits on port %u", job, port);
		goto out;
	}
	for (size_t i = 0; i < HELPER_WAITERS_MAX && rc != 0; i++)
		if (j->waiters[i].sock < 0) {
			snprintf(j->waiters[i].job, sizeof(j->waiters[i].job), "%s", job);
			j->waiters[i].port = port;
			j->waiters[i].sock = sock;
			rc = 0;
		}
	if (rc != 0) {
		snprintf(err, errlen, "too many waiting processes on this node (%d)", HELPER_WAITERS_MAX);
		goto out;
	}
	/* The OK goes out under the lock, so that no HANDOFF can overtake it. */
	struct helper_msg ok;
	helper_msg_init(&ok, HELPER_MSG_OK);
	if (helper_wire_send(sock, &ok, -1, err, errlen) != 0) {
		for (size_t i = 0; i < HELPER_WAITERS_MAX; i++)
			if (j->waiters[i].sock == sock)
				j->waiters[i].sock = -1;
		rc = -1;
		goto out;
	}
	/* Sockets that arrived before the process asked go out now, oldest first. */
	for (size_t i = 0; i < HELPER_PARKED_MAX; i++) {
		struct parked *p = &j->parked[i];
		if (p->fd < 0 || p->port != port || strcmp(p->job, job) != 0)
			continue;
		if (send_handoff(sock, p->fd, &p->handoff, serr, sizeof(serr)) != 0)
			log_warn("job %s port %u: parked hand-off failed: %s", job, port, serr);
		p->fd = -1;
	}
out:
	pthread_mutex_unlock(&j->lock);
	return rc;
}

void
helper_jobs_remove_waiter(struct helper_jobs *j, int sock)
{
	pthread_mutex_lock(&j->lock);
	for (size_t i = 0; i < HELPER_WAITERS_MAX; i++)
		if (j->waiters[i].sock == sock)
			j->waiters[i].sock = -1;
	pthread_mutex_unlock(&j->lock);
}

static int
park(struct helper_jobs *j, const char *job, uint16_t port, int fd,
    const struct helper_msg *handoff, char *err, size_t errlen)
{
	for (size_t i = 0; i < HELPER_PARKED_MAX; i++) {
		struct parked *p = &j->parked[i];
		if (p->fd >= 0)
			continue;
		snprintf(p->job, sizeof(p->job), "%s", job);
		p->port = port;
		p->fd = fd;
		p->handoff = *handoff;
		p->deadline_ms = now_ms() + j->park_ms;
		return 0;
	}
	close(fd);
	snprintf(err, errlen, "job %s port %u: no process waits and %d sockets are parked already",
	    job, port, HELPER_PARKED_MAX);
	return -1;
}

int
helper_jobs_hand_inbound(struct helper_jobs *j, const char *job, uint16_t port, int fd,
    const struct helper_msg *handoff, char *err, size_t errlen)
{
	int rc;
	pthread_mutex_lock(&j->lock);
	struct waiter *w = find_waiter(j, job, port);
	if (w != NULL)
		rc = send_handoff(w->sock, fd, handoff, err, errlen);
	else
		rc = park(j, job, port, fd, handoff, err, errlen);
	pthread_mutex_unlock(&j->lock);
	return rc;
}

void
helper_jobs_expire(struct helper_jobs *j)
{
	long now = now_ms();
	pthread_mutex_lock(&j->lock);
	for (size_t i = 0; i < HELPER_PARKED_MAX; i++) {
		struct parked *p = &j->parked[i];
		if (p->fd >= 0 && now >= p->deadline_ms) {
			log_warn("job %s: no process took the inbound socket for port %u within %d ms; "
				 "closed", p->job, p->port, j->park_ms);
			close(p->fd);
			p->fd = -1;
		}
	}
	pthread_mutex_unlock(&j->lock);
}
