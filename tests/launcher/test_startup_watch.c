/*
 * test_startup_watch.c: startup_watch.h without a grid. The watched nodes are the grant's but
 * mpirun's own; a node is through once its orted made a connection to a daemon of the job
 * (connections to ranks do not count); a node the broker refused every way to a daemon fails
 * the job at once, named; a node that never reached one fails it when the start-up time is
 * over, named; no limit means only refusals fail; once all are through the watch is done.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "startup_watch.h"

static struct job_cluster clusters[2];
static struct coalloc alloc;
static struct startup_watch w;
static char why[1024];

/* Clusters a (a1, a2) and user (user): mpirun runs on host user. */
static void
setup(int timeout_s)
{
	memset(&alloc, 0, sizeof(alloc));
	snprintf(clusters[0].name, sizeof(clusters[0].name), "a");
	snprintf(clusters[1].name, sizeof(clusters[1].name), "user");
	alloc.count = 2;
	for (int p = 0; p < 2; p++)
		alloc.part[p].cluster = &clusters[p];
	alloc.part[0].node_count = 2;
	snprintf(alloc.part[0].node[0].name, QCG_NAME_MAX, "a1");
	snprintf(alloc.part[0].node[1].name, QCG_NAME_MAX, "a2");
	alloc.part[1].node_count = 1;
	snprintf(alloc.part[1].node[0].name, QCG_NAME_MAX, "user");
	startup_watch_init(&w, &alloc, "user", timeout_s);
	why[0] = '\0';
}

/* mpirun listens on user:1000, a1's orted on a/a1:2000; a rank on a/a2:3000. */
static bool
daemon_at(void *arg, const char *cluster, const char *node, unsigned short port)
{
	(void)arg;
	return (strcmp(cluster, "user") == 0 && strcmp(node, "user") == 0 && port == 1000) ||
	    (strcmp(cluster, "a") == 0 && strcmp(node, "a1") == 0 && port == 2000);
}

static enum startup_state
judge(const struct startup_conn *c, size_t n, time_t now)
{
	return startup_watch_judge(&w, "job-1", c, n, daemon_at, NULL, now, why, sizeof(why));
}

static void
mpiruns_node_is_not_watched(void)
{
	setup(60);
	CHECK_INT_EQ(w.count, 2);
	CHECK_STR_EQ(w.node[0].node, "a1");
	CHECK_STR_EQ(w.node[1].node, "a2");
}

static void
nodes_through_to_a_daemon_end_the_watch(void)
{
	setup(60);
	struct startup_conn c[] = {
		{ "a", "a1", "user", "user", 1000, true, false },
		{ "a", "a2", "a", "a1", 2000, true, false }, /* to its parent orted */
	};
	CHECK_INT_EQ(judge(c, 1, time(NULL)), STARTUP_GOING);
	CHECK_INT_EQ(judge(c, 2, time(NULL)), STARTUP_DONE);
	CHECK(w.done);
	CHECK_INT_EQ(judge(NULL, 0, time(NULL) + 3600), STARTUP_DONE);
}

static void
a_connection_to_a_rank_does_not_count(void)
{
	setup(60);
	struct startup_conn c[] = {
		{ "a", "a1", "user", "user", 1000, true, false },
		{ "a", "a2", "a", "a2", 3000, true, false },
		{ "a", "a2", "a", "a2", 3000, false, true },
	};
	CHECK_INT_EQ(judge(c, 3, time(NULL)), STARTUP_GOING);
}

static void
a_refused_node_fails_the_job_at_once_named(void)
{
	setup(60);
	struct startup_conn c[] = {
		{ "a", "a1", "user", "user", 1000, true, false },
		{ "a", "a2", "user", "user", 1000, false, true },
	};
	CHECK_INT_EQ(judge(c, 2, time(NULL)), STARTUP_FAILED);
	CHECK(strstr(why, "on a/a2 cannot reach mpirun") != NULL);
	CHECK(strstr(why, "qcg-query connections job-1)") != NULL);
	CHECK(strstr(why, "a/a1") == NULL);
}

static void
a_refusal_then_a_success_is_through(void)
{
	setup(60);
	struct startup_conn c[] = {
		{ "a", "a2", "user", "user", 1000, false, true },
		{ "a", "a2", "user", "user", 1000, true, false },
		{ "a", "a1", "user", "user", 1000, true, false },
	};
	CHECK_INT_EQ(judge(c, 3, time(NULL)), STARTUP_DONE);
}

static void
a_failed_method_that_the_next_may_replace_is_no_refusal(void)
{
	setup(60);
	struct startup_conn c[] = { { "a", "a2", "user", "user", 1000, false, false } };
	CHECK_INT_EQ(judge(c, 1, time(NULL)), STARTUP_GOING);
}

static void
the_start_up_time_fails_the_nodes_not_through_named(void)
{
	setup(60);
	struct startup_conn c[] = { { "a", "a1", "user", "user", 1000, true, false } };
	CHECK_INT_EQ(judge(c, 1, time(NULL) + 59), STARTUP_GOING);
	CHECK_INT_EQ(judge(c, 1, time(NULL) + 61), STARTUP_FAILED);
	CHECK(strstr(why, "no progress in start-up") != NULL);
	CHECK(strstr(why, "on a/a2 did not reach mpirun") != NULL);
}

static void
no_time_limit_fails_only_on_a_refusal(void)
{
	setup(0);
	CHECK_INT_EQ(judge(NULL, 0, time(NULL) + 100000), STARTUP_GOING);
	struct startup_conn c[] = { { "a", "a1", "user", "user", 1000, false, true } };
	CHECK_INT_EQ(judge(c, 1, time(NULL)), STARTUP_FAILED);
}

static void
a_job_only_on_mpiruns_node_has_nothing_to_watch(void)
{
	memset(&alloc, 0, sizeof(alloc));
	snprintf(clusters[1].name, sizeof(clusters[1].name), "user");
	alloc.count = 1;
	alloc.part[0].cluster = &clusters[1];
	alloc.part[0].node_count = 1;
	snprintf(alloc.part[0].node[0].name, QCG_NAME_MAX, "user");
	startup_watch_init(&w, &alloc, "user", 60);
	CHECK(w.done);
	CHECK_INT_EQ(judge(NULL, 0, time(NULL) + 100), STARTUP_DONE);
}

int
main(void)
{
	RUN(mpiruns_node_is_not_watched);
	RUN(nodes_through_to_a_daemon_end_the_watch);
	RUN(a_connection_to_a_rank_does_not_count);
	RUN(a_refused_node_fails_the_job_at_once_named);
	RUN(a_refusal_then_a_success_is_through);
	RUN(a_failed_method_that_the_next_may_replace_is_no_refusal);
	RUN(the_start_up_time_fails_the_nodes_not_through_named);
	RUN(no_time_limit_fails_only_on_a_refusal);
	RUN(a_job_only_on_mpiruns_node_has_nothing_to_watch);
	return check_exit();
}
