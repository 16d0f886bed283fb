/*
 * reservations.h: the front-end's slots, reservations and launches, in memory (paper 000
 * section 3.2; DESIGN.md section 4: two-phase co-allocation). Plain C with the clock passed in,
 * so that expiry is unit-tested without sleeping. Thread-safe; every table is bounded.
 *
 * A reservation holds slots on nodes for one job and one user (the certificate DN that made it,
 * and the local account the grid-mapfile gave it). It lapses at its deadline unless committed;
 * a committed one lasts until released, or until its wall time (counted from the commit) has
 * passed, or until a grace after the broker said its job ended: the front-end then releases it
 * itself, so that a job whose launcher died does not hold the nodes for ever. Launches run under a committed reservation, on one of its nodes;
 * releasing the reservation hands back its launches so the caller can kill them.
 */
#ifndef QCG_RESERVATIONS_H
#define QCG_RESERVATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fe_config.h"
#include "helper_probe.h"
#include "gridmap.h"
#include "model.h"

#define RESV_ID_LEN 33          /* 32 hex digits and the NUL */
#define RESV_HELPER_ID_MAX 128  /* a helper's launch id */
#define RESV_LAUNCHES_PER_NODE 64 /* launches one reservation may start on one node */
#define RESV_WALLTIME_MAX (366L * 24 * 3600) /* seconds a reservation may ask to run */

enum resv_status {
	RESV_OK = 0,
	RESV_BAD_REQUEST = 1, /* the request itself is wrong (err says how) */
	RESV_NOT_FOUND = 2,   /* no such reservation or launch (or it expired: err says) */
	RESV_DENIED = 3,      /* it belongs to another DN */
	RESV_NO_CAPACITY = 4, /* not enough slots even with nothing reserved: never fits */
	RESV_FULL = 5,        /* the table limit is reached */
	RESV_STATE = 6,       /* wrong phase (e.g. launch before commit) */
	RESV_BUSY = 7,        /* not enough free slots now, but enough once other reservations
	                       * are released: the caller may retry */
};

struct resv_slot {
	char node[QCG_NAME_MAX];
	int count;
};

/* What Reserve asks for. */
struct resv_request {
	const char *owner_dn;
	const char *account;
	const char *job;
	int slots;
	const char *const *nodes; /* requested nodes (NULL/0: any, in configuration order) */
	size_t node_count;
	int per_node;             /* 0: fill nodes as far as they go; >0: at most this many per
				     node, and only nodes that can take min(per_node, rest) */
	long timeout;             /* seconds until it lapses unless committed */
	long walltime;            /* seconds it may run once committed; 0: until released */
	const struct helper_probe_result *helpers; /* whose helper is gone (helper_probe.h):
	                                            * never granted; NULL: all are there */
};

struct resv_grant {
	char id[RESV_ID_LEN];
	struct resv_slot slot[FE_NODES_MAX];
	size_t slot_count;
};

/* What a launch needs from its reservation. */
struct resv_launch_info {
	char job[QCG_NAME_MAX];
	char account[GRIDMAP_ACCOUNT_MAX];
	char node[QCG_NAME_MAX];
	char helper_launch_id[RESV_HELPER_ID_MAX];
	char reservation[RESV_ID_LEN];
};

struct resv_table;

struct resv_table *resv_table_new(const struct fe_node *nodes, size_t node_count,
    size_t max_reservations, size_t max_launches);
void resv_table_free(struct resv_table *t);

/* now is a monotonic time in seconds. err gets a sentence for every status but RESV_OK. */
enum resv_status resv_reserve(struct resv_table *t, double now, const struct resv_request *req,
    struct resv_grant *out, char *err, size_t errlen);
enum resv_status resv_commit(struct resv_table *t, double now, const char *id, const char *dn,
    char *err, size_t errlen);
/* Remove the reservation; its launches are copied to launches (up to max, *count of them) and
 * forgotten, for the caller to kill. */
enum resv_status resv_release(struct resv_table *t, double now, const char *id, const char *dn,
    struct resv_launch_info *launches, size_t max, size_t *count, char *err, size_t errlen);
/* May dn launch on node under reservation id now? Fills info's job, account, node. */
enum resv_status resv_launch_check(struct resv_table *t, double now, const char *id,
    const char *dn, const char *node, struct resv_launch_info *info, char *err, size_t errlen);
/* Record a launch the helper started (info from resv_launch_check plus helper_launch_id); the
 * front-end's own id goes to launch_id. RESV_NOT_FOUND when the reservation went away since
 * the check: the caller must kill what it started. */
enum resv_status resv_launch_add(struct resv_table *t, const struct resv_launch_info *info,
    char launch_id[RESV_ID_LEN], char *err, size_t errlen);
/* The launch launch_id of dn. */
enum resv_status resv_launch_find(struct resv_table *t, const char *launch_id, const char *dn,
    struct resv_launch_info *info, char *err, size_t errlen);
/* Release one committed reservation that is due at now (its wall time has passed, or the grace
 * after its job ended), if any: its id goes to id, its launches to launches (up to max,
 * *count of them) for the caller to kill. Returns 1 when one was released, 0 when none is due.
 * Later calls on its id hear why it is gone. */
int resv_reap_due(struct resv_table *t, double now, char id[RESV_ID_LEN],
    struct resv_launch_info *launches, size_t max, size_t *count);
/* The broker says job has ended (finished, failed or cancelled): its uncommitted reservations
 * go at once; its committed ones become due grace seconds from now (a living launcher releases
 * them itself meanwhile, cleanly; a dead one does not). Returns how many it held. */
size_t resv_end_job(struct resv_table *t, double now, const char *job, double grace);
/* Let lapsed reservations go; returns how many. The other calls do it too. */
size_t resv_expire(struct resv_table *t, double now);
/* Free slots on node now (for tests and logs); -1 for an unknown node. */
int resv_free_slots(struct resv_table *t, double now, const char *node);

/* Reserve exactly the slots given (node and count each; a batch system chose them, see
 * allocator.h) instead of planning them: RESV_BAD_REQUEST for an unknown node or a count the
 * node's configured slots cannot hold, RESV_BUSY when they are held by other reservations. */
enum resv_status resv_reserve_placed(struct resv_table *t, double now,
    const struct resv_request *req, const struct resv_slot *slots, size_t slot_count,
    struct resv_grant *out, char *err, size_t errlen);
/* Whether reservation id is live now (neither released, lapsed nor reaped). */
bool resv_is_live(struct resv_table *t, double now, const char *id);
/* Take reservation id away whoever holds it, because what backs it is gone (why: a sentence,
 * "node a2 was drained by Slurm"): later calls on its id hear why. Its launches go to
 * launches (up to max, *count of them) for the caller to kill. RESV_NOT_FOUND if not live. */
enum resv_status resv_revoke(struct resv_table *t, double now, const char *id, const char *why,
    struct resv_launch_info *launches, size_t max, size_t *count);

/* Fill buf with 32 random hex digits from the OS's CSPRNG; -1 if it failed. */
int resv_random_id(char buf[RESV_ID_LEN]);

#endif
