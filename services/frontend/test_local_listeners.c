/*
 * test_local_listeners.c: the per-job lists of this cluster's listeners (local_listeners.h)
 * keep one entry per (job, address, port), are bounded per job and in jobs (the oldest job
 * goes), and forget a job that ended.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "local_listeners.h"

static void
a_listener_is_one_entry_and_jobs_are_apart(void)
{
	struct local_listeners *l = local_listeners_new();
	struct local_listener v[4];
	CHECK_INT_EQ(local_listeners_add(l, "j1", "10.0.0.1", 5000), 0);
	CHECK_INT_EQ(local_listeners_add(l, "j1", "10.0.0.2", 5000), 0); /* another node's */
	CHECK_INT_EQ(local_listeners_add(l, "j1", "10.0.0.1", 5000), 0); /* again: one entry */
	CHECK_INT_EQ(local_listeners_add(l, "j1", "10.0.0.1", 5001), 0);
	CHECK_INT_EQ(local_listeners_add(l, "j2", "10.0.0.9", 6000), 0);
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j1", v, 4), 3);
	CHECK_STR_EQ(v[0].address, "10.0.0.1");
	CHECK_INT_EQ(v[0].port, 5000);
	CHECK_STR_EQ(v[1].address, "10.0.0.2");
	CHECK_INT_EQ(v[1].port, 5000);
	CHECK_INT_EQ(v[2].port, 5001);
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j1", v, 1), 1); /* max is kept */
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j2", v, 4), 1);
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j3", v, 4), 0);
	local_listeners_drop_job(l, "j1");
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j1", v, 4), 0);
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j2", v, 4), 1);
	local_listeners_free(l);
}

static void
bounded_per_job_and_in_jobs(void)
{
	struct local_listeners *l = local_listeners_new();
	struct local_listener *v = calloc(LOCAL_LISTENERS_PER_JOB, sizeof(*v));
	char job[32];
	for (int p = 1; p <= LOCAL_LISTENERS_PER_JOB; p++)
		CHECK_INT_EQ(local_listeners_add(l, "big", "10.0.0.1", (uint16_t)p), 0);
	CHECK_INT_EQ(local_listeners_add(l, "big", "10.0.0.1", LOCAL_LISTENERS_PER_JOB + 1), -1);
	CHECK_INT_EQ(local_listeners_add(l, "big", "10.0.0.3", 7), -1); /* another's: no room */
	CHECK_INT_EQ(local_listeners_add(l, "big", "10.0.0.1", 7), 0);  /* a known one: no-op */
	/* LOCAL_LISTENERS_JOBS more jobs: "big", the oldest, makes room */
	for (int j = 0; j < LOCAL_LISTENERS_JOBS; j++) {
		snprintf(job, sizeof(job), "j%d", j);
		CHECK_INT_EQ(local_listeners_add(l, job, "10.0.0.1", 1), 0);
	}
	CHECK_INT_EQ((int)local_listeners_of_job(l, "big", v, LOCAL_LISTENERS_PER_JOB), 0);
	CHECK_INT_EQ((int)local_listeners_of_job(l, "j0", v, 4), 1);
	free(v);
	local_listeners_free(l);
}

int
main(void)
{
	RUN(a_listener_is_one_entry_and_jobs_are_apart);
	RUN(bounded_per_job_and_in_jobs);
	return check_exit();
}
