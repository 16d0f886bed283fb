/*
 * broker.h: qcg-broker's shared state, as the SOAP handlers see it.
 */
#ifndef QCG_BROKER_H
#define QCG_BROKER_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>

#include "acl.h"
#include "decision.h"
#include "events.h"
#include "gridmap.h"

struct liveness_watch;
struct registry;
struct soap;

#define BROKER_WAIT_MAX_SECONDS 300 /* the longest long poll a front-end may ask for */
#define BROKER_LIST_MAX 100000      /* rows one state query returns at most */

struct broker {
	char db_path[PATH_MAX];
	struct acl acl;                 /* services: front-ends, proxies, admins */
	struct gridmap gridmap;         /* users */
	struct event_queue *events;
	pthread_mutex_t cursor_lock;    /* guards cursor */
	struct decision_cursor cursor;  /* round-robin over proxies, grid-wide */
	struct liveness_watch *liveness; /* leases of front-ends and proxies (liveness.h) */
	time_t started;
	bool resumable_relays;          /* relays are handed out resumable (broker.resumable_relays,
	                                 * issue 14) */
};

/* What a handler needs: the shared state and its worker's own registry connection. */
struct broker_call {
	struct broker *broker;
	struct registry *reg;
	const char *caller_dn;
};

/* The call context of a handler's soap. */
struct broker_call broker_call_of(struct soap *soap);

/* Authorization. Each returns SOAP_OK, or sets a fault naming what was missing and returns its
 * code. */
int broker_require_role(struct soap *soap, const struct broker_call *call, enum acl_role role);
int broker_require_user(struct soap *soap, const struct broker_call *call);
/* A user who may start a job: mapped, and not on a limited proxy (Globus semantics). */
int broker_require_submitter(struct soap *soap, const struct broker_call *call);
/* State queries: any mapped user or any service in the ACL. */
int broker_require_reader(struct soap *soap, const struct broker_call *call);
/* The caller must be the front-end that registered cluster (or an admin). */
int broker_require_cluster_owner(struct soap *soap, const struct broker_call *call,
    const char *cluster);
/* The same, keeping the cluster's row it read in *row (for a caller that needs it next, in the
 * same registry snapshot, instead of reading it again). */
int broker_require_cluster_owner_row(struct soap *soap, const struct broker_call *call,
    const char *cluster, struct cluster *row);
/* The same verdict on a cluster's row the caller has read. */
int broker_check_cluster_owner(struct soap *soap, const struct broker_call *call,
    const struct cluster *c);

/* Whether the caller holds the admin role (which may act on rows other DNs own). */
bool broker_is_admin(const struct broker_call *call);
/* The caller may read proxy endpoint's event queue: a proxy that registered that endpoint (or
 * one not registered now: its events are filtered by owner, see events_wait), or an admin. */
int broker_require_proxy_owner(struct soap *soap, const struct broker_call *call,
    const char *endpoint);

/* Map a registry result to a fault (or SOAP_OK for 0); what names the operation. */
int broker_registry_fault(struct soap *soap, const struct broker_call *call, int rc,
    const char *what);

#endif
