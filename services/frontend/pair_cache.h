/*
 * pair_cache.h: the front-end's decisions per cluster pair (issue 15). The broker decides the
 * method once for (job, our cluster, cluster B); its answer lists the job's access points in B
 * that the same decision reaches (broker.wsdl ResolveResponse.peer). A later connect of any of
 * our nodes to one of them is answered here, the decision copied with that peer as its target.
 *
 * Only direct and port range are kept: they need nothing from the target side, so the
 * decision is all there is to it. Reversal, traversal and relay need the broker for each
 * connection (the target side's event, a one-time relay id, the proxies' load), so they are
 * never stored. A listener B registers later is not among the peers: its first connect goes to
 * the broker, whose answer replaces the pair's list.
 *
 * Invalidation: a job's end drops its pairs; a cluster whose policy changed (or that left)
 * drops every pair with it; a method that failed drops its pair. Bounded: PAIR_CACHE_PAIRS pairs
 * (the least recently stored goes first), PAIR_CACHE_PEERS peers per pair.
 * Thread-safe.
 */
#ifndef QCG_PAIR_CACHE_H
#define QCG_PAIR_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define PAIR_CACHE_PAIRS 1024
#define PAIR_CACHE_PEERS 4096 /* broker.wsdl's maxOccurs of ResolveResponse.peer */

struct pair_cache;

struct pair_cache *pair_cache_new(void);
void pair_cache_free(struct pair_cache *c);

/* When job's pair with some cluster lists address:port as a peer, copy the pair's decision
 * with that peer as its target into out and return 1; else 0. */
int pair_cache_lookup(struct pair_cache *c, const char *job, const char *address, uint16_t port,
    struct decision *out);
/* Keep d (direct or port range, naming its target) for (job, d's target cluster), reaching
 * the n peers given (access points of that cluster; others are ignored). Replaces the pair's
 * earlier entry. Returns 1 if stored, 0 if not (another method, no target, no peer of the
 * target's cluster, a name too long, or out of memory). */
int pair_cache_store(struct pair_cache *c, const char *job, const struct decision *d,
    const struct access_point *peers, size_t n);
/* Forget job's pair with cluster (its method failed); returns 1 if there was one. */
int pair_cache_forget(struct pair_cache *c, const char *job, const char *cluster);
/* Forget every pair of job (it ended); returns how many. */
size_t pair_cache_drop_job(struct pair_cache *c, const char *job);
/* Forget every pair, of any job, with cluster (its policy changed); returns how many. */
size_t pair_cache_drop_cluster(struct pair_cache *c, const char *cluster);
/* Forget every pair (our own cluster's policy changed); returns how many. */
size_t pair_cache_clear(struct pair_cache *c);
size_t pair_cache_count(struct pair_cache *c);
/* The peers of job's pair with cluster as access points (n of them, malloc'ed: the caller
 * frees), for a helper's own pair cache (services/helper/helper_paircache.h); NULL with *n = 0
 * when there is no such pair (or out of memory). */
struct access_point *pair_cache_peers(struct pair_cache *c, const char *job, const char *cluster,
    size_t *n);

#endif
