/*
 * coalloc.c: reserve all, commit all, or release all (coalloc.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "coalloc.h"
#include "frontend_links.h"
#include "soap_client.h"

#define RESERVE_BUSY (-2) /* the front-end said Busy: retry later */

/* Reserve part's processes on its front-end and keep the grant. 0; RESERVE_BUSY with why set
 * to the front-end's reason when the slots are held by others now; -1 with err otherwise. */
static int
reserve_part(struct soap *soap, const struct coalloc *c, struct coalloc_part *p, char *err,
    size_t errlen, char *why, size_t whylen)
{
	const struct job_cluster *jc = p->cluster;
	char *nodes[JOB_NODES_MAX];
	int per_node = jc->per_node;
	for (int i = 0; i < jc->node_count; i++)
		nodes[i] = (char *)jc->node[i];
	int walltime = c->walltime;
	struct _qf__Reserve req = { (char *)c->job_id, jc->processes, jc->node_count, nodes,
		per_node ? &per_node : NULL, c->reserve_timeout, walltime ? &walltime : NULL };
	struct _qf__ReserveResponse resp;
	struct soap *link = frontend_links_get(c->links, (int)(p - c->part));
	if (link != NULL)
		soap = link; /* opened ahead; it stays open for the Commit */
	if (soap_call___qf__Reserve(soap, p->frontend_url, NULL, &req, &resp) != SOAP_OK) {
		const char *kind = soap_client_fault_kind(soap);
		int busy = kind != NULL && strcmp(kind, QCG_FAULT_BUSY) == 0;
		const char *reason = busy ? soap_fault_string(soap) : NULL;
		/* a busy front-end's own sentence is what the user needs, without the SOAP frame */
		if (reason != NULL)
			snprintf(why, whylen, "%s", reason);
		else
			soap_client_error(soap, why, whylen);
		snprintf(err, errlen, "cluster %s (%s) refused the reservation of %d processes: %s",
		    jc->name, p->frontend_url, jc->processes, why);
		soap_client_reset(soap);
		soap_closesock(soap);
		return busy ? RESERVE_BUSY : -1;
	}
	int rc = 0;
	if (resp.reservationId == NULL || strlen(resp.reservationId) >= sizeof(p->reservation) ||
	    resp.__sizeslot > COALLOC_SLOTS_MAX) {
		snprintf(err, errlen, "cluster %s answered Reserve without a usable grant", jc->name);
		rc = -1;
	}
	if (resp.reservationId && strlen(resp.reservationId) < sizeof(p->reservation))
		snprintf(p->reservation, sizeof(p->reservation), "%s", resp.reservationId);
	for (int i = 0; rc == 0 && i < resp.__sizeslot; i++) {
		snprintf(p->node[i].name, QCG_NAME_MAX, "%s", resp.slot[i].node);
		p->node[i].count = resp.slot[i].count;
	}
	p->node_count = rc == 0 ? resp.__sizeslot : 0;
	/* Shown by qcg-status; an id that does not fit is left out rather than cut. */
	p->batch_job_id[0] = '\0';
	if (rc == 0 && resp.batchJobId && strlen(resp.batchJobId) < sizeof(p->batch_job_id))
		snprintf(p->batch_job_id, sizeof(p->batch_job_id), "%s", resp.batchJobId);
	soap_client_reset(soap);
	if (link == NULL)
		soap_closesock(soap); /* the next part is another front-end */
	return rc;
}

static int
commit_part(struct soap *soap, struct coalloc_part *p, char *err, size_t errlen)
{
	char why[512];
	struct _qf__Commit req = { p->reservation };
	struct _qf__CommitResponse resp;
	int rc = soap_call___qf__Commit(soap, p->frontend_url, NULL, &req, &resp);
	if (rc != SOAP_OK) {
		soap_client_error(soap, why, sizeof(why));
		snprintf(err, errlen, "cluster %s (%s) refused to commit reservation %s: %s",
		    p->cluster->name, p->frontend_url, p->reservation, why);
	} else
		p->committed = 1;
	soap_client_reset(soap);
	soap_closesock(soap); /* closes only a failed or a not kept-alive connection */
	return rc == SOAP_OK ? 0 : -1;
}

/* One part's commit in a thread of its own, on a connection of its own. */
struct part_commit {
	struct soap *soap;
	bool own;            /* soap was made for this commit (not a link): free it */
	struct coalloc_part *part;
	pthread_t thread;
	bool started;
	int rc;
	char err[1024];
};

static void *
commit_thread(void *arg)
{
	struct part_commit *t = arg;
	t->rc = commit_part(t->soap, t->part, t->err, sizeof(t->err));
	return NULL;
}

/*
 * Commit every part: each cluster's front-end is a host of its own, a WAN round trip or more
 * away, so with credentials the commits overlap (a thread and a TLS connection per cluster:
 * the part's link when it has one, on which its Reserve went) instead of queueing behind
 * each other; without, or for one cluster, they run in turn (each on its link, else on soap).
 * 0, or -1 with err naming the first failed cluster in the description's order.
 */
static int
commit_all(struct soap *soap, struct coalloc *c, char *err, size_t errlen)
{
	struct part_commit t[JOB_CLUSTERS_MAX];
	struct soap_client_settings s = { soap->connect_timeout, soap->recv_timeout,
		(uint64_t)soap->recv_maxlength };
	int rc = 0;

	if (c->tls == NULL || c->count == 1 || c->count > JOB_CLUSTERS_MAX) {
		for (int i = 0; i < c->count; i++) {
			struct soap *link = frontend_links_get(c->links, i);
			if (commit_part(link ? link : soap, &c->part[i], err, errlen) != 0)
				return -1;
		}
		return 0;
	}
	memset(t, 0, sizeof(t[0]) * (size_t)c->count);
	for (int i = 0; i < c->count; i++)
		t[i] = (struct part_commit){ .part = &c->part[i], .rc = -1 };
	for (int i = 0; i < c->count; i++) {
		if ((t[i].soap = frontend_links_get(c->links, i)) == NULL) {
			if ((t[i].soap = soap_client_new(c->tls, &s, t[i].err,
			    sizeof(t[i].err))) == NULL)
				break;
			t[i].own = true;
		}
		if (pthread_create(&t[i].thread, NULL, commit_thread, &t[i]) != 0) {
			snprintf(t[i].err, sizeof(t[i].err), "cluster %s: cannot start a thread for "
			    "its commit", c->part[i].cluster->name);
			break;
		}
		t[i].started = true;
	}
	for (int i = 0; i < c->count; i++) {
		if (t[i].started)
			pthread_join(t[i].thread, NULL);
		if (t[i].own)
			soap_client_free(t[i].soap);
	}
	/* A part never started (a failure to start an earlier one) is not committed: the
	 * caller releases everything. */
	for (int i = 0; i < c->count && rc == 0; i++)
		if (t[i].rc != 0) {
			snprintf(err, errlen, "%s", t[i].err[0] ? t[i].err : "commit not started");
			rc = -1;
		}
	return rc;
}

static double
now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The parts' indices in the global reservation order: by cluster name, then rank order. */
static void
reservation_order(const struct coalloc *c, int *order)
{
	for (int i = 0; i < c->count; i++) {
		int k = i;
		while (k > 0 && strcmp(c->part[order[k - 1]].cluster->name,
		    c->part[i].cluster->name) > 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
}

/* Sleep ms milliseconds in slices, returning early once *c->stop is set. */
static void
pause_ms(const struct coalloc *c, long ms)
{
	for (long left = ms; left > 0 && !(c->stop && *c->stop); left -= 100) {
		struct timespec ts = { 0, (left < 100 ? left : 100) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* One round: reserve every part in order; RESERVE_BUSY with *busy the part that was. */
static int
reserve_round(struct soap *soap, struct coalloc *c, const int *order, int *busy, char *err,
    size_t errlen, char *why, size_t whylen)
{
	for (int k = 0; k < c->count; k++) {
		int rc = reserve_part(soap, c, &c->part[order[k]], err, errlen, why, whylen);
		if (rc != 0) {
			*busy = order[k];
			return rc;
		}
	}
	return 0;
}

int
coalloc_acquire(struct soap *soap, struct coalloc *c, char *err, size_t errlen)
{
	int order[JOB_CLUSTERS_MAX], busy = 0, rc;
	char why[512];
	long backoff = COALLOC_BACKOFF_MIN_MS;
	double start = now_seconds(), deadline = start + c->reserve_timeout;
	reservation_order(c, order);
	while ((rc = reserve_round(soap, c, order, &busy, err, errlen, why, sizeof(why))) != 0) {
		/* Hold nothing while waiting: what we hold on clusters before the busy one is what
		 * another job may need to finish. */
		coalloc_release(soap, c);
		if (rc != RESERVE_BUSY)
			return -1;
		const struct coalloc_part *p = &c->part[busy];
		double left = deadline - now_seconds();
		if (left <= 0) {
			snprintf(err, errlen, "cluster %s (%s) is still busy after waiting %.0f s "
			    "(the reserve timeout): %s", p->cluster->name, p->frontend_url,
			    now_seconds() - start, why);
			return -1;
		}
		if ((c->stop && *c->stop) ||
		    (c->waiting && c->waiting(c->waiting_arg, p, why) != 0)) {
			snprintf(err, errlen, "stopped while waiting for cluster %s: %s",
			    p->cluster->name, why);
			return -1;
		}
		pause_ms(c, backoff < left * 1000 ? backoff : (long)(left * 1000) + 1);
		backoff = backoff * 2 > COALLOC_BACKOFF_MAX_MS ? COALLOC_BACKOFF_MAX_MS : backoff * 2;
	}
	if (commit_all(soap, c, err, errlen) == 0)
		return 0;
	coalloc_release(soap, c);
	return -1;
}

int
coalloc_release(struct soap *soap, struct coalloc *c)
{
	int failed = 0;
	char why[512];
	for (int i = 0; i < c->count; i++) {
		struct coalloc_part *p = &c->part[i];
		if (p->reservation[0] == '\0')
			continue;
		struct _qf__Release req = { p->reservation };
		struct _qf__ReleaseResponse resp;
		if (soap_call___qf__Release(soap, p->frontend_url, NULL, &req, &resp) != SOAP_OK) {
			soap_client_error(soap, why, sizeof(why));
			fprintf(stderr, "qcg-submit: releasing %s on cluster %s: %s\n", p->reservation,
			    p->cluster->name, why);
			failed++;
		} else
			p->reservation[0] = '\0';
		soap_client_reset(soap);
		soap_closesock(soap);
	}
	return failed;
}
