/*
 * registry_connections.c: the connection log: one row per connection attempt, with the method
 * the broker chose, whether it worked and how long setting it up took.
 */
#include "config.h"

#include <string.h>

#include "registry_internal.h"

/* Rows one prune statement deletes at most (about 10 ms of work). */
#define CONN_PRUNE_BATCH 10000

#define CONN_COLUMNS "job, from_cluster, from_node, to_cluster, to_node, to_port, method, " \
	"succeeded, setup_usec, at"

int
registry_log_connection(struct registry *reg, const struct connection_record *rec)
{
	const char *op = "registry_log_connection";
	sqlite3_stmt *st = reg_stmt(reg, STMT_CONN_INSERT,
	    "INSERT INTO connections (" CONN_COLUMNS ") "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", op);
	const char *method = connect_method_name(rec->method);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (strcmp(method, "?") == 0) {
		reg_failf(reg, "%s: connection method %d is not known", op, (int)rec->method);
		goto out;
	}
	if (rec->setup_usec < 0) {
		reg_failf(reg, "%s: negative setup time %lld us", op, (long long)rec->setup_usec);
		goto out;
	}
	if (reg_bind_text(reg, st, 1, rec->job, sizeof(rec->job), op, "job") != 0 ||
	    reg_bind_text(reg, st, 2, rec->from_cluster, sizeof(rec->from_cluster), op,
		"from_cluster") != 0 ||
	    reg_bind_text(reg, st, 3, rec->from_node, sizeof(rec->from_node), op, "from_node") != 0 ||
	    reg_bind_text(reg, st, 4, rec->to_cluster, sizeof(rec->to_cluster), op,
		"to_cluster") != 0 ||
	    reg_bind_text(reg, st, 5, rec->to_node, sizeof(rec->to_node), op, "to_node") != 0 ||
	    reg_bind_int64(reg, st, 6, rec->to_port, op) != 0 ||
	    reg_bind_text(reg, st, 7, method, QCG_NAME_MAX, op, "method") != 0 ||
	    reg_bind_int64(reg, st, 8, rec->succeeded ? 1 : 0, op) != 0 ||
	    reg_bind_int64(reg, st, 9, rec->setup_usec, op) != 0 ||
	    reg_bind_int64(reg, st, 10, rec->when, op) != 0 ||
	    reg_step_done(reg, st, op) != 0)
		goto out;
	rc = 0;
out:
	reg_release(st);
	return rc;
}

int
registry_log_connections(struct registry *reg, const struct connection_record *recs, size_t n)
{
	const char *op = "registry_log_connections";
	if (n == 0)
		return 0;
	if (reg_begin(reg, op) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (registry_log_connection(reg, &recs[i]) != 0) {
			reg_rollback(reg);
			return -1;
		}
	return reg_commit(reg, op);
}

static int
read_connection(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct connection_record *rec = dst;
	char method[QCG_NAME_MAX];
	int64_t port, succeeded;

	if (reg_column_text(reg, st, 0, rec->job, sizeof(rec->job), op) != 0 ||
	    reg_column_text(reg, st, 1, rec->from_cluster, sizeof(rec->from_cluster), op) != 0 ||
	    reg_column_text(reg, st, 2, rec->from_node, sizeof(rec->from_node), op) != 0 ||
	    reg_column_text(reg, st, 3, rec->to_cluster, sizeof(rec->to_cluster), op) != 0 ||
	    reg_column_text(reg, st, 4, rec->to_node, sizeof(rec->to_node), op) != 0 ||
	    reg_column_range(reg, st, 5, 0, UINT16_MAX, &port, op) != 0 ||
	    reg_column_text(reg, st, 6, method, sizeof(method), op) != 0 ||
	    reg_column_range(reg, st, 7, 0, 1, &succeeded, op) != 0 ||
	    reg_column_range(reg, st, 8, 0, INT64_MAX, &rec->setup_usec, op) != 0 ||
	    reg_column_int64(reg, st, 9, &rec->when, op) != 0)
		return -1;
	if (connect_method_parse(method, &rec->method) != 0)
		return reg_failf(reg, "%s: stored connection method '%s' is not known", op, method);
	rec->to_port = (uint16_t)port;
	rec->succeeded = succeeded != 0;
	return 0;
}

int
registry_list_connections(struct registry *reg, const char *job,
    struct connection_record **out, size_t *count)
{
	const char *op = "registry_list_connections";
	sqlite3_stmt *st = reg_stmt(reg, STMT_CONN_LIST,
	    "SELECT " CONN_COLUMNS " FROM connections WHERE job = ?1 ORDER BY at, id", op);
	void *rows;

	if (reg_collect_for_job(reg, st, job, sizeof(**out), read_connection, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}

int
registry_prune_connections(struct registry *reg, int64_t before, size_t *removed)
{
	const char *op = "registry_prune_connections";
	return reg_delete_in_batches(reg, reg_stmt(reg, STMT_CONN_PRUNE,
	    "DELETE FROM connections WHERE id IN (SELECT id FROM connections WHERE at < ?1 "
	    "ORDER BY at LIMIT ?2)", op), before, CONN_PRUNE_BATCH, removed, op);
}
