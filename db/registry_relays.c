/*
 * registry_relays.c: the relays table (migrations/007_relays.sql): every relay the broker
 * handed out, and the chain of resumes that replaced one relay by another when its proxy died
 * (issue 14).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

/* Rows one prune statement deletes at most. */
#define RELAY_PRUNE_BATCH 10000

#define RELAY_COLUMNS "id, job, from_cluster, from_node, to_cluster, to_node, to_address, " \
	"to_port, method, proxy0, proxy1, decided_at, resumed_from, successor, bytes_replayed"

/* Insert r with resumed_from (may be ""); 0 or -1 (error set). */
static int
insert_relay(struct registry *reg, const struct relay_record *r, const char *resumed_from,
    const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_RELAY_INSERT,
	    "INSERT INTO relays (" RELAY_COLUMNS ") "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, '', 0)", op);
	int rc;

	if (st == NULL)
		return -1;
	if (r->method != METHOD_RELAY && r->method != METHOD_RELAY_CHAIN) {
		reg_release(st);
		return reg_failf(reg, "%s: method %s is not a relay", op,
		    connect_method_name(r->method));
	}
	rc = reg_bind_text(reg, st, 1, r->id, sizeof(r->id), op, "id") != 0 ||
	    reg_bind_text(reg, st, 2, r->job, sizeof(r->job), op, "job") != 0 ||
	    reg_bind_text(reg, st, 3, r->from_cluster, sizeof(r->from_cluster), op,
		"from_cluster") != 0 ||
	    reg_bind_text(reg, st, 4, r->from_node, sizeof(r->from_node), op, "from_node") != 0 ||
	    reg_bind_text(reg, st, 5, r->to_cluster, sizeof(r->to_cluster), op,
		"to_cluster") != 0 ||
	    reg_bind_text(reg, st, 6, r->to_node, sizeof(r->to_node), op, "to_node") != 0 ||
	    reg_bind_text(reg, st, 7, r->to_address, sizeof(r->to_address), op,
		"to_address") != 0 ||
	    reg_bind_int64(reg, st, 8, r->to_port, op) != 0 ||
	    reg_bind_text(reg, st, 9, connect_method_name(r->method), QCG_NAME_MAX, op,
		"method") != 0 ||
	    reg_bind_text(reg, st, 10, r->proxy[0], sizeof(r->proxy[0]), op, "proxy0") != 0 ||
	    reg_bind_text(reg, st, 11, r->proxy[1], sizeof(r->proxy[1]), op, "proxy1") != 0 ||
	    reg_bind_int64(reg, st, 12, r->decided_at, op) != 0 ||
	    reg_bind_text(reg, st, 13, resumed_from, sizeof(r->resumed_from), op,
		"resumed_from") != 0 ||
	    reg_step_done(reg, st, op) != 0 ? -1 : 0;
	reg_release(st);
	return rc;
}

int
registry_record_relay(struct registry *reg, const struct relay_record *r)
{
	return insert_relay(reg, r, "", "registry_record_relay");
}

static int
read_relay(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct relay_record *r = dst;
	char method[QCG_NAME_MAX];
	int64_t port;

	memset(r, 0, sizeof(*r));
	if (reg_column_text(reg, st, 0, r->id, sizeof(r->id), op) != 0 ||
	    reg_column_text(reg, st, 1, r->job, sizeof(r->job), op) != 0 ||
	    reg_column_text(reg, st, 2, r->from_cluster, sizeof(r->from_cluster), op) != 0 ||
	    reg_column_text(reg, st, 3, r->from_node, sizeof(r->from_node), op) != 0 ||
	    reg_column_text(reg, st, 4, r->to_cluster, sizeof(r->to_cluster), op) != 0 ||
	    reg_column_text(reg, st, 5, r->to_node, sizeof(r->to_node), op) != 0 ||
	    reg_column_text(reg, st, 6, r->to_address, sizeof(r->to_address), op) != 0 ||
	    reg_column_range(reg, st, 7, 1, UINT16_MAX, &port, op) != 0 ||
	    reg_column_text(reg, st, 8, method, sizeof(method), op) != 0 ||
	    reg_column_text(reg, st, 9, r->proxy[0], sizeof(r->proxy[0]), op) != 0 ||
	    reg_column_text(reg, st, 10, r->proxy[1], sizeof(r->proxy[1]), op) != 0 ||
	    reg_column_int64(reg, st, 11, &r->decided_at, op) != 0 ||
	    reg_column_text(reg, st, 12, r->resumed_from, sizeof(r->resumed_from), op) != 0 ||
	    reg_column_text(reg, st, 13, r->successor, sizeof(r->successor), op) != 0 ||
	    reg_column_range(reg, st, 14, 0, INT64_MAX, &r->bytes_replayed, op) != 0)
		return -1;
	if (connect_method_parse(method, &r->method) != 0)
		return reg_failf(reg, "%s: stored relay method '%s' is not known", op, method);
	r->to_port = (uint16_t)port;
	return 0;
}

/* The row of id into out: 0, REGISTRY_NOT_FOUND, or -1 (error set). */
static int
get_relay(struct registry *reg, const char *id, struct relay_record *out, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_RELAY_GET,
	    "SELECT " RELAY_COLUMNS " FROM relays WHERE id = ?1", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, id, RELAY_ID_HEX_LEN + 1, op, "id") == 0) {
		int step = sqlite3_step(st);
		if (step == SQLITE_ROW)
			rc = read_relay(reg, st, out, op);
		else if (step == SQLITE_DONE)
			rc = REGISTRY_NOT_FOUND;
		else
			rc = reg_fail_sqlite(reg, op);
	}
	reg_release(st);
	return rc;
}

int
registry_get_relay(struct registry *reg, const char *id, struct relay_record *out)
{
	return get_relay(reg, id, out, "registry_get_relay");
}

int
registry_record_resume(struct registry *reg, const struct relay_record *r)
{
	const char *op = "registry_record_resume";
	struct relay_record old;
	int rc;

	if (r->resumed_from[0] == '\0')
		return reg_failf(reg, "%s: the new relay names no relay it replaces", op);
	if (reg_begin(reg, op) != 0)
		return -1;
	/* Read and write under the write lock: two ends resuming at once cannot both succeed. */
	if ((rc = get_relay(reg, r->resumed_from, &old, op)) != 0)
		goto fail;
	if (old.successor[0] != '\0') {
		reg_failf(reg, "%s: relay %s was resumed already, as %s", op, old.id, old.successor);
		rc = REGISTRY_DENIED;
		goto fail;
	}
	if ((rc = insert_relay(reg, r, r->resumed_from, op)) != 0)
		goto fail;
	sqlite3_stmt *st = reg_stmt(reg, STMT_RELAY_SET_SUCCESSOR,
	    "UPDATE relays SET successor = ?2 WHERE id = ?1", op);
	rc = -1;
	if (st == NULL)
		goto fail;
	int done = reg_bind_text(reg, st, 1, old.id, sizeof(old.id), op, "id") == 0 &&
	    reg_bind_text(reg, st, 2, r->id, sizeof(r->id), op, "successor") == 0 &&
	    reg_step_done(reg, st, op) == 0;
	reg_release(st);
	if (!done)
		goto fail;
	return reg_commit(reg, op);
fail:
	reg_rollback(reg);
	return rc;
}

int
registry_add_relay_replayed(struct registry *reg, const char *id, int64_t bytes)
{
	const char *op = "registry_add_relay_replayed";
	if (bytes < 0 || bytes > ((int64_t)1 << 40))
		return reg_failf(reg, "%s: %lld bytes is not a replay", op, (long long)bytes);
	sqlite3_stmt *st = reg_stmt(reg, STMT_RELAY_ADD_REPLAYED,
	    "UPDATE relays SET bytes_replayed = bytes_replayed + ?2 WHERE id = ?1", op);
	if (st == NULL)
		return -1;
	int rc = reg_bind_text(reg, st, 1, id, RELAY_ID_HEX_LEN + 1, op, "id") != 0 ||
	    reg_bind_int64(reg, st, 2, bytes, op) != 0 || reg_step_done(reg, st, op) != 0 ? -1 : 0;
	if (rc == 0 && sqlite3_changes(reg->db) == 0)
		rc = REGISTRY_NOT_FOUND;
	reg_release(st);
	return rc;
}

int
registry_list_resumes(struct registry *reg, const char *job, struct relay_record **out,
    size_t *count)
{
	const char *op = "registry_list_resumes";
	void *rows = NULL;

	*out = NULL;
	*count = 0;
	if (reg_collect_for_job(reg, reg_stmt(reg, STMT_RELAY_LIST_RESUMES,
	    "SELECT " RELAY_COLUMNS " FROM relays WHERE job = ?1 AND resumed_from <> '' "
	    "ORDER BY decided_at, rowid", op),
	    job, sizeof(**out), read_relay, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}

int
registry_prune_relays(struct registry *reg, int64_t before, size_t *removed)
{
	const char *op = "registry_prune_relays";
	return reg_delete_in_batches(reg, reg_stmt(reg, STMT_RELAY_PRUNE,
	    "DELETE FROM relays WHERE rowid IN (SELECT rowid FROM relays WHERE decided_at < ?1 "
	    "ORDER BY decided_at LIMIT ?2)", op), before, RELAY_PRUNE_BATCH, removed, op);
}
