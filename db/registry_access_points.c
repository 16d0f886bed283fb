/*
 * registry_access_points.c: the access_points table: every listening socket of a job's
 * processes. Keyed by (job, address, port, cluster) (migration 008): each node has its own
 * port space, so two ranks on different nodes may listen on the same port, and two clusters of
 * one job may use the same private range, so one address may name a node in each.
 */
#include "config.h"

#include <string.h>

#include "registry_internal.h"

#define AP_COLUMNS "job, cluster, node, address, port, process"

int
registry_put_access_point(struct registry *reg, const struct access_point *ap)
{
	const char *op = "registry_put_access_point";
	sqlite3_stmt *st = reg_stmt(reg, STMT_AP_UPSERT,
	    "INSERT INTO access_points (" AP_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
	    "ON CONFLICT (job, address, port, cluster) DO UPDATE SET node = excluded.node, "
	    "process = excluded.process, "
	    "registered_at = excluded.registered_at", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (ap->port == 0) {
		reg_failf(reg, "%s: job '%.*s': port 0 is not a listening port", op,
		    QCG_NAME_MAX - 1, ap->job);
		goto out;
	}
	if (reg_bind_text(reg, st, 1, ap->job, sizeof(ap->job), op, "job") != 0 ||
	    reg_bind_text(reg, st, 2, ap->cluster, sizeof(ap->cluster), op, "cluster") != 0 ||
	    reg_bind_text(reg, st, 3, ap->node, sizeof(ap->node), op, "node") != 0 ||
	    reg_bind_text(reg, st, 4, ap->address, sizeof(ap->address), op, "address") != 0 ||
	    reg_bind_int64(reg, st, 5, ap->port, op) != 0 ||
	    reg_bind_text(reg, st, 6, ap->process, sizeof(ap->process), op, "process") != 0)
		goto out;
	if (sqlite3_step(st) == SQLITE_DONE) {
		rc = 0;
	} else if (sqlite3_extended_errcode(reg->db) == SQLITE_CONSTRAINT_FOREIGNKEY) {
		/* SQLite does not say which key; both are the caller's to check. */
		reg_failf(reg, "%s: job '%s' or cluster '%s' is not registered", op, ap->job,
		    ap->cluster);
		rc = REGISTRY_NOT_FOUND; /* the caller's mistake, not the registry's */
	} else {
		reg_fail_sqlite(reg, op);
	}
out:
	reg_release(st);
	return rc;
}

static int
read_access_point(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct access_point *ap = dst;
	int64_t port;

	memset(ap, 0, sizeof(*ap));
	if (reg_column_text(reg, st, 0, ap->job, sizeof(ap->job), op) != 0 ||
	    reg_column_text(reg, st, 1, ap->cluster, sizeof(ap->cluster), op) != 0 ||
	    reg_column_text(reg, st, 2, ap->node, sizeof(ap->node), op) != 0 ||
	    reg_column_text(reg, st, 3, ap->address, sizeof(ap->address), op) != 0 ||
	    reg_column_range(reg, st, 4, 1, UINT16_MAX, &port, op) != 0 ||
	    reg_column_text(reg, st, 5, ap->process, sizeof(ap->process), op) != 0)
		return -1;
	ap->port = (uint16_t)port;
	return 0;
}

int
registry_find_access_point(struct registry *reg, const char *job, const char *from_cluster,
    const char *address, uint16_t port, struct access_point *out)
{
	const char *op = "registry_find_access_point";
	if (reg->snapshot_cached)
		return reg_cache_get_access_point(reg, job, address, port, out) ? 0 :
		    REGISTRY_CACHE_MISS;
	/* The initiator's own cluster's listener first: two rows are two clusters sharing a
	 * private range, and of those the initiator reaches its own. */
	sqlite3_stmt *st = reg_stmt(reg, STMT_AP_FIND,
	    "SELECT " AP_COLUMNS " FROM access_points "
	    "WHERE job = ?1 AND address = ?2 AND port = ?3 "
	    "ORDER BY cluster = ?4 DESC, cluster LIMIT 2", op);
	struct access_point second;
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job") != 0 ||
	    reg_bind_text(reg, st, 2, address, QCG_ADDR_MAX, op, "address") != 0 ||
	    reg_bind_int64(reg, st, 3, port, op) != 0 ||
	    reg_bind_text(reg, st, 4, from_cluster, QCG_NAME_MAX, op, "cluster") != 0)
		goto out;
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: job '%s' has no access point at %s:%u", op, job, address,
		    (unsigned)port);
		rc = REGISTRY_NOT_FOUND;
		goto out;
	}
	if (step != SQLITE_ROW || read_access_point(reg, st, out, op) != 0) {
		if (step != SQLITE_ROW)
			reg_fail_sqlite(reg, op);
		goto out;
	}
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		rc = 0; /* the only listener there: any initiator's answer, so it may be cached */
		if (reg->in_snapshot)
			reg_cache_put_access_point(reg, out);
	} else if (step != SQLITE_ROW || read_access_point(reg, st, &second, op) != 0) {
		if (step != SQLITE_ROW)
			reg_fail_sqlite(reg, op);
	} else if (strcmp(out->cluster, from_cluster) == 0) {
		rc = 0; /* its own cluster's; not cached: another initiator's answer differs */
	} else {
		reg_failf(reg, "%s: job '%s' listens at %s:%u in clusters '%s' and '%s' (a shared "
		    "private range), neither the initiator's '%s': give each node its own port "
		    "window (QCG_NET_PORTS, as qcg-submit does)", op, job, address, (unsigned)port,
		    out->cluster, second.cluster, from_cluster);
		rc = REGISTRY_AMBIGUOUS;
	}
out:
	reg_release(st);
	return rc;
}

int
registry_list_access_points(struct registry *reg, const char *job, struct access_point **out,
    size_t *count)
{
	const char *op = "registry_list_access_points";
	sqlite3_stmt *st = reg_stmt(reg, STMT_AP_LIST,
	    "SELECT " AP_COLUMNS " FROM access_points WHERE job = ?1 "
	    "ORDER BY port, cluster, address", op);
	void *rows;

	if (reg_collect_for_job(reg, st, job, sizeof(**out), read_access_point, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}

int
registry_delete_job_access_points(struct registry *reg, const char *job, size_t *removed)
{
	const char *op = "registry_delete_job_access_points";
	sqlite3_stmt *st = reg_stmt(reg, STMT_AP_DELETE_JOB,
	    "DELETE FROM access_points WHERE job = ?1", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job") != 0 ||
	    reg_step_done(reg, st, op) != 0)
		goto out;
	if (removed != NULL)
		*removed = (size_t)sqlite3_changes(reg->db);
	rc = 0;
out:
	reg_release(st);
	return rc;
}
