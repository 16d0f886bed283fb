/*
 * registry_liveness.c: the leases of the services that long-poll the broker (front-ends, by
 * their cluster's row, and proxies): renewed by each poll, withdrawn when the poll's
 * connection closes or the lease runs out (db/migrations/004_liveness.sql).
 *
 * Both tables carry the same three columns; the statements differ only in the table, its key
 * and its owner column, so each operation has one SQL template filled per kind.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

/* Table, key column and owner column of a kind, and its statement slots. */
struct lease_table {
	const char *what;        /* for messages */
	size_t key_size;         /* the key's field size in lib/model.h */
	enum reg_stmt renew, state, withdraw, expired;
	const char *renew_sql, *state_sql, *withdraw_sql, *expired_sql;
};

#define LEASE_SQL(table, key, owner) \
	"UPDATE " table " SET last_seen = ?3, lease_expires = ?4, withdrawn_at = 0 " \
	"WHERE " key " = ?1 AND " owner " = ?2", \
	"SELECT withdrawn_at FROM " table " WHERE " key " = ?1 AND " owner " = ?2", \
	"UPDATE " table " SET withdrawn_at = ?2 WHERE " key " = ?1 AND withdrawn_at = 0 " \
	"AND (?3 = 0 OR lease_expires < ?3)", \
	"SELECT " key " FROM " table " WHERE withdrawn_at = 0 AND lease_expires > 0 " \
	"AND lease_expires < ?1 ORDER BY " key

static const struct lease_table lease_tables[] = {
	[REGISTRY_LEASE_CLUSTER] = { "cluster", QCG_NAME_MAX, STMT_LEASE_RENEW_CLUSTER,
		STMT_LEASE_STATE_CLUSTER, STMT_LEASE_WITHDRAW_CLUSTER, STMT_LEASE_EXPIRED_CLUSTER,
		LEASE_SQL("clusters", "name", "frontend_dn") },
	[REGISTRY_LEASE_PROXY] = { "proxy", QCG_ENDPOINT_MAX, STMT_LEASE_RENEW_PROXY,
		STMT_LEASE_STATE_PROXY, STMT_LEASE_WITHDRAW_PROXY, STMT_LEASE_EXPIRED_PROXY,
		LEASE_SQL("proxies", "endpoint", "owner_dn") },
};

static const struct lease_table *
table_of(struct registry *reg, enum registry_lease_kind kind, const char *op)
{
	if ((int)kind < 0 || (size_t)kind >= sizeof(lease_tables) / sizeof(lease_tables[0])) {
		reg_failf(reg, "%s: lease kind %d is not known", op, (int)kind);
		return NULL;
	}
	return &lease_tables[kind];
}

int
reg_read_liveness(struct registry *reg, sqlite3_stmt *st, int col, struct liveness *out,
    const char *op)
{
	if (reg_column_range(reg, st, col, 0, INT64_MAX, &out->last_seen, op) != 0 ||
	    reg_column_range(reg, st, col + 1, 0, INT64_MAX, &out->lease_expires, op) != 0 ||
	    reg_column_range(reg, st, col + 2, 0, INT64_MAX, &out->withdrawn_at, op) != 0)
		return -1;
	return 0;
}

int
registry_renew_lease(struct registry *reg, enum registry_lease_kind kind, const char *name,
    const char *owner_dn, int64_t now, int64_t expires, bool *was_withdrawn)
{
	const char *op = "registry_renew_lease";
	const struct lease_table *t = table_of(reg, kind, op);
	sqlite3_stmt *state, *renew;
	int64_t withdrawn_at = 0;
	int step;

	if (was_withdrawn != NULL)
		*was_withdrawn = false;
	if (t == NULL || (state = reg_stmt(reg, t->state, t->state_sql, op)) == NULL ||
	    (renew = reg_stmt(reg, t->renew, t->renew_sql, op)) == NULL)
		return -1;
	if (expires < now)
		return reg_failf(reg, "%s: %s '%s': lease ends (%lld) before it starts (%lld)", op,
		    t->what, name, (long long)expires, (long long)now);
	/* The state read and the renewal in one write transaction, so that the transition it
	 * reports (withdrawn -> alive) is the one this call made. */
	if (reg_begin(reg, op) != 0)
		return -1;
	if (reg_bind_text(reg, state, 1, name, t->key_size, op, t->what) != 0 ||
	    reg_bind_text(reg, state, 2, owner_dn, QCG_DN_MAX, op, "owner DN") != 0)
		goto fail;
	step = sqlite3_step(state);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: no %s '%s' registered by %s", op, t->what, name, owner_dn);
		reg_release(state);
		reg_release(renew);
		reg_rollback(reg);
		return REGISTRY_NOT_FOUND;
	}
	if (step != SQLITE_ROW) {
		reg_fail_sqlite(reg, op);
		goto fail;
	}
	if (reg_column_range(reg, state, 0, 0, INT64_MAX, &withdrawn_at, op) != 0)
		goto fail;
	if (reg_bind_text(reg, renew, 1, name, t->key_size, op, t->what) != 0 ||
	    reg_bind_text(reg, renew, 2, owner_dn, QCG_DN_MAX, op, "owner DN") != 0 ||
	    reg_bind_int64(reg, renew, 3, now, op) != 0 ||
	    reg_bind_int64(reg, renew, 4, expires, op) != 0 ||
	    reg_step_done(reg, renew, op) != 0)
		goto fail;
	reg_release(state);
	reg_release(renew);
	if (reg_commit(reg, op) != 0)
		return -1;
	if (was_withdrawn != NULL)
		*was_withdrawn = withdrawn_at != 0;
	return 0;
fail:
	reg_release(state);
	reg_release(renew);
	reg_rollback(reg);
	return -1;
}

/* Withdraw one row; only_expired_before > 0 limits it to a lease that ended before then. */
static int
withdraw_one(struct registry *reg, const struct lease_table *t, const char *name, int64_t now,
    int64_t only_expired_before, bool *withdrawn, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, t->withdraw, t->withdraw_sql, op);
	int rc = -1;

	*withdrawn = false;
	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, name, t->key_size, op, t->what) == 0 &&
	    reg_bind_int64(reg, st, 2, now > 0 ? now : 1, op) == 0 &&
	    reg_bind_int64(reg, st, 3, only_expired_before, op) == 0 &&
	    reg_step_done(reg, st, op) == 0) {
		*withdrawn = sqlite3_changes(reg->db) > 0;
		rc = 0;
	}
	reg_release(st);
	return rc;
}

int
registry_withdraw(struct registry *reg, enum registry_lease_kind kind, const char *name,
    int64_t now, bool *withdrawn)
{
	const char *op = "registry_withdraw";
	const struct lease_table *t = table_of(reg, kind, op);
	bool done = false;

	if (t == NULL)
		return -1;
	int rc = withdraw_one(reg, t, name, now, 0, &done, op);
	if (withdrawn != NULL)
		*withdrawn = done;
	return rc;
}

/* One key of an expired row (a list element for reg_collect). */
struct expired_key {
	char key[QCG_ENDPOINT_MAX];
};

static int
read_key(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct expired_key *k = dst;
	return reg_column_text(reg, st, 0, k->key, sizeof(k->key), op);
}

int
registry_withdraw_expired(struct registry *reg, enum registry_lease_kind kind, int64_t now,
    char (**names)[QCG_ENDPOINT_MAX], size_t *count)
{
	const char *op = "registry_withdraw_expired";
	const struct lease_table *t = table_of(reg, kind, op);
	struct expired_key *rows = NULL;
	size_t n = 0, kept = 0;
	sqlite3_stmt *st;
	void *found;

	*names = NULL;
	*count = 0;
	/* A read first: the sweeper runs every second or so, and most passes find nothing, so
	 * they must not take the write lock (or write anything) to learn that. */
	if (t == NULL || (st = reg_stmt(reg, t->expired, t->expired_sql, op)) == NULL)
		return -1;
	if (reg_bind_int64(reg, st, 1, now, op) != 0) {
		reg_release(st);
		return -1;
	}
	if (reg_collect(reg, st, sizeof(*rows), read_key, &found, &n, op) != 0)
		return -1;
	rows = found;
	if (n == 0)
		return 0;
	if (reg_begin(reg, op) != 0) {
		free(rows);
		return -1;
	}
	/* Each row again under the write lock, with the lease condition repeated: a poll that
	 * renewed the lease since the read wins. */
	for (size_t i = 0; i < n; i++) {
		bool withdrawn;
		if (withdraw_one(reg, t, rows[i].key, now, now, &withdrawn, op) != 0) {
			reg_rollback(reg);
			free(rows);
			return -1;
		}
		if (withdrawn)
			rows[kept++] = rows[i];
	}
	if (reg_commit(reg, op) != 0) {
		free(rows);
		return -1;
	}
	if (kept == 0) {
		free(rows);
		return 0;
	}
	*names = (char (*)[QCG_ENDPOINT_MAX])rows;
	*count = kept;
	return 0;
}
