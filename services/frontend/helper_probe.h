/*
 * helper_probe.h: whether each node's qcg-helper is there, asked when it matters.
 *
 * A node whose helper is gone must not be granted: the job would fail later with Open MPI's
 * "unable to reliably start daemons", naming nothing. The front-end already pushes to its
 * helpers over SOAP, so at Reserve it connects to each candidate node's helper port (TCP only,
 * no TLS handshake, all nodes at once, bounded by HELPER_PROBE_TIMEOUT_MS). Only a node that
 * did not answer in time is remembered so, for HELPER_PROBE_CACHE_MS (asking it again would
 * cost the timeout again); "alive" and "refused" are asked anew at every Reserve, so that a
 * helper killed or restarted a moment ago is seen. Why this and not a heartbeat from the
 * helper: nothing is sent while no one reserves (a cluster of thousands of idle nodes costs
 * nothing), the answer is fresh when it is used, and a killed helper's port answers
 * "connection refused" at once, a vanished host within the timeout. What it cannot see is a
 * helper that hangs while its kernel still accepts connections; Launch then fails on its own
 * timeout, naming the node.
 */
#ifndef QCG_FRONTEND_HELPER_PROBE_H
#define QCG_FRONTEND_HELPER_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "fe_config.h"

/* One probe round, all nodes in parallel. Longer than Linux's first SYN retransmission (1 s
 * after the SYN): a single SYN lost, or dropped by a helper whose accept queue was full for a
 * moment under load, is then retried inside the round instead of making a live node "silent"
 * and refusing the job (seen once in two_users.test on a loaded machine with 1000 ms). */
#define HELPER_PROBE_TIMEOUT_MS 2500
#define HELPER_PROBE_CACHE_MS 5000   /* a node that did not answer is not asked again this long */
#define HELPER_PROBE_WHY_MAX 160

struct helper_probe;

/* The nodes' answers, indexed like the configuration's nodes. */
struct helper_probe_result {
	bool down[FE_NODES_MAX];
	char why[FE_NODES_MAX][HELPER_PROBE_WHY_MAX]; /* for a down node: what the connect said */
};

/* A probe table for nodes (kept by reference: the configuration outlives it). */
struct helper_probe *helper_probe_new(const struct fe_node *nodes, size_t count);
void helper_probe_free(struct helper_probe *p);

/* Bring the answers of the nodes in want[] (NULL: all) up to date, probing each but those that
 * did not answer within the last HELPER_PROBE_CACHE_MS, and copy every node's answer into out.
 * now_ms is a monotonic clock. */
void helper_probe_check(struct helper_probe *p, double now_ms, const bool *want,
    struct helper_probe_result *out);

/* Split "https://host:port/..." into host and port; -1 when it is not such a URL. */
int helper_probe_parse_url(const char *url, char *host, size_t hostlen, char *port,
    size_t portlen);

#endif
