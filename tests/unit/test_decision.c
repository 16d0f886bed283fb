/*
 * test_decision.c: the broker's connection decision (services/broker/decision.c).
 *
 * The heart is a table over every ordered pair of policy variants, across two clusters and
 * within one, giving the whole fall-through sequence the decision must produce. Every row was
 * worked out by hand from the rules in decision.c's header comment; the reasoning for the less
 * obvious rows is in the comments next to them.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "decision.h"

/* The policy variants of the table: a policy, plus the port a connection to it uses. */
enum variant {
	V_OPEN,
	V_RANGE_IN,     /* port-range, target port inside the range */
	V_RANGE_OUT,    /* port-range, target port outside the range */
	V_NAT_TRAV,     /* nat, traversal allowed */
	V_NAT_NOTRAV,   /* nat, traversal not allowed */
	V_CLOSED,
	V_COUNT,
};

static const char *const variant_names[V_COUNT] = { "open", "range-in", "range-out", "nat-trav",
	"nat-notrav", "closed" };

#define RANGE_MIN 20000
#define RANGE_MAX 20099
#define PORT_IN 20050
#define PORT_OUT 30000
#define PORT_ANY 5000
#define SEQ_MAX 256

static void
cluster_make(enum variant v, const char *name, struct cluster *c)
{
	static const enum cluster_policy policy[V_COUNT] = { POLICY_OPEN, POLICY_PORT_RANGE,
		POLICY_PORT_RANGE, POLICY_NAT, POLICY_NAT, POLICY_CLOSED };

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->policy = policy[v];
	if (c->policy == POLICY_PORT_RANGE) {
		c->port_min = RANGE_MIN;
		c->port_max = RANGE_MAX;
	}
	/* Allowed everywhere but nat-notrav, so that the table also proves traversal is held
	 * back by "closed" and by "a better method is offered", not only by the flag. */
	c->traversal_allowed = v != V_NAT_NOTRAV;
}

static uint16_t
variant_port(enum variant v)
{
	return v == V_RANGE_IN ? PORT_IN : v == V_RANGE_OUT ? PORT_OUT : PORT_ANY;
}

static void
proxy_make(struct proxy *p, const char *endpoint, const char *networks, const char *cluster)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->endpoint, sizeof(p->endpoint), "%s", endpoint);
	snprintf(p->networks, sizeof(p->networks), "%s", networks);
	snprintf(p->cluster, sizeof(p->cluster), "%s", cluster);
}

/* The table's proxies: one on the WAN, one on each closed cluster's (dual-homed) gateway. */
static size_t
proxies_standard(const struct cluster *ini, const struct cluster *tgt, int same,
    struct proxy out[3])
{
	size_t n = 0;

	proxy_make(&out[n++], "wan:9000", "0.0.0.0/0", "");
	if (ini->policy == POLICY_CLOSED)
		proxy_make(&out[n++], "gw-ini:9000", "10.1.0.0/24,0.0.0.0/0", ini->name);
	if (tgt->policy == POLICY_CLOSED && !same)
		proxy_make(&out[n++], "gw-tgt:9000", "10.2.0.0/24,0.0.0.0/0", tgt->name);
	return n;
}

static int
id_is_zero(const uint8_t id[QCG_RELAY_ID_BYTES])
{
	static const uint8_t zero[QCG_RELAY_ID_BYTES];
	return memcmp(id, zero, sizeof(zero)) == 0;
}

/* Append "method" or "method[host>host]" (host = endpoint before ':') to seq. */
static void
seq_append(char *seq, const struct decision *d)
{
	size_t len = strlen(seq);

	len += (size_t)snprintf(seq + len, SEQ_MAX - len, "%s%s", len ? " " : "",
	    connect_method_name(d->method));
	for (size_t i = 0; i < d->proxy_count && len < SEQ_MAX; i++)
		len += (size_t)snprintf(seq + len, SEQ_MAX - len, "%s%.*s", i ? ">" : "[",
		    (int)strcspn(d->proxy[i].endpoint, ":"), d->proxy[i].endpoint);
	if (d->proxy_count > 0 && len < SEQ_MAX)
		snprintf(seq + len, SEQ_MAX - len, "]");
}

/* Walk the fall-through from the start until no method is left; checks each answer's shape. */
static void
walk(const struct decision_side *ini, const struct decision_side *tgt, uint16_t port,
    const struct proxy *proxies, size_t n, char seq[SEQ_MAX])
{
	struct decision_cursor cursor = { 0 };
	struct decision d;
	int after = -1;

	seq[0] = '\0';
	for (int step = 0; step <= METHOD_COUNT; step++) {
		int straight;
		if (decision_choose(ini, tgt, port, proxies, n, after, &cursor, &d) < 0) {
			CHECK_INT_EQ(d.method, METHOD_NONE);
			CHECK_INT_EQ(d.proxy_count, 0);
			return;
		}
		CHECK((int)d.method > after);
		CHECK_INT_EQ(d.proxy_count, d.method == METHOD_RELAY ? 1 :
		    d.method == METHOD_RELAY_CHAIN ? 2 : 0);
		/* an id whenever the target side must act: it is what the two halves match on */
		straight = d.method == METHOD_DIRECT || d.method == METHOD_PORT_RANGE;
		CHECK_INT_EQ(id_is_zero(d.relay_id.bytes), straight);
		seq_append(seq, &d);
		after = (int)d.method;
	}
	CHECK(!"the fall-through did not end");
}

struct row {
	enum variant ini, tgt;
	const char *want; /* the whole sequence; "" when nothing can connect them */
};

/* Two different clusters, initiator -> target, on the target variant's port. */
static const struct row rows_two_clusters[] = {
	/* Open initiator: its helper is reachable, so any target that can connect out offers
	 * reversal; traversal is never offered because reversal already is. */
	{ V_OPEN, V_OPEN, "direct reversal relay[wan]" },
	{ V_OPEN, V_RANGE_IN, "port-range reversal relay[wan]" },
	{ V_OPEN, V_RANGE_OUT, "reversal relay[wan]" },
	{ V_OPEN, V_NAT_TRAV, "reversal relay[wan]" },
	{ V_OPEN, V_NAT_NOTRAV, "reversal relay[wan]" },
	/* A closed target reaches only its gateway's proxy, which the open side reaches over
	 * the WAN; it cannot reach the WAN proxy. */
	{ V_OPEN, V_CLOSED, "relay[gw-tgt]" },
	/* A port-range initiator behaves like an open one: its helper listens in its range. */
	{ V_RANGE_IN, V_OPEN, "direct reversal relay[wan]" },
	{ V_RANGE_IN, V_RANGE_IN, "port-range reversal relay[wan]" },
	{ V_RANGE_IN, V_RANGE_OUT, "reversal relay[wan]" },
	{ V_RANGE_IN, V_NAT_TRAV, "reversal relay[wan]" },
	{ V_RANGE_IN, V_NAT_NOTRAV, "reversal relay[wan]" },
	{ V_RANGE_IN, V_CLOSED, "relay[gw-tgt]" },
	{ V_RANGE_OUT, V_OPEN, "direct reversal relay[wan]" },
	{ V_RANGE_OUT, V_RANGE_IN, "port-range reversal relay[wan]" },
	{ V_RANGE_OUT, V_RANGE_OUT, "reversal relay[wan]" },
	{ V_RANGE_OUT, V_NAT_TRAV, "reversal relay[wan]" },
	{ V_RANGE_OUT, V_NAT_NOTRAV, "reversal relay[wan]" },
	{ V_RANGE_OUT, V_CLOSED, "relay[gw-tgt]" },
	/* A nat initiator is not reachable: no reversal. Traversal only where nothing straight
	 * is offered and both sides allow it. */
	{ V_NAT_TRAV, V_OPEN, "direct relay[wan]" },
	{ V_NAT_TRAV, V_RANGE_IN, "port-range relay[wan]" },
	{ V_NAT_TRAV, V_RANGE_OUT, "traversal relay[wan]" },
	{ V_NAT_TRAV, V_NAT_TRAV, "traversal relay[wan]" },
	{ V_NAT_TRAV, V_NAT_NOTRAV, "relay[wan]" },
	{ V_NAT_TRAV, V_CLOSED, "relay[gw-tgt]" },
	{ V_NAT_NOTRAV, V_OPEN, "direct relay[wan]" },
	{ V_NAT_NOTRAV, V_RANGE_IN, "port-range relay[wan]" },
	{ V_NAT_NOTRAV, V_RANGE_OUT, "relay[wan]" },
	{ V_NAT_NOTRAV, V_NAT_TRAV, "relay[wan]" },
	{ V_NAT_NOTRAV, V_NAT_NOTRAV, "relay[wan]" },
	{ V_NAT_NOTRAV, V_CLOSED, "relay[gw-tgt]" },
	/* A closed initiator opens nothing but its own gateway's proxy. */
	{ V_CLOSED, V_OPEN, "relay[gw-ini]" },
	{ V_CLOSED, V_RANGE_IN, "relay[gw-ini]" },
	{ V_CLOSED, V_RANGE_OUT, "relay[gw-ini]" },
	{ V_CLOSED, V_NAT_TRAV, "relay[gw-ini]" },
	{ V_CLOSED, V_NAT_NOTRAV, "relay[gw-ini]" },
	/* No proxy is reachable by both: the two gateways' proxies, chained over the WAN. */
	{ V_CLOSED, V_CLOSED, "relay-chain[gw-ini>gw-tgt]" },
};

/* One cluster: no firewall between the two, so direct, then reversal, then a relay. */
static const struct row rows_one_cluster[] = {
	{ V_OPEN, V_OPEN, "direct reversal relay[wan]" },
	{ V_RANGE_IN, V_RANGE_IN, "direct reversal relay[wan]" },
	{ V_RANGE_OUT, V_RANGE_OUT, "direct reversal relay[wan]" },
	{ V_NAT_TRAV, V_NAT_TRAV, "direct reversal relay[wan]" },
	{ V_NAT_NOTRAV, V_NAT_NOTRAV, "direct reversal relay[wan]" },
	{ V_CLOSED, V_CLOSED, "direct reversal relay[gw-ini]" },
};

static int
row_check(const struct row *r, int same)
{
	struct cluster ci, ct;
	struct proxy proxies[3];
	struct decision_side ini = { &ci, "node-i" }, tgt = { &ct, "node-t" };
	char seq[SEQ_MAX];
	size_t n;

	cluster_make(r->ini, "site-a", &ci);
	/* Within one cluster the target's struct is a copy: sameness is by name. */
	cluster_make(r->tgt, same ? "site-a" : "site-b", &ct);
	n = proxies_standard(&ci, &ct, same, proxies);
	walk(&ini, &tgt, variant_port(r->tgt), proxies, n, seq);
	if (strcmp(seq, r->want) == 0)
		return 0;
	fprintf(stderr, "FAIL: %s %s -> %s: got \"%s\", want \"%s\"\n",
	    same ? "one cluster" : "two clusters", variant_names[r->ini], variant_names[r->tgt],
	    seq, r->want);
	return 1;
}

static void
fall_through_sequence_matches_table_for_every_policy_pair(void)
{
	size_t nrows = sizeof(rows_two_clusters) / sizeof(rows_two_clusters[0]);
	int seen[V_COUNT][V_COUNT] = { { 0 } };

	/* The table itself must cover every ordered pair exactly once. */
	CHECK_INT_EQ(nrows, V_COUNT * V_COUNT);
	for (size_t i = 0; i < nrows; i++)
		seen[rows_two_clusters[i].ini][rows_two_clusters[i].tgt]++;
	for (int a = 0; a < V_COUNT; a++)
		for (int b = 0; b < V_COUNT; b++)
			CHECK_INT_EQ(seen[a][b], 1);

	for (size_t i = 0; i < nrows; i++)
		CHECK_INT_EQ(row_check(&rows_two_clusters[i], 0), 0);
	for (size_t i = 0; i < sizeof(rows_one_cluster) / sizeof(rows_one_cluster[0]); i++)
		CHECK_INT_EQ(row_check(&rows_one_cluster[i], 1), 0);
}

/* A pair that only a relay serves: nat without traversal, two clusters. */
static void
relay_only_pair(struct cluster *ci, struct cluster *ct)
{
	cluster_make(V_NAT_NOTRAV, "site-a", ci);
	cluster_make(V_NAT_NOTRAV, "site-b", ct);
}

static void
round_robin_spreads_relays_evenly_over_three_wan_proxies(void)
{
	struct cluster ci, ct;
	struct decision_side ini = { &ci, "i" }, tgt = { &ct, "t" };
	struct proxy p[3];
	struct decision_cursor cursor = { 0 };
	struct decision d;
	int count[3] = { 0 };

	relay_only_pair(&ci, &ct);
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");
	proxy_make(&p[1], "w1:9000", "0.0.0.0/0", "");
	proxy_make(&p[2], "w2:9000", "0.0.0.0/0", "");
	for (int i = 0; i < 300; i++) {
		CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 3, -1, &cursor, &d), 0);
		CHECK_INT_EQ(d.method, METHOD_RELAY);
		/* In array order, one step per relay handed out. */
		CHECK_STR_EQ(d.proxy[0].endpoint, p[i % 3].endpoint);
		for (int k = 0; k < 3; k++)
			count[k] += strcmp(d.proxy[0].endpoint, p[k].endpoint) == 0;
	}
	CHECK_INT_EQ(cursor.next, 300);
	for (int k = 0; k < 3; k++)
		CHECK_INT_EQ(count[k], 100);
}

static void
round_robin_skips_proxies_that_one_side_cannot_reach(void)
{
	struct cluster ci, ct;
	struct decision_side ini = { &ci, "i" }, tgt = { &ct, "t" };
	struct proxy p[4];
	struct decision_cursor cursor = { 0 };
	struct decision d;

	relay_only_pair(&ci, &ct);
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");
	proxy_make(&p[1], "bad:9000", "0.0.0.0/0 ", "");        /* garbage: unreachable */
	proxy_make(&p[2], "gw-x:9000", "10.9.0.0/24", "site-x"); /* private, another site */
	proxy_make(&p[3], "w1:9000", "0.0.0.0/0", "");
	for (int i = 0; i < 10; i++) {
		CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 4, -1, &cursor, &d), 0);
		CHECK_STR_EQ(d.proxy[0].endpoint, i % 2 ? "w1:9000" : "w0:9000");
	}
}

/* The registry lists proxies least loaded first and the broker adds one to a proxy's load per
 * relay handed out: four relays in a row, the list re-sorted after each as the registry would,
 * must land on four different proxies (round-robin over the shifting list put them 3 + 1). */
static void
relays_go_to_the_least_loaded_proxies(void)
{
	struct cluster ci, ct;
	struct decision_side ini = { &ci, "i" }, tgt = { &ct, "t" };
	struct proxy p[4], tmp;
	struct decision_cursor cursor = { 0 };
	struct decision d;
	int used[4] = { 0 };

	relay_only_pair(&ci, &ct);
	for (int i = 0; i < 4; i++) {
		char ep[16];
		snprintf(ep, sizeof(ep), "w%d:9000", i);
		proxy_make(&p[i], ep, "0.0.0.0/0", "");
	}
	for (int r = 0; r < 4; r++) {
		CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 4, -1, &cursor, &d), 0);
		for (int i = 0; i < 4; i++)
			if (strcmp(d.proxy[0].endpoint, p[i].endpoint) == 0)
				p[i].load++;
		used[d.proxy[0].endpoint[1] - '0']++;
		for (int i = 0; i < 3; i++) /* ORDER BY load (stable: endpoint order among equals) */
			for (int j = 0; j < 3 - i; j++)
				if (p[j].load > p[j + 1].load) {
					tmp = p[j];
					p[j] = p[j + 1];
					p[j + 1] = tmp;
				}
	}
	for (int i = 0; i < 4; i++)
		CHECK_INT_EQ(used[i], 1);
	/* A loaded proxy is passed over while an idle one is left. */
	p[0].load = 5;
	p[1].load = 5;
	p[2].load = 0;
	p[3].load = 5;
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 4, -1, &cursor, &d), 0);
	CHECK_STR_EQ(d.proxy[0].endpoint, p[2].endpoint);
}

static void
cursor_advances_only_when_a_relay_is_handed_out(void)
{
	struct cluster ci, ct;
	struct decision_side ini = { &ci, "i" }, tgt = { &ct, "t" };
	struct proxy p[1];
	struct decision_cursor cursor = { 7 };
	struct decision d;

	cluster_make(V_OPEN, "site-a", &ci);
	cluster_make(V_OPEN, "site-b", &ct);
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, -1, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_DIRECT);
	CHECK_INT_EQ(cursor.next, 7);
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, METHOD_REVERSAL, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_RELAY);
	CHECK_INT_EQ(cursor.next, 8);
	/* Nothing after the relay: the cursor stays. */
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, METHOD_RELAY, &cursor, &d), -1);
	CHECK_INT_EQ(cursor.next, 8);
}

#define ID_SAMPLES 64

static void
relay_ids_are_fresh_random_16_bytes(void)
{
	struct cluster ci, ct;
	struct decision_side ini = { &ci, "i" }, tgt = { &ct, "t" };
	struct proxy p[1];
	struct decision_cursor cursor = { 0 };
	struct decision d;
	uint8_t ids[ID_SAMPLES][QCG_RELAY_ID_BYTES];
	long ones = 0;

	relay_only_pair(&ci, &ct);
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");
	for (int i = 0; i < ID_SAMPLES; i++) {
		CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, -1, &cursor, &d), 0);
		CHECK(!id_is_zero(d.relay_id.bytes));
		memcpy(ids[i], d.relay_id.bytes, QCG_RELAY_ID_BYTES);
		for (int b = 0; b < QCG_RELAY_ID_BYTES; b++)
			ones += __builtin_popcount(d.relay_id.bytes[b]);
	}
	for (int i = 0; i < ID_SAMPLES; i++)
		for (int j = i + 1; j < ID_SAMPLES; j++)
			CHECK(memcmp(ids[i], ids[j], QCG_RELAY_ID_BYTES) != 0);
	/* Every byte position varies (a constant byte would be a counter or padding, not
	 * randomness): for random bytes, a constant column over 64 ids has odds 2^-504. */
	for (int b = 0; b < QCG_RELAY_ID_BYTES; b++) {
		int varies = 0;
		for (int i = 1; i < ID_SAMPLES; i++)
			varies |= ids[i][b] != ids[0][b];
		CHECK(varies);
	}
	/* 8192 bits: mean 4096, standard deviation 45; the bounds are 8 deviations out. */
	CHECK(ones > 4096 - 360 && ones < 4096 + 360);
}

static void
closed_pair_with_gateway_proxies_chains_initiator_gateway_to_target_gateway(void)
{
	struct cluster ca, cb;
	struct decision_side a = { &ca, "a1" }, b = { &cb, "b1" };
	struct proxy p[3];
	struct decision_cursor cursor = { 0 };
	struct decision d;

	cluster_make(V_CLOSED, "site-a", &ca);
	cluster_make(V_CLOSED, "site-b", &cb);
	/* The target's gateway first, so the order of the answer is not the array's. */
	proxy_make(&p[0], "gw-b:9000", "10.2.0.0/24,0.0.0.0/0", "site-b");
	proxy_make(&p[1], "wan:9000", "0.0.0.0/0", "");
	proxy_make(&p[2], "gw-a:9000", "10.1.0.0/24,0.0.0.0/0", "site-a");

	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 3, -1, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_RELAY_CHAIN);
	CHECK_INT_EQ(d.proxy_count, 2);
	CHECK_STR_EQ(d.proxy[0].endpoint, "gw-a:9000");
	CHECK_STR_EQ(d.proxy[1].endpoint, "gw-b:9000");
	CHECK(!id_is_zero(d.relay_id.bytes));

	/* The other way round, the other way round. */
	CHECK_INT_EQ(decision_choose(&b, &a, PORT_ANY, p, 3, -1, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_RELAY_CHAIN);
	CHECK_STR_EQ(d.proxy[0].endpoint, "gw-b:9000");
	CHECK_STR_EQ(d.proxy[1].endpoint, "gw-a:9000");

	/* A failed single relay falls through to the chain when the chain is possible. */
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 3, METHOD_RELAY, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_RELAY_CHAIN);
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 3, METHOD_RELAY_CHAIN, &cursor, &d), -1);
	CHECK_INT_EQ(d.method, METHOD_NONE);
}

static void
chain_round_robins_over_every_gateway_pair(void)
{
	struct cluster ca, cb;
	struct decision_side a = { &ca, "a1" }, b = { &cb, "b1" };
	struct proxy p[4];
	struct decision_cursor cursor = { 0 };
	struct decision d;
	static const char *const want[4][2] = { { "a1:9000", "b1:9000" },
		{ "a1:9000", "b2:9000" }, { "a2:9000", "b1:9000" }, { "a2:9000", "b2:9000" } };

	cluster_make(V_CLOSED, "site-a", &ca);
	cluster_make(V_CLOSED, "site-b", &cb);
	proxy_make(&p[0], "a1:9000", "10.1.0.0/24,0.0.0.0/0", "site-a");
	proxy_make(&p[1], "b1:9000", "10.2.0.0/24,0.0.0.0/0", "site-b");
	proxy_make(&p[2], "a2:9000", "0.0.0.0/0,10.1.0.0/24", "site-a");
	proxy_make(&p[3], "b2:9000", "0.0.0.0/0", "site-b");
	for (int i = 0; i < 400; i++) {
		CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 4, -1, &cursor, &d), 0);
		CHECK_INT_EQ(d.method, METHOD_RELAY_CHAIN);
		CHECK_STR_EQ(d.proxy[0].endpoint, want[i % 4][0]);
		CHECK_STR_EQ(d.proxy[1].endpoint, want[i % 4][1]);
	}
	CHECK_INT_EQ(cursor.next, 400);
}

static void
closed_pair_without_gateway_proxies_has_no_method(void)
{
	struct cluster ca, cb;
	struct decision_side a = { &ca, "a1" }, b = { &cb, "b1" };
	struct proxy p[2];
	struct decision_cursor cursor = { 0 };
	struct decision d;

	cluster_make(V_CLOSED, "site-a", &ca);
	cluster_make(V_CLOSED, "site-b", &cb);
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");
	proxy_make(&p[1], "w1:9000", "0.0.0.0/0", "");
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 2, -1, &cursor, &d), -1);
	CHECK_INT_EQ(d.method, METHOD_NONE);
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, NULL, 0, -1, &cursor, &d), -1);
	CHECK_INT_EQ(d.method, METHOD_NONE);
	CHECK_INT_EQ(cursor.next, 0);
}

static void
chain_needs_two_wan_serving_distinct_proxies(void)
{
	struct cluster ca, cb;
	struct decision_side a = { &ca, "a1" }, b = { &cb, "b1" };
	struct proxy p[2];
	struct decision_cursor cursor = { 0 };
	struct decision d;

	cluster_make(V_CLOSED, "site-a", &ca);
	cluster_make(V_CLOSED, "site-b", &cb);
	/* Gateways that serve only their own cluster cannot reach each other. */
	proxy_make(&p[0], "gw-a:9000", "10.1.0.0/24", "site-a");
	proxy_make(&p[1], "gw-b:9000", "10.2.0.0/24", "site-b");
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 2, -1, &cursor, &d), -1);
	CHECK_INT_EQ(d.method, METHOD_NONE);
	/* Either end private is enough to break the chain. */
	proxy_make(&p[1], "gw-b:9000", "10.2.0.0/24,0.0.0.0/0", "site-b");
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 2, -1, &cursor, &d), -1);
	CHECK_INT_EQ(decision_choose(&b, &a, PORT_ANY, p, 2, -1, &cursor, &d), -1);
	/* Both public: now the chain exists, so the refusals above were for the private end. */
	proxy_make(&p[0], "gw-a:9000", "10.1.0.0/24,0.0.0.0/0", "site-a");
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 2, -1, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_RELAY_CHAIN);
	/* One relay listed twice (same endpoint) is not a chain of two. */
	proxy_make(&p[0], "gw:9000", "0.0.0.0/0", "site-a");
	proxy_make(&p[1], "gw:9000", "0.0.0.0/0", "site-b");
	CHECK_INT_EQ(decision_choose(&a, &b, PORT_ANY, p, 2, -1, &cursor, &d), -1);
	CHECK_INT_EQ(d.method, METHOD_NONE);
}

static void
after_skips_to_the_next_offered_method(void)
{
	struct cluster ci, ct;
	struct decision_side ini = { &ci, "i" }, tgt = { &ct, "t" };
	struct proxy p[1];
	struct decision_cursor cursor = { 0 };
	struct decision d;

	cluster_make(V_NAT_TRAV, "site-a", &ci);
	cluster_make(V_NAT_TRAV, "site-b", &ct);
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");
	/* After a method that was never offered, the next one that is. */
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, METHOD_DIRECT, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_TRAVERSAL);
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, METHOD_TRAVERSAL, &cursor, &d), 0);
	CHECK_INT_EQ(d.method, METHOD_RELAY);
	/* No relay through another proxy, and no chain while one proxy serves both. */
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, p, 1, METHOD_RELAY, &cursor, &d), -1);
	CHECK_INT_EQ(d.method, METHOD_NONE);
	/* Without proxies, traversal is the last resort. */
	CHECK_INT_EQ(decision_choose(&ini, &tgt, PORT_ANY, NULL, 0, METHOD_TRAVERSAL, &cursor, &d),
	    -1);
}

/* Call with the given pieces and check the call is refused with METHOD_NONE. */
static void
check_rejected(const struct decision_side *ini, const struct decision_side *tgt, uint16_t port,
    const struct proxy *p, size_t n, int after, struct decision_cursor *cursor, int line)
{
	struct decision d;

	memset(&d, 0x5a, sizeof(d)); /* garbage, so that "reset to NONE" is proven */
	if (decision_choose(ini, tgt, port, p, n, after, cursor, &d) != -1 ||
	    d.method != METHOD_NONE || d.proxy_count != 0) {
		fprintf(stderr, "line %d: bad input accepted\n", line);
		CHECK(!"bad input accepted");
	}
}

static void
bad_input_is_rejected_with_method_none(void)
{
	struct cluster good, nameless, range_backwards, unknown_policy;
	struct decision_side ok = { &good, "n" }, no_cluster = { NULL, "n" };
	struct decision_side s_nameless = { &nameless, "n" }, s_backwards = { &range_backwards, "n" };
	struct decision_side s_unknown = { &unknown_policy, "n" };
	struct proxy p[1];
	struct decision_cursor cursor = { 0 };

	cluster_make(V_OPEN, "site-a", &good);
	cluster_make(V_OPEN, "", &nameless);
	cluster_make(V_RANGE_IN, "site-b", &range_backwards);
	range_backwards.port_min = RANGE_MAX;
	range_backwards.port_max = RANGE_MIN;
	cluster_make(V_OPEN, "site-c", &unknown_policy);
	unknown_policy.policy = (enum cluster_policy)7;
	proxy_make(&p[0], "w0:9000", "0.0.0.0/0", "");

	check_rejected(NULL, &ok, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, NULL, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&no_cluster, &ok, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, &no_cluster, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, &ok, 0, p, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, &s_backwards, PORT_IN, p, 1, -1, &cursor, __LINE__);
	check_rejected(&s_backwards, &ok, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&s_nameless, &ok, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, &s_unknown, PORT_ANY, p, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, &ok, PORT_ANY, NULL, 1, -1, &cursor, __LINE__);
	check_rejected(&ok, &ok, PORT_ANY, p, 100000, -1, &cursor, __LINE__);
	check_rejected(&ok, &ok, PORT_ANY, p, 1, -2, &cursor, __LINE__);
	check_rejected(&ok, &ok, PORT_ANY, p, 1, METHOD_NONE, &cursor, __LINE__);
	check_rejected(&ok, &ok, PORT_ANY, p, 1, -1, NULL, __LINE__);
	CHECK_INT_EQ(decision_choose(&ok, &ok, PORT_ANY, p, 1, -1, &cursor, NULL), -1);
	/* The same pieces, put right, are accepted: the rejections above were for the reason
	 * each line names. */
	{
		struct decision d;
		CHECK_INT_EQ(decision_choose(&ok, &ok, PORT_ANY, p, 1, -1, &cursor, &d), 0);
		CHECK_INT_EQ(d.method, METHOD_DIRECT);
		range_backwards.port_min = RANGE_MIN;
		range_backwards.port_max = RANGE_MAX;
		CHECK_INT_EQ(decision_choose(&ok, &s_backwards, PORT_IN, p, 1, -1, &cursor, &d), 0);
		CHECK_INT_EQ(d.method, METHOD_PORT_RANGE);
	}
}

static void
proxy_reachability_follows_policy(void)
{
	struct proxy wan, own_gw, other_gw, own_private, garbage_own;
	struct cluster c;

	proxy_make(&wan, "wan:9000", "0.0.0.0/0", "");
	proxy_make(&own_gw, "gw:9000", "10.1.0.0/24,0.0.0.0/0", "site-a");
	proxy_make(&other_gw, "gw-b:9000", "10.2.0.0/24,0.0.0.0/0", "site-b");
	proxy_make(&own_private, "gwp:9000", "10.1.0.0/24", "site-a");
	proxy_make(&garbage_own, "gwg:9000", "10.1.0.0/24,", "site-a");

	for (int v = 0; v < V_COUNT; v++) {
		int closed = v == V_CLOSED;
		cluster_make((enum variant)v, "site-a", &c);
		CHECK_INT_EQ(decision_proxy_reachable(&c, &wan), !closed);
		CHECK_INT_EQ(decision_proxy_reachable(&c, &own_gw), 1);
		CHECK_INT_EQ(decision_proxy_reachable(&c, &other_gw), !closed);
		CHECK_INT_EQ(decision_proxy_reachable(&c, &own_private), 1);
		/* Garbage networks: unreachable even from its own cluster. */
		CHECK_INT_EQ(decision_proxy_reachable(&c, &garbage_own), 0);
	}
	CHECK_INT_EQ(decision_proxy_reachable(NULL, &wan), 0);
	CHECK_INT_EQ(decision_proxy_reachable(&c, NULL), 0);
}

static void
proxy_networks_are_parsed_strictly(void)
{
	static const char *const garbage[] = {
		"",                      /* serves nothing */
		"0.0.0.0",               /* no prefix */
		"0.0.0.0/",              /* empty prefix */
		"0.0.0.0/33",            /* prefix too long */
		"0.0.0.0/00",            /* leading zero */
		"0.0.0.0/-0",
		"0.0.0.0/0 ",            /* trailing space */
		" 0.0.0.0/0",
		"0.0.0.0/0,",            /* empty entry */
		",0.0.0.0/0",
		"10.1.0.0/24,,0.0.0.0/0",
		"10.1.0.5/24,0.0.0.0/0", /* host bits set */
		"010.1.0.0/24,0.0.0.0/0",
		"256.0.0.0/8,0.0.0.0/0",
		"10.1.0/24,0.0.0.0/0",
		"wan/0",
		"::1/64,0.0.0.0/0",      /* host bits set, IPv6 */
		"fd00::/129,0.0.0.0/0",
		"0.0.0.0/0/0",
	};
	static const char *const wan_lists[] = {
		"0.0.0.0/0",
		"10.1.0.0/24,0.0.0.0/0",
		"fd00::/8,0.0.0.0/0,192.168.0.0/16",
		"10.1.0.1/32,0.0.0.0/0",
	};
	static const char *const private_lists[] = { "10.1.0.0/24", "::/0", "0.0.0.0/1" };
	struct cluster open;
	struct proxy p;

	cluster_make(V_OPEN, "site-a", &open);
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		proxy_make(&p, "x:9000", garbage[i], "");
		if (decision_proxy_reachable(&open, &p)) {
			fprintf(stderr, "accepted networks \"%s\"\n", garbage[i]);
			CHECK(!"garbage networks accepted");
		}
	}
	for (size_t i = 0; i < sizeof(wan_lists) / sizeof(wan_lists[0]); i++) {
		proxy_make(&p, "x:9000", wan_lists[i], "");
		if (!decision_proxy_reachable(&open, &p)) {
			fprintf(stderr, "refused networks \"%s\"\n", wan_lists[i]);
			CHECK(!"WAN networks refused");
		}
	}
	/* Valid, but not the WAN: reachable only from the proxy's own cluster. */
	for (size_t i = 0; i < sizeof(private_lists) / sizeof(private_lists[0]); i++) {
		proxy_make(&p, "x:9000", private_lists[i], "site-b");
		CHECK_INT_EQ(decision_proxy_reachable(&open, &p), 0);
		proxy_make(&p, "x:9000", private_lists[i], "site-a");
		CHECK_INT_EQ(decision_proxy_reachable(&open, &p), 1);
	}
	/* An entry longer than any address is refused before it is copied anywhere. */
	proxy_make(&p, "x:9000", "", "");
	memset(p.networks, '1', 200);
	memcpy(p.networks + 200, "/0,0.0.0.0/0", 13);
	CHECK_INT_EQ(decision_proxy_reachable(&open, &p), 0);
	/* A networks field without its terminating NUL is garbage, even when the bytes up to
	 * the end of the field (512 of them, a valid list) would parse and the next field
	 * happens to start with the NUL. */
	proxy_make(&p, "x:9000", "", "");
	for (int i = 0; i < 50; i++)
		memcpy(p.networks + 10 * i, "0.0.0.0/0,", 10);
	memcpy(p.networks + 500, "10.10.0.0/16", 12);
	CHECK_INT_EQ(decision_proxy_reachable(&open, &p), 0);
	p.networks[499] = '\0'; /* cut after the 50th entry: valid, so the NUL was what mattered */
	CHECK_INT_EQ(decision_proxy_reachable(&open, &p), 1);
}

int
main(void)
{
	RUN(fall_through_sequence_matches_table_for_every_policy_pair);
	RUN(round_robin_spreads_relays_evenly_over_three_wan_proxies);
	RUN(round_robin_skips_proxies_that_one_side_cannot_reach);
	RUN(relays_go_to_the_least_loaded_proxies);
	RUN(cursor_advances_only_when_a_relay_is_handed_out);
	RUN(relay_ids_are_fresh_random_16_bytes);
	RUN(closed_pair_with_gateway_proxies_chains_initiator_gateway_to_target_gateway);
	RUN(chain_round_robins_over_every_gateway_pair);
	RUN(closed_pair_without_gateway_proxies_has_no_method);
	RUN(chain_needs_two_wan_serving_distinct_proxies);
	RUN(after_skips_to_the_next_offered_method);
	RUN(bad_input_is_rejected_with_method_none);
	RUN(proxy_reachability_follows_policy);
	RUN(proxy_networks_are_parsed_strictly);
	return check_exit();
}
