/*
 * registry_job_clusters.c: the job_clusters table: which clusters hold a co-allocated job, and
 * the batch system's job on each (Slurm's job id), for qcg-status and qcg-query.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

/* Whether job exists (1), not (0), or the query failed (-1, error set). */
static int
job_exists(struct registry *reg, const char *job, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_STATE, "SELECT state FROM jobs WHERE id = ?1", op);
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job id") == 0) {
		step = sqlite3_step(st);
		rc = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : reg_fail_sqlite(reg, op);
	}
	reg_release(st);
	return rc;
}

/* Insert one row of job's clusters; 0 or -1 (error set). */
static int
insert_cluster(struct registry *reg, const char *job, const struct job_cluster_record *c,
    const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_CLUSTERS_INSERT,
	    "INSERT INTO job_clusters (job, cluster, batch_job_id) VALUES (?1, ?2, ?3)", op);
	int rc;

	if (st == NULL)
		return -1;
	rc = reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job id") != 0 ||
	    reg_bind_text(reg, st, 2, c->cluster, sizeof(c->cluster), op, "cluster") != 0 ||
	    reg_bind_text(reg, st, 3, c->batch_job_id, sizeof(c->batch_job_id), op,
		"batch job id") != 0 ||
	    reg_step_done(reg, st, op) != 0 ? -1 : 0;
	reg_release(st);
	return rc;
}

int
registry_set_job_clusters(struct registry *reg, const char *job,
    const struct job_cluster_record *clusters, size_t count)
{
	const char *op = "registry_set_job_clusters";
	sqlite3_stmt *st;
	int rc = -1, exists;

	if (count > QCG_JOB_CLUSTERS_MAX)
		return reg_failf(reg, "%s: %zu clusters, more than %d", op, count,
		    QCG_JOB_CLUSTERS_MAX);
	for (size_t i = 0; i < count; i++)
		if (clusters[i].cluster[0] == '\0')
			return reg_failf(reg, "%s: cluster %zu has no name", op, i + 1);
	if (reg_begin(reg, op) != 0)
		return -1;
	if ((exists = job_exists(reg, job, op)) <= 0) {
		if (exists == 0) {
			reg_failf(reg, "%s: no job '%s'", op, job);
			rc = REGISTRY_NOT_FOUND;
		}
		goto fail;
	}
	st = reg_stmt(reg, STMT_JOB_CLUSTERS_DELETE, "DELETE FROM job_clusters WHERE job = ?1", op);
	if (st == NULL)
		goto fail;
	int deleted = reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job id") == 0 &&
	    reg_step_done(reg, st, op) == 0;
	reg_release(st);
	if (!deleted)
		goto fail;
	for (size_t i = 0; i < count; i++)
		if (insert_cluster(reg, job, &clusters[i], op) != 0)
			goto fail;
	return reg_commit(reg, op);
fail:
	reg_rollback(reg);
	return rc;
}

static int
read_cluster(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct job_cluster_record *c = dst;

	if (reg_column_text(reg, st, 0, c->cluster, sizeof(c->cluster), op) != 0 ||
	    reg_column_text(reg, st, 1, c->batch_job_id, sizeof(c->batch_job_id), op) != 0)
		return -1;
	return 0;
}

int
registry_get_job_clusters(struct registry *reg, const char *job,
    struct job_cluster_record **out, size_t *count)
{
	const char *op = "registry_get_job_clusters";
	void *rows = NULL;

	*out = NULL;
	*count = 0;
	if (reg_collect_for_job(reg, reg_stmt(reg, STMT_JOB_CLUSTERS_LIST,
	    "SELECT cluster, batch_job_id FROM job_clusters WHERE job = ?1 ORDER BY cluster", op),
	    job, sizeof(**out), read_cluster, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}
