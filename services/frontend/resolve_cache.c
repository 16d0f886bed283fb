/*
 * resolve_cache.c: a hash table with chaining for lookups and a doubly linked list for recency.
 *
 * Inserting for a job that is at its cap looks for that job's oldest entry by walking the
 * recency list from the old end: O(entries), but it happens only on a miss, which costs a broker
 * round trip anyway.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "resolve_cache.h"

#define CACHE_BUCKETS 4096 /* power of two */

struct cache_entry {
	char job[QCG_NAME_MAX];
	char address[QCG_ADDR_MAX];
	uint16_t port;
	struct decision decision;
	struct cache_entry *chain;       /* next in the bucket */
	struct cache_entry *newer, *older;
};

struct resolve_cache {
	pthread_mutex_t lock;
	size_t max_entries, max_per_job, count;
	struct cache_entry *buckets[CACHE_BUCKETS];
	struct cache_entry *newest, *oldest;
};

struct resolve_cache *
resolve_cache_new(size_t max_entries, size_t max_per_job)
{
	struct resolve_cache *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->max_entries = max_entries;
	c->max_per_job = max_per_job < max_entries ? max_per_job : max_entries;
	return c;
}

void
resolve_cache_free(struct resolve_cache *c)
{
	if (c == NULL)
		return;
	for (struct cache_entry *e = c->newest, *next; e; e = next) {
		next = e->older;
		free(e);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* FNV-1a over the key's parts. */
static size_t
key_hash(const char *job, const char *address, uint16_t port)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *p = job; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *p = address; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ (port & 0xff)) * 1099511628211ULL;
	h = (h ^ (port >> 8)) * 1099511628211ULL;
	return (size_t)(h & (CACHE_BUCKETS - 1));
}

static struct cache_entry **
find_slot(struct resolve_cache *c, const char *job, const char *address, uint16_t port)
{
	struct cache_entry **pp = &c->buckets[key_hash(job, address, port)];
	for (; *pp; pp = &(*pp)->chain)
		if ((*pp)->port == port && strcmp((*pp)->job, job) == 0 &&
		    strcmp((*pp)->address, address) == 0)
			return pp;
	return pp;
}

static void
unlink_recency(struct resolve_cache *c, struct cache_entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void
push_newest(struct resolve_cache *c, struct cache_entry *e)
{
	e->older = c->newest;
	e->newer = NULL;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (c->oldest == NULL)
		c->oldest = e;
}

static void
remove_entry(struct resolve_cache *c, struct cache_entry *e)
{
	struct cache_entry **pp = find_slot(c, e->job, e->address, e->port);
	if (*pp == e)
		*pp = e->chain;
	unlink_recency(c, e);
	c->count--;
	free(e);
}

int
resolve_cache_lookup(struct resolve_cache *c, const char *job, const char *address, uint16_t port,
    struct decision *out)
{
	int hit = 0;
	pthread_mutex_lock(&c->lock);
	struct cache_entry *e = *find_slot(c, job, address, port);
	if (e) {
		unlink_recency(c, e);
		push_newest(c, e);
		*out = e->decision;
		hit = 1;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

/* Make room for one more entry of job: evict its oldest at the per-job cap, then the oldest of
 * all at the total cap. */
static void
make_room(struct resolve_cache *c, const char *job)
{
	size_t of_job = 0;
	struct cache_entry *oldest_of_job = NULL;
	for (struct cache_entry *e = c->oldest; e; e = e->newer)
		if (strcmp(e->job, job) == 0) {
			if (oldest_of_job == NULL)
				oldest_of_job = e;
			of_job++;
		}
	if (of_job >= c->max_per_job && oldest_of_job)
		remove_entry(c, oldest_of_job);
	if (c->count >= c->max_entries && c->oldest)
		remove_entry(c, c->oldest);
}

int
resolve_cache_store(struct resolve_cache *c, const char *job, const char *address, uint16_t port,
    const struct decision *d)
{
	if (!resolve_cache_replayable(d) || c->max_per_job == 0 || strlen(job) >= QCG_NAME_MAX ||
	    strlen(address) >= QCG_ADDR_MAX)
		return 0;
	pthread_mutex_lock(&c->lock);
	struct cache_entry *e = *find_slot(c, job, address, port);
	if (e) {
		e->decision = *d;
		unlink_recency(c, e);
		push_newest(c, e);
		pthread_mutex_unlock(&c->lock);
		return 1;
	}
	make_room(c, job);
	e = calloc(1, sizeof(*e));
	if (e == NULL) {
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
	strcpy(e->job, job);
	strcpy(e->address, address);
	e->port = port;
	e->decision = *d;
	struct cache_entry **pp = find_slot(c, job, address, port);
	*pp = e;
	push_newest(c, e);
	c->count++;
	pthread_mutex_unlock(&c->lock);
	return 1;
}

void
resolve_cache_forget(struct resolve_cache *c, const char *job, const char *address, uint16_t port)
{
	pthread_mutex_lock(&c->lock);
	struct cache_entry *e = *find_slot(c, job, address, port);
	if (e)
		remove_entry(c, e);
	pthread_mutex_unlock(&c->lock);
}

size_t
resolve_cache_drop_job(struct resolve_cache *c, const char *job)
{
	size_t dropped = 0;
	pthread_mutex_lock(&c->lock);
	for (struct cache_entry *e = c->newest, *next; e; e = next) {
		next = e->older;
		if (strcmp(e->job, job) == 0) {
			remove_entry(c, e);
			dropped++;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return dropped;
}

size_t
resolve_cache_drop_cluster(struct resolve_cache *c, const char *cluster)
{
	size_t dropped = 0;
	pthread_mutex_lock(&c->lock);
	for (struct cache_entry *e = c->newest, *next; e; e = next) {
		next = e->older;
		if (cluster == NULL || strcmp(e->decision.target.cluster, cluster) == 0) {
			remove_entry(c, e);
			dropped++;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return dropped;
}

size_t
resolve_cache_count(struct resolve_cache *c)
{
	pthread_mutex_lock(&c->lock);
	size_t n = c->count;
	pthread_mutex_unlock(&c->lock);
	return n;
}
