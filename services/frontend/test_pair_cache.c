/*
 * test_pair_cache.c: the decisions per cluster pair keep only direct and port range, answer
 * for every listed peer of the pair's cluster with that peer as the target (and for nothing
 * else), and are dropped per job, per cluster, per failed pair and all at once; the table is
 * bounded and evicts the pair stored longest ago.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pair_cache.h"

/* The broker's answer for a connect to cluster/node at addr:port of job. */
static struct decision
answer(enum connect_method m, const char *job, const char *cluster, const char *node,
    const char *addr, uint16_t port)
{
	struct decision d = { .method = m, .has_target = true };
	snprintf(d.target.job, sizeof(d.target.job), "%s", job);
	snprintf(d.target.cluster, sizeof(d.target.cluster), "%s", cluster);
	snprintf(d.target.node, sizeof(d.target.node), "%s", node);
	snprintf(d.target.address, sizeof(d.target.address), "%s", addr);
	snprintf(d.target_public_address, sizeof(d.target_public_address), "192.0.2.1");
	d.target.port = port;
	return d;
}

static struct access_point
peer(const char *job, const char *cluster, const char *node, const char *addr, uint16_t port)
{
	struct access_point ap = { .port = port };
	snprintf(ap.job, sizeof(ap.job), "%s", job);
	snprintf(ap.cluster, sizeof(ap.cluster), "%s", cluster);
	snprintf(ap.node, sizeof(ap.node), "%s", node);
	snprintf(ap.address, sizeof(ap.address), "%s", addr);
	snprintf(ap.process, sizeof(ap.process), "rank-%u", port);
	return ap;
}

static void
a_listed_peer_gets_the_pairs_method_with_itself_as_target(void)
{
	struct pair_cache *c = pair_cache_new();
	struct access_point peers[] = {
		peer("j", "b", "b2", "10.2.0.2", 5003), peer("j", "b", "b1", "10.2.0.1", 5001),
		peer("j", "b", "b1", "10.2.0.1", 5002),
	};
	struct decision d = answer(METHOD_DIRECT, "j", "b", "b1", "10.2.0.1", 5001), got;
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, peers, 3), 1);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.2.0.2", 5003, &got), 1);
	CHECK_INT_EQ(got.method, METHOD_DIRECT);
	CHECK(got.has_target);
	CHECK_STR_EQ(got.target.node, "b2");
	CHECK_STR_EQ(got.target.cluster, "b");
	CHECK_STR_EQ(got.target.address, "10.2.0.2");
	CHECK_INT_EQ(got.target.port, 5003);
	CHECK_STR_EQ(got.target.process, "rank-5003");
	CHECK_STR_EQ(got.target_public_address, "192.0.2.1");
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.2.0.1", 5002, &got), 1);
	CHECK_STR_EQ(got.target.node, "b1");
	/* not listed: another port, another address on a listed port, another job */
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.2.0.1", 5004, &got), 0);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.2.0.9", 5001, &got), 0);
	CHECK_INT_EQ(pair_cache_lookup(c, "k", "10.2.0.1", 5001, &got), 0);
	pair_cache_free(c);
}

static void
only_direct_and_port_range_are_kept(void)
{
	struct pair_cache *c = pair_cache_new();
	struct access_point p = peer("j", "b", "b1", "10.2.0.1", 5001);
	struct decision d = answer(METHOD_PORT_RANGE, "j", "b", "b1", "10.2.0.1", 5001), got;
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, &p, 1), 1);
	for (int m = METHOD_REVERSAL; m <= METHOD_RELAY_CHAIN; m++) {
		d = answer((enum connect_method)m, "j", "c", "c1", "10.3.0.1", 6001);
		struct access_point q = peer("j", "c", "c1", "10.3.0.1", 6001);
		CHECK_INT_EQ(pair_cache_store(c, "j", &d, &q, 1), 0);
	}
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.3.0.1", 6001, &got), 0);
	CHECK_INT_EQ(pair_cache_count(c), 1);
	/* a decision naming no target, or no peer of its cluster, is not kept either */
	d = answer(METHOD_DIRECT, "j", "c", "c1", "10.3.0.1", 6001);
	d.has_target = false;
	struct access_point q = peer("j", "c", "c1", "10.3.0.1", 6001);
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, &q, 1), 0);
	d.has_target = true;
	struct access_point other = peer("j", "z", "z1", "10.3.0.1", 6001);
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, &other, 1), 0);
	CHECK_INT_EQ(pair_cache_count(c), 1);
	pair_cache_free(c);
}

static void
storing_a_pair_again_replaces_its_peers(void)
{
	struct pair_cache *c = pair_cache_new();
	struct access_point p1 = peer("j", "b", "b1", "10.2.0.1", 5001);
	struct access_point p2[] = { p1, peer("j", "b", "b2", "10.2.0.2", 5009) };
	struct decision d = answer(METHOD_DIRECT, "j", "b", "b1", "10.2.0.1", 5001), got;
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, &p1, 1), 1);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.2.0.2", 5009, &got), 0);
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, p2, 2), 1);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.2.0.2", 5009, &got), 1);
	CHECK_INT_EQ(pair_cache_count(c), 1);
	pair_cache_free(c);
}

static void
drops_by_job_cluster_pair_and_all(void)
{
	struct pair_cache *c = pair_cache_new();
	struct decision got;
	const char *jobs[] = { "j", "k" }, *clusters[] = { "b", "c" };
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++) {
			uint16_t port = (uint16_t)(5000 + 10 * i + k);
			struct access_point p = peer(jobs[i], clusters[k], "n", "10.0.0.1", port);
			struct decision d = answer(METHOD_DIRECT, jobs[i], clusters[k], "n",
			    "10.0.0.1", port);
			CHECK_INT_EQ(pair_cache_store(c, jobs[i], &d, &p, 1), 1);
		}
	CHECK_INT_EQ(pair_cache_count(c), 4);
	CHECK_INT_EQ(pair_cache_forget(c, "j", "b"), 1);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.0.0.1", 5000, &got), 0);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.0.0.1", 5001, &got), 1);
	CHECK_INT_EQ(pair_cache_drop_cluster(c, "c"), 2);
	CHECK_INT_EQ(pair_cache_lookup(c, "k", "10.0.0.1", 5011, &got), 0);
	CHECK_INT_EQ(pair_cache_lookup(c, "k", "10.0.0.1", 5010, &got), 1);
	CHECK_INT_EQ(pair_cache_drop_job(c, "k"), 1);
	CHECK_INT_EQ(pair_cache_count(c), 0);
	struct access_point p = peer("j", "b", "n", "10.0.0.1", 5000);
	struct decision d = answer(METHOD_DIRECT, "j", "b", "n", "10.0.0.1", 5000);
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, &p, 1), 1);
	CHECK_INT_EQ(pair_cache_clear(c), 1);
	CHECK_INT_EQ(pair_cache_lookup(c, "j", "10.0.0.1", 5000, &got), 0);
	pair_cache_free(c);
}

static void
a_full_table_evicts_the_pair_stored_longest_ago(void)
{
	struct pair_cache *c = pair_cache_new();
	struct decision got;
	char job[32];
	for (int i = 0; i <= PAIR_CACHE_PAIRS; i++) {
		snprintf(job, sizeof(job), "job-%d", i);
		struct access_point p = peer(job, "b", "n", "10.0.0.1", 5000);
		struct decision d = answer(METHOD_DIRECT, job, "b", "n", "10.0.0.1", 5000);
		CHECK_INT_EQ(pair_cache_store(c, job, &d, &p, 1), 1);
	}
	CHECK_INT_EQ(pair_cache_count(c), PAIR_CACHE_PAIRS);
	CHECK_INT_EQ(pair_cache_lookup(c, "job-0", "10.0.0.1", 5000, &got), 0);
	CHECK_INT_EQ(pair_cache_lookup(c, "job-1", "10.0.0.1", 5000, &got), 1);
	snprintf(job, sizeof(job), "job-%d", PAIR_CACHE_PAIRS);
	CHECK_INT_EQ(pair_cache_lookup(c, job, "10.0.0.1", 5000, &got), 1);
	pair_cache_free(c);
}

/* What a helper is given to keep the pair itself: every peer, as stored, and nothing for a
 * pair there is not. */
static void
peers_of_a_pair_are_given_back_whole(void)
{
	struct pair_cache *c = pair_cache_new();
	struct access_point peers[] = {
		peer("j", "b", "b2", "10.2.0.2", 5003), peer("j", "b", "b1", "10.2.0.1", 5001),
		peer("j", "c", "c1", "10.3.0.1", 6001), /* another cluster: not the pair's */
	};
	struct decision d = answer(METHOD_DIRECT, "j", "b", "b1", "10.2.0.1", 5001);
	size_t n = 99;
	CHECK_INT_EQ(pair_cache_store(c, "j", &d, peers, 3), 1);
	struct access_point *got = pair_cache_peers(c, "j", "b", &n);
	CHECK(got != NULL);
	CHECK_INT_EQ(n, 2);
	if (got != NULL && n == 2) { /* sorted by port */
		CHECK_INT_EQ(got[0].port, 5001);
		CHECK_STR_EQ(got[0].node, "b1");
		CHECK_STR_EQ(got[0].address, "10.2.0.1");
		CHECK_STR_EQ(got[0].process, "rank-5001");
		CHECK_STR_EQ(got[0].cluster, "b");
		CHECK_STR_EQ(got[0].job, "j");
		CHECK_INT_EQ(got[1].port, 5003);
		CHECK_STR_EQ(got[1].node, "b2");
	}
	free(got);
	CHECK(pair_cache_peers(c, "j", "c", &n) == NULL);
	CHECK_INT_EQ(n, 0);
	CHECK(pair_cache_peers(c, "other-job", "b", &n) == NULL);
	pair_cache_forget(c, "j", "b");
	CHECK(pair_cache_peers(c, "j", "b", &n) == NULL);
	pair_cache_free(c);
}

int
main(void)
{
	RUN(a_listed_peer_gets_the_pairs_method_with_itself_as_target);
	RUN(only_direct_and_port_range_are_kept);
	RUN(storing_a_pair_again_replaces_its_peers);
	RUN(drops_by_job_cluster_pair_and_all);
	RUN(a_full_table_evicts_the_pair_stored_longest_ago);
	RUN(peers_of_a_pair_are_given_back_whole);
	return check_exit();
}
