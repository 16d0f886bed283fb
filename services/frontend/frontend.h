/*
 * frontend.h: qcg-frontend's shared state and the per-call context its SOAP handlers use.
 *
 * Threads: the SOAP server's workers (handlers), the broker link (registration and the
 * WaitEvents long poll, broker_link.c) and the delivery thread (events to helpers,
 * delivery.c). gSOAP contexts are not thread-safe, so each thread owns its client contexts:
 * a worker's live in its struct fe_worker (made by the server's worker_init).
 */
#ifndef QCG_FRONTEND_H
#define QCG_FRONTEND_H

#include <stdbool.h>

#include "acl.h"
#include "fe_config.h"
#include "gridmap.h"
#include "soap_client.h"
#include "tls.h"

struct soap;
struct resolve_cache;
struct pair_cache;
struct resv_table;
struct allocator;
struct helper_probe;
struct broker_link;
struct broker_pool;
struct delivery;
struct local_listeners;
struct stage_quota;

struct frontend {
	struct fe_config cfg;
	struct tls_settings tls;           /* our host credentials, for server and clients */
	struct acl acl;                    /* helpers (role helper) */
	struct gridmap gridmap;            /* users */
	struct resolve_cache *cache;
	struct resv_table *reservations;
	struct allocator *allocator;       /* who places the slots (allocator.h) */
	struct helper_probe *helpers;      /* whether each node's helper is there (at Reserve) */
	struct broker_pool *brokers;       /* kept-alive contexts for handlers' broker calls */
	struct broker_link *link;
	struct delivery *delivery;
	struct local_listeners *listeners; /* each job's listeners here (GetConnectInfo) */
	struct stage_quota *stage_quota;   /* bytes each user has staged here (stage_quota.h) */
	struct pair_cache *pairs;          /* decisions per (job, cluster pair) (pair_cache.h) */
};

/* One worker thread's client context for helpers. Calls to helpers are rare (launches,
 * output polls, signals) and a kept-alive connection would hold one of the helper's worker
 * threads while idle, so each call has its own connection. */
struct fe_worker {
	struct frontend *fe;
	struct soap *helper;
};

/* What a handler needs. */
struct fe_call {
	struct frontend *fe;
	struct fe_worker *worker;
	const char *caller_dn;
};

struct fe_call fe_call_of(struct soap *soap);

/* Worker state for lib/soap_server (worker_init/worker_fini). */
void *fe_worker_new(void *frontend);
void fe_worker_free(void *worker);

/* Client settings for talking to the broker and to helpers (extra_wait: seconds a long poll
 * may add to a reply). */
struct soap_client_settings fe_broker_client_settings(const struct frontend *fe, int extra_wait);
struct soap_client_settings fe_helper_client_settings(const struct frontend *fe, int extra_wait);

/* The worker's helper context, the last call's response memory freed (node names the helper
 * the next call goes to, for symmetry with other callers; connections are not kept). */
struct soap *fe_worker_helper(struct fe_worker *w, const struct fe_node *node);

struct resv_launch_info;
/* Ask the helper of l's node to send sig to launch l; SOAP_OK or the helper context's error. */
int fe_signal_launch(struct fe_worker *w, const struct resv_launch_info *l, int sig);
/* SIGKILL each of a released reservation's launches through its node's helper (what ran under
 * the slots must not outlive them). A helper's fault (most often: the launch has exited) is
 * normal; an unreachable helper is logged as a warning. Returns how many were killed. */
size_t fe_kill_launches(struct fe_worker *w, const char *reservation,
    const struct resv_launch_info *launches, size_t n);
/* A client context that closes its connection after every call. */
struct soap *fe_client_without_keepalive(const struct tls_settings *tls,
    const struct soap_client_settings *settings, char *err, size_t errlen);

/* Authorization (fe_auth.c). Each returns SOAP_OK, or sets a fault saying what was missing and
 * returns its code. */
/* The caller is a helper in the ACL and one of our nodes' helpers: *node is set to that node. */
int fe_require_helper(struct soap *soap, const struct fe_call *call, const struct fe_node **node);
/* The caller is in the grid-mapfile: *account is its local account. */
int fe_require_user(struct soap *soap, const struct fe_call *call, const char **account);
/* A user who may reserve and launch: mapped, and not on a limited proxy (Globus semantics). */
int fe_require_submitter(struct soap *soap, const struct fe_call *call, const char **account);

/* Whether a failed client call on soap failed because the peer answered with a fault (as
 * opposed to not answering at all). */
int fe_soap_is_fault(const struct soap *soap);

/* Turn a failed client call on peer (broker or a helper, named by what) into a fault on soap:
 * a fault the peer sent is passed on as it is (Client or Server, with "what: " in front); a
 * peer that cannot be reached is a Server fault. */
int fe_relay_failure(struct soap *soap, struct soap *peer, const char *what);

/* Start argv on node under reservation for the caller (handlers_launch.c): the allocator's
 * prefix, the helper's Launch (input: its stdin is fed by the helper's PUT
 * /launch-input/ID), the launch recorded under the reservation; id gets the front-end's launch
 * id. SOAP_OK or a fault set on soap. */
int fe_launch_on_node(struct soap *soap, const struct fe_call *call, const char *reservation,
    const char *node, int argc, char **argv, int envc, char **env, const char *workdir,
    bool input, char id[33]);

/* The caller's launch launch_id (NULL: ""), into info (handlers_launch.c). SOAP_OK, or a
 * Client fault for an unknown launch or another user's. */
int fe_launch_find(struct soap *soap, const struct fe_call *call, const char *launch_id,
    struct resv_launch_info *info);
/* The same, and the node it runs on and the worker's client context for that node's helper
 * (what ReadOutput and the stage-in PUT relay through). SOAP_OK or a fault set on soap. */
int fe_launch_helper(struct soap *soap, const struct fe_call *call, const char *launch_id,
    struct resv_launch_info *info, const struct fe_node **node, struct soap **helper);

/* The staging quota's table for fe (handlers_stage.c), or NULL when out of memory. */
struct stage_quota *fe_stage_quota_new(struct frontend *fe);

/* Monotonic seconds. */
double fe_now(void);

/* Staging's bytes (handlers_stage.c): PUT /stage-in/<launch id of StageIn> on the front-end's
 * port, relayed to the node's helper as it arrives; soap_service.put. */
int fe_stage_put(struct soap *soap, const char *target, uint64_t length);

#endif
