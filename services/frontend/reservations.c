/*
 * reservations.c: slot accounting, reservation lifetimes and the launch table (reservations.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random_bytes.h"
#include "reservations.h"

#define RESV_EXPIRED_MEMORY 64 /* lapsed ids remembered, so that a late Commit hears why */
#define RESV_WHY_MAX 160

struct reservation {
	bool used;
	bool committed;
	char id[RESV_ID_LEN];
	char owner_dn[QCG_DN_MAX];
	char account[GRIDMAP_ACCOUNT_MAX];
	char job[QCG_NAME_MAX];
	double deadline;   /* monotonic seconds; ignored once committed */
	long walltime;     /* seconds from the commit; 0: none */
	double ends;       /* monotonic seconds it is released at (committed); 0: none */
	bool job_ended;    /* the broker said its job ended: ends is the grace's end */
	int *per_node;     /* slots held on each configured node */
};

struct launch {
	bool used;
	char id[RESV_ID_LEN];
	size_t reservation; /* index into reservations */
	size_t node;        /* index into nodes */
	char helper_launch_id[RESV_HELPER_ID_MAX];
};

struct resv_table {
	pthread_mutex_t lock;
	struct fe_node *nodes;
	size_t node_count;
	int *free_slots;                 /* per node */
	struct reservation *resv;
	size_t max_resv;
	struct launch *launches;
	size_t max_launches;
	char expired[RESV_EXPIRED_MEMORY][RESV_ID_LEN];
	char expired_why[RESV_EXPIRED_MEMORY][RESV_WHY_MAX]; /* "expired before it was ..." */
	size_t expired_next;
};

int
resv_random_id(char buf[RESV_ID_LEN])
{
	unsigned char raw[16];
	if (random_bytes(raw, sizeof(raw)) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

struct resv_table *
resv_table_new(const struct fe_node *nodes, size_t node_count, size_t max_reservations,
    size_t max_launches)
{
	struct resv_table *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->nodes = calloc(node_count, sizeof(*t->nodes));
	t->free_slots = calloc(node_count, sizeof(int));
	t->resv = calloc(max_reservations, sizeof(*t->resv));
	t->launches = calloc(max_launches, sizeof(*t->launches));
	int *counts = calloc(max_reservations * node_count, sizeof(int));
	if (!t->nodes || !t->free_slots || !t->resv || !t->launches || !counts) {
		free(counts);
		resv_table_free(t);
		return NULL;
	}
	memcpy(t->nodes, nodes, node_count * sizeof(*nodes));
	t->node_count = node_count;
	for (size_t i = 0; i < node_count; i++)
		t->free_slots[i] = nodes[i].slots;
	t->max_resv = max_reservations;
	t->max_launches = max_launches;
	for (size_t i = 0; i < max_reservations; i++)
		t->resv[i].per_node = counts + i * node_count;
	return t;
}

void
resv_table_free(struct resv_table *t)
{
	if (t == NULL)
		return;
	if (t->resv)
		free(t->resv[0].per_node); /* one block for all */
	free(t->resv);
	free(t->launches);
	free(t->free_slots);
	free(t->nodes);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static long
node_index(const struct resv_table *t, const char *name)
{
	for (size_t i = 0; i < t->node_count; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Give a reservation's slots back and forget it and its launches. */
static void
drop_reservation(struct resv_table *t, size_t r)
{
	for (size_t n = 0; n < t->node_count; n++) {
		t->free_slots[n] += t->resv[r].per_node[n];
		t->resv[r].per_node[n] = 0;
	}
	for (size_t l = 0; l < t->max_launches; l++)
		if (t->launches[l].used && t->launches[l].reservation == r)
			t->launches[l].used = false;
	t->resv[r].used = false;
}

/* Remember why reservation r went away on its own, for later calls on its id. */
static void
remember_gone(struct resv_table *t, size_t r)
{
	const struct reservation *v = &t->resv[r];
	snprintf(t->expired[t->expired_next], RESV_ID_LEN, "%s", v->id);
	char *why = t->expired_why[t->expired_next];
	if (v->job_ended)
		snprintf(why, RESV_WHY_MAX, "was released by the front-end: its job %.40s ended",
		    v->job);
	else if (!v->committed)
		snprintf(why, RESV_WHY_MAX, "expired before it was committed");
	else
		snprintf(why, RESV_WHY_MAX, "reached its wall time (%ld s) and was released",
		    v->walltime);
	t->expired_next = (t->expired_next + 1) % RESV_EXPIRED_MEMORY;
}

static void release_locked(struct resv_table *t, size_t r, struct resv_launch_info *launches,
    size_t max, size_t *count);

static size_t
expire_locked(struct resv_table *t, double now)
{
	size_t n = 0;
	for (size_t r = 0; r < t->max_resv; r++) {
		if (!t->resv[r].used || t->resv[r].committed || t->resv[r].deadline > now)
			continue;
		remember_gone(t, r);
		drop_reservation(t, r);
		n++;
	}
	return n;
}

size_t
resv_expire(struct resv_table *t, double now)
{
	pthread_mutex_lock(&t->lock);
	size_t n = expire_locked(t, now);
	pthread_mutex_unlock(&t->lock);
	return n;
}

/* Find id for dn; on failure say why in err. */
static enum resv_status
find_owned(struct resv_table *t, const char *id, const char *dn, size_t *out, char *err,
    size_t errlen)
{
	for (size_t r = 0; r < t->max_resv; r++) {
		if (!t->resv[r].used || strcmp(t->resv[r].id, id) != 0)
			continue;
		if (strcmp(t->resv[r].owner_dn, dn) != 0) {
			snprintf(err, errlen, "reservation %s belongs to another user", id);
			return RESV_DENIED;
		}
		*out = r;
		return RESV_OK;
	}
	for (size_t i = 0; i < RESV_EXPIRED_MEMORY; i++) {
		if (strcmp(t->expired[i], id) != 0)
			continue;
		snprintf(err, errlen, "reservation %s %s", id, t->expired_why[i]);
		return RESV_NOT_FOUND;
	}
	snprintf(err, errlen, "no reservation %.40s", id);
	return RESV_NOT_FOUND;
}

/* The candidate nodes, in order: the requested ones (each known, none twice) or all. */
static enum resv_status
candidate_nodes(struct resv_table *t, const struct resv_request *req, size_t *idx, size_t *n,
    char *err, size_t errlen)
{
	*n = 0;
	if (req->node_count == 0) {
		for (size_t i = 0; i < t->node_count; i++)
			idx[(*n)++] = i;
		return RESV_OK;
	}
	if (req->node_count > t->node_count) {
		snprintf(err, errlen, "%zu nodes requested; this cluster has %zu", req->node_count,
		    t->node_count);
		return RESV_BAD_REQUEST;
	}
	for (size_t i = 0; i < req->node_count; i++) {
		long k = req->nodes[i] ? node_index(t, req->nodes[i]) : -1;
		if (k < 0) {
			snprintf(err, errlen, "unknown node '%.63s'", req->nodes[i] ? req->nodes[i] : "");
			return RESV_BAD_REQUEST;
		}
		for (size_t j = 0; j < *n; j++)
			if (idx[j] == (size_t)k) {
				snprintf(err, errlen, "node '%s' requested twice", req->nodes[i]);
				return RESV_BAD_REQUEST;
			}
		idx[(*n)++] = (size_t)k;
	}
	return RESV_OK;
}

static enum resv_status
check_request(const struct resv_request *req, char *err, size_t errlen)
{
	if (req->slots < 1 || req->slots > FE_SLOTS_MAX * FE_NODES_MAX) {
		snprintf(err, errlen, "slots must be a positive number, got %d", req->slots);
		return RESV_BAD_REQUEST;
	}
	if (req->per_node < 0 || req->per_node > FE_SLOTS_MAX) {
		snprintf(err, errlen, "processesPerNode must be 1-%d, got %d", FE_SLOTS_MAX,
		    req->per_node);
		return RESV_BAD_REQUEST;
	}
	if (req->walltime < 0 || req->walltime > RESV_WALLTIME_MAX) {
		snprintf(err, errlen, "wall time must be 0-%ld seconds, got %ld", RESV_WALLTIME_MAX,
		    req->walltime);
		return RESV_BAD_REQUEST;
	}
	if (req->job == NULL || req->job[0] == '\0' || strlen(req->job) >= QCG_NAME_MAX ||
	    strlen(req->owner_dn) >= QCG_DN_MAX || strlen(req->account) >= GRIDMAP_ACCOUNT_MAX) {
		snprintf(err, errlen, "job must be a name of 1-%d bytes", QCG_NAME_MAX - 1);
		return RESV_BAD_REQUEST;
	}
	return RESV_OK;
}

/* Fill take[] (per node index) from the candidates idx[0..n) given free[] slots per node,
 * in order, skipping nodes whose helper is gone and, with a per-node share, nodes that cannot
 * take a whole one. Returns how many slots did not fit; *available gets the free slots seen. */
static int
fill_slots(const struct resv_request *req, const size_t *idx, size_t n, const int *free,
    int *take, int *available)
{
	int rest = req->slots;
	*available = 0;
	for (size_t i = 0; i < n && rest > 0; i++) {
		if (req->helpers != NULL && req->helpers->down[idx[i]])
			continue;
		int free_here = free[idx[i]];
		int want = req->per_node ? (req->per_node < rest ? req->per_node : rest) : rest;
		*available += free_here; /* what the message says without a per-node share */
		if (req->per_node && free_here < want)
			continue; /* a node that cannot take its full share is skipped */
		take[idx[i]] = want < free_here ? want : free_here;
		rest -= take[idx[i]];
	}
	return rest;
}

/* Would the request fit if no reservation held anything? That tells "busy, retry" from
 * "impossible" (more than the candidate nodes have, or their helpers are gone). */
static bool
fits_when_idle(struct resv_table *t, const struct resv_request *req, const size_t *idx,
    size_t n)
{
	int capacity[FE_NODES_MAX], take[FE_NODES_MAX] = { 0 }, available;
	for (size_t i = 0; i < t->node_count; i++)
		capacity[i] = t->nodes[i].slots;
	return fill_slots(req, idx, n, capacity, take, &available) == 0;
}

/* Plan where the slots go (into take[], per node index). RESV_BUSY if they do not fit now but
 * would once other reservations are released; RESV_NO_CAPACITY if they never could. */
static enum resv_status
plan_slots(struct resv_table *t, const struct resv_request *req, int *take, char *err,
    size_t errlen)
{
	size_t idx[FE_NODES_MAX], n;
	enum resv_status st = candidate_nodes(t, req, idx, &n, err, errlen);
	if (st != RESV_OK)
		return st;
	int rest, available;
	char skipped[160] = "";
	size_t nskipped = 0;
	for (size_t i = 0; i < n; i++) {
		/* A node whose helper is gone could run nothing: a named one is refused, naming it
		 * and why; among any nodes it is passed over. */
		if (req->helpers == NULL || !req->helpers->down[idx[i]])
			continue;
		if (req->node_count > 0) {
			snprintf(err, errlen, "node %s cannot be granted: %s", t->nodes[idx[i]].name,
			    req->helpers->why[idx[i]]);
			return RESV_NO_CAPACITY;
		}
		size_t used = strlen(skipped);
		if (used + 1 < sizeof(skipped))
			snprintf(skipped + used, sizeof(skipped) - used, "%s%s", nskipped ? ", " : "",
			    t->nodes[idx[i]].name);
		nskipped++;
	}
	rest = fill_slots(req, idx, n, t->free_slots, take, &available);
	if (rest == 0)
		return RESV_OK;
	st = fits_when_idle(t, req, idx, n) ? RESV_BUSY : RESV_NO_CAPACITY;
	const char *tail = st == RESV_BUSY ? "; the others are held by other reservations" :
	    "; never enough, even with nothing reserved";
	if (req->per_node) {
		/* With a per-node share what counts is nodes that can take one whole, not slots:
		 * say how many are needed and how many can. */
		int share = req->per_node < req->slots ? req->per_node : req->slots, able = 0;
		/* A node whose helper is gone is not able, and is named: this message counted it
		 * and named nothing, so a killed helper read as a full cluster (faults_setup.test). */
		for (size_t i = 0; i < n; i++)
			able += t->free_slots[idx[i]] >= share &&
			    (req->helpers == NULL || !req->helpers->down[idx[i]]);
		snprintf(err, errlen, "not enough free slots: %d requested as %d per node "
		    "(processesPerNode), so on %d nodes; %d of the %s %zu nodes %s %d free%s%s%s%s",
		    req->slots, req->per_node, (req->slots + req->per_node - 1) / req->per_node, able,
		    req->node_count ? "requested" : "cluster's", n, able == 1 ? "has" : "have", share,
		    nskipped ? " (left out, their helper is gone: " : "", skipped, nskipped ? ")" : "",
		    tail);
		return st;
	}
	snprintf(err, errlen, "not enough free slots: %d requested, %d free on the %s "
	    "nodes%s%s%s%s", req->slots, available, req->node_count ? "requested" : "cluster's",
	    nskipped ? " (left out, their helper is gone: " : "", skipped, nskipped ? ")" : "",
	    tail);
	return st;
}

/* Make slot r reservation req, holding take[] slots per node, and describe it in out. */
static void
hold_slots(struct resv_table *t, size_t r, double now, const struct resv_request *req,
    const int *take, struct resv_grant *out)
{
	struct reservation *v = &t->resv[r];
	v->used = true;
	v->committed = false;
	v->deadline = now + (double)req->timeout;
	v->walltime = req->walltime;
	v->ends = 0;
	v->job_ended = false;
	snprintf(v->id, sizeof(v->id), "%s", out->id);
	snprintf(v->owner_dn, sizeof(v->owner_dn), "%s", req->owner_dn);
	snprintf(v->account, sizeof(v->account), "%s", req->account);
	snprintf(v->job, sizeof(v->job), "%s", req->job);
	for (size_t n = 0; n < t->node_count; n++) {
		v->per_node[n] = take[n];
		t->free_slots[n] -= take[n];
		if (take[n] == 0)
			continue;
		snprintf(out->slot[out->slot_count].node, QCG_NAME_MAX, "%s", t->nodes[n].name);
		out->slot[out->slot_count++].count = take[n];
	}
}

/* Take the slots given (a batch system placed them) into take[], per node index: each node
 * known and within its configured slots, and free in the table now. */
static enum resv_status
take_placed(struct resv_table *t, const struct resv_slot *slots, size_t slot_count, int *take,
    char *err, size_t errlen)
{
	for (size_t i = 0; i < slot_count; i++) {
		long n = node_index(t, slots[i].node);
		if (n < 0 || slots[i].count < 1 || take[n] + slots[i].count > t->nodes[n].slots) {
			snprintf(err, errlen, "node '%.63s' with %d slots is not in this front-end's "
			    "[nodes] or has fewer slots there", slots[i].node, slots[i].count);
			return RESV_BAD_REQUEST;
		}
		take[n] += slots[i].count;
	}
	for (size_t n = 0; n < t->node_count; n++)
		if (take[n] > t->free_slots[n]) {
			snprintf(err, errlen, "node %s: %d slots placed, %d free in the front-end's "
			    "table", t->nodes[n].name, take[n], t->free_slots[n]);
			return RESV_BUSY;
		}
	return RESV_OK;
}

/* Reserve req with the slots planned here (placed NULL) or the ones given. */
static enum resv_status
reserve(struct resv_table *t, double now, const struct resv_request *req,
    const struct resv_slot *placed, size_t placed_count, struct resv_grant *out, char *err,
    size_t errlen)
{
	int take[FE_NODES_MAX] = { 0 };
	enum resv_status st = check_request(req, err, errlen);
	if (st != RESV_OK)
		return st;
	memset(out, 0, sizeof(*out));
	if (resv_random_id(out->id) != 0) {
		snprintf(err, errlen, "no random bytes for a reservation id");
		return RESV_FULL;
	}
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	size_t r = 0;
	while (r < t->max_resv && t->resv[r].used)
		r++;
	if (r == t->max_resv) {
		snprintf(err, errlen, "%zu reservations are live: the front-end's limit", t->max_resv);
		st = RESV_FULL;
	} else if ((st = placed ? take_placed(t, placed, placed_count, take, err, errlen) :
	    plan_slots(t, req, take, err, errlen)) == RESV_OK) {
		hold_slots(t, r, now, req, take, out);
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum resv_status
resv_reserve(struct resv_table *t, double now, const struct resv_request *req,
    struct resv_grant *out, char *err, size_t errlen)
{
	return reserve(t, now, req, NULL, 0, out, err, errlen);
}

enum resv_status
resv_reserve_placed(struct resv_table *t, double now, const struct resv_request *req,
    const struct resv_slot *slots, size_t slot_count, struct resv_grant *out, char *err,
    size_t errlen)
{
	static const struct resv_slot none;
	/* No slots at all is still "placed" (and then holds nothing): never planned here. */
	return reserve(t, now, req, slot_count ? slots : &none, slot_count, out, err, errlen);
}

bool
resv_is_live(struct resv_table *t, double now, const char *id)
{
	bool live = false;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	for (size_t r = 0; r < t->max_resv && !live; r++)
		live = t->resv[r].used && strcmp(t->resv[r].id, id) == 0;
	pthread_mutex_unlock(&t->lock);
	return live;
}

enum resv_status
resv_revoke(struct resv_table *t, double now, const char *id, const char *why,
    struct resv_launch_info *launches, size_t max, size_t *count)
{
	enum resv_status st = RESV_NOT_FOUND;
	*count = 0;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	for (size_t r = 0; r < t->max_resv; r++) {
		if (!t->resv[r].used || strcmp(t->resv[r].id, id) != 0)
			continue;
		remember_gone(t, r);
		/* remember_gone wrote the usual reason; this one is the batch system's. */
		size_t last = (t->expired_next + RESV_EXPIRED_MEMORY - 1) % RESV_EXPIRED_MEMORY;
		snprintf(t->expired_why[last], RESV_WHY_MAX, "was revoked: %s", why);
		release_locked(t, r, launches, max, count);
		st = RESV_OK;
		break;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum resv_status
resv_commit(struct resv_table *t, double now, const char *id, const char *dn, char *err,
    size_t errlen)
{
	size_t r;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	enum resv_status st = find_owned(t, id, dn, &r, err, errlen);
	if (st == RESV_OK && !t->resv[r].committed) {
		t->resv[r].committed = true;
		if (t->resv[r].walltime > 0)
			t->resv[r].ends = now + (double)t->resv[r].walltime;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

static void
launch_info(const struct resv_table *t, const struct launch *l, struct resv_launch_info *info)
{
	const struct reservation *v = &t->resv[l->reservation];
	memset(info, 0, sizeof(*info));
	snprintf(info->job, sizeof(info->job), "%s", v->job);
	snprintf(info->account, sizeof(info->account), "%s", v->account);
	snprintf(info->node, sizeof(info->node), "%s", t->nodes[l->node].name);
	snprintf(info->helper_launch_id, sizeof(info->helper_launch_id), "%s", l->helper_launch_id);
	snprintf(info->reservation, sizeof(info->reservation), "%s", v->id);
}

/* Copy reservation r's launches out (up to max) and drop it. */
static void
release_locked(struct resv_table *t, size_t r, struct resv_launch_info *launches, size_t max,
    size_t *count)
{
	for (size_t l = 0; l < t->max_launches; l++)
		if (t->launches[l].used && t->launches[l].reservation == r && *count < max)
			launch_info(t, &t->launches[l], &launches[(*count)++]);
	drop_reservation(t, r);
}

enum resv_status
resv_release(struct resv_table *t, double now, const char *id, const char *dn,
    struct resv_launch_info *launches, size_t max, size_t *count, char *err, size_t errlen)
{
	size_t r;
	*count = 0;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	enum resv_status st = find_owned(t, id, dn, &r, err, errlen);
	if (st == RESV_OK)
		release_locked(t, r, launches, max, count);
	pthread_mutex_unlock(&t->lock);
	return st;
}

int
resv_reap_due(struct resv_table *t, double now, char id[RESV_ID_LEN],
    struct resv_launch_info *launches, size_t max, size_t *count)
{
	int reaped = 0;
	*count = 0;
	pthread_mutex_lock(&t->lock);
	for (size_t r = 0; r < t->max_resv && !reaped; r++) {
		const struct reservation *v = &t->resv[r];
		if (!v->used || !v->committed || v->ends == 0 || v->ends > now)
			continue;
		snprintf(id, RESV_ID_LEN, "%s", v->id);
		remember_gone(t, r);
		release_locked(t, r, launches, max, count);
		reaped = 1;
	}
	pthread_mutex_unlock(&t->lock);
	return reaped;
}

size_t
resv_end_job(struct resv_table *t, double now, const char *job, double grace)
{
	size_t n = 0;
	pthread_mutex_lock(&t->lock);
	for (size_t r = 0; r < t->max_resv; r++) {
		struct reservation *v = &t->resv[r];
		if (!v->used || strcmp(v->job, job) != 0)
			continue;
		n++;
		if (!v->committed) { /* nothing runs under it: its slots go now */
			v->job_ended = true;
			remember_gone(t, r);
			drop_reservation(t, r);
		} else if (!v->job_ended) {
			v->job_ended = true;
			if (v->ends == 0 || v->ends > now + grace)
				v->ends = now + grace;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return n;
}

enum resv_status
resv_launch_check(struct resv_table *t, double now, const char *id, const char *dn,
    const char *node, struct resv_launch_info *info, char *err, size_t errlen)
{
	size_t r, on_node = 0;
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	enum resv_status st = find_owned(t, id, dn, &r, err, errlen);
	long n = node_index(t, node);
	if (st != RESV_OK)
		goto out;
	st = RESV_STATE;
	if (!t->resv[r].committed) {
		snprintf(err, errlen, "reservation %s is not committed yet", id);
		goto out;
	}
	if (n < 0 || t->resv[r].per_node[n] == 0) {
		snprintf(err, errlen, "reservation %s holds no slots on node '%.63s'", id, node);
		goto out;
	}
	for (size_t l = 0; l < t->max_launches; l++)
		on_node += t->launches[l].used && t->launches[l].reservation == r &&
		    t->launches[l].node == (size_t)n;
	if (on_node >= RESV_LAUNCHES_PER_NODE) {
		snprintf(err, errlen, "reservation %s already runs %d launches on node %s", id,
		    RESV_LAUNCHES_PER_NODE, node);
		st = RESV_FULL;
		goto out;
	}
	memset(info, 0, sizeof(*info));
	snprintf(info->job, sizeof(info->job), "%s", t->resv[r].job);
	snprintf(info->account, sizeof(info->account), "%s", t->resv[r].account);
	snprintf(info->node, sizeof(info->node), "%s", node);
	snprintf(info->reservation, sizeof(info->reservation), "%s", id);
	st = RESV_OK;
out:
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum resv_status
resv_launch_add(struct resv_table *t, const struct resv_launch_info *info,
    char launch_id[RESV_ID_LEN], char *err, size_t errlen)
{
	enum resv_status st = RESV_NOT_FOUND;
	if (resv_random_id(launch_id) != 0) {
		snprintf(err, errlen, "no random bytes for a launch id");
		return RESV_FULL;
	}
	pthread_mutex_lock(&t->lock);
	size_t r = 0, l = 0;
	while (r < t->max_resv && !(t->resv[r].used && strcmp(t->resv[r].id, info->reservation) == 0))
		r++;
	while (l < t->max_launches && t->launches[l].used)
		l++;
	long n = node_index(t, info->node);
	if (r == t->max_resv || n < 0) {
		snprintf(err, errlen, "reservation %s was released during the launch", info->reservation);
	} else if (l == t->max_launches) {
		snprintf(err, errlen, "%zu launches are tracked: the front-end's limit", t->max_launches);
		st = RESV_FULL;
	} else {
		struct launch *x = &t->launches[l];
		x->used = true;
		x->reservation = r;
		x->node = (size_t)n;
		snprintf(x->id, sizeof(x->id), "%s", launch_id);
		snprintf(x->helper_launch_id, sizeof(x->helper_launch_id), "%s",
		    info->helper_launch_id);
		st = RESV_OK;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

enum resv_status
resv_launch_find(struct resv_table *t, const char *launch_id, const char *dn,
    struct resv_launch_info *info, char *err, size_t errlen)
{
	enum resv_status st = RESV_NOT_FOUND;
	snprintf(err, errlen, "no launch %.40s (unknown, or its reservation was released)",
	    launch_id);
	pthread_mutex_lock(&t->lock);
	for (size_t l = 0; l < t->max_launches; l++) {
		if (!t->launches[l].used || strcmp(t->launches[l].id, launch_id) != 0)
			continue;
		if (strcmp(t->resv[t->launches[l].reservation].owner_dn, dn) != 0) {
			snprintf(err, errlen, "launch %s belongs to another user", launch_id);
			st = RESV_DENIED;
		} else {
			launch_info(t, &t->launches[l], info);
			st = RESV_OK;
		}
		break;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

int
resv_free_slots(struct resv_table *t, double now, const char *node)
{
	pthread_mutex_lock(&t->lock);
	expire_locked(t, now);
	long n = node_index(t, node);
	int free_here = n < 0 ? -1 : t->free_slots[n];
	pthread_mutex_unlock(&t->lock);
	return free_here;
}
