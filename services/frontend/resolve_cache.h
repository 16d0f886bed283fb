/*
 * resolve_cache.h: the front-end's per-job cache of the broker's answers (paper 000, section
 * 3.2): key (job, target address, target port). Only answers that can be replayed are kept
 * (resolve_cache_replayable). Bounded twice: in total (least recently used goes first) and per
 * job (that job's least recently used goes first), so one chatty job cannot evict everyone
 * else.
 * Thread-safe.
 */
#ifndef QCG_RESOLVE_CACHE_H
#define QCG_RESOLVE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

#include "model.h"

/* Whether an answer may be replayed from the cache: only those that need nothing from the
 * target side (direct and port range); the others carry a one-time id. */
static inline bool
resolve_cache_replayable(const struct decision *d)
{
	return d->method == METHOD_DIRECT || d->method == METHOD_PORT_RANGE;
}

struct resolve_cache;

/* A cache of at most max_entries answers, max_per_job of them for one job; 0 disables it. */
struct resolve_cache *resolve_cache_new(size_t max_entries, size_t max_per_job);
void resolve_cache_free(struct resolve_cache *c);

/* Copy the cached answer into out and return 1, or return 0 on a miss. */
int resolve_cache_lookup(struct resolve_cache *c, const char *job, const char *address,
    uint16_t port, struct decision *out);
/* Keep d for the key when it is cacheable; returns 1 if stored, 0 if not (not cacheable,
 * disabled, a key field too long, or out of memory). Replaces an older answer for the key. */
int resolve_cache_store(struct resolve_cache *c, const char *job, const char *address,
    uint16_t port, const struct decision *d);
/* Forget the key's answer (its method failed). */
void resolve_cache_forget(struct resolve_cache *c, const char *job, const char *address,
    uint16_t port);
/* Forget every answer of job (it ended); returns how many. */
size_t resolve_cache_drop_job(struct resolve_cache *c, const char *job);
/* Forget every answer whose target is in cluster (NULL: every answer), whatever its job: that
 * cluster's policy changed (pair_cache.h). Returns how many. */
size_t resolve_cache_drop_cluster(struct resolve_cache *c, const char *cluster);
size_t resolve_cache_count(struct resolve_cache *c);

#endif
