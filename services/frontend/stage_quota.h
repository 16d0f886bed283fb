/*
 * stage_quota.h: how many bytes each user has staged onto this cluster's nodes, against the
 * per-user quota (frontend.stage_quota_mib).
 *
 * A stage-in takes its declared size, on each node it goes to, from its owner's quota before
 * anything starts on the node; the bytes stay taken while the reservation they were staged
 * under is live (the job's directory and its files live as long as the job), and come back
 * once it is gone (released, lapsed, revoked). A refusal therefore leaves nothing behind:
 * nothing was started. Thread-safe.
 */
#ifndef QCG_STAGE_QUOTA_H
#define QCG_STAGE_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STAGE_QUOTA_ENTRIES 4096 /* (reservation, user) pairs tracked at once */

struct stage_quota;

/* Whether reservation id still holds its slots. */
typedef bool (*stage_quota_live_fn)(void *ctx, const char *reservation);

struct stage_quota *stage_quota_new(uint64_t per_user_bytes, stage_quota_live_fn live,
    void *ctx);
void stage_quota_free(struct stage_quota *q);

/* Take bytes for dn under reservation. 0, or -1 with err saying how much dn holds, what was
 * asked and the quota. */
int stage_quota_take(struct stage_quota *q, const char *dn, const char *reservation,
    uint64_t bytes, char *err, size_t errlen);

/* Give back bytes taken for a stage-in that did not start (the node refused it). */
void stage_quota_give_back(struct stage_quota *q, const char *dn, const char *reservation,
    uint64_t bytes);

/* Bytes dn holds now (after dropping reservations that are gone). */
uint64_t stage_quota_used(struct stage_quota *q, const char *dn);

#endif
