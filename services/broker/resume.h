/*
 * resume.h: the broker's resume of a relay whose leg broke (issue 14), as plain C over the
 * registry and Resolve: check that the caller is one of the relay's two ends, mark the old
 * proxies withdrawn, choose another path and record the new relay linked to the old one.
 * Both ends resume the same relay; the second gets the relay the first one made.
 */
#ifndef QCG_BROKER_RESUME_H
#define QCG_BROKER_RESUME_H

#include <pthread.h>
#include <stdbool.h>

#include "decision.h"
#include "registry.h"

struct resume_request {
	const char *job;      /* the job the caller's process belongs to */
	const char *cluster;  /* the caller's cluster (its front-end's, checked by the caller) */
	const char *node;     /* the caller's node */
	const char *relay_id; /* the relay whose leg broke, 32 hex digits */
};

struct resume_result {
	struct decision decision;      /* the new relay: method, id, proxies (no target) */
	struct relay_record old, now;  /* the relay resumed and the one that replaces it */
	bool fresh;                    /* this call made the new relay: announce it to its
	                                * proxies (false: the other end made it already) */
	char reason[768];              /* why a resume was refused, for the log and the fault */
};

enum resume_status {
	RESUME_OK = 0,
	RESUME_UNKNOWN = 1,    /* not a relay id the broker handed out */
	RESUME_NOT_AN_END = 2, /* another job, cluster or node than the relay's two ends */
	RESUME_STALE = 3,      /* a relay replaced, whose replacement was replaced too: a replay */
	RESUME_NO_PATH = 4,    /* no other proxy serves the two ends */
	RESUME_ERROR = 5,      /* registry failure */
};

/* Record a relay Resolve handed out for req (target as resolved), so that it can be resumed. */
struct resolve_request;
struct resolve_result;
int resume_record_relay(struct registry *reg, const struct resolve_request *req,
    const struct resolve_result *res);

/* Record that the caller (one of the two ends of req->relay_id, which must be a resumed relay)
 * sent `bytes` again after that resume; reason says why not. RESUME_OK, RESUME_UNKNOWN,
 * RESUME_NOT_AN_END or RESUME_ERROR. */
enum resume_status resume_report_replay(struct registry *reg, const struct resume_request *req,
    int64_t bytes, char *reason, size_t reasonlen);

/* Resume req->relay_id, avoiding the old relay's proxies (and marking them withdrawn unless lw
 * sees them polling). The decision is made with cursor under cursor_lock, as Resolve's. */
struct liveness_watch;
enum resume_status resume_relay(struct registry *reg, struct liveness_watch *lw,
    const struct resume_request *req, struct decision_cursor *cursor,
    pthread_mutex_t *cursor_lock, struct resume_result *out);

#endif
