/*
 * test_mcast_registry.c: the life of a job's multicast groups in the registry
 * (db/registry_multicast.c, db/registry_jobs.c): a job that ends gives its groups back (another
 * job then gets the same group), an ended job cannot take one again, and one job cannot hold
 * more than its share of the range.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "registry.h"

#define USER_DN "/O=Grid/CN=mcast user"

static char db_path[64];

static struct registry *
open_with_jobs(const char *const *ids, int n)
{
	struct registry *reg;
	char err[512];
	snprintf(db_path, sizeof(db_path), "/tmp/qcg-test-mcast-%d.db", (int)getpid());
	unlink(db_path);
	if (registry_open(db_path, &reg, err, sizeof(err)) != 0) {
		fprintf(stderr, "cannot open %s: %s\n", db_path, err);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		struct job j;
		memset(&j, 0, sizeof(j));
		snprintf(j.id, sizeof(j.id), "%s", ids[i]);
		snprintf(j.owner_dn, sizeof(j.owner_dn), USER_DN);
		j.state = JOB_PENDING;
		j.submitted = 100 + i;
		CHECK_INT_EQ(registry_put_job(reg, &j), 0);
	}
	return reg;
}

static void
close_and_remove(struct registry *reg)
{
	registry_close(reg);
	unlink(db_path);
}

static void
a_job_that_ends_gives_its_groups_to_the_next_job(void)
{
	const char *ids[] = { "first", "second" };
	struct registry *reg = open_with_jobs(ids, 2);
	struct multicast_group g, h, *list = NULL;
	size_t n = 9;
	CHECK_INT_EQ(registry_set_job_state(reg, "first", JOB_RUNNING, 0, 1000), 0);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "first", &g), 0);
	CHECK_INT_EQ(registry_set_job_state(reg, "first", JOB_DONE, 0, 1001), 0);
	CHECK_INT_EQ(registry_list_multicast_groups(reg, "first", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "second", &h), 0);
	CHECK_STR_EQ(h.address, g.address);
	close_and_remove(reg);
}

static void
a_failed_or_cancelled_job_releases_too(void)
{
	const char *ids[] = { "f", "c" };
	struct registry *reg = open_with_jobs(ids, 2);
	struct multicast_group g, *list = NULL;
	size_t n = 9;
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "f", &g), 0);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "c", &g), 0);
	CHECK_INT_EQ(registry_set_job_state(reg, "f", JOB_FAILED, 3, 1000), 0);
	CHECK_INT_EQ(registry_set_job_state(reg, "c", JOB_CANCELLED, 0, 1000), 0);
	CHECK_INT_EQ(registry_list_multicast_groups(reg, "f", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);
	CHECK_INT_EQ(registry_list_multicast_groups(reg, "c", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);
	close_and_remove(reg);
}

static void
an_ended_job_cannot_take_a_group_again(void)
{
	const char *ids[] = { "over" };
	struct registry *reg = open_with_jobs(ids, 1);
	struct multicast_group g;
	CHECK_INT_EQ(registry_set_job_state(reg, "over", JOB_DONE, 0, 1000), 0);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "over", &g), -1);
	CHECK(strstr(registry_error(reg), "has ended") != NULL);
	close_and_remove(reg);
}

static void
one_job_holds_at_most_256_groups(void)
{
	const char *ids[] = { "greedy", "other" };
	struct registry *reg = open_with_jobs(ids, 2);
	struct multicast_group g;
	int ok = 0;
	for (int i = 0; i < 300; i++)
		ok += registry_allocate_multicast_group(reg, "greedy", &g) == 0;
	CHECK_INT_EQ(ok, 256);
	CHECK(strstr(registry_error(reg), "256 multicast groups (the limit)") != NULL);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "other", &g), 0);
	CHECK_STR_EQ(g.address, "239.192.1.1"); /* slots 1..256 are greedy's */
	close_and_remove(reg);
}

int
main(void)
{
	RUN(a_job_that_ends_gives_its_groups_to_the_next_job);
	RUN(a_failed_or_cancelled_job_releases_too);
	RUN(an_ended_job_cannot_take_a_group_again);
	RUN(one_job_holds_at_most_256_groups);
	return check_exit();
}
