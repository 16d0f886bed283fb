/*
 * coalloc.h: two-phase co-allocation (DESIGN.md section 4, as DUROC does): reserve on every
 * cluster's front-end, then commit all; any refusal or timeout releases everything obtained,
 * so that nothing starts anywhere. Release is also how a job ends: it frees the slots and
 * kills whatever still runs under them.
 *
 * Waiting for busy nodes: a front-end answers a request that would fit once other
 * reservations are released with a Busy fault, distinct from one that never could. Then
 * everything this job holds is released, and the whole round is tried again after a bounded
 * backoff, until reserve_timeout has passed. Clusters are reserved in one global order, by
 * name, whatever the description's rank order, as lock ordering does: two jobs that want
 * each other's clusters both ask the first of them first, so one gets through and the other
 * waits holding nothing, and neither starves the other.
 */
#ifndef QCG_COALLOC_H
#define QCG_COALLOC_H

#include <signal.h>
#include <stddef.h>

#include "job_desc.h"
#include "rsh_map.h"

struct soap;
struct tls_settings;
struct frontend_links;

#define COALLOC_SLOTS_MAX 64 /* nodes one cluster's grant may name */
#define COALLOC_BACKOFF_MIN_MS 250   /* first pause before asking busy front-ends again */
#define COALLOC_BACKOFF_MAX_MS 4000  /* the pause doubles up to this */

struct coalloc_node {
	char name[QCG_NAME_MAX];
	int count;
	int port_min, port_count; /* its window of listening ports (node_env.h), 0: none */
};

/* One cluster's share. */
struct coalloc_part {
	const struct job_cluster *cluster;
	char frontend_url[RSH_MAP_URL_MAX];
	char reservation[RSH_MAP_RESERVATION_MAX]; /* "" until reserved */
	int committed;
	struct coalloc_node node[COALLOC_SLOTS_MAX]; /* the grant, in the front-end's order */
	int node_count;
	int port_min, port_max; /* the cluster's open port range (port-range policy), 0: none */
	char batch_job_id[QCG_BATCH_JOB_ID_MAX]; /* the batch system's job holding the nodes
	                                          * (Slurm), "" for the builtin allocator */
};

struct coalloc_part;

/* Called before each pause while a cluster is busy: busy is the part, why its front-end's
 * answer ("not enough free slots: ..."). Nonzero stops the waiting (interrupted, cancelled). */
typedef int (*coalloc_wait_fn)(void *arg, const struct coalloc_part *busy, const char *why);

struct coalloc {
	struct coalloc_part part[JOB_CLUSTERS_MAX];
	int count;
	const char *job_id;
	int reserve_timeout;  /* seconds a reservation waits for its commit, and the longest the
	                       * job waits for busy clusters */
	coalloc_wait_fn waiting; /* NULL: wait without telling anyone */
	void *waiting_arg;
	const volatile sig_atomic_t *stop; /* nonzero (a signal came) ends a pause at once;
	                                    * NULL: none */
	int walltime;         /* seconds the front-ends let the job run after the commit before
	                       * they release it themselves (0: until released) */
	const char *helper_socket; /* the nodes' helper socket, %h the node (node_env.h); NULL:
	                            * the helpers' default */
	const struct tls_settings *tls; /* the caller's credentials: the commits go to all
	                                 * clusters at once, a connection each; NULL: one after
	                                 * another on the caller's connection */
	struct frontend_links *links; /* part i's connection opened ahead (frontend_links.h),
	                               * for its Reserve and Commit; NULL: none */
};

/* Reserve on every part in the order of their cluster names, waiting for busy ones up to
 * reserve_timeout (see above), then commit every part (at once, with c->tls: a commit takes
 * nothing another job waits for, so it needs no order). 0 when all are committed; -1 with err
 * naming the cluster and its front-end's reason (for busy ones: how long we waited), after
 * releasing whatever was reserved. */
int coalloc_acquire(struct soap *soap, struct coalloc *c, char *err, size_t errlen);

/* Release every part that holds a reservation (also kills what runs under it). Returns how
 * many releases failed (each reported on stderr). */
int coalloc_release(struct soap *soap, struct coalloc *c);

#endif
