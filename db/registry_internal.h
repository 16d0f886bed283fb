/*
 * registry_internal.h: what the registry's files share and nobody else sees: the connection
 * struct with its cache of prepared statements, error reporting, bounded string copies between
 * the fixed-size fields of lib/model.h and SQLite, transactions and list building.
 *
 * Every statement is prepared once per connection, on first use, and kept (the broker calls the
 * registry in its request path). A statement is taken with reg_stmt() and must be given back
 * with reg_release() on every path, which resets it so that it holds no read snapshot open (an
 * open snapshot would keep WAL checkpoints from completing).
 */
#ifndef QCG_REGISTRY_INTERNAL_H
#define QCG_REGISTRY_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"

#define REG_ERROR_MAX 512
/* No list the registry returns grows past this many rows: a bound on the memory one call takes. */
#define REG_LIST_MAX 1000000

/* One slot per cached statement. Each slot is used by exactly one SQL text. */
enum reg_stmt {
	STMT_BEGIN_IMMEDIATE,
	STMT_BEGIN_DEFERRED,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_USER_VERSION,
	STMT_CLUSTER_UPSERT,
	STMT_CLUSTER_GET,
	STMT_CLUSTER_DN,
	STMT_CLUSTER_DELETE,
	STMT_CLUSTER_LIST,
	STMT_PROXY_UPSERT,
	STMT_PROXY_ID,
	STMT_PROXY_DELETE,
	STMT_PROXY_GET,
	STMT_PROXY_LIST,
	STMT_PROXY_ADD_LOAD,
	STMT_JOB_UPSERT,
	STMT_JOB_SET_STATE,
	STMT_JOB_STATE,
	STMT_JOB_GET,
	STMT_JOB_LIST,
	STMT_AP_UPSERT,
	STMT_AP_FIND,
	STMT_AP_LIST,
	STMT_AP_DELETE_JOB,
	STMT_CONN_INSERT,
	STMT_CONN_LIST,
	STMT_CONN_PRUNE,
	STMT_MCAST_TAKEN,
	STMT_MCAST_INSERT,
	STMT_MCAST_RELEASE,
	STMT_MCAST_LIST,
	STMT_LEASE_RENEW_CLUSTER,
	STMT_LEASE_RENEW_PROXY,
	STMT_LEASE_STATE_CLUSTER,
	STMT_LEASE_STATE_PROXY,
	STMT_LEASE_WITHDRAW_CLUSTER,
	STMT_LEASE_WITHDRAW_PROXY,
	STMT_LEASE_EXPIRED_CLUSTER,
	STMT_LEASE_EXPIRED_PROXY,
	STMT_JOB_CLUSTERS_DELETE,
	STMT_JOB_CLUSTERS_INSERT,
	STMT_JOB_CLUSTERS_LIST,
	STMT_RELAY_INSERT,
	STMT_RELAY_GET,
	STMT_RELAY_SET_SUCCESSOR,
	STMT_RELAY_LIST_RESUMES,
	STMT_RELAY_PRUNE,
	STMT_RELAY_ADD_REPLAYED,
	STMT_COUNT
};

struct registry {
	sqlite3 *db;                       /* the one connection; never shared between threads */
	sqlite3_stmt *stmt[STMT_COUNT];    /* prepared on first use, finalized by registry_close */
	int migrations_applied;            /* how many migrations registry_open applied */
	int in_snapshot;                   /* between registry_read_begin and _end: reads only */
	int snapshot_cached;               /* ... begun by registry_read_begin_cached */
	uint64_t snapshot_gen;             /* the row cache's generation when it began, or 0 */
	struct reg_cache *cache;           /* the process's hot rows of this file, or NULL */
	char error[REG_ERROR_MAX];         /* the last error, "operation: reason" */
};

/* Record "op: <sqlite's message for the connection>" as the error; returns -1. */
int reg_fail_sqlite(struct registry *reg, const char *op);
/* Record a formatted error message; returns -1. */
int reg_failf(struct registry *reg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The cached statement for slot `which`, preparing `sql` on first use; NULL (error set) on failure. */
sqlite3_stmt *reg_stmt(struct registry *reg, enum reg_stmt which, const char *sql, const char *op);
/* Reset a statement taken with reg_stmt and clear its bindings; NULL is allowed. */
void reg_release(sqlite3_stmt *st);

/* Step a statement that returns no rows; 0 or -1 with the error set. Every write goes through
 * here, so it also refuses to run inside a read snapshot (registry_read_begin). */
int reg_step_done(struct registry *reg, sqlite3_stmt *st, const char *op);

/* Run st, a cached "DELETE ... WHERE rowid IN (SELECT ... WHERE <time> < ?1 ... LIMIT ?2)",
 * with ?1 = before and ?2 = batch until a run removes fewer than batch rows: each batch its own
 * transaction, so that a first prune of a long log never holds the write lock for longer than
 * other writers' busy timeout. *removed (may be NULL) gets the total. 0 or -1 with the error. */
int reg_delete_in_batches(struct registry *reg, sqlite3_stmt *st, int64_t before, int batch,
    size_t *removed, const char *op);

/* Bind helpers; each returns 0 or -1 with "op: ..." set. reg_bind_text refuses a value that does
 * not fit in a field of `size` bytes (with its NUL) and names `field` in the error. */
int reg_bind_text(struct registry *reg, sqlite3_stmt *st, int idx, const char *value, size_t size,
    const char *op, const char *field);
int reg_bind_int64(struct registry *reg, sqlite3_stmt *st, int idx, int64_t value, const char *op);

/* Column readers for the current row; each returns 0 or -1 with "op: ..." set. reg_column_text
 * copies into dst of `size` bytes and refuses a stored value that does not fit (or holds a NUL);
 * NULL reads as "". reg_column_int64 refuses anything that is not an integer, and
 * reg_column_range also anything outside [min, max]. */
int reg_column_text(struct registry *reg, sqlite3_stmt *st, int col, char *dst, size_t size,
    const char *op);
int reg_column_int64(struct registry *reg, sqlite3_stmt *st, int col, int64_t *out, const char *op);
int reg_column_range(struct registry *reg, sqlite3_stmt *st, int col, int64_t min, int64_t max,
    int64_t *out, const char *op);

/* BEGIN IMMEDIATE (takes the write lock now, so a read-then-write cannot be raced), COMMIT and
 * ROLLBACK. reg_rollback keeps the error already recorded. reg_begin refuses inside a read
 * snapshot. */
int reg_begin(struct registry *reg, const char *op);
int reg_commit(struct registry *reg, const char *op);
void reg_rollback(struct registry *reg);

/* Read the lease columns last_seen, lease_expires, withdrawn_at from col, col+1, col+2. */
int reg_read_liveness(struct registry *reg, sqlite3_stmt *st, int col, struct liveness *out,
    const char *op);

/* Reads one row of st into dst (an element of a list); 0 or -1 with the error set. */
typedef int (*reg_row_reader)(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op);
/* Step st to the end, reading each row with read_row into a malloc'ed array of elem_size
 * elements. On success *out (NULL when empty) and *count are set; on failure nothing is
 * returned. Releases st either way. */
int reg_collect(struct registry *reg, sqlite3_stmt *st, size_t elem_size, reg_row_reader read_row,
    void **out, size_t *count, const char *op);
/* The rows of one job: bind job to ?1 of st (a cached statement), then reg_collect. */
int reg_collect_for_job(struct registry *reg, sqlite3_stmt *st, const char *job,
    size_t elem_size, reg_row_reader read_row, void **out, size_t *count, const char *op);

/* The process's cache of hot rows of one database file (registry_cache.c). attach (at open)
 * finds or makes the file's cache and hooks the connection's commits to its generation; a file
 * that is not in WAL mode (in memory) gets none, and every lookup misses. The generation is 0
 * without a cache. A get serves the row stored under the connection's snapshot_gen only while
 * nothing was committed since; a put stores a row read inside a registry_read_begin snapshot
 * under its snapshot_gen (nothing when a commit came since). reg_cache_get_proxies returns 0
 * (a malloc'ed copy), 1 for a miss, or -1 (error set). */
struct reg_cache;
int reg_cache_attach(struct registry *reg);
void reg_cache_detach(struct registry *reg);
uint64_t reg_cache_generation(const struct registry *reg);
bool reg_cache_get_cluster(struct registry *reg, const char *name, struct cluster *out);
void reg_cache_put_cluster(struct registry *reg, const struct cluster *row);
bool reg_cache_get_access_point(struct registry *reg, const char *job, const char *address,
    uint16_t port, struct access_point *out);
/* Only the row that is the only listener at its (job, address, port): the answer for any
 * initiator (registry_find_access_point). */
void reg_cache_put_access_point(struct registry *reg, const struct access_point *row);
int reg_cache_get_proxies(struct registry *reg, struct proxy **out, size_t *count);
void reg_cache_put_proxies(struct registry *reg, const struct proxy *rows, size_t count);

/* Check that a caller-supplied string fits a field of `size` bytes (NUL included). */
int reg_check_length(struct registry *reg, const char *value, size_t size, const char *op,
    const char *field);

#endif
