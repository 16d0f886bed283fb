/*
 * test_resolve_cache.c: the per-job resolution cache keeps only replayable answers, is bounded
 * in total (least recently used goes) and per job, and forgets keys and whole jobs.
 */
#include "config.h"

#include <stdio.h>

#include "check.h"
#include "resolve_cache.h"

static struct decision
answer(enum connect_method m, const char *node)
{
	struct decision d = { .method = m, .has_target = true };
	snprintf(d.target.node, sizeof(d.target.node), "%s", node);
	return d;
}

static void
only_direct_and_port_range_answers_are_kept(void)
{
	struct resolve_cache *c = resolve_cache_new(10, 10);
	struct decision d = answer(METHOD_DIRECT, "a1"), got;
	CHECK_INT_EQ(resolve_cache_store(c, "j", "10.0.0.1", 5000, &d), 1);
	d = answer(METHOD_PORT_RANGE, "a2");
	CHECK_INT_EQ(resolve_cache_store(c, "j", "10.0.0.2", 5000, &d), 1);
	for (int m = METHOD_REVERSAL; m <= METHOD_RELAY_CHAIN; m++) {
		d = answer((enum connect_method)m, "x");
		CHECK_INT_EQ(resolve_cache_store(c, "j", "10.0.0.3", 5000, &d), 0);
	}
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "10.0.0.1", 5000, &got), 1);
	CHECK_STR_EQ(got.target.node, "a1");
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "10.0.0.3", 5000, &got), 0);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "10.0.0.1", 5001, &got), 0);
	CHECK_INT_EQ(resolve_cache_lookup(c, "k", "10.0.0.1", 5000, &got), 0);
	CHECK_INT_EQ(resolve_cache_count(c), 2);
	resolve_cache_free(c);
}

static void
total_bound_evicts_the_least_recently_used(void)
{
	struct resolve_cache *c = resolve_cache_new(3, 3);
	struct decision d = answer(METHOD_DIRECT, "n"), got;
	resolve_cache_store(c, "j", "a", 1, &d);
	resolve_cache_store(c, "j", "b", 1, &d);
	resolve_cache_store(c, "k", "c", 1, &d);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "a", 1, &got), 1); /* a is now the newest */
	resolve_cache_store(c, "k", "d", 1, &d);                    /* evicts b */
	CHECK_INT_EQ(resolve_cache_count(c), 3);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "b", 1, &got), 0);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "a", 1, &got), 1);
	CHECK_INT_EQ(resolve_cache_lookup(c, "k", "d", 1, &got), 1);
	resolve_cache_free(c);
}

static void
per_job_bound_evicts_only_that_jobs_oldest(void)
{
	struct resolve_cache *c = resolve_cache_new(100, 2);
	struct decision d = answer(METHOD_DIRECT, "n"), got;
	resolve_cache_store(c, "other", "z", 1, &d); /* oldest of all, but another job */
	resolve_cache_store(c, "j", "a", 1, &d);
	resolve_cache_store(c, "j", "b", 1, &d);
	resolve_cache_store(c, "j", "c", 1, &d);
	CHECK_INT_EQ(resolve_cache_count(c), 3);
	CHECK_INT_EQ(resolve_cache_lookup(c, "other", "z", 1, &got), 1);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "a", 1, &got), 0);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "c", 1, &got), 1);
	resolve_cache_free(c);
}

static void
forget_and_drop_job_remove_answers(void)
{
	struct resolve_cache *c = resolve_cache_new(1000, 1000);
	struct decision d = answer(METHOD_DIRECT, "n"), got;
	char addr[32];
	for (int i = 0; i < 500; i++) { /* enough to share hash buckets */
		snprintf(addr, sizeof(addr), "10.0.%d.%d", i / 256, i % 256);
		resolve_cache_store(c, i % 2 ? "odd" : "even", addr, 7000, &d);
	}
	CHECK_INT_EQ(resolve_cache_count(c), 500);
	resolve_cache_forget(c, "odd", "10.0.0.1", 7000);
	CHECK_INT_EQ(resolve_cache_lookup(c, "odd", "10.0.0.1", 7000, &got), 0);
	CHECK_INT_EQ(resolve_cache_drop_job(c, "even"), 250);
	CHECK_INT_EQ(resolve_cache_count(c), 249);
	CHECK_INT_EQ(resolve_cache_lookup(c, "even", "10.0.0.0", 7000, &got), 0);
	CHECK_INT_EQ(resolve_cache_lookup(c, "odd", "10.0.1.243", 7000, &got), 1);
	CHECK_INT_EQ(resolve_cache_drop_job(c, "odd"), 249);
	CHECK_INT_EQ(resolve_cache_count(c), 0);
	resolve_cache_free(c);
}

static void
storing_a_key_again_replaces_its_answer(void)
{
	struct resolve_cache *c = resolve_cache_new(10, 10);
	struct decision d = answer(METHOD_DIRECT, "old"), got;
	resolve_cache_store(c, "j", "a", 1, &d);
	d = answer(METHOD_PORT_RANGE, "new");
	resolve_cache_store(c, "j", "a", 1, &d);
	CHECK_INT_EQ(resolve_cache_count(c), 1);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "a", 1, &got), 1);
	CHECK_STR_EQ(got.target.node, "new");
	resolve_cache_free(c);
}

static void
zero_size_cache_keeps_nothing(void)
{
	struct resolve_cache *c = resolve_cache_new(0, 10);
	struct decision d = answer(METHOD_DIRECT, "n"), got;
	CHECK_INT_EQ(resolve_cache_store(c, "j", "a", 1, &d), 0);
	CHECK_INT_EQ(resolve_cache_lookup(c, "j", "a", 1, &got), 0);
	resolve_cache_free(c);
}

int
main(void)
{
	RUN(only_direct_and_port_range_answers_are_kept);
	RUN(total_bound_evicts_the_least_recently_used);
	RUN(per_job_bound_evicts_only_that_jobs_oldest);
	RUN(forget_and_drop_job_remove_answers);
	RUN(storing_a_key_again_replaces_its_answer);
	RUN(zero_size_cache_keeps_nothing);
	return check_exit();
}
