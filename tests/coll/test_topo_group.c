/*
 * test_topo_group.c: grouping nodes into clusters and sites from round-trip times
 * (mpi-glue/topo/qcg_topo_group.c), on synthetic matrices.
 */
#include "config.h"

#include <stdlib.h>

#include "../unit/check.h"
#include "qcg_topo_group.h"

#define MAXN 64

static const struct qcg_topo_group_params defaults = { .floor_us = 200, .ratio = 3 };

/* rtt[i][j] from a function of the two nodes' (site, cluster) places. */
struct place {
	int site, cluster;
};

static double rtt[MAXN * MAXN];

/* Deterministic noise in [0, 1): the same matrix on every run. */
static double
noise(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (double)((*state >> 8) % 10000) / 10000.0;
}

/* Fill rtt for L nodes: lan within a cluster, site_us within a site, wan across, each
 * multiplied by (1 + jitter * noise). */
static void
fill(int L, const struct place *pl, double lan, double site_us, double wan, double jitter)
{
	unsigned st = 42;
	for (int i = 0; i < L; i++) {
		for (int j = 0; j < L; j++) {
			double base = pl[i].site != pl[j].site ? wan :
			    pl[i].cluster != pl[j].cluster ? site_us : lan;
			rtt[i * L + j] = i == j ? 0 : base * (1 + jitter * noise(&st));
		}
	}
}

static void
check_labels(int L, const int *got, const int *want)
{
	for (int i = 0; i < L; i++)
		CHECK_INT_EQ(got[i], want[i]);
}

static void
three_sites_of_two_nodes_give_one_cluster_per_site(void)
{
	struct place pl[6] = { { 0, 0 }, { 0, 0 }, { 1, 0 }, { 1, 0 }, { 2, 0 }, { 2, 0 } };
	fill(6, pl, 60, 0, 10000, 0);
	int c[6], s[6], want[6] = { 0, 0, 1, 1, 2, 2 };
	CHECK_INT_EQ(qcg_topo_group(6, rtt, &defaults, c, s), 1);
	check_labels(6, c, want);
	check_labels(6, s, want);
}

static void
two_levels_give_clusters_inside_sites(void)
{
	struct place pl[8] = { { 0, 0 }, { 0, 0 }, { 0, 1 }, { 0, 1 },
		{ 1, 0 }, { 1, 0 }, { 1, 1 }, { 1, 1 } };
	fill(8, pl, 50, 1000, 20000, 0);
	int c[8], s[8], wc[8] = { 0, 0, 1, 1, 2, 2, 3, 3 }, ws[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	CHECK_INT_EQ(qcg_topo_group(8, rtt, &defaults, c, s), 2);
	check_labels(8, c, wc);
	check_labels(8, s, ws);
}

/* The testbed of 2 sites x 2 clusters x 2 nodes (RTT 60 us in a cluster, 1 ms in a site, 10 ms
 * across), 30 % jitter, at coll_qcg's defaults (floor 200 us, ratio 4): three tiers. */
static void
testbed_site_network_is_a_tier_at_the_component_defaults(void)
{
	const struct qcg_topo_group_params component = { .floor_us = 200, .ratio = 4 };
	struct place pl[8] = { { 0, 0 }, { 0, 0 }, { 0, 1 }, { 0, 1 },
		{ 1, 0 }, { 1, 0 }, { 1, 1 }, { 1, 1 } };
	fill(8, pl, 60, 1000, 10000, 0.3);
	int c[8], s[8], wc[8] = { 0, 0, 1, 1, 2, 2, 3, 3 }, ws[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	CHECK_INT_EQ(qcg_topo_group(8, rtt, &component, c, s), 2);
	check_labels(8, c, wc);
	check_labels(8, s, ws);
}

/* 30 % jitter everywhere, sites interleaved over the node numbers, one site of one node. */
static void
noisy_interleaved_sites_are_found_and_numbered_by_lowest_node(void)
{
	enum { L = 10 };
	struct place pl[L];
	for (int i = 0; i < L - 1; i++)
		pl[i].site = i % 3, pl[i].cluster = 0;
	pl[L - 1].site = 3, pl[L - 1].cluster = 0;
	fill(L, pl, 80, 0, 9000, 0.3);
	int c[L], s[L];
	CHECK_INT_EQ(qcg_topo_group(L, rtt, &defaults, c, s), 1);
	for (int i = 0; i < L; i++)
		CHECK_INT_EQ(s[i], pl[i].site);
	check_labels(L, c, s);
}

/* LAN noise well below the floor (10 vs 150 us: a ratio of 15) must not invent a level. */
static void
one_lan_with_noise_below_the_floor_is_one_cluster(void)
{
	struct place pl[4] = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 } };
	fill(4, pl, 10, 0, 0, 0);
	rtt[0 * 4 + 3] = rtt[3 * 4 + 0] = 150;
	rtt[1 * 4 + 2] = rtt[2 * 4 + 1] = 150;
	int c[4], s[4], want[4] = { 0, 0, 0, 0 };
	CHECK_INT_EQ(qcg_topo_group(4, rtt, &defaults, c, s), 0);
	check_labels(4, c, want);
	check_labels(4, s, want);
}

/* A chain of small steps (each under the ratio) stays one level even if its ends are far. */
static void
gradual_latencies_chain_into_one_level(void)
{
	enum { L = 5 };
	double step[L - 1] = { 300, 700, 1500, 3000 };
	for (int i = 0; i < L; i++)
		for (int j = 0; j < L; j++)
			rtt[i * L + j] = 1e6;
	for (int i = 0; i + 1 < L; i++)
		rtt[i * L + i + 1] = rtt[(i + 1) * L + i] = step[i];
	int c[L], s[L];
	CHECK_INT_EQ(qcg_topo_group(L, rtt, &defaults, c, s), 0);
	for (int i = 0; i < L; i++)
		CHECK(c[i] == 0 && s[i] == 0);
}

static void
one_node_per_site_gives_singletons(void)
{
	struct place pl[3] = { { 0, 0 }, { 1, 0 }, { 2, 0 } };
	fill(3, pl, 0, 0, 10000, 0.05);
	int c[3], s[3], want[3] = { 0, 1, 2 };
	CHECK_INT_EQ(qcg_topo_group(3, rtt, &defaults, c, s), 1);
	check_labels(3, c, want);
	check_labels(3, s, want);
}

static void
unmeasured_pairs_keep_nodes_apart(void)
{
	double m[9] = { 0, 50, -1,  50, 0, -1,  -1, -1, 0 };
	int c[3], s[3], want[3] = { 0, 0, 1 };
	CHECK_INT_EQ(qcg_topo_group(3, m, &defaults, c, s), 1);
	check_labels(3, c, want);
	/* one direction measured is enough */
	m[2] = 40000;
	CHECK_INT_EQ(qcg_topo_group(3, m, &defaults, c, s), 1);
	check_labels(3, s, want);
}

static void
single_node_and_bad_arguments(void)
{
	double m[1] = { 0 };
	int c[1] = { 7 }, s[1] = { 7 };
	CHECK_INT_EQ(qcg_topo_group(1, m, &defaults, c, s), 0);
	CHECK(c[0] == 0 && s[0] == 0);
	struct qcg_topo_group_params bad = { .floor_us = 200, .ratio = 1 };
	CHECK_INT_EQ(qcg_topo_group(1, m, &bad, c, s), -1);
	bad.ratio = 3, bad.floor_us = -1;
	CHECK_INT_EQ(qcg_topo_group(1, m, &bad, c, s), -1);
	CHECK_INT_EQ(qcg_topo_group(0, m, &defaults, c, s), -1);
	CHECK_INT_EQ(qcg_topo_group(QCG_TOPO_GROUP_MAX_NODES + 1, m, &defaults, c, s), -1);
}

int
main(void)
{
	RUN(three_sites_of_two_nodes_give_one_cluster_per_site);
	RUN(two_levels_give_clusters_inside_sites);
	RUN(testbed_site_network_is_a_tier_at_the_component_defaults);
	RUN(noisy_interleaved_sites_are_found_and_numbered_by_lowest_node);
	RUN(one_lan_with_noise_below_the_floor_is_one_cluster);
	RUN(gradual_latencies_chain_into_one_level);
	RUN(one_node_per_site_gives_singletons);
	RUN(unmeasured_pairs_keep_nodes_apart);
	RUN(single_node_and_bad_arguments);
	return check_exit();
}
