/*
 * decision.c: the broker's connection decision (DESIGN.md section 3, paper 000 sections 3.1
 * and 4). Given the two sides' declared cluster policies and the known proxies, say which method
 * the initiator tries next. No sockets, no database: only the OS's CSPRNG for relay ids.
 *
 * Reachability model (what a node of cluster X may open towards cluster Y):
 *
 *   | Y's policy  | from a node of Y itself | from another cluster (X not closed) |
 *   |-------------|-------------------------|-------------------------------------|
 *   | open        | any port                | any port                            |
 *   | port-range  | any port                | ports in [port_min, port_max]       |
 *   | nat         | any port                | never (nothing unsolicited comes in)|
 *   | closed      | any port                | never                               |
 *
 *   A node of a closed cluster opens nothing outside its cluster except a proxy on its own
 *   gateway. Every other node can connect out to the WAN.
 *
 * Methods, in fall-through order; a method is offered only when its own row holds, and
 * `after` = m skips straight to the first method after m whose row holds:
 *
 *   | method      | offered when (I = initiator's cluster, T = target's cluster)              |
 *   |-------------|---------------------------------------------------------------------------|
 *   | direct      | I == T; or T open and I not closed                                        |
 *   | port-range  | I != T, T port-range, target_port in T's range, I not closed              |
 *   | reversal    | I == T; or T not closed and I open or port-range (the initiator's helper  |
 *   |             | listens inside I's range, so T's node can reach it)                       |
 *   | traversal   | I != T, neither closed, both traversal_allowed, and none of direct,       |
 *   |             | port-range, reversal is offered (traversal only serves pairs that no      |
 *   |             | straight connection can serve; when a declared straight path failed, the  |
 *   |             | declaration is wrong and a relay is the robust next step)                 |
 *   | relay       | some proxy is reachable by both sides (decision_proxy_reachable)          |
 *   | relay-chain | no proxy is reachable by both, and two proxies with different endpoints   |
 *   |             | (the registry's key) both serve the WAN (so they reach each other), [0]   |
 *   |             | reachable by I and [1] reachable by T                                     |
 *
 *   I == T means equal cluster names (the broker loads each side's cluster separately).
 *   Within one cluster there is no firewall: direct and reversal are both offered (reversal is
 *   a different path: the target's helper opens the socket), port-range and traversal are not
 *   (they would repeat direct), and a relay through a proxy both reach is the last resort.
 *   A chain is never possible within one cluster: both sides reach the same proxies.
 *
 * Proxies: p is reachable from cluster c when p serves the WAN (its networks list holds
 * 0.0.0.0/0) and c is not closed, or when p sits on c's own gateway (p.cluster == c.name).
 * A proxy whose networks list does not parse is unreachable from everywhere.
 *
 * Relays and chains are round-robined over the candidates, in the order of the array the
 * caller gives (for chains: pairs ordered by proxy[0]'s index, then proxy[1]'s): the
 * cursor's value modulo the number of candidates picks one, then the cursor advances. For
 * single relays only the least loaded proxies are candidates (load = relays handed out and
 * not yet reported done). After a
 * relay comes a chain, never another single relay: picking another proxy is the caller's
 * business.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cidr.h"
#include "decision.h"
#include "log.h"
#include "random_bytes.h"

/* The most proxies one decision considers: keeps the per-call tables on the stack and the
 * chain search (quadratic in the proxies) bounded. */
#define DECISION_PROXIES_MAX 1024

/* What one decision knows about the pair and, once needed, about each proxy. */
struct decision_pair {
	const struct cluster *ini, *tgt;
	uint16_t port;
	bool same;                                  /* one cluster: no firewall between them */
	const struct proxy *proxies;
	size_t proxy_count;
	bool by_ini[DECISION_PROXIES_MAX];           /* reachable by the initiator's cluster */
	bool by_tgt[DECISION_PROXIES_MAX];           /* reachable by the target's cluster */
	bool wan[DECISION_PROXIES_MAX];              /* serves the WAN (and parses) */
};

/* Whether s holds a NUL within its first max bytes, so it is safe to treat as a string. */
static bool
bounded_string(const char *s, size_t max)
{
	return memchr(s, '\0', max) != NULL;
}

/* Check one side's cluster; on error set *why to the reason. */
static int
cluster_check(const struct cluster *c, const char **why)
{
	if (c == NULL) {
		*why = "missing";
		return -1;
	}
	if (!bounded_string(c->name, sizeof(c->name)) || c->name[0] == '\0') {
		*why = "name empty or not terminated";
		return -1;
	}
	if ((unsigned)c->policy > POLICY_CLOSED) {
		*why = "unknown cluster policy";
		return -1;
	}
	if (c->policy == POLICY_PORT_RANGE && c->port_min > c->port_max) {
		*why = "port range with port_min > port_max";
		return -1;
	}
	return 0;
}

static bool
connects_out(const struct cluster *c)
{
	return c->policy != POLICY_CLOSED;
}

/* Parse a proxy's comma-separated CIDR list with lib/cidr's rules. Sets *serves_wan when one
 * entry is 0.0.0.0/0. Returns -1 on any garbage. */
static int
networks_parse(const char networks[QCG_NETWORKS_MAX], bool *serves_wan)
{
	struct cidr_list_info info;
	char why[128];

	if (!bounded_string(networks, QCG_NETWORKS_MAX) ||
	    cidr_list_parse(networks, &info, why, sizeof(why)) != 0)
		return -1;
	*serves_wan = info.ipv4_any;
	return 0;
}

/* Reachability of a proxy whose networks already parsed (serves_wan says what they hold). */
static bool
proxy_reachable_parsed(const struct cluster *c, const struct proxy *p, bool serves_wan)
{
	if (serves_wan && connects_out(c))
		return true;
	/* c's name is never empty (cluster_check), so a proxy on no gateway ("") never matches. */
	return bounded_string(p->cluster, sizeof(p->cluster)) && strcmp(p->cluster, c->name) == 0;
}

int
decision_reaches_port(enum connect_method method, const struct cluster *target, uint16_t port)
{
	if (method == METHOD_DIRECT)
		return 1;
	return method == METHOD_PORT_RANGE && target->policy == POLICY_PORT_RANGE &&
	    port >= target->port_min && port <= target->port_max;
}

int
decision_proxy_reachable(const struct cluster *c, const struct proxy *p)
{
	const char *why;
	bool wan;

	if (p == NULL || cluster_check(c, &why) < 0 || networks_parse(p->networks, &wan) < 0)
		return 0;
	return proxy_reachable_parsed(c, p, wan);
}

/* Whether the target's cluster admits a connection from another cluster on port. */
static bool
admits_inbound(const struct cluster *c, uint16_t port)
{
	switch (c->policy) {
	case POLICY_OPEN:
		return true;
	case POLICY_PORT_RANGE:
		return port >= c->port_min && port <= c->port_max;
	case POLICY_NAT:
	case POLICY_CLOSED:
		break;
	}
	return false;
}

static bool
direct_offered(const struct decision_pair *p)
{
	return p->same || (p->tgt->policy == POLICY_OPEN && connects_out(p->ini));
}

static bool
port_range_offered(const struct decision_pair *p)
{
	return !p->same && p->tgt->policy == POLICY_PORT_RANGE && connects_out(p->ini) &&
	    admits_inbound(p->tgt, p->port);
}

static bool
reversal_offered(const struct decision_pair *p)
{
	/* The target's node connects to the initiator's helper, which listens inside the
	 * initiator's port range when it has one. */
	return p->same || (connects_out(p->tgt) && (p->ini->policy == POLICY_OPEN ||
	    p->ini->policy == POLICY_PORT_RANGE));
}

static bool
traversal_offered(const struct decision_pair *p)
{
	return !p->same && connects_out(p->ini) && connects_out(p->tgt) &&
	    p->ini->traversal_allowed && p->tgt->traversal_allowed && !direct_offered(p) &&
	    !port_range_offered(p) && !reversal_offered(p);
}

/* Fill the per-proxy tables once a relay is being considered. */
static void
proxies_classify(struct decision_pair *p)
{
	for (size_t i = 0; i < p->proxy_count; i++) {
		const struct proxy *x = &p->proxies[i];
		bool wan = false;
		if (networks_parse(x->networks, &wan) < 0) {
			log_debug("decision: proxy %zu has an unparsable networks list; skipped", i);
			p->by_ini[i] = p->by_tgt[i] = p->wan[i] = false;
			continue;
		}
		p->wan[i] = wan;
		p->by_ini[i] = proxy_reachable_parsed(p->ini, x, wan);
		p->by_tgt[i] = proxy_reachable_parsed(p->tgt, x, wan);
	}
}

/* The lowest load among the proxies both sides reach (INT64_MAX when there is none). */
static int64_t
relay_min_load(const struct decision_pair *p)
{
	int64_t min = INT64_MAX;

	for (size_t i = 0; i < p->proxy_count; i++)
		if (p->by_ini[i] && p->by_tgt[i] && p->proxies[i].load < min)
			min = p->proxies[i].load;
	return min;
}

/* Count the single-proxy candidates; when pick is not NULL, copy the k-th (0-based). Only the
 * least loaded count: the broker adds one to a proxy's load for every relay it hands out, so
 * the next decision already sees it. Round-robin over every candidate instead, with the
 * registry listing them least loaded first, kept choosing the same proxies as the order
 * shifted under the cursor (bench/net: 4 concurrent relays over 4 WAN proxies went 3 + 1
 * onto two of them). Among equals the cursor still rotates. */
static size_t
relay_candidates(const struct decision_pair *p, size_t k, struct decision *pick)
{
	int64_t min = relay_min_load(p);
	size_t n = 0;

	for (size_t i = 0; i < p->proxy_count; i++) {
		if (!p->by_ini[i] || !p->by_tgt[i] || p->proxies[i].load != min)
			continue;
		if (pick != NULL && n == k) {
			pick->proxy[0] = p->proxies[i];
			pick->proxy_count = 1;
		}
		n++;
	}
	return n;
}

/* Whether proxies i and j are the same relay (the registry keys proxies by endpoint). */
static bool
same_proxy(const struct decision_pair *p, size_t i, size_t j)
{
	const struct proxy *a = &p->proxies[i], *b = &p->proxies[j];
	return i == j || strncmp(a->endpoint, b->endpoint, sizeof(a->endpoint)) == 0;
}

/* Count the chain candidates (pairs ordered by first index, then second); when pick is not
 * NULL, copy the k-th. None when a single proxy would do. */
static size_t
chain_candidates(const struct decision_pair *p, size_t k, struct decision *pick)
{
	size_t n = 0;

	if (relay_candidates(p, 0, NULL) > 0)
		return 0;
	for (size_t i = 0; i < p->proxy_count; i++) {
		if (!p->by_ini[i] || !p->wan[i])
			continue;
		for (size_t j = 0; j < p->proxy_count; j++) {
			if (!p->by_tgt[j] || !p->wan[j] || same_proxy(p, i, j))
				continue;
			if (pick != NULL && n == k) {
				pick->proxy[0] = p->proxies[i];
				pick->proxy[1] = p->proxies[j];
				pick->proxy_count = 2;
			}
			n++;
		}
	}
	return n;
}

/* Draw a fresh relay id. All-zero is reserved (it means "no id"); drawing it twice in a row
 * (probability 2^-256) says the generator is broken. */
static int
relay_id_fresh(uint8_t id[QCG_RELAY_ID_BYTES])
{
	static const uint8_t zero[QCG_RELAY_ID_BYTES];

	for (int draw = 0; draw < 2; draw++) {
		if (random_bytes(id, QCG_RELAY_ID_BYTES) < 0) {
			log_error("decision: no random relay id: getrandom: %s", strerror(errno));
			return -1;
		}
		if (memcmp(id, zero, sizeof(zero)) != 0)
			return 0;
	}
	log_error("decision: the CSPRNG returned an all-zero relay id twice");
	return -1;
}

/* Check decision_choose's arguments; on error set *why to the reason and *who to what it
 * is about ("" when the reason says it). */
static int
arguments_check(const struct decision_side *initiator, const struct decision_side *target,
    uint16_t target_port, const struct proxy *proxies, size_t proxy_count, int after,
    const struct decision_cursor *cursor, const char **who, const char **why)
{
	if (initiator == NULL || target == NULL) {
		*why = "no initiator or no target";
		return -1;
	}
	if (cluster_check(initiator->cluster, why) < 0) {
		*who = "initiator's cluster: ";
		return -1;
	}
	if (cluster_check(target->cluster, why) < 0) {
		*who = "target's cluster: ";
		return -1;
	}
	if (target_port == 0) {
		*why = "target port 0";
		return -1;
	}
	if ((proxies == NULL && proxy_count > 0) || proxy_count > DECISION_PROXIES_MAX) {
		*why = "no proxy array, or more proxies than DECISION_PROXIES_MAX (1024)";
		return -1;
	}
	if (after < -1 || after >= METHOD_NONE) {
		*why = "`after` is neither -1 nor a method";
		return -1;
	}
	if (cursor == NULL) {
		*why = "no round-robin cursor";
		return -1;
	}
	return 0;
}

/* Whether one of the straight methods (direct .. traversal) is offered to the pair. */
static bool
straight_offered(const struct decision_pair *p, enum connect_method m)
{
	switch (m) {
	case METHOD_DIRECT:
		return direct_offered(p);
	case METHOD_PORT_RANGE:
		return port_range_offered(p);
	case METHOD_REVERSAL:
		return reversal_offered(p);
	case METHOD_TRAVERSAL:
		return traversal_offered(p);
	default:
		return false;
	}
}

/* Hand out a relay or a chain: 1 when no candidate exists, 0 when out is filled, -1 when no
 * relay id could be drawn. The cursor advances only for a relay actually handed out. */
static int
relay_hand_out(const struct decision_pair *p, enum connect_method m,
    struct decision_cursor *cursor, struct decision *out)
{
	size_t n = m == METHOD_RELAY ? relay_candidates(p, 0, NULL) : chain_candidates(p, 0, NULL);
	size_t k;

	if (n == 0)
		return 1;
	if (relay_id_fresh(out->relay_id.bytes) < 0)
		return -1;
	k = (size_t)(cursor->next % n);
	if (m == METHOD_RELAY)
		relay_candidates(p, k, out);
	else
		chain_candidates(p, k, out);
	cursor->next++;
	out->method = m;
	return 0;
}

static void
decision_log(const struct decision_side *initiator, const struct decision_side *target,
    uint16_t port, const struct decision *d)
{
	log_debug("decision: %s/%s -> %s/%s port %u: %s via %s%s%s", initiator->cluster->name,
	    initiator->node ? initiator->node : "?", target->cluster->name,
	    target->node ? target->node : "?", (unsigned)port, connect_method_name(d->method),
	    d->proxy_count > 0 ? d->proxy[0].endpoint : "-", d->proxy_count > 1 ? " > " : "",
	    d->proxy_count > 1 ? d->proxy[1].endpoint : "");
}

int
decision_choose(const struct decision_side *initiator, const struct decision_side *target,
    uint16_t target_port, const struct proxy *proxies, size_t proxy_count, int after,
    struct decision_cursor *cursor, struct decision *out)
{
	struct decision_pair pair;
	const char *who = "", *why = NULL;
	int m;

	if (out == NULL) {
		log_warn("decision: rejected: no place for the answer");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->method = METHOD_NONE;
	if (arguments_check(initiator, target, target_port, proxies, proxy_count, after, cursor,
	    &who, &why) < 0) {
		log_warn("decision: rejected: %s%s", who, why);
		return -1;
	}
	pair.ini = initiator->cluster;
	pair.tgt = target->cluster;
	pair.port = target_port;
	pair.same = strcmp(pair.ini->name, pair.tgt->name) == 0;
	pair.proxies = proxies;
	pair.proxy_count = proxy_count;

	for (m = after + 1; m < METHOD_RELAY; m++) {
		if (straight_offered(&pair, (enum connect_method)m)) {
			out->method = (enum connect_method)m;
			/* Reversal and traversal need both sides' helpers: the id lets them find each
			 * other's half of the connection, as a relay id does at a proxy. */
			if ((m == METHOD_REVERSAL || m == METHOD_TRAVERSAL) &&
			    relay_id_fresh(out->relay_id.bytes) < 0) {
				out->method = METHOD_NONE;
				return -1;
			}
			decision_log(initiator, target, target_port, out);
			return 0;
		}
	}
	proxies_classify(&pair);
	for (; m <= METHOD_RELAY_CHAIN; m++) {
		int rc = relay_hand_out(&pair, (enum connect_method)m, cursor, out);
		if (rc == 0) {
			decision_log(initiator, target, target_port, out);
			return 0;
		}
		if (rc < 0) {
			memset(out, 0, sizeof(*out));
			out->method = METHOD_NONE;
			return -1;
		}
	}
	log_debug("decision: %s -> %s port %u: no method left after %s", pair.ini->name,
	    pair.tgt->name, (unsigned)target_port,
	    after < 0 ? "none" : connect_method_name((enum connect_method)after));
	return -1;
}
