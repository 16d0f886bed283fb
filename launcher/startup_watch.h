/*
 * startup_watch.h: whether a job's start-up goes on, seen from the broker (issue 19: "a job
 * that makes no progress in start-up fails within a bounded, configurable time, with a
 * message").
 *
 * Every orted must reach a daemon of the job (mpirun, or its parent orted in Open MPI's routing
 * tree) before any rank starts. An orted that cannot daemonizes first, so its error goes to
 * /dev/null, and mpirun waits for it for ever: orte_startup_timeout never fired on the testbed
 * (a killed gateway proxy hung the next job until its wall time). With libqcgnet every such
 * connection is asked of the broker and logged there: a success when it was made, a failed
 * "none" when the broker had no method for it. So qcg-submit reads the job's access points and
 * connection log while the job starts:
 *  - a node whose orted was refused every way to a daemon fails the job at once, named;
 *  - a node whose orted has not reached a daemon when the start-up time is over fails it too;
 *  - once every node's orted has reached a daemon, the watch ends (it costs nothing after).
 * Without libqcgnet, or without a helper on mpirun's host (mpirun's listeners are then not
 * registered, and orted reach it by plain connects), nothing is logged, and the watch is off.
 */
#ifndef QCG_STARTUP_WATCH_H
#define QCG_STARTUP_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "coalloc.h"

struct soap;

#define STARTUP_WATCH_NODES_MAX (JOB_CLUSTERS_MAX * COALLOC_SLOTS_MAX)
#define STARTUP_TIMEOUT_DEFAULT 60 /* seconds, as Open MPI's orte_startup_timeout */
#define STARTUP_TIMEOUT_MAX 3600

struct startup_node {
	const char *cluster, *node; /* from the grant (the coalloc outlives the watch) */
	bool reached;               /* its orted made a connection to a daemon of the job */
	bool refused;               /* the broker had no method for one, and none succeeded */
};

struct startup_watch {
	struct startup_node node[STARTUP_WATCH_NODES_MAX];
	int count;        /* nodes that run an orted: every granted node but mpirun's own */
	time_t deadline;  /* 0: no time limit (refusals still fail the job) */
	bool done;        /* every node reached a daemon: nothing more to watch */
};

enum startup_state { STARTUP_GOING, STARTUP_DONE, STARTUP_FAILED };

/* Watch the nodes of alloc except self_node (the host mpirun runs on, which has no orted; may
 * be NULL), for timeout_s seconds from now (0: no limit). */
void startup_watch_init(struct startup_watch *w, const struct coalloc *alloc,
    const char *self_node, int timeout_s);

/* Look at the broker's record of job once. STARTUP_FAILED with why naming the nodes and the
 * cause; STARTUP_GOING also when the broker cannot be asked (err says why: the caller reports
 * it, and the time limit still holds). */
enum startup_state startup_watch_poll(struct startup_watch *w, struct soap *soap,
    const char *url, const char *job, char *why, size_t whylen, char *err, size_t errlen);

/* Only the time limit, without asking the broker (it did not answer GetJob just now). */
enum startup_state startup_watch_check_time(struct startup_watch *w, const char *job, char *why,
    size_t whylen);

/* The pure part, for tests: mark which nodes reached a daemon, or were refused, from the
 * connection log; daemon_at(cluster, node, port) says whether that access point is a daemon's.
 * Then decide at time now. */
struct startup_conn {
	const char *from_cluster, *from_node, *to_cluster, *to_node;
	unsigned short to_port;
	bool succeeded, no_method;
};
enum startup_state startup_watch_judge(struct startup_watch *w, const char *job,
    const struct startup_conn *c, size_t n, bool (*daemon_at)(void *arg, const char *cluster,
    const char *node, unsigned short port), void *arg, time_t now, char *why, size_t whylen);

#endif
