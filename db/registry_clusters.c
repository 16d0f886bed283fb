/*
 * registry_clusters.c: the clusters table: each front-end declares its cluster's policy and
 * networks; only the DN that declared a cluster may replace or remove it.
 */
#include "config.h"

#include <string.h>

#include "registry_internal.h"

#define CLUSTER_COLUMNS "name, policy, port_min, port_max, public_address, private_networks, " \
	"traversal_allowed, frontend_endpoint, frontend_dn"
/* What a read returns: the columns written on put, then the lease (registry_liveness.c). */
#define CLUSTER_READ_COLUMNS CLUSTER_COLUMNS ", last_seen, lease_expires, withdrawn_at"

/* Bind every field of c but the DN to ?1..?8. */
static int
bind_cluster(struct registry *reg, sqlite3_stmt *st, const struct cluster *c, const char *op)
{
	const char *policy = cluster_policy_name(c->policy);

	if (strcmp(policy, "?") == 0)
		return reg_failf(reg, "%s: cluster policy %d is not known", op, (int)c->policy);
	if (c->port_min > c->port_max)
		return reg_failf(reg, "%s: port_min %u is above port_max %u", op,
		    (unsigned)c->port_min, (unsigned)c->port_max);
	if (reg_bind_text(reg, st, 1, c->name, sizeof(c->name), op, "cluster name") != 0 ||
	    reg_bind_text(reg, st, 2, policy, QCG_NAME_MAX, op, "policy") != 0 ||
	    reg_bind_int64(reg, st, 3, c->port_min, op) != 0 ||
	    reg_bind_int64(reg, st, 4, c->port_max, op) != 0 ||
	    reg_bind_text(reg, st, 5, c->public_address, sizeof(c->public_address), op,
		"public_address") != 0 ||
	    reg_bind_text(reg, st, 6, c->private_networks, sizeof(c->private_networks), op,
		"private_networks") != 0 ||
	    reg_bind_int64(reg, st, 7, c->traversal_allowed ? 1 : 0, op) != 0 ||
	    reg_bind_text(reg, st, 8, c->frontend_endpoint, sizeof(c->frontend_endpoint), op,
		"frontend_endpoint") != 0)
		return -1;
	return 0;
}

/* Read a row of CLUSTER_READ_COLUMNS into a struct cluster. */
static int
read_cluster(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct cluster *c = dst;
	char policy[QCG_NAME_MAX];
	int64_t port_min, port_max, traversal;

	memset(c, 0, sizeof(*c));
	if (reg_column_text(reg, st, 0, c->name, sizeof(c->name), op) != 0 ||
	    reg_column_text(reg, st, 1, policy, sizeof(policy), op) != 0 ||
	    reg_column_range(reg, st, 2, 0, UINT16_MAX, &port_min, op) != 0 ||
	    reg_column_range(reg, st, 3, 0, UINT16_MAX, &port_max, op) != 0 ||
	    reg_column_text(reg, st, 4, c->public_address, sizeof(c->public_address), op) != 0 ||
	    reg_column_text(reg, st, 5, c->private_networks, sizeof(c->private_networks), op) != 0 ||
	    reg_column_range(reg, st, 6, 0, 1, &traversal, op) != 0 ||
	    reg_column_text(reg, st, 7, c->frontend_endpoint, sizeof(c->frontend_endpoint), op) != 0 ||
	    reg_column_text(reg, st, 8, c->frontend_dn, sizeof(c->frontend_dn), op) != 0 ||
	    reg_read_liveness(reg, st, 9, &c->live, op) != 0)
		return -1;
	if (cluster_policy_parse(policy, &c->policy) != 0)
		return reg_failf(reg, "%s: cluster '%s' has unknown policy '%s'", op, c->name, policy);
	c->port_min = (uint16_t)port_min;
	c->port_max = (uint16_t)port_max;
	c->traversal_allowed = traversal != 0;
	return 0;
}

int
registry_put_cluster(struct registry *reg, const struct cluster *c, const char *caller_dn)
{
	const char *op = "registry_put_cluster";
	/* The WHERE makes the update a no-op for any other DN; changes() then tells us so, in
	 * one statement, with no window between the check and the write. */
	sqlite3_stmt *st = reg_stmt(reg, STMT_CLUSTER_UPSERT,
	    "INSERT INTO clusters (" CLUSTER_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
	    "ON CONFLICT (name) DO UPDATE SET policy = excluded.policy, "
	    "port_min = excluded.port_min, port_max = excluded.port_max, "
	    "public_address = excluded.public_address, "
	    "private_networks = excluded.private_networks, "
	    "traversal_allowed = excluded.traversal_allowed, "
	    "frontend_endpoint = excluded.frontend_endpoint, "
	    "registered_at = excluded.registered_at "
	    "WHERE clusters.frontend_dn = excluded.frontend_dn", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (caller_dn == NULL || caller_dn[0] == '\0') {
		reg_failf(reg, "%s: no caller DN: a cluster must be registered by an identity", op);
		goto out;
	}
	if (bind_cluster(reg, st, c, op) != 0 ||
	    reg_bind_text(reg, st, 9, caller_dn, QCG_DN_MAX, op, "caller DN") != 0 ||
	    reg_step_done(reg, st, op) != 0)
		goto out;
	if (sqlite3_changes(reg->db) == 0) {
		reg_failf(reg, "%s: cluster '%s' was registered by another DN", op, c->name);
		rc = REGISTRY_DENIED;
		goto out;
	}
	rc = 0;
out:
	reg_release(st);
	return rc;
}

int
registry_get_cluster(struct registry *reg, const char *name, struct cluster *out)
{
	const char *op = "registry_get_cluster";
	if (reg->snapshot_cached)
		return reg_cache_get_cluster(reg, name, out) ? 0 : REGISTRY_CACHE_MISS;
	sqlite3_stmt *st = reg_stmt(reg, STMT_CLUSTER_GET,
	    "SELECT " CLUSTER_READ_COLUMNS " FROM clusters WHERE name = ?1", op);
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, name, QCG_NAME_MAX, op, "cluster name") != 0)
		goto out;
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: no cluster '%s'", op, name);
		rc = REGISTRY_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		reg_fail_sqlite(reg, op);
	} else if ((rc = read_cluster(reg, st, out, op)) == 0 && reg->in_snapshot) {
		reg_cache_put_cluster(reg, out);
	}
out:
	reg_release(st);
	return rc;
}

/* Within a transaction: NOT_FOUND or DENIED for a delete that removed nothing. */
static int
explain_no_delete(struct registry *reg, const char *name, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_CLUSTER_DN,
	    "SELECT 1 FROM clusters WHERE name = ?1", op);
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, name, QCG_NAME_MAX, op, "cluster name") != 0)
		goto out;
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: no cluster '%s'", op, name);
		rc = REGISTRY_NOT_FOUND;
	} else if (step == SQLITE_ROW) {
		reg_failf(reg, "%s: cluster '%s' was registered by another DN", op, name);
		rc = REGISTRY_DENIED;
	} else {
		reg_fail_sqlite(reg, op);
	}
out:
	reg_release(st);
	return rc;
}

int
registry_delete_cluster(struct registry *reg, const char *name, const char *caller_dn)
{
	const char *op = "registry_delete_cluster";
	sqlite3_stmt *st = reg_stmt(reg, STMT_CLUSTER_DELETE,
	    "DELETE FROM clusters WHERE name = ?1 AND frontend_dn = ?2", op);
	int rc;

	if (st == NULL || reg_begin(reg, op) != 0)
		return -1;
	if (reg_bind_text(reg, st, 1, name, QCG_NAME_MAX, op, "cluster name") != 0 ||
	    reg_bind_text(reg, st, 2, caller_dn, QCG_DN_MAX, op, "caller DN") != 0 ||
	    reg_step_done(reg, st, op) != 0) {
		reg_release(st);
		reg_rollback(reg);
		return -1;
	}
	reg_release(st);
	if (sqlite3_changes(reg->db) == 0) {
		rc = explain_no_delete(reg, name, op);
		reg_rollback(reg);
		return rc;
	}
	return reg_commit(reg, op);
}

int
registry_list_clusters(struct registry *reg, struct cluster **out, size_t *count)
{
	const char *op = "registry_list_clusters";
	sqlite3_stmt *st = reg_stmt(reg, STMT_CLUSTER_LIST,
	    "SELECT " CLUSTER_READ_COLUMNS " FROM clusters ORDER BY name", op);

	void *rows;

	if (st == NULL || reg_collect(reg, st, sizeof(**out), read_cluster, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}
