/*
 * pair_cache.c: a fixed table of pairs, each with its peers sorted by port (ports are unique
 * within a job: db/registry.h), found by a scan over the pairs of the job and a binary search
 * over the peers. A job has at most one pair per cluster, so the scan is short; the table is
 * small enough that a linear scan costs less than a broker round trip by far.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pair_cache.h"

struct pair_peer {
	uint16_t port;
	char address[QCG_ADDR_MAX];
	char node[QCG_NAME_MAX];
	char process[QCG_PROCESS_MAX];
};

struct pair_entry {
	bool used;
	uint64_t stored;             /* when stored, in store calls: the oldest goes first */
	char job[QCG_NAME_MAX];
	char cluster[QCG_NAME_MAX];  /* the pair's other cluster (ours is implicit) */
	struct decision decision;    /* as the broker answered it, for its own target */
	struct pair_peer *peers;     /* sorted by port */
	size_t peer_count;
};

struct pair_cache {
	pthread_rwlock_t lock;
	uint64_t stores;
	size_t count;
	struct pair_entry pairs[PAIR_CACHE_PAIRS];
};

struct pair_cache *
pair_cache_new(void)
{
	struct pair_cache *c = calloc(1, sizeof(*c));
	if (c != NULL)
		pthread_rwlock_init(&c->lock, NULL);
	return c;
}

static void
entry_clear(struct pair_cache *c, struct pair_entry *e)
{
	free(e->peers);
	memset(e, 0, sizeof(*e));
	c->count--;
}

void
pair_cache_free(struct pair_cache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < PAIR_CACHE_PAIRS; i++)
		free(c->pairs[i].peers);
	pthread_rwlock_destroy(&c->lock);
	free(c);
}

static const struct pair_peer *
find_peer(const struct pair_entry *e, const char *address, uint16_t port)
{
	size_t lo = 0, hi = e->peer_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->peers[mid].port < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < e->peer_count && e->peers[lo].port == port &&
	    strcmp(e->peers[lo].address, address) == 0)
		return &e->peers[lo];
	return NULL;
}

int
pair_cache_lookup(struct pair_cache *c, const char *job, const char *address, uint16_t port,
    struct decision *out)
{
	int hit = 0;
	pthread_rwlock_rdlock(&c->lock);
	for (size_t i = 0; i < PAIR_CACHE_PAIRS && !hit; i++) {
		const struct pair_entry *e = &c->pairs[i];
		if (!e->used || strcmp(e->job, job) != 0)
			continue;
		const struct pair_peer *p = find_peer(e, address, port);
		if (p == NULL)
			continue;
		*out = e->decision;
		struct access_point *t = &out->target;
		memset(t, 0, sizeof(*t));
		memcpy(t->job, e->job, sizeof(t->job));
		memcpy(t->cluster, e->cluster, sizeof(t->cluster));
		memcpy(t->node, p->node, sizeof(t->node));
		memcpy(t->address, p->address, sizeof(t->address));
		memcpy(t->process, p->process, sizeof(t->process));
		t->port = p->port;
		out->has_target = true;
		hit = 1;
	}
	pthread_rwlock_unlock(&c->lock);
	return hit;
}

static int
peer_order(const void *a, const void *b)
{
	const struct pair_peer *x = a, *y = b;
	return (int)x->port - (int)y->port;
}

/* The peers of cluster among in[0..n), sorted; NULL when none (or out of memory). */
static struct pair_peer *
peers_of_cluster(const char *job, const char *cluster, const struct access_point *in, size_t n,
    size_t *count)
{
	struct pair_peer *peers = calloc(n ? n : 1, sizeof(*peers));
	size_t kept = 0;
	if (peers == NULL)
		return NULL;
	for (size_t i = 0; i < n && kept < PAIR_CACHE_PEERS; i++) {
		if (strcmp(in[i].cluster, cluster) != 0 || strcmp(in[i].job, job) != 0 ||
		    in[i].port == 0)
			continue;
		struct pair_peer *p = &peers[kept++];
		p->port = in[i].port;
		memcpy(p->address, in[i].address, sizeof(p->address));
		memcpy(p->node, in[i].node, sizeof(p->node));
		memcpy(p->process, in[i].process, sizeof(p->process));
	}
	if (kept == 0) {
		free(peers);
		return NULL;
	}
	qsort(peers, kept, sizeof(*peers), peer_order);
	*count = kept;
	return peers;
}

/* The pair's slot: its own, else a free one, else the one stored longest ago. */
static struct pair_entry *
slot_for(struct pair_cache *c, const char *job, const char *cluster)
{
	struct pair_entry *free_slot = NULL, *oldest = &c->pairs[0];
	for (size_t i = 0; i < PAIR_CACHE_PAIRS; i++) {
		struct pair_entry *e = &c->pairs[i];
		if (!e->used) {
			if (free_slot == NULL)
				free_slot = e;
			continue;
		}
		if (strcmp(e->job, job) == 0 && strcmp(e->cluster, cluster) == 0)
			return e;
		if (e->stored < oldest->stored || !oldest->used)
			oldest = e;
	}
	return free_slot ? free_slot : oldest;
}

int
pair_cache_store(struct pair_cache *c, const char *job, const struct decision *d,
    const struct access_point *peers, size_t n)
{
	const char *cluster = d->target.cluster;
	size_t count = 0;

	if ((d->method != METHOD_DIRECT && d->method != METHOD_PORT_RANGE) || !d->has_target ||
	    strlen(job) >= QCG_NAME_MAX || cluster[0] == '\0')
		return 0;
	struct pair_peer *list = peers_of_cluster(job, cluster, peers, n, &count);
	if (list == NULL)
		return 0;
	pthread_rwlock_wrlock(&c->lock);
	struct pair_entry *e = slot_for(c, job, cluster);
	if (e->used)
		entry_clear(c, e);
	e->used = true;
	e->stored = ++c->stores;
	strcpy(e->job, job);
	memcpy(e->cluster, cluster, sizeof(e->cluster));
	e->decision = *d;
	e->peers = list;
	e->peer_count = count;
	c->count++;
	pthread_rwlock_unlock(&c->lock);
	return 1;
}

/* Drop the pairs that match job (NULL: any) and cluster (NULL: any); returns how many. */
static size_t
drop_matching(struct pair_cache *c, const char *job, const char *cluster)
{
	size_t dropped = 0;
	pthread_rwlock_wrlock(&c->lock);
	for (size_t i = 0; i < PAIR_CACHE_PAIRS; i++) {
		struct pair_entry *e = &c->pairs[i];
		if (e->used && (job == NULL || strcmp(e->job, job) == 0) &&
		    (cluster == NULL || strcmp(e->cluster, cluster) == 0)) {
			entry_clear(c, e);
			dropped++;
		}
	}
	pthread_rwlock_unlock(&c->lock);
	return dropped;
}

int
pair_cache_forget(struct pair_cache *c, const char *job, const char *cluster)
{
	return drop_matching(c, job, cluster) > 0;
}

size_t
pair_cache_drop_job(struct pair_cache *c, const char *job)
{
	return drop_matching(c, job, NULL);
}

size_t
pair_cache_drop_cluster(struct pair_cache *c, const char *cluster)
{
	return drop_matching(c, NULL, cluster);
}

size_t
pair_cache_clear(struct pair_cache *c)
{
	return drop_matching(c, NULL, NULL);
}

size_t
pair_cache_count(struct pair_cache *c)
{
	pthread_rwlock_rdlock(&c->lock);
	size_t n = c->count;
	pthread_rwlock_unlock(&c->lock);
	return n;
}

struct access_point *
pair_cache_peers(struct pair_cache *c, const char *job, const char *cluster, size_t *n)
{
	struct access_point *out = NULL;
	*n = 0;
	pthread_rwlock_rdlock(&c->lock);
	for (size_t i = 0; i < PAIR_CACHE_PAIRS; i++) {
		const struct pair_entry *e = &c->pairs[i];
		if (!e->used || strcmp(e->job, job) != 0 || strcmp(e->cluster, cluster) != 0)
			continue;
		out = calloc(e->peer_count, sizeof(*out));
		if (out == NULL)
			break;
		for (size_t k = 0; k < e->peer_count; k++) {
			struct access_point *t = &out[k];
			memcpy(t->job, e->job, sizeof(t->job));
			memcpy(t->cluster, e->cluster, sizeof(t->cluster));
			memcpy(t->node, e->peers[k].node, sizeof(t->node));
			memcpy(t->address, e->peers[k].address, sizeof(t->address));
			memcpy(t->process, e->peers[k].process, sizeof(t->process));
			t->port = e->peers[k].port;
		}
		*n = e->peer_count;
		break;
	}
	pthread_rwlock_unlock(&c->lock);
	return out;
}
