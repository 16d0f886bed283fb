/*
 * resolve.h: the broker's Resolve, as plain C over the registry and the decision: find the
 * target's access point, load both clusters and the proxies, decide, and say what the target
 * side and the proxies must be told.
 */
#ifndef QCG_BROKER_RESOLVE_H
#define QCG_BROKER_RESOLVE_H

#include <pthread.h>
#include <stdint.h>

#include "decision.h"
#include "events.h"
#include "model.h"

struct registry;

struct resolve_request {
	const char *job;
	const char *from_cluster, *from_node;
	const char *from_address; /* the initiator helper's rendezvous address, or "" */
	uint16_t from_port;
	const char *to_address;
	uint16_t to_port;
	int after;                /* -1, or the method that failed */
	/* The initiator's cluster row when the caller already read it in the same registry
	 * snapshot (Resolve's ownership check does), else NULL: resolve_connection reads it. */
	const struct cluster *from_row;
	/* Proxies this decision must not use (a resume's broken relay), or NULL: endpoints, "" =
	 * none. */
	const char (*avoid)[QCG_ENDPOINT_MAX];
	size_t navoid;
};

struct resolve_result {
	struct decision decision;
	struct access_point target;
	char target_public_address[QCG_ADDR_MAX];
	char initiator_public_address[QCG_ADDR_MAX];
	int needs_target_side;    /* post an EVENT_CONNECT to the target's cluster */
	size_t proxies_withdrawn; /* registered proxies left out: withdrawn (liveness.h) */
	size_t proxies_avoided;   /* registered live proxies left out: req->avoid */
	int64_t target_withdrawn_at; /* for RESOLVE_TARGET_WITHDRAWN: when its front-end was */
	struct cluster target_cluster; /* the target's cluster row the decision used */
};

enum resolve_status {
	RESOLVE_OK = 0,
	RESOLVE_NO_ACCESS_POINT = 1, /* nothing of this job listens there */
	RESOLVE_NO_CLUSTER = 2,      /* a side's cluster is not registered */
	RESOLVE_NO_METHOD = 3,       /* the policies leave no (further) method */
	RESOLVE_ERROR = 4,           /* registry failure */
	RESOLVE_TARGET_WITHDRAWN = 5, /* the method needs the target's front-end, which is
	                               * withdrawn: nobody would act on its event */
	RESOLVE_CACHE_MISS = 6,      /* only in a registry_read_begin_cached snapshot: a row was
	                              * not cached; nothing was decided, read the database */
	RESOLVE_AMBIGUOUS = 7,       /* listeners at the address in two other clusters (a shared
	                              * private range); registry_error names them */
};

/* Decide; cursor is the broker's grid-wide round-robin state, guarded by cursor_lock, which is
 * held only around the decision itself, never across registry reads. */
enum resolve_status resolve_connection(struct registry *reg, const struct resolve_request *req,
    struct decision_cursor *cursor, pthread_mutex_t *cursor_lock, struct resolve_result *out);

/*
 * The access points of req's job in the target's cluster that res's decision reaches as well
 * (decision_reaches_port), at most max of them, into *out (malloc'ed, the caller frees it;
 * NULL when none). The target itself is among them. For a decision that names no such peers
 * (any method but direct and port range) *count is 0. Returns 0, or -1 on a registry error.
 */
int resolve_same_decision_peers(struct registry *reg, const struct resolve_request *req,
    const struct resolve_result *res, size_t max, struct access_point **out, size_t *count);

/* The event the target's cluster gets for a result that needs_target_side. */
void resolve_target_event(const struct resolve_request *req, const struct resolve_result *res,
    struct broker_event *ev);
/* The event proxy i of a relay decision gets (i = 0 or 1). */
void resolve_proxy_event(const struct resolve_request *req, const struct resolve_result *res,
    size_t i, struct broker_event *ev);

#endif
