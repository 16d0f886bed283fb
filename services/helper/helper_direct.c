/*
 * helper_direct.c: connections the helper decides by itself (helper_direct.h): what the
 * front-end says about its direct networks and each job's listeners.
 *
 * State is per process (one helper per process), behind one mutex.
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

/* Milliseconds from a to b. */
static long
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000L + (b->tv_nsec - a->tv_nsec) / 1000000L;
}

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
