/*
 * liveness.c: leases of front-ends and proxies: the open-poll table, the peer check and the
 * sweeper thread (see liveness.h).
 */
#define _GNU_SOURCE /* POLLRDHUP */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config_file.h"
#include "events.h"
#include "liveness.h"
#include "log.h"

/* Open polls per queue. Each holds a broker worker, so there are never more than the workers
 * (at most a few hundred): a small array searched linearly is enough. */
#define LIVENESS_POLLS_MAX 4096

struct open_polls {
	char queue[EVENTS_QUEUE_MAX];
	size_t count;
};

struct liveness_watch {
	struct liveness_settings s;
	struct registry *reg;        /* the sweeper's own connection */
	pthread_t thread;
	pthread_mutex_t lock;        /* guards polls, npolls and stopping */
	pthread_cond_t wake;         /* signalled by liveness_stop */
	struct open_polls *polls;    /* LIVENESS_POLLS_MAX slots */
	size_t npolls;               /* slots in use */
	bool stopping;
};

int
liveness_settings_from_config(const struct config *cfg, struct liveness_settings *out,
    char *err, size_t errlen)
{
	long grace;

	if (config_get_int(cfg, "broker.lease_grace", LIVENESS_GRACE_DEFAULT, 1,
		LIVENESS_GRACE_MAX, &grace, err, errlen) != 0)
		return -1;
	out->grace = grace;
	return 0;
}

enum registry_lease_kind
liveness_queue_kind(const char *queue, const char **name)
{
	if (strncmp(queue, "proxy:", 6) == 0) {
		*name = queue + 6;
		return REGISTRY_LEASE_PROXY;
	}
	*name = queue;
	return REGISTRY_LEASE_CLUSTER;
}

int64_t
liveness_register_lease(const struct liveness_watch *w)
{
	return 2 * w->s.grace;
}

int64_t
liveness_poll_lease(const struct liveness_watch *w, int timeout_s)
{
	return (int64_t)timeout_s + w->s.grace;
}

int
liveness_poll_begin(struct liveness_watch *w, const char *queue)
{
	int rc = -1;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < w->npolls; i++)
		if (strcmp(w->polls[i].queue, queue) == 0) {
			w->polls[i].count++;
			rc = 0;
			goto out;
		}
	if (w->npolls < LIVENESS_POLLS_MAX) {
		snprintf(w->polls[w->npolls].queue, sizeof(w->polls[0].queue), "%s", queue);
		w->polls[w->npolls++].count = 1;
		rc = 0;
	}
out:
	pthread_mutex_unlock(&w->lock);
	return rc;
}

size_t
liveness_poll_end(struct liveness_watch *w, const char *queue)
{
	size_t left = 0;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < w->npolls; i++)
		if (strcmp(w->polls[i].queue, queue) == 0) {
			left = --w->polls[i].count;
			if (left == 0)
				w->polls[i] = w->polls[--w->npolls];
			break;
		}
	pthread_mutex_unlock(&w->lock);
	return left;
}

size_t
liveness_polls_open(struct liveness_watch *w, const char *queue)
{
	size_t n = 0;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < w->npolls; i++)
		if (strcmp(w->polls[i].queue, queue) == 0)
			n = w->polls[i].count;
	pthread_mutex_unlock(&w->lock);
	return n;
}

bool
liveness_peer_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (fd < 0)
		return true;
	/* POLLRDHUP: the peer shut down its sending side (its kernel sent FIN when the process
	 * died). A client waiting for our answer sends nothing else, so nothing is read. */
	if (poll(&p, 1, 0) < 0)
		return false; /* EINTR: ask again at the next slice */
	return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Withdraw the expired leases of one kind and say so. */
static void
sweep_kind(struct liveness_watch *w, enum registry_lease_kind kind, int64_t now)
{
	char (*names)[QCG_ENDPOINT_MAX] = NULL;
	size_t n = 0;

	if (registry_withdraw_expired(w->reg, kind, now, &names, &n) != 0) {
		log_warn("liveness: sweeping expired leases failed: %s", registry_error(w->reg));
		return;
	}
	for (size_t i = 0; i < n; i++)
		log_warn("%s %s withdrawn: its lease ran out (no WaitEvents poll for over its "
		    "timeout plus %lld s)", kind == REGISTRY_LEASE_PROXY ? "proxy" : "cluster",
		    names[i], (long long)w->s.grace);
	free(names);
}

static void *
sweeper_main(void *arg)
{
	struct liveness_watch *w = arg;
	struct timespec next;
	/* Nobody could poll a broker that was down: a lease that ran out meanwhile says nothing
	 * about its service. A restarted broker withdrew every front-end and proxy at its first
	 * sweep, and a job submitted before they polled again failed (faults_running.test). So
	 * the first sweep waits one grace; a poll closing still withdraws at once. */
	int64_t quiet_until = (int64_t)time(NULL) + w->s.grace;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		pthread_mutex_unlock(&w->lock);
		int64_t now = (int64_t)time(NULL);
		if (now >= quiet_until) {
			sweep_kind(w, REGISTRY_LEASE_CLUSTER, now);
			sweep_kind(w, REGISTRY_LEASE_PROXY, now);
		}
		pthread_mutex_lock(&w->lock);
		clock_gettime(CLOCK_MONOTONIC, &next);
		next.tv_nsec += (long)LIVENESS_SWEEP_MS * 1000000L;
		next.tv_sec += next.tv_nsec / 1000000000L;
		next.tv_nsec %= 1000000000L;
		while (!w->stopping &&
		    pthread_cond_timedwait(&w->wake, &w->lock, &next) != ETIMEDOUT)
			; /* spurious wake-ups: wait on until the deadline */
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int
liveness_start(const char *db_path, const struct liveness_settings *s,
    struct liveness_watch **out, char *err, size_t errlen)
{
	struct liveness_watch *w;
	pthread_condattr_t attr;
	int rc;

	*out = NULL;
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->polls = calloc(LIVENESS_POLLS_MAX, sizeof(*w->polls))) == NULL) {
		free(w);
		snprintf(err, errlen, "liveness sweeper: out of memory");
		return -1;
	}
	w->s = *s;
	if (registry_open(db_path, &w->reg, err, errlen) != 0) {
		free(w->polls);
		free(w);
		return -1;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	if ((rc = pthread_create(&w->thread, NULL, sweeper_main, w)) != 0) {
		snprintf(err, errlen, "liveness sweeper: thread: %s", strerror(rc));
		registry_close(w->reg);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->wake);
		free(w->polls);
		free(w);
		return -1;
	}
	log_info("liveness: a lease lasts a poll's timeout plus %lld s; expired ones are withdrawn "
	    "within %d ms, from %lld s after this start on", (long long)s->grace,
	    LIVENESS_SWEEP_MS, (long long)s->grace);
	*out = w;
	return 0;
}

void
liveness_stop(struct liveness_watch *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	registry_close(w->reg);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w->polls);
	free(w);
}
