/*
 * helper_paircache.c: the node's decisions per cluster pair (helper_paircache.h). The table
 * is the front-end's own (services/frontend/pair_cache.c, compiled into the helper too), so
 * both keep the same pairs by the same rules; this file adds the helper's bound in time.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "helper_paircache.h"
#include "log.h"
#include "monotonic_ms.h"
#include "../frontend/pair_cache.h"

static struct {
	pthread_mutex_t lock;           /* guards creating the table and emptied_ms */
	struct pair_cache *pairs;       /* NULL until the first store (or out of memory) */
	long emptied_ms;                /* monotonic_ms() when it was last emptied */
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The table, emptied first when HELPER_PAIRCACHE_TTL_S have passed; NULL when there is none
 * and create is false. */
static struct pair_cache *
table(bool create)
{
	pthread_mutex_lock(&cache.lock);
	long now = monotonic_ms();
	if (cache.pairs == NULL && create) {
		cache.pairs = pair_cache_new();
		cache.emptied_ms = now;
	}
	if (cache.pairs != NULL && now - cache.emptied_ms >= HELPER_PAIRCACHE_TTL_S * 1000L) {
		size_t n = pair_cache_clear(cache.pairs);
		if (n > 0)
			log_debug("pair cache: %zu kept decisions dropped after %d s", n,
			    HELPER_PAIRCACHE_TTL_S);
		cache.emptied_ms = now;
	}
	struct pair_cache *c = cache.pairs;
	pthread_mutex_unlock(&cache.lock);
	return c;
}

bool
helper_paircache_lookup(const char *job, const char *address, uint16_t port,
    struct decision *out)
{
	struct pair_cache *c = table(false);
	return c != NULL && pair_cache_lookup(c, job, address, port, out) == 1;
}

bool
helper_paircache_store(const char *job, const struct decision *d,
    const struct access_point *peers, size_t n)
{
	if (n == 0 || !(d->method == METHOD_DIRECT || d->method == METHOD_PORT_RANGE))
		return false;
	struct pair_cache *c = table(true);
	if (c == NULL || pair_cache_store(c, job, d, peers, n) != 1)
		return false;
	log_debug("job %s: %s to cluster %s kept on the node for %zu listeners", job,
	    connect_method_name(d->method), d->target.cluster, n);
	return true;
}

bool
helper_paircache_forget(const char *job, const char *cluster)
{
	struct pair_cache *c = table(false);
	if (c == NULL || cluster[0] == '\0' || pair_cache_forget(c, job, cluster) == 0)
		return false;
	log_info("job %s: a connect to cluster %s by the node's kept decision failed: dropped, "
	    "the next connect asks the front-end", job, cluster);
	return true;
}

void
helper_paircache_drop_job(const char *job)
{
	struct pair_cache *c = table(false);
	if (c != NULL)
		pair_cache_drop_job(c, job);
}

size_t
helper_paircache_policy_changed(const char *cluster, const char *own_cluster)
{
	struct pair_cache *c = table(false);
	if (c == NULL)
		return 0;
	return strcmp(cluster, own_cluster) == 0 ? pair_cache_clear(c) :
	    pair_cache_drop_cluster(c, cluster);
}
