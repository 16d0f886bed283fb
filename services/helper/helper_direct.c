/*
 * helper_direct.c: connections the helper decides by itself (helper_direct.h): what the
 * front-end says about its direct networks, and the batched record of such connections.
 *
 * State is per process (one helper per process), behind one mutex each. The batch thread
 * starts with the first record and lives as long as the daemon: records still waiting when it
 * stops are lost (at most DIRECT_BATCH_AGE_MS of them).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cidr.h"
#include "helper.h"
#include "helper_direct.h"
#include "helper_frontend.h"
#include "log.h"

/* What we know of one job's listeners in this cluster. */
struct job_view {
	char job[QCG_NAME_MAX];            /* "" = a free slot */
	struct timespec fetched;           /* when its list came (CLOCK_MONOTONIC) */
	struct direct_target *v;
	size_t n;
};

static struct {
	pthread_mutex_t lock;
	time_t asked_at;                        /* last GetConnectInfo, 0 = never */
	bool known;                             /* the last one answered */
	char networks[QCG_NETWORKS_MAX];        /* its directNetworks ("" = none) */
	struct job_view jobs[DIRECT_JOBS_MAX];
} info = { .lock = PTHREAD_MUTEX_INITIALIZER };

static long ms_between(const struct timespec *a, const struct timespec *b);

/* job's view, or NULL; with create a new one (a free slot, or the least recently fetched). */
static struct job_view *
view_of(const char *job, bool create)
{
	struct job_view *pick = NULL;
	for (size_t i = 0; i < DIRECT_JOBS_MAX; i++) {
		struct job_view *j = &info.jobs[i];
		if (j->job[0] != '\0' && strcmp(j->job, job) == 0)
			return j;
		if (pick == NULL || (pick->job[0] != '\0' && (j->job[0] == '\0' ||
		    ms_between(&j->fetched, &pick->fetched) > 0)))
			pick = j;
	}
	if (!create)
		return NULL;
	free(pick->v);
	memset(pick, 0, sizeof(*pick));
	snprintf(pick->job, sizeof(pick->job), "%s", job);
	return pick;
}

/* Ask the front-end for its direct networks and job's listeners; with the lock held (so that
 * concurrent first connects wait for one answer instead of asking all at once). */
static void
fetch(struct helper *h, const char *job)
{
	char networks[QCG_NETWORKS_MAX], err[512];
	struct direct_target *v = NULL;
	size_t n = 0;

	info.asked_at = time(NULL);
	if (helper_frontend_connect_info(h, job, networks, &v, &n, err, sizeof(err)) != 0) {
		if (info.known)
			log_warn("%s; connects are resolved at the broker until it answers", err);
		info.known = false;
		return;
	}
	if (!info.known || strcmp(networks, info.networks) != 0)
		log_info("direct networks (connects decided on this node): %s",
		    networks[0] ? networks : "none");
	info.known = true;
	snprintf(info.networks, sizeof(info.networks), "%s", networks);
	struct job_view *j = view_of(job, true);
	free(j->v);
	j->v = v;
	j->n = n;
	clock_gettime(CLOCK_MONOTONIC, &j->fetched);
}

/* Whether job's view lists address:port. */
static bool
view_lists(const struct job_view *j, const char *address, uint16_t port)
{
	for (size_t i = 0; j != NULL && i < j->n; i++)
		if (j->v[i].port == port && strcmp(j->v[i].address, address) == 0)
			return true;
	return false;
}

bool
helper_direct_applies(struct helper *h, const char *job, const char *address, uint16_t port)
{
	struct timespec now;
	bool yes = false;

	pthread_mutex_lock(&info.lock);
	int ttl = info.known ? DIRECT_INFO_TTL_S : DIRECT_INFO_RETRY_S;
	if (info.asked_at == 0 || time(NULL) - info.asked_at >= ttl)
		fetch(h, job);
	if (!info.known || !cidr_list_contains(info.networks, address))
		goto done;
	struct job_view *j = view_of(job, false);
	if (view_lists(j, address, port)) {
		yes = true;
		goto done;
	}
	/* A listener registered since the last fetch, or not the job's at all: ask again, but
	 * not at every connect to a service that will never be on the list. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (j == NULL || ms_between(&j->fetched, &now) >= DIRECT_REFRESH_MS) {
		fetch(h, job);
		yes = info.known && view_lists(view_of(job, false), address, port);
	}
done:
	pthread_mutex_unlock(&info.lock);
	return yes;
}

void
helper_direct_forget_job(const char *job)
{
	pthread_mutex_lock(&info.lock);
	struct job_view *j = view_of(job, false);
	if (j != NULL) {
		free(j->v);
		memset(j, 0, sizeof(*j));
	}
	pthread_mutex_unlock(&info.lock);
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool started;
	struct connection_report *queue;            /* DIRECT_QUEUE_MAX slots */
	size_t count;
	struct timespec oldest;                 /* when queue[0] came (CLOCK_MONOTONIC) */
	unsigned long dropped;                  /* records the full queue refused */
} batch = { .lock = PTHREAD_MUTEX_INITIALIZER }; /* wake: made with the thread */

/* Milliseconds from a to b. */
static long
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000L + (b->tv_nsec - a->tv_nsec) / 1000000L;
}

/* Send one batch; the records are gone either way (a failure is logged with the count, and
 * the broker's log then misses them: the connections themselves are unaffected). */
static void
send_batch(struct helper *h, const struct connection_report *recs, size_t n)
{
	char err[1024];
	if (helper_frontend_report_batch(h, recs, n, err, sizeof(err)) != 0)
		log_warn("%zu direct connection records are lost: %s", n, err);
}

static void *
batch_thread(void *arg)
{
	struct helper *h = arg;
	struct connection_report *out = calloc(DIRECT_SEND_MAX, sizeof(*out));
	if (out == NULL) {
		log_error("direct connection records: out of memory; none will be sent");
		return NULL;
	}
	pthread_mutex_lock(&batch.lock);
	for (;;) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (batch.count == 0 || (batch.count < DIRECT_BATCH_MAX &&
		    ms_between(&batch.oldest, &now) < DIRECT_BATCH_AGE_MS)) {
			if (batch.count == 0) {
				pthread_cond_wait(&batch.wake, &batch.lock);
			} else {
				struct timespec until = batch.oldest;
				until.tv_nsec += DIRECT_BATCH_AGE_MS * 1000000L;
				until.tv_sec += until.tv_nsec / 1000000000L;
				until.tv_nsec %= 1000000000L;
				pthread_cond_timedwait(&batch.wake, &batch.lock, &until);
			}
			continue;
		}
		size_t n = batch.count < DIRECT_SEND_MAX ? batch.count : DIRECT_SEND_MAX;
		memcpy(out, batch.queue, n * sizeof(*out));
		memmove(batch.queue, batch.queue + n, (batch.count - n) * sizeof(*out));
		batch.count -= n;
		batch.oldest = now; /* the rest came later than the oldest; near enough */
		unsigned long dropped = batch.dropped;
		batch.dropped = 0;
		pthread_mutex_unlock(&batch.lock);
		if (dropped > 0)
			log_warn("%lu direct connection records were dropped: more than %d waited",
			    dropped, DIRECT_QUEUE_MAX);
		send_batch(h, out, n);
		pthread_mutex_lock(&batch.lock);
	}
	return NULL;
}

/* Start the batch thread once; false when it cannot run (the caller drops the record). */
static bool
batch_started(struct helper *h)
{
	pthread_t t;
	if (batch.started)
		return true;
	batch.queue = calloc(DIRECT_QUEUE_MAX, sizeof(*batch.queue));
	if (batch.queue == NULL)
		return false;
	/* the batch age is measured on CLOCK_MONOTONIC, so the wait must be too */
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&batch.wake, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&t, NULL, batch_thread, h) != 0) {
		free(batch.queue);
		batch.queue = NULL;
		return false;
	}
	pthread_detach(t);
	batch.started = true;
	return true;
}

void
helper_direct_record(struct helper *h, const struct connection_record *rec,
    const char *to_address)
{
	pthread_mutex_lock(&batch.lock);
	if (!batch_started(h) || batch.count >= DIRECT_QUEUE_MAX) {
		batch.dropped++;
		pthread_mutex_unlock(&batch.lock);
		return;
	}
	if (batch.count == 0)
		clock_gettime(CLOCK_MONOTONIC, &batch.oldest);
	struct connection_report *d = &batch.queue[batch.count++];
	d->rec = *rec;
	snprintf(d->to_address, sizeof(d->to_address), "%s", to_address);
	if (batch.count == 1 || batch.count == DIRECT_BATCH_MAX)
		pthread_cond_signal(&batch.wake);
	pthread_mutex_unlock(&batch.lock);
}
