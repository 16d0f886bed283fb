/*
 * test_job_clusters_registry.c: a job's clusters and their batch jobs in the registry
 * (db/registry_job_clusters.c), on a real SQLite file: what is set is read back in cluster
 * order, setting again replaces it, a job nobody recorded is refused, limits hold, and the
 * rows go with their job.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "registry.h"

static char db_path[64];

static struct registry *
open_with_job(const char *id)
{
	struct registry *reg;
	struct job j;
	char err[512];
	snprintf(db_path, sizeof(db_path), "/tmp/qcg-test-job-clusters-%d.db", (int)getpid());
	unlink(db_path);
	if (registry_open(db_path, &reg, err, sizeof(err)) != 0) {
		fprintf(stderr, "cannot open %s: %s\n", db_path, err);
		exit(1);
	}
	memset(&j, 0, sizeof(j));
	snprintf(j.id, sizeof(j.id), "%s", id);
	snprintf(j.owner_dn, sizeof(j.owner_dn), "/O=Grid/CN=user");
	j.state = JOB_PENDING;
	CHECK_INT_EQ(registry_put_job(reg, &j), 0);
	return reg;
}

static void
close_and_remove(struct registry *reg)
{
	registry_close(reg);
	unlink(db_path);
}

static void
clusters_are_read_back_in_name_order_with_their_batch_jobs(void)
{
	struct registry *reg = open_with_job("j1");
	struct job_cluster_record set[3] = { { "c", "7" }, { "a", "12" }, { "b", "" } }, *got;
	size_t n = 0;
	CHECK_INT_EQ(registry_get_job_clusters(reg, "j1", &got, &n), 0);
	CHECK_INT_EQ((int)n, 0);
	free(got);
	CHECK_INT_EQ(registry_set_job_clusters(reg, "j1", set, 3), 0);
	CHECK_INT_EQ(registry_get_job_clusters(reg, "j1", &got, &n), 0);
	CHECK_INT_EQ((int)n, 3);
	if (n == 3) {
		CHECK_STR_EQ(got[0].cluster, "a");
		CHECK_STR_EQ(got[0].batch_job_id, "12");
		CHECK_STR_EQ(got[1].cluster, "b");
		CHECK_STR_EQ(got[1].batch_job_id, "");
		CHECK_STR_EQ(got[2].cluster, "c");
		CHECK_STR_EQ(got[2].batch_job_id, "7");
	}
	free(got);
	close_and_remove(reg);
}

static void
setting_again_replaces_what_was_recorded(void)
{
	struct registry *reg = open_with_job("j2");
	struct job_cluster_record first[2] = { { "a", "1" }, { "b", "2" } }, again[1] = { { "b", "3" } };
	struct job_cluster_record *got;
	size_t n = 0;
	CHECK_INT_EQ(registry_set_job_clusters(reg, "j2", first, 2), 0);
	CHECK_INT_EQ(registry_set_job_clusters(reg, "j2", again, 1), 0);
	CHECK_INT_EQ(registry_get_job_clusters(reg, "j2", &got, &n), 0);
	CHECK_INT_EQ((int)n, 1);
	if (n == 1) {
		CHECK_STR_EQ(got[0].cluster, "b");
		CHECK_STR_EQ(got[0].batch_job_id, "3");
	}
	free(got);
	close_and_remove(reg);
}

static void
an_unknown_job_a_nameless_cluster_and_too_many_are_refused(void)
{
	struct registry *reg = open_with_job("j3");
	struct job_cluster_record one[1] = { { "a", "1" } }, nameless[1] = { { "", "1" } };
	struct job_cluster_record many[QCG_JOB_CLUSTERS_MAX + 1];
	struct job_cluster_record *got;
	size_t n = 9;
	CHECK_INT_EQ(registry_set_job_clusters(reg, "nobody", one, 1), REGISTRY_NOT_FOUND);
	CHECK(strstr(registry_error(reg), "no job 'nobody'") != NULL);
	CHECK_INT_EQ(registry_set_job_clusters(reg, "j3", nameless, 1), -1);
	memset(many, 0, sizeof(many));
	for (int i = 0; i <= QCG_JOB_CLUSTERS_MAX; i++)
		snprintf(many[i].cluster, sizeof(many[i].cluster), "c%d", i);
	CHECK_INT_EQ(registry_set_job_clusters(reg, "j3", many, QCG_JOB_CLUSTERS_MAX + 1), -1);
	CHECK(strstr(registry_error(reg), "more than") != NULL);
	/* A refused set leaves nothing behind, and the registry goes on working. */
	CHECK_INT_EQ(registry_get_job_clusters(reg, "j3", &got, &n), 0);
	CHECK_INT_EQ((int)n, 0);
	free(got);
	CHECK_INT_EQ(registry_set_job_clusters(reg, "j3", one, 1), 0);
	close_and_remove(reg);
}

int
main(void)
{
	RUN(clusters_are_read_back_in_name_order_with_their_batch_jobs);
	RUN(setting_again_replaces_what_was_recorded);
	RUN(an_unknown_job_a_nameless_cluster_and_too_many_are_refused);
	return check_exit();
}
