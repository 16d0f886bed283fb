/*
 * stage_quota.c: per-user staging quota (stage_quota.h).
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "reservations.h"
#include "stage_quota.h"

struct entry {
	bool used;
	char dn[QCG_DN_MAX];
	char reservation[RESV_ID_LEN];
	uint64_t bytes;
};

struct stage_quota {
	pthread_mutex_t lock;
	uint64_t per_user;
	stage_quota_live_fn live;
	void *ctx;
	struct entry e[STAGE_QUOTA_ENTRIES];
};

struct stage_quota *
stage_quota_new(uint64_t per_user_bytes, stage_quota_live_fn live, void *ctx)
{
	struct stage_quota *q = calloc(1, sizeof(*q));
	if (q == NULL)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	q->per_user = per_user_bytes;
	q->live = live;
	q->ctx = ctx;
	return q;
}

void
stage_quota_free(struct stage_quota *q)
{
	if (q == NULL)
		return;
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* Forget reservations that are gone; the sum dn holds (lock held). */
static uint64_t
prune_and_sum(struct stage_quota *q, const char *dn)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < STAGE_QUOTA_ENTRIES; i++) {
		struct entry *e = &q->e[i];
		if (e->used && !q->live(q->ctx, e->reservation))
			e->used = false;
		if (e->used && strcmp(e->dn, dn) == 0)
			sum += e->bytes;
	}
	return sum;
}

static struct entry *
find(struct stage_quota *q, const char *dn, const char *reservation)
{
	for (size_t i = 0; i < STAGE_QUOTA_ENTRIES; i++)
		if (q->e[i].used && strcmp(q->e[i].dn, dn) == 0 &&
		    strcmp(q->e[i].reservation, reservation) == 0)
			return &q->e[i];
	return NULL;
}

int
stage_quota_take(struct stage_quota *q, const char *dn, const char *reservation,
    uint64_t bytes, char *err, size_t errlen)
{
	int rc = -1;
	if (strlen(dn) >= QCG_DN_MAX || strlen(reservation) >= RESV_ID_LEN) {
		snprintf(err, errlen, "staging: the user's DN or the reservation id is too long");
		return -1;
	}
	pthread_mutex_lock(&q->lock);
	uint64_t held = prune_and_sum(q, dn);
	if (bytes > q->per_user || held > q->per_user - bytes) {
		snprintf(err, errlen, "staging quota exceeded: this file needs %" PRIu64 " bytes, "
		    "%" PRIu64 " of the %" PRIu64 " bytes allowed per user on this cluster are held "
		    "by files already staged for live jobs (frontend.stage_quota_mib)", bytes, held,
		    q->per_user);
		goto out;
	}
	struct entry *e = find(q, dn, reservation);
	for (size_t i = 0; e == NULL && i < STAGE_QUOTA_ENTRIES; i++)
		if (!q->e[i].used) {
			e = &q->e[i];
			memset(e, 0, sizeof(*e));
			e->used = true;
			snprintf(e->dn, sizeof(e->dn), "%s", dn);
			snprintf(e->reservation, sizeof(e->reservation), "%s", reservation);
		}
	if (e == NULL) {
		snprintf(err, errlen, "staging: %d reservations with staged files at once, try later",
		    STAGE_QUOTA_ENTRIES);
		goto out;
	}
	e->bytes += bytes;
	rc = 0;
out:
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void
stage_quota_give_back(struct stage_quota *q, const char *dn, const char *reservation,
    uint64_t bytes)
{
	pthread_mutex_lock(&q->lock);
	struct entry *e = find(q, dn, reservation);
	if (e != NULL)
		e->bytes = e->bytes > bytes ? e->bytes - bytes : 0;
	pthread_mutex_unlock(&q->lock);
}

uint64_t
stage_quota_used(struct stage_quota *q, const char *dn)
{
	pthread_mutex_lock(&q->lock);
	uint64_t sum = prune_and_sum(q, dn);
	pthread_mutex_unlock(&q->lock);
	return sum;
}
