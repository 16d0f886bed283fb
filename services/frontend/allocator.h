/*
 * allocator.h: who hands out a cluster's nodes. The front-end asks one interface; the
 * configuration ([cluster] allocator, fe_config.h) picks the backend:
 *
 *   builtin  allocator_builtin.c: the static [nodes] list with its slot counts, nothing else
 *            to ask (the default: sites without a batch system, the quick demo);
 *   slurm    allocator_slurm.c: the site's Slurm allocates, the front-end holds the
 *            allocation for the reservation's life and ends it with scancel.
 *
 * Either way the reservation itself (owner, lifetimes, launches) lives in the reservation
 * table (reservations.h); a backend only decides where the slots are and keeps what backs
 * them in step with it. Slurm commands run as bounded children (slurm_cmd.h), in the calling
 * worker thread or in the wall-time thread, never in the server's accept loop.
 */
#ifndef QCG_ALLOCATOR_H
#define QCG_ALLOCATOR_H

#include <stddef.h>

#include "fe_config.h"
#include "reservations.h"

#define ALLOC_JOB_ID_MAX 24   /* a batch job id, with the NUL */
#define ALLOC_LAUNCH_PREFIX_MAX 16 /* arguments a backend puts before a launch's own */

struct allocator;

/* The backend cfg->allocator names, over reservation table t (which must outlive it). NULL
 * with err set. */
struct allocator *allocator_new(const struct fe_config *cfg, struct resv_table *t, char *err,
    size_t errlen);
void allocator_free(struct allocator *a);
/* "builtin" or "slurm", for logs. */
const char *allocator_name(const struct allocator *a);

/* Reserve: what resv_reserve does, with the slots placed by the backend. Status and err as
 * resv_reserve's (RESV_BUSY: pending too long, retry; RESV_NO_CAPACITY: never fits). */
enum resv_status allocator_reserve(struct allocator *a, double now,
    const struct resv_request *req, struct resv_grant *out, char *err, size_t errlen);

/* Reservation id was released: let go of what backs it now (the periodic check would, later). */
void allocator_released(struct allocator *a, const char *id);

/* Periodic work (the wall-time thread): let go of what backs reservations that are gone
 * (lapsed, reaped, ended with their job) and check what backs the live ones. One whose
 * backing broke (its batch job ended, a node was drained or lost) is revoked in the table:
 * returns 1 with its id, a sentence naming the cause (and the node) in why, and its launches
 * (up to max, *count) for the caller to kill; 0 when nothing more is to be done now. */
int allocator_check(struct allocator *a, double now, char id[RESV_ID_LEN], char *why,
    size_t whylen, struct resv_launch_info *launches, size_t max, size_t *count);

/* The batch job that holds reservation id's nodes into job ("" for builtin, or none). */
void allocator_job_of(struct allocator *a, const char *id, char job[ALLOC_JOB_ID_MAX]);

/* The arguments to put before a launch's own so that it runs inside reservation id's
 * allocation on node (none for builtin), and environment entries to drop from the launch (moved
 * into those arguments). prefix gets pointers into storage (both of the caller's,
 * ALLOC_LAUNCH_PREFIX_MAX entries and 4096 bytes); env is the launch's environment. Returns the
 * number of prefix arguments, -1 with err when the launch cannot be placed. */
int allocator_launch_prefix(struct allocator *a, const char *id, const char *node,
    char *const *env, int env_count, const char *prefix[ALLOC_LAUNCH_PREFIX_MAX],
    char *storage, size_t storage_len, int *drop_env_index, char *err, size_t errlen);

#endif
