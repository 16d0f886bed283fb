/*
 * registry_proxies.c: the proxies table: relay proxies keyed by their data endpoint, with the
 * load (relays handed out and not yet reported done) the broker balances on, the URL of their
 * statistics service, and the DN that owns the row.
 */
#include "config.h"

#include <string.h>

#include "registry_internal.h"

/* A single load change larger than this is a caller's bug, not a count of relays. */
#define PROXY_LOAD_DELTA_MAX (INT64_C(1) << 32)

#define PROXY_COLUMNS "id, endpoint, networks, cluster, load, control_endpoint, owner_dn, " \
	"last_seen, lease_expires, withdrawn_at"

/* Bind the caller: a DN is required even of an admin (it owns what it creates). */
static int
bind_caller(struct registry *reg, sqlite3_stmt *st, int idx, const char *caller_dn,
    const char *op)
{
	if (caller_dn == NULL || caller_dn[0] == '\0')
		return reg_failf(reg, "%s: no caller DN: a proxy must be registered by an identity",
		    op);
	return reg_bind_text(reg, st, idx, caller_dn, QCG_DN_MAX, op, "caller DN");
}

int
registry_put_proxy(struct registry *reg, const struct proxy *p, const char *caller_dn,
    bool admin, int64_t *out_id)
{
	const char *op = "registry_put_proxy";
	/* As for clusters, the WHERE turns the update into a no-op for a DN that does not own the
	 * row, and changes() says so, with no window between check and write. An unowned row
	 * (schema 2) is claimed by its next registrant; an admin's update keeps the owner. */
	sqlite3_stmt *up = reg_stmt(reg, STMT_PROXY_UPSERT,
	    "INSERT INTO proxies (endpoint, networks, cluster, load, control_endpoint, owner_dn) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
	    "ON CONFLICT (endpoint) DO UPDATE SET networks = excluded.networks, "
	    "cluster = excluded.cluster, load = excluded.load, "
	    "control_endpoint = excluded.control_endpoint, "
	    "owner_dn = CASE WHEN proxies.owner_dn = '' AND NOT ?7 THEN excluded.owner_dn "
	    "ELSE proxies.owner_dn END, "
	    "registered_at = excluded.registered_at "
	    "WHERE proxies.owner_dn IN ('', excluded.owner_dn) OR ?7", op);
	/* last_insert_rowid() is not set when the upsert updates, so read the id back. */
	sqlite3_stmt *id = reg_stmt(reg, STMT_PROXY_ID,
	    "SELECT id FROM proxies WHERE endpoint = ?1", op);

	if (up == NULL || id == NULL)
		return -1;
	if (p->load < 0)
		return reg_failf(reg, "%s: proxy '%s': negative load %lld", op, p->endpoint,
		    (long long)p->load);
	if (reg_begin(reg, op) != 0)
		return -1;
	if (reg_bind_text(reg, up, 1, p->endpoint, sizeof(p->endpoint), op, "endpoint") != 0 ||
	    reg_bind_text(reg, up, 2, p->networks, sizeof(p->networks), op, "networks") != 0 ||
	    reg_bind_text(reg, up, 3, p->cluster, sizeof(p->cluster), op, "cluster") != 0 ||
	    reg_bind_int64(reg, up, 4, p->load, op) != 0 ||
	    reg_bind_text(reg, up, 5, p->control_endpoint, sizeof(p->control_endpoint), op,
		"control_endpoint") != 0 ||
	    bind_caller(reg, up, 6, caller_dn, op) != 0 ||
	    reg_bind_int64(reg, up, 7, admin ? 1 : 0, op) != 0 ||
	    reg_step_done(reg, up, op) != 0)
		goto fail;
	if (sqlite3_changes(reg->db) == 0) {
		reg_failf(reg, "%s: proxy '%s' was registered by another DN", op, p->endpoint);
		reg_release(up);
		reg_release(id);
		reg_rollback(reg);
		return REGISTRY_DENIED;
	}
	if (reg_bind_text(reg, id, 1, p->endpoint, sizeof(p->endpoint), op, "endpoint") != 0)
		goto fail;
	if (sqlite3_step(id) != SQLITE_ROW) {
		reg_fail_sqlite(reg, op);
		goto fail;
	}
	if (out_id != NULL && reg_column_int64(reg, id, 0, out_id, op) != 0)
		goto fail;
	reg_release(up);
	reg_release(id);
	return reg_commit(reg, op);
fail:
	reg_release(up);
	reg_release(id);
	reg_rollback(reg);
	return -1;
}

static int
read_proxy(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct proxy *p = dst;

	if (reg_column_int64(reg, st, 0, &p->id, op) != 0 ||
	    reg_column_text(reg, st, 1, p->endpoint, sizeof(p->endpoint), op) != 0 ||
	    reg_column_text(reg, st, 2, p->networks, sizeof(p->networks), op) != 0 ||
	    reg_column_text(reg, st, 3, p->cluster, sizeof(p->cluster), op) != 0 ||
	    reg_column_range(reg, st, 4, 0, INT64_MAX, &p->load, op) != 0 ||
	    reg_column_text(reg, st, 5, p->control_endpoint, sizeof(p->control_endpoint), op) != 0 ||
	    reg_column_text(reg, st, 6, p->owner_dn, sizeof(p->owner_dn), op) != 0 ||
	    reg_read_liveness(reg, st, 7, &p->live, op) != 0)
		return -1;
	return 0;
}

int
registry_get_proxy(struct registry *reg, const char *endpoint, struct proxy *out)
{
	const char *op = "registry_get_proxy";
	sqlite3_stmt *st = reg_stmt(reg, STMT_PROXY_GET,
	    "SELECT " PROXY_COLUMNS " FROM proxies WHERE endpoint = ?1", op);
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, endpoint, QCG_ENDPOINT_MAX, op, "endpoint") != 0)
		goto out;
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: no proxy '%s'", op, endpoint);
		rc = REGISTRY_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		reg_fail_sqlite(reg, op);
	} else {
		rc = read_proxy(reg, st, out, op);
	}
out:
	reg_release(st);
	return rc;
}

int
registry_delete_proxy(struct registry *reg, const char *endpoint, const char *caller_dn,
    bool admin)
{
	const char *op = "registry_delete_proxy";
	sqlite3_stmt *st = reg_stmt(reg, STMT_PROXY_DELETE,
	    "DELETE FROM proxies WHERE endpoint = ?1 AND (owner_dn = ?2 OR ?3)", op);
	struct proxy row;
	int rc;

	if (st == NULL || reg_begin(reg, op) != 0)
		return -1;
	if (reg_bind_text(reg, st, 1, endpoint, QCG_ENDPOINT_MAX, op, "endpoint") != 0 ||
	    bind_caller(reg, st, 2, caller_dn, op) != 0 ||
	    reg_bind_int64(reg, st, 3, admin ? 1 : 0, op) != 0 ||
	    reg_step_done(reg, st, op) != 0) {
		reg_release(st);
		reg_rollback(reg);
		return -1;
	}
	reg_release(st);
	if (sqlite3_changes(reg->db) != 0)
		return reg_commit(reg, op);
	/* Nothing removed: absent, or another DN's (read in the same transaction). */
	rc = registry_get_proxy(reg, endpoint, &row);
	if (rc == 0) {
		reg_failf(reg, "%s: proxy '%s' was registered by another DN", op, endpoint);
		rc = REGISTRY_DENIED;
	} else if (rc == REGISTRY_NOT_FOUND) {
		reg_failf(reg, "%s: no proxy '%s'", op, endpoint);
	}
	reg_rollback(reg);
	return rc;
}

int
registry_add_proxy_load(struct registry *reg, const char *endpoint, int64_t delta)
{
	const char *op = "registry_add_proxy_load";
	/* max(..., 0): a late "relay done" after a proxy re-registered with load 0 must not make
	 * the load negative. */
	sqlite3_stmt *st = reg_stmt(reg, STMT_PROXY_ADD_LOAD,
	    "UPDATE proxies SET load = max(load + ?2, 0) WHERE endpoint = ?1", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (delta > PROXY_LOAD_DELTA_MAX || delta < -PROXY_LOAD_DELTA_MAX)
		return reg_failf(reg, "%s: load change %lld is out of range", op, (long long)delta);
	if (reg_bind_text(reg, st, 1, endpoint, QCG_ENDPOINT_MAX, op, "endpoint") != 0 ||
	    reg_bind_int64(reg, st, 2, delta, op) != 0 ||
	    reg_step_done(reg, st, op) != 0)
		goto out;
	rc = 0;
	if (sqlite3_changes(reg->db) == 0) {
		reg_failf(reg, "%s: no proxy '%s'", op, endpoint);
		rc = REGISTRY_NOT_FOUND;
	}
out:
	reg_release(st);
	return rc;
}

int
registry_list_proxies(struct registry *reg, struct proxy **out, size_t *count)
{
	const char *op = "registry_list_proxies";
	if (reg->snapshot_cached) {
		int rc = reg_cache_get_proxies(reg, out, count);
		return rc == 1 ? REGISTRY_CACHE_MISS : rc;
	}
	/* least loaded first: the order the broker wants to try them in */
	sqlite3_stmt *st = reg_stmt(reg, STMT_PROXY_LIST,
	    "SELECT " PROXY_COLUMNS " FROM proxies ORDER BY load, id", op);
	void *rows;

	if (st == NULL || reg_collect(reg, st, sizeof(**out), read_proxy, &rows, count, op) != 0)
		return -1;
	*out = rows;
	if (reg->in_snapshot)
		reg_cache_put_proxies(reg, *out, *count);
	return 0;
}
