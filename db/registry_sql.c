/*
 * registry_sql.c: the registry's plumbing over SQLite: the statement cache, error messages,
 * bounded binds and column reads, transactions and list collection. No table is named here.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

int
reg_failf(struct registry *reg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reg->error, sizeof(reg->error), fmt, ap);
	va_end(ap);
	return -1;
}

int
reg_fail_sqlite(struct registry *reg, const char *op)
{
	return reg_failf(reg, "%s: %s", op, sqlite3_errmsg(reg->db));
}

sqlite3_stmt *
reg_stmt(struct registry *reg, enum reg_stmt which, const char *sql, const char *op)
{
	sqlite3_stmt *st = reg->stmt[which];

	if (st != NULL)
		return st;
	/* PERSISTENT: these live as long as the connection, so SQLite keeps them out of its
	 * lookaside memory meant for short-lived statements. */
	if (sqlite3_prepare_v3(reg->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		reg_fail_sqlite(reg, op);
		sqlite3_finalize(st);
		return NULL;
	}
	reg->stmt[which] = st;
	return st;
}

void
reg_release(sqlite3_stmt *st)
{
	if (st == NULL)
		return;
	/* The return codes of reset and clear_bindings repeat the last step's error, which the
	 * caller has already reported; they cannot fail on their own. */
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
}

int
reg_step_done(struct registry *reg, sqlite3_stmt *st, const char *op)
{
	int rc;

	/* A write inside the read snapshot would have to upgrade it to a write transaction, which
	 * WAL refuses once another connection committed (SQLITE_BUSY_SNAPSHOT), and would hold the
	 * write lock until registry_read_end: refused, whatever the state of the file. */
	if (reg->in_snapshot)
		return reg_failf(reg, "%s: a write inside a read snapshot (call registry_read_end "
		    "first)", op);
	rc = sqlite3_step(st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc == SQLITE_ROW)
		return reg_failf(reg, "%s: statement returned a row where none was expected", op);
	return reg_fail_sqlite(reg, op);
}

int
reg_check_length(struct registry *reg, const char *value, size_t size, const char *op,
    const char *field)
{
	if (value == NULL)
		return reg_failf(reg, "%s: %s is missing", op, field);
	if (strnlen(value, size) >= size)
		return reg_failf(reg, "%s: %s is too long (at most %zu bytes)", op, field, size - 1);
	return 0;
}

int
reg_bind_text(struct registry *reg, sqlite3_stmt *st, int idx, const char *value, size_t size,
    const char *op, const char *field)
{
	if (reg_check_length(reg, value, size, op, field) != 0)
		return -1;
	/* STATIC: the caller's buffer outlives the step, and reg_release clears the binding. */
	if (sqlite3_bind_text(st, idx, value, -1, SQLITE_STATIC) != SQLITE_OK)
		return reg_fail_sqlite(reg, op);
	return 0;
}

int
reg_bind_int64(struct registry *reg, sqlite3_stmt *st, int idx, int64_t value, const char *op)
{
	if (sqlite3_bind_int64(st, idx, value) != SQLITE_OK)
		return reg_fail_sqlite(reg, op);
	return 0;
}

int
reg_column_text(struct registry *reg, sqlite3_stmt *st, int col, char *dst, size_t size,
    const char *op)
{
	const unsigned char *text;
	int len;

	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		dst[0] = '\0';
		return 0;
	}
	text = sqlite3_column_text(st, col);
	if (text == NULL) /* out of memory: a non-NULL value came back as NULL */
		return reg_fail_sqlite(reg, op);
	len = sqlite3_column_bytes(st, col);
	if (len < 0 || (size_t)len >= size)
		return reg_failf(reg, "%s: stored %s is %d bytes, more than the %zu its field holds",
		    op, sqlite3_column_name(st, col), len, size - 1);
	if (memchr(text, '\0', (size_t)len) != NULL)
		return reg_failf(reg, "%s: stored %s holds a NUL byte", op,
		    sqlite3_column_name(st, col));
	memcpy(dst, text, (size_t)len + 1);
	return 0;
}

int
reg_column_int64(struct registry *reg, sqlite3_stmt *st, int col, int64_t *out, const char *op)
{
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return reg_failf(reg, "%s: stored %s is not an integer", op,
		    sqlite3_column_name(st, col));
	*out = sqlite3_column_int64(st, col);
	return 0;
}

int
reg_column_range(struct registry *reg, sqlite3_stmt *st, int col, int64_t min, int64_t max,
    int64_t *out, const char *op)
{
	if (reg_column_int64(reg, st, col, out, op) != 0)
		return -1;
	if (*out < min || *out > max)
		return reg_failf(reg, "%s: stored %s is %lld, outside [%lld, %lld]", op,
		    sqlite3_column_name(st, col), (long long)*out, (long long)min, (long long)max);
	return 0;
}

/* Run one of the cached transaction-control statements. */
static int
run_control(struct registry *reg, enum reg_stmt which, const char *sql, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, which, sql, op);
	int rc;

	if (st == NULL)
		return -1;
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : reg_fail_sqlite(reg, op);
	reg_release(st);
	return rc;
}

int
reg_begin(struct registry *reg, const char *op)
{
	if (reg->in_snapshot)
		return reg_failf(reg, "%s: a write transaction inside a read snapshot (call "
		    "registry_read_end first)", op);
	return run_control(reg, STMT_BEGIN_IMMEDIATE, "BEGIN IMMEDIATE", op);
}

/* DEFERRED: no lock now; the first read takes the WAL snapshot that every later read of the
 * transaction shares, and writers of other connections go on meanwhile. */
int
registry_read_begin(struct registry *reg)
{
	const char *op = "registry_read_begin";

	if (reg->in_snapshot)
		return reg_failf(reg, "%s: a read snapshot is already open", op);
	/* Read before the transaction begins: a commit its rows might miss moves the generation
	 * after this, so they are stored under a generation that is already past. */
	reg->snapshot_gen = reg_cache_generation(reg);
	if (run_control(reg, STMT_BEGIN_DEFERRED, "BEGIN DEFERRED", op) != 0) {
		reg->snapshot_gen = 0;
		return -1;
	}
	reg->in_snapshot = 1;
	return 0;
}

int
registry_read_begin_cached(struct registry *reg)
{
	if (reg->in_snapshot)
		return reg_failf(reg, "registry_read_begin_cached: a read snapshot is already open");
	if (reg->cache == NULL)
		return REGISTRY_CACHE_MISS;
	reg->snapshot_gen = reg_cache_generation(reg);
	reg->in_snapshot = 1;
	reg->snapshot_cached = 1;
	return 0;
}

/* Ending a read-only transaction cannot lose data; if COMMIT fails all the same, ROLLBACK still
 * releases the snapshot, so that it never holds WAL checkpoints back. */
void
registry_read_end(struct registry *reg)
{
	if (!reg->in_snapshot)
		return;
	reg->in_snapshot = 0;
	reg->snapshot_gen = 0;
	if (reg->snapshot_cached) { /* SQLite was never asked */
		reg->snapshot_cached = 0;
		return;
	}
	if (run_control(reg, STMT_COMMIT, "COMMIT", "registry_read_end") != 0)
		reg_rollback(reg);
}

int
reg_commit(struct registry *reg, const char *op)
{
	if (run_control(reg, STMT_COMMIT, "COMMIT", op) == 0)
		return 0;
	reg_rollback(reg);
	return -1;
}

void
reg_rollback(struct registry *reg)
{
	sqlite3_stmt *st;
	char saved[REG_ERROR_MAX];
	int rc;

	/* Nothing to undo if SQLite already rolled back (some errors do that themselves). */
	if (sqlite3_get_autocommit(reg->db))
		return;
	/* Keep the error that made us roll back: it is the one the caller must see. */
	memcpy(saved, reg->error, sizeof(saved));
	st = reg_stmt(reg, STMT_ROLLBACK, "ROLLBACK", "rollback");
	if (st == NULL) {
		reg_failf(reg, "%s; and ROLLBACK could not be prepared", saved);
		return;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		reg_failf(reg, "%s; and ROLLBACK failed: %s", saved, sqlite3_errmsg(reg->db));
	else
		memcpy(reg->error, saved, sizeof(saved));
	reg_release(st);
}

int
reg_collect(struct registry *reg, sqlite3_stmt *st, size_t elem_size, reg_row_reader read_row,
    void **out, size_t *count, const char *op)
{
	unsigned char *rows = NULL;
	size_t n = 0, cap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			unsigned char *grown;

			if (n >= REG_LIST_MAX) {
				reg_failf(reg, "%s: more than %d rows", op, REG_LIST_MAX);
				goto fail;
			}
			if (ncap > REG_LIST_MAX)
				ncap = REG_LIST_MAX;
			grown = realloc(rows, ncap * elem_size);
			if (grown == NULL) {
				reg_failf(reg, "%s: out of memory for %zu rows", op, ncap);
				goto fail;
			}
			rows = grown;
			cap = ncap;
		}
		memset(rows + n * elem_size, 0, elem_size);
		if (read_row(reg, st, rows + n * elem_size, op) != 0)
			goto fail;
		n++;
	}
	if (rc != SQLITE_DONE) {
		reg_fail_sqlite(reg, op);
		goto fail;
	}
	reg_release(st);
	*out = rows;
	*count = n;
	return 0;
fail:
	reg_release(st);
	free(rows);
	return -1;
}

int
reg_collect_for_job(struct registry *reg, sqlite3_stmt *st, const char *job, size_t elem_size,
    reg_row_reader read_row, void **out, size_t *count, const char *op)
{
	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job") != 0) {
		reg_release(st);
		return -1;
	}
	return reg_collect(reg, st, elem_size, read_row, out, count, op);
}

int
reg_delete_in_batches(struct registry *reg, sqlite3_stmt *st, int64_t before, int batch,
    size_t *removed, const char *op)
{
	size_t total = 0;
	int n;

	if (st == NULL)
		return -1;
	do {
		if (reg_bind_int64(reg, st, 1, before, op) != 0 ||
		    reg_bind_int64(reg, st, 2, batch, op) != 0 || reg_step_done(reg, st, op) != 0) {
			reg_release(st);
			return -1;
		}
		n = sqlite3_changes(reg->db);
		total += (size_t)n;
		reg_release(st);
	} while (n == batch);
	if (removed != NULL)
		*removed = total;
	return 0;
}
