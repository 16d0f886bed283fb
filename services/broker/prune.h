/*
 * prune.h: the broker's connection-log pruner. The connections table is an append-only log
 * (one row per attempt, kept after its job and clusters are gone), so without pruning it grows
 * for as long as the broker runs. A thread with its own registry connection drops rows older
 * than broker.connection_log_max_age, at start and every broker.connection_log_prune_interval.
 */
#ifndef QCG_BROKER_PRUNE_H
#define QCG_BROKER_PRUNE_H

#include <stddef.h>
#include <stdint.h>

struct config;
struct pruner;

#define PRUNE_MAX_AGE_DEFAULT (30L * 24 * 3600)  /* a month of connection history */
#define PRUNE_MAX_AGE_MAX (10L * 365 * 24 * 3600) /* 0 disables; beyond ten years is a typo */
#define PRUNE_INTERVAL_DEFAULT 3600L
#define PRUNE_INTERVAL_MAX 86400L                 /* at least daily */

struct prune_settings {
	int64_t max_age;  /* seconds a row is kept; 0: never pruned */
	int64_t interval; /* seconds between prunes */
};

/* Read broker.connection_log_max_age and broker.connection_log_prune_interval; -1 with err
 * naming the key when a value is malformed or out of range. */
int prune_settings_from_config(const struct config *cfg, struct prune_settings *out, char *err,
    size_t errlen);

/* Start the pruner on the registry file db_path (*out is NULL when max_age is 0: nothing to
 * do); -1 with err when its thread or registry connection cannot be set up. */
int pruner_start(const char *db_path, const struct prune_settings *s, struct pruner **out,
    char *err, size_t errlen);
/* Stop and join the thread (at once, even in the middle of its wait); NULL is allowed. */
void pruner_stop(struct pruner *p);

#endif
