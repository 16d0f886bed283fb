/*
 * launch.c: the table of launched processes, the supervisor thread that drains their pipes
 * and reaps them, and the ReadOutput long poll (launch.h).
 */
#define _GNU_SOURCE /* pipe2 */
#include "config.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper_jobs.h"
#include "launch.h"
#include "launch_exec.h"
#include "launch_output.h"
#include "log.h"
#include "node_topology.h"
#include "privsep_client.h"
#include "random_bytes.h"

#define LINGER_MS 2000     /* after the reap, how long descendants may keep the pipes open */
#define TICK_MS 200        /* the supervisor's poll period */

struct launch {
	int used;
	char id[LAUNCH_ID_MAX];
	char job[QCG_NAME_MAX];
	pid_t pid;                 /* process group and session too */
	int fd[2];                 /* stdout, stderr read ends; -1 at end of file */
	bool input_open;           /* in_fd is its stdin's write end (launch_request.input) */
	int in_fd;
	struct launch_output out[2];
	int reaped, status;
	long reaped_ms;
	int ended;                 /* reaped and pipes done */
	long started_ms, ended_ms;
};

struct launch_table {
	pthread_mutex_t lock;
	pthread_cond_t changed;    /* output arrived or a launch ended */
	pthread_t supervisor;
	int wake[2];               /* wakes the supervisor: new launch, buffer space, stop */
	int stop;
	char node[QCG_NAME_MAX];
	int max_running;
	size_t output_cap;
	bool allow_root;
	struct helper_jobs *jobs;
	struct privsep_client *launcher; /* privilege separation: it starts, signals and reaps
	                                  * (privsep_launcher.h); NULL: this process does */
	unsigned long seq;
	size_t nslots;
	struct launch *slots;
	char topology_env[sizeof(NODE_TOPOLOGY_ENV) + PATH_MAX]; /* "VAR=path", or "" */
};

static long
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void
wake(struct launch_table *t)
{
	char c = 1;
	ssize_t w = write(t->wake[1], &c, 1); /* non-blocking; a full pipe is awake already */
	(void)w;
}

/* Read what a pipe has, as far as the buffer allows (lock held). */
static void
drain(struct launch *l, int i)
{
	uint8_t buf[65536];
	size_t space = launch_output_space(&l->out[i]);
	if (space == 0)
		return; /* full: the process blocks until a reader acknowledges */
	ssize_t n = read(l->fd[i], buf, space < sizeof(buf) ? space : sizeof(buf));
	if (n > 0 && launch_output_append(&l->out[i], buf, (size_t)n) == 0)
		return;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close(l->fd[i]);
	l->fd[i] = -1;
}

/* Reap and decide whether a launch has ended (lock held). */
static void
check_end(struct launch_table *t, struct launch *l)
{
	if (!l->reaped && t->launcher == NULL &&
	    waitpid(l->pid, &l->status, WNOHANG) == l->pid) {
		l->reaped = 1;
		l->reaped_ms = now_ms();
	}
	if (!l->reaped || l->ended)
		return;
	int pipes_open = l->fd[0] >= 0 || l->fd[1] >= 0;
	if (pipes_open && now_ms() - l->reaped_ms < LINGER_MS)
		return;
	for (int i = 0; i < 2; i++)
		if (l->fd[i] >= 0) {
			close(l->fd[i]);
			l->fd[i] = -1;
		}
	l->ended = 1;
	l->ended_ms = now_ms();
	log_info("launch %s (pid %d) ended: %s %d", l->id, (int)l->pid,
	    WIFSIGNALED(l->status) ? "signal" : "exit code",
	    WIFSIGNALED(l->status) ? WTERMSIG(l->status) : WEXITSTATUS(l->status));
}

/* Record exit statuses the launcher reports (lock held). */
static void
apply_reaped(struct launch_table *t, const struct privsep_reaped *r, int n)
{
	for (int k = 0; k < n; k++)
		for (size_t s = 0; s < t->nslots; s++) {
			struct launch *l = &t->slots[s];
			if (l->used && !l->reaped && l->pid == r[k].pid) {
				l->reaped = 1;
				l->status = r[k].status;
				l->reaped_ms = now_ms();
			}
		}
}

/* Under privilege separation the launcher is the launches' parent: ask it which ended
 * (lock held). */
static void
reap_through_launcher(struct launch_table *t)
{
	struct privsep_reaped r[PRIVSEP_REAP_MAX];
	char err[PRIVSEP_REASON_MAX];
	int running = 0, n;
	for (size_t s = 0; s < t->nslots; s++)
		running += t->slots[s].used && !t->slots[s].reaped;
	while (running > 0 && (n = privsep_client_reap(t->launcher, r, err, sizeof(err))) > 0) {
		apply_reaped(t, r, n);
		running -= n;
	}
	if (running > 0 && n < 0)
		log_warn("launch supervisor: %s", err);
}

static void *
supervisor_main(void *arg)
{
	struct launch_table *t = arg;
	size_t cap = 1 + 2 * t->nslots;
	struct pollfd *pfd = calloc(cap, sizeof(*pfd));
	struct { struct launch *l; int i; } *who = calloc(cap, sizeof(*who));
	if (pfd == NULL || who == NULL)
		fatal("launch supervisor: out of memory");
	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		size_t n = 1;
		pfd[0] = (struct pollfd){ .fd = t->wake[0], .events = POLLIN };
		for (size_t s = 0; s < t->nslots; s++)
			for (int i = 0; i < 2; i++) {
				struct launch *l = &t->slots[s];
				if (!l->used || l->fd[i] < 0 || launch_output_space(&l->out[i]) == 0)
					continue;
				pfd[n] = (struct pollfd){ .fd = l->fd[i], .events = POLLIN };
				who[n].l = l;
				who[n++].i = i;
			}
		pthread_mutex_unlock(&t->lock);
		poll(pfd, n, TICK_MS);
		if (pfd[0].revents & POLLIN) {
			char sink[64];
			while (read(t->wake[0], sink, sizeof(sink)) > 0)
				;
		}
		pthread_mutex_lock(&t->lock);
		for (size_t k = 1; k < n; k++)
			if (pfd[k].revents)
				drain(who[k].l, who[k].i);
		if (t->launcher != NULL)
			reap_through_launcher(t);
		for (size_t s = 0; s < t->nslots; s++)
			if (t->slots[s].used)
				check_end(t, &t->slots[s]);
		pthread_cond_broadcast(&t->changed);
	}
	pthread_mutex_unlock(&t->lock);
	free(pfd);
	free(who);
	return NULL;
}

struct launch_table *
launch_table_new(const char *node, int max_launches, size_t output_cap, bool allow_root,
    struct helper_jobs *jobs)
{
	struct launch_table *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	snprintf(t->node, sizeof(t->node), "%s", node);
	t->max_running = max_launches;
	t->output_cap = output_cap;
	t->allow_root = allow_root;
	t->jobs = jobs;
	t->nslots = (size_t)max_launches * 2; /* ended launches stay readable a while */
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->changed, NULL);
	if (t->slots == NULL || pipe2(t->wake, O_CLOEXEC | O_NONBLOCK) != 0 ||
	    pthread_create(&t->supervisor, NULL, supervisor_main, t) != 0) {
		free(t->slots);
		free(t);
		return NULL;
	}
	return t;
}

void
launch_table_use_launcher(struct launch_table *t, struct privsep_client *launcher)
{
	pthread_mutex_lock(&t->lock);
	t->launcher = launcher;
	pthread_mutex_unlock(&t->lock);
}

void
launch_table_use_topology(struct launch_table *t, const char *path)
{
	pthread_mutex_lock(&t->lock);
	if (path == NULL || path[0] == '\0')
		t->topology_env[0] = '\0';
	else
		snprintf(t->topology_env, sizeof(t->topology_env), "%s=%s", NODE_TOPOLOGY_ENV,
		    path);
	pthread_mutex_unlock(&t->lock);
}

static struct launch *
find(struct launch_table *t, const char *id)
{
	for (size_t s = 0; s < t->nslots; s++)
		if (t->slots[s].used && strcmp(t->slots[s].id, id) == 0)
			return &t->slots[s];
	return NULL;
}

static void
release(struct launch *l)
{
	if (l->input_open)
		close(l->in_fd);
	launch_output_free(&l->out[0]);
	launch_output_free(&l->out[1]);
	memset(l, 0, sizeof(*l));
}

/* A free slot, reusing the one that ended longest ago when none is free (lock held). */
static struct launch *
free_slot(struct launch_table *t, char *err, size_t errlen)
{
	struct launch *oldest = NULL, *unused = NULL;
	int running = 0;
	for (size_t s = 0; s < t->nslots; s++) {
		struct launch *l = &t->slots[s];
		if (!l->used)
			unused = unused ? unused : l;
		else if (!l->ended)
			running++;
		else if (oldest == NULL || l->ended_ms < oldest->ended_ms)
			oldest = l;
	}
	if (running >= t->max_running || (unused == NULL && oldest == NULL)) {
		snprintf(err, errlen, "%d launches run on this node already (helper.max_launches)",
		    running);
		return NULL;
	}
	if (unused != NULL)
		return unused;
	release(oldest);
	return oldest;
}

static void
make_id(struct launch_table *t, char id[LAUNCH_ID_MAX])
{
	uint32_t r = 0;
	if (random_bytes(&r, sizeof(r)) != 0)
		r = (uint32_t)now_ms();
	snprintf(id, LAUNCH_ID_MAX, "%s.%lu.%08x", t->node, ++t->seq, r);
}

/* The job's token, if the environment carries one: it admits the job's processes. */
static int
record_token(struct launch_table *t, const struct launch_request *req, uid_t uid, char *err,
    size_t errlen)
{
	size_t k = strlen(HELPER_JOB_TOKEN_ENV);
	for (int i = 0; i < req->envc; i++)
		if (strncmp(req->env[i], HELPER_JOB_TOKEN_ENV, k) == 0 && req->env[i][k] == '=')
			return helper_jobs_set_token(t->jobs, req->job, req->env[i] + k + 1, uid, err,
			    errlen);
	return 0;
}

int
launch_start(struct launch_table *t, const struct launch_request *req, char id[LAUNCH_ID_MAX],
    char *err, size_t errlen)
{
	struct launch_identity who;
	struct launch_pipes p;
	if (launch_request_check(req, err, errlen) != 0 ||
	    launch_identity_of(req->account, t->launcher ? 0 : geteuid(), t->allow_root, &who, err,
		errlen) != 0 ||
	    record_token(t, req, who.uid, err, errlen) != 0)
		return -1;
	/* the job's environment, the node's topology file (node_topology.h), and the launch's
	 * mark (LAUNCH_MARK_ENV), which the privileged launcher adds itself */
	char mark[sizeof(LAUNCH_MARK_ENV) + LAUNCH_ID_MAX], new_id[LAUNCH_ID_MAX];
	char topology[sizeof(t->topology_env)];
	char **env = calloc((size_t)req->envc + 2, sizeof(*env));
	if (env == NULL) {
		snprintf(err, errlen, "cannot prepare the launch: out of memory");
		return -1;
	}
	struct launch_request marked = *req;
	memcpy(env, req->env, (size_t)req->envc * sizeof(*env));
	int envc = req->envc;
	pthread_mutex_lock(&t->lock);
	snprintf(topology, sizeof(topology), "%s", t->topology_env);
	pthread_mutex_unlock(&t->lock);
	if (topology[0] != '\0' && node_topology_applies((char *const *)req->argv, req->argc,
		(char *const *)req->env, req->envc))
		env[envc++] = topology;
	env[envc] = mark;
	marked.env = env;
	marked.envc = envc + 1;
	pthread_mutex_lock(&t->lock);
	struct launch *l = t->stop ? NULL : free_slot(t, err, errlen);
	if (t->stop)
		snprintf(err, errlen, "qcg-helper is shutting down");
	if (l != NULL) {
		make_id(t, new_id);
		snprintf(mark, sizeof(mark), "%s=%s", LAUNCH_MARK_ENV, new_id);
	}
	int rc = l == NULL ? -1 : t->launcher == NULL ?
	    launch_exec(&marked, &who, &p, err, errlen) :
	    privsep_client_launch(t->launcher, new_id, who.uid, req->workdir, req->argv, req->argc,
		env, envc, &p.pid, &p.out_fd, &p.err_fd, &p.in_fd, err, errlen);
	free(env);
	if (rc == 0) {
		memset(l, 0, sizeof(*l));
		l->used = 1;
		snprintf(l->id, sizeof(l->id), "%s", new_id);
		snprintf(l->job, sizeof(l->job), "%s", req->job);
		l->pid = p.pid;
		l->fd[0] = p.out_fd;
		l->fd[1] = p.err_fd;
		l->input_open = req->input;
		l->in_fd = p.in_fd;
		if (!req->input)
			close(p.in_fd); /* it reads end of file, as from /dev/null */
		launch_output_init(&l->out[0], t->output_cap);
		launch_output_init(&l->out[1], t->output_cap);
		l->started_ms = now_ms();
		snprintf(id, LAUNCH_ID_MAX, "%s", l->id);
		log_info("launch %s: job %s, pid %d as %s: %s", l->id, l->job, (int)l->pid, who.name,
		    req->argv[0]);
		wake(t);
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/* Copy up to LAUNCH_READ_CHUNK of a stream; 1 when all of it fit. */
static int
copy_out(const struct launch_output *o, uint8_t **dst, size_t *len)
{
	*len = o->len < LAUNCH_READ_CHUNK ? o->len : LAUNCH_READ_CHUNK;
	*dst = malloc(*len ? *len : 1);
	if (*dst == NULL) {
		*len = 0;
		return 0;
	}
	memcpy(*dst, o->data, *len);
	return *len == o->len;
}

int
launch_read(struct launch_table *t, const char *id, int64_t out_offset, int64_t err_offset,
    int timeout_s, struct launch_result *res, char *err, size_t errlen)
{
	struct timespec deadline;
	memset(res, 0, sizeof(*res));
	if (timeout_s < 0 || timeout_s > LAUNCH_WAIT_MAX) {
		snprintf(err, errlen, "timeoutSeconds must be in [0, %d]", LAUNCH_WAIT_MAX);
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_s;
	pthread_mutex_lock(&t->lock);
	struct launch *l = find(t, id);
	int rc = -1;
	if (l == NULL) {
		snprintf(err, errlen, "no launch '%.100s' on this node", id);
		goto out;
	}
	if (launch_output_ack(&l->out[0], out_offset, "standardOutput", err, errlen) != 0 ||
	    launch_output_ack(&l->out[1], err_offset, "standardError", err, errlen) != 0)
		goto out;
	wake(t); /* acknowledged bytes free space: a blocked writer may go on */
	while (!t->stop && l->used && strcmp(l->id, id) == 0 && l->out[0].len == 0 &&
	    l->out[1].len == 0 && !l->ended)
		if (pthread_cond_timedwait(&t->changed, &t->lock, &deadline) == ETIMEDOUT)
			break;
	if (!l->used || strcmp(l->id, id) != 0) {
		snprintf(err, errlen, "launch '%.100s' was dropped while waiting", id);
		goto out;
	}
	int all = copy_out(&l->out[0], &res->out, &res->out_len);
	all &= copy_out(&l->out[1], &res->err, &res->err_len);
	res->exited = l->ended && all;
	res->signaled = res->exited && WIFSIGNALED(l->status);
	res->exit_code = WIFEXITED(l->status) ? WEXITSTATUS(l->status) : -1;
	res->term_signal = WIFSIGNALED(l->status) ? WTERMSIG(l->status) : 0;
	rc = 0;
out:
	pthread_mutex_unlock(&t->lock);
	if (rc != 0)
		launch_result_free(res);
	return rc;
}

void
launch_result_free(struct launch_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

int
launch_signal(struct launch_table *t, const char *id, int sig, char *err, size_t errlen)
{
	int rc = -1;
	if (sig < 1 || sig >= NSIG) {
		snprintf(err, errlen, "signal %d is not a signal number (1..%d)", sig, NSIG - 1);
		return -1;
	}
	pthread_mutex_lock(&t->lock);
	struct launch *l = find(t, id);
	if (l == NULL) {
		snprintf(err, errlen, "no launch '%.100s' on this node", id);
	} else {
		/* The group while its leader runs, and always whatever carries the launch's mark:
		 * a launch whose leader exited may have left a daemon behind. */
		if (t->launcher != NULL) {
			rc = privsep_client_signal(t->launcher, id, sig, err, errlen);
			goto out;
		}
		int group = !l->reaped && kill(-l->pid, sig) == 0;
		int group_errno = errno;
		if (group)
			log_info("launch %s: signal %d to process group %d", id, sig, (int)l->pid);
		int marked = launch_signal_marked(id, sig, (uid_t)-1, group ? l->pid : 0);
		if (group || marked > 0)
			rc = 0;
		else if (l->reaped)
			snprintf(err, errlen, "launch %s has exited already, and no process of it is "
			    "left", id);
		else
			snprintf(err, errlen, "kill process group %d: %s", (int)l->pid,
			    strerror(group_errno));
	}
out:
	pthread_mutex_unlock(&t->lock);
	return rc;
}

/* Write all of buf to fd (blocking) within deadline_ms (monotonic); -1 with errno set
 * (ETIMEDOUT when the reader did not take it in time). */
static int
write_bounded(int fd, const uint8_t *buf, size_t len, long deadline_ms)
{
	while (len > 0) {
		struct pollfd p = { fd, POLLOUT, 0 };
		long left = deadline_ms - now_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			continue; /* the deadline check above ends it */
		/* poll promises room for PIPE_BUF bytes; a larger write could block past the
		 * deadline, so write no more than that at once */
		ssize_t n = write(fd, buf, len < PIPE_BUF ? len : PIPE_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int
launch_write_input(struct launch_table *t, const char *id, const uint8_t *data, size_t len,
    bool end, char *err, size_t errlen)
{
	if (len > LAUNCH_INPUT_CHUNK) {
		snprintf(err, errlen, "at most %d bytes of input at once, got %zu", LAUNCH_INPUT_CHUNK,
		    len);
		return -1;
	}
	pthread_mutex_lock(&t->lock);
	struct launch *l = find(t, id);
	int fd = -1;
	if (l == NULL)
		snprintf(err, errlen, "no launch '%.100s' on this node", id);
	else if (!l->input_open)
		snprintf(err, errlen, "launch %s takes no input (not started with standardInput, or "
		    "its input was closed)", id);
	else if ((fd = fcntl(l->in_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		snprintf(err, errlen, "launch %s: %s", id, strerror(errno));
	pthread_mutex_unlock(&t->lock);
	if (fd < 0)
		return -1;
	/* outside the lock: a slow reader must not hold up every other launch */
	int rc = write_bounded(fd, data, len, now_ms() + LAUNCH_INPUT_WAIT_S * 1000L);
	if (rc != 0)
		snprintf(err, errlen, "launch %s: cannot write its input: %s", id,
		    errno == ETIMEDOUT ? "it took nothing for a while" :
		    errno == EPIPE ? "it closed its input (exited?)" : strerror(errno));
	close(fd);
	if (rc == 0 && end) {
		pthread_mutex_lock(&t->lock);
		l = find(t, id);
		if (l != NULL && l->input_open) {
			close(l->in_fd);
			l->input_open = false;
		}
		pthread_mutex_unlock(&t->lock);
	}
	return rc;
}

/* The launcher's kill_all, and the statuses it collected (lock held). */
static void
kill_all_through_launcher(struct launch_table *t)
{
	char err[PRIVSEP_REASON_MAX];
	if (privsep_client_stop(t->launcher, err, sizeof(err)) != 0)
		log_warn("cannot stop the launches: %s", err);
	reap_through_launcher(t);
	for (size_t s = 0; s < t->nslots; s++)
		if (t->slots[s].used && !t->slots[s].reaped) {
			t->slots[s].reaped = 1;
			t->slots[s].status = SIGKILL; /* as waitpid encodes "killed by SIGKILL" */
		}
}

/* TERM every running group, give them 2 s, then KILL and reap (lock held). */
static void
kill_all(struct launch_table *t)
{
	int left = 0;
	if (t->launcher != NULL) {
		kill_all_through_launcher(t);
		return;
	}
	for (size_t s = 0; s < t->nslots; s++)
		if (t->slots[s].used && !t->slots[s].reaped && kill(-t->slots[s].pid, SIGTERM) == 0)
			left++;
	for (int tick = 0; left > 0 && tick < 20; tick++) {
		struct timespec pause = { 0, 100 * 1000000L };
		nanosleep(&pause, NULL);
		left = 0;
		for (size_t s = 0; s < t->nslots; s++)
			if (t->slots[s].used && !t->slots[s].reaped)
				left += waitpid(t->slots[s].pid, &t->slots[s].status, WNOHANG) ==
				    t->slots[s].pid ? (t->slots[s].reaped = 1, 0) : 1;
	}
	for (size_t s = 0; s < t->nslots; s++)
		if (t->slots[s].used && !t->slots[s].reaped) {
			log_warn("launch %s: still running after SIGTERM; SIGKILL", t->slots[s].id);
			kill(-t->slots[s].pid, SIGKILL);
			waitpid(t->slots[s].pid, &t->slots[s].status, 0);
			t->slots[s].reaped = 1;
		}
	/* what left its launch's group (a daemonized orted) must not outlive the helper */
	for (size_t s = 0; s < t->nslots; s++)
		if (t->slots[s].used)
			launch_signal_marked(t->slots[s].id, SIGKILL, (uid_t)-1, 0);
}

void
launch_table_shutdown(struct launch_table *t)
{
	pthread_mutex_lock(&t->lock);
	int already = t->stop;
	t->stop = 1;
	pthread_mutex_unlock(&t->lock);
	if (already)
		return;
	wake(t);
	pthread_join(t->supervisor, NULL);
	pthread_mutex_lock(&t->lock);
	kill_all(t);
	pthread_cond_broadcast(&t->changed); /* long polls return now */
	pthread_mutex_unlock(&t->lock);
}

void
launch_table_free(struct launch_table *t)
{
	if (t == NULL)
		return;
	launch_table_shutdown(t);
	for (size_t s = 0; s < t->nslots; s++) {
		for (int i = 0; i < 2; i++)
			if (t->slots[s].used && t->slots[s].fd[i] >= 0)
				close(t->slots[s].fd[i]);
		release(&t->slots[s]);
	}
	close(t->wake[0]);
	close(t->wake[1]);
	pthread_cond_destroy(&t->changed);
	pthread_mutex_destroy(&t->lock);
	free(t->slots);
	free(t);
}
