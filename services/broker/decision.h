/*
 * decision.h: how two processes connect. A plain C module with no I/O: it takes the two sides'
 * clusters and the known proxies and returns what each side must do (DESIGN.md section 3,
 * paper 000 section 4).
 *
 * Methods are tried best first: direct, port range, reversal, traversal, relay through one
 * proxy, relay through a chain of two. When the initiator reports that a method failed, the
 * broker asks again with `after` set to that method and gets the next one that the policies
 * allow.
 */
#ifndef QCG_DECISION_H
#define QCG_DECISION_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "relay_id.h" /* relay ids as text: lib/relay_id.h */

/* What the broker knows about one end of the connection. */
struct decision_side {
	const struct cluster *cluster; /* its cluster's declared policy */
	const char *node;              /* node name, for the log */
};

/* The answer is the model's struct decision (lib/model.h); decision_choose fills its method,
 * relay id and proxies, and leaves the target to the caller. */

/* Round-robin state over proxies; the broker keeps one and passes it to every call. */
struct decision_cursor {
	uint64_t next;
};

/*
 * Choose the best method strictly after `after` (-1 to start from the best) that the two
 * clusters' policies allow for a connection from initiator to target on target_port. Relay ids come from the OS's CSPRNG. Returns 0 and fills out, or -1 when no
 * method remains (out->method is METHOD_NONE).
 */
int decision_choose(const struct decision_side *initiator, const struct decision_side *target,
    uint16_t target_port, const struct proxy *proxies, size_t proxy_count, int after,
    struct decision_cursor *cursor, struct decision *out);

/* Whether the first choice `method` (direct or port range, decided with after = -1 for a
 * target of cluster `target`) is also the first choice for the same initiator and any other
 * listener of `target` on `port`: always for direct (it does not depend on the port), for port
 * range when port is in the range. Never for the other methods: they need the target side and
 * a one-time relay id. What the front-ends' cluster-pair cache may reuse (issue 15). */
int decision_reaches_port(enum connect_method method, const struct cluster *target,
    uint16_t port);

/* Whether a node of cluster c can open a TCP connection to proxy p. */
int decision_proxy_reachable(const struct cluster *c, const struct proxy *p);

#endif
