/*
 * helper_paircache.h: the front-end's decisions per cluster pair, kept on the node (issue 15).
 *
 * The front-end decides the method once per (job, our cluster, cluster B) when it is direct or
 * port range (services/frontend/pair_cache.h) and, asked (frontend.wsdl Resolve.wantPeers),
 * names the job's listeners in B that decision reaches. The helper keeps that list, so that a
 * later first connect of any process of the job on this node to one of them is answered here,
 * the decision copied with that listener as its target, with no call to the front-end.
 * Reversal, traversal and relay are never kept (they need the target side and one-time ids).
 *
 * Invalidation: a policy-changed event the front-end passes on drops the pairs with that
 * cluster (every pair when it is our own); the job's end drops its pairs; a connect by a kept
 * decision that failed drops its pair (the process then asks for the next method, as after
 * any failed attempt, so the application's connect does not fail for it); and everything is
 * dropped HELPER_PAIRCACHE_TTL_S after it was last emptied, which bounds how long a missed
 * event can leave a decision standing. Thread-safe; one cache per helper process.
 */
#ifndef QCG_HELPER_PAIRCACHE_H
#define QCG_HELPER_PAIRCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define HELPER_PAIRCACHE_TTL_S 30 /* every kept decision is dropped at most this long after */

/* When job's pair with some cluster lists address:port, copy the pair's decision with that
 * listener as its target into out and return true. */
bool helper_paircache_lookup(const char *job, const char *address, uint16_t port,
    struct decision *out);

/* Keep d (direct or port range, naming its target) for job's pair with d's target cluster,
 * reaching the n peers given; other methods are not kept. Returns true if kept. */
bool helper_paircache_store(const char *job, const struct decision *d,
    const struct access_point *peers, size_t n);

/* A connect of job by a kept decision to cluster failed: drop the pair. True if there was one. */
bool helper_paircache_forget(const char *job, const char *cluster);

/* job ended: drop its pairs. */
void helper_paircache_drop_job(const char *job);

/* cluster's policy changed (ours is own_cluster: then every pair goes). Returns how many. */
size_t helper_paircache_policy_changed(const char *cluster, const char *own_cluster);

#endif
