/*
 * registry_open.c: opening and closing the registry: the connection's settings (WAL, foreign
 * keys, synchronous, busy timeout) and bringing the schema up to date with the embedded
 * migrations.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "migrations.h"
#include "registry_internal.h"

/* How long a statement waits for another connection's write lock before failing. */
#define REGISTRY_BUSY_TIMEOUT_MS 5000

/* Run one statement of fixed text, stepping through any rows it returns. */
static int
exec_fixed(struct registry *reg, const char *sql, const char *op)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(reg->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	reg_fail_sqlite(reg, op);
	sqlite3_finalize(st);
	return -1;
}

/* Read the single text value a PRAGMA query returns into buf. */
static int
pragma_text(struct registry *reg, const char *sql, char *buf, size_t size, const char *op)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(reg->db, sql, -1, &st, NULL) != SQLITE_OK) {
		reg_fail_sqlite(reg, op);
	} else if (sqlite3_step(st) != SQLITE_ROW) {
		reg_failf(reg, "%s: '%s' returned nothing: %s", op, sql, sqlite3_errmsg(reg->db));
	} else {
		rc = reg_column_text(reg, st, 0, buf, size, op);
	}
	sqlite3_finalize(st);
	return rc;
}

/* WAL lets each broker worker read while one writes; with synchronous=NORMAL a commit is in
 * the WAL file before the call returns, which survives the process being killed (not a power
 * cut, which the registry does not need to survive: front-ends re-register). */
static int
configure_connection(struct registry *reg, const char *path)
{
	const char *op = "registry_open";
	char value[32];

	if (sqlite3_busy_timeout(reg->db, REGISTRY_BUSY_TIMEOUT_MS) != SQLITE_OK)
		return reg_fail_sqlite(reg, op);
	if (sqlite3_extended_result_codes(reg->db, 1) != SQLITE_OK)
		return reg_fail_sqlite(reg, op);
	if (pragma_text(reg, "PRAGMA journal_mode = WAL", value, sizeof(value), op) != 0)
		return -1;
	/* An in-memory database cannot use WAL; it is only for tests and has no one to share with. */
	if (strcmp(value, "wal") != 0 && !(strcmp(path, ":memory:") == 0 && strcmp(value, "memory") == 0))
		return reg_failf(reg, "%s: %s: could not switch to WAL journal mode (got '%s')", op,
		    path, value);
	if (exec_fixed(reg, "PRAGMA synchronous = NORMAL", op) != 0)
		return -1;
	if (exec_fixed(reg, "PRAGMA foreign_keys = ON", op) != 0)
		return -1;
	/* The pragma is silently ignored by a build without foreign keys: check that it took. */
	if (pragma_text(reg, "PRAGMA foreign_keys", value, sizeof(value), op) != 0)
		return -1;
	if (strcmp(value, "1") != 0)
		return reg_failf(reg, "%s: this SQLite does not enforce foreign keys", op);
	return 0;
}

int
registry_schema_version(struct registry *reg)
{
	const char *op = "registry_schema_version";
	sqlite3_stmt *st = reg_stmt(reg, STMT_USER_VERSION, "PRAGMA user_version", op);
	int64_t version = -1;

	if (st == NULL)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW)
		reg_fail_sqlite(reg, op);
	else if (reg_column_range(reg, st, 0, 0, INT32_MAX, &version, op) != 0)
		version = -1;
	reg_release(st);
	return (int)version;
}

/* Apply migration m in its own transaction, unless another connection got there first. */
static int
apply_migration(struct registry *reg, const struct registry_migration *m)
{
	const char *op = "registry_open";
	char *msg = NULL;
	int version;

	/* IMMEDIATE takes the write lock before reading the version, so two processes opening a
	 * new file at once cannot both apply the same migration. */
	if (reg_begin(reg, op) != 0)
		return -1;
	version = registry_schema_version(reg);
	if (version < 0)
		goto fail;
	if (version >= m->version) {
		reg_rollback(reg);
		return 0;
	}
	if (version != m->version - 1) {
		reg_failf(reg, "%s: schema is at version %d, cannot apply migration %s", op, version,
		    m->name);
		goto fail;
	}
	/* sqlite3_exec runs the file's statements in order; the text is fixed at build time. */
	if (sqlite3_exec(reg->db, m->sql, NULL, NULL, &msg) != SQLITE_OK) {
		reg_failf(reg, "%s: migration %s failed: %s", op, m->name,
		    msg ? msg : sqlite3_errmsg(reg->db));
		sqlite3_free(msg);
		goto fail;
	}
	if (registry_schema_version(reg) != m->version) {
		reg_failf(reg, "%s: migration %s did not set the schema version to %d", op, m->name,
		    m->version);
		goto fail;
	}
	if (reg_commit(reg, op) != 0)
		return -1;
	reg->migrations_applied++;
	log_info("registry: applied schema migration %s", m->name);
	return 0;
fail:
	reg_rollback(reg);
	return -1;
}

/* Bring the schema to the newest version this build knows; refuse a newer database. */
static int
migrate(struct registry *reg, const char *path)
{
	int latest = (int)registry_migration_count;
	int version = registry_schema_version(reg);

	if (version < 0)
		return -1;
	if (version > latest)
		return reg_failf(reg,
		    "registry_open: %s has schema version %d, newer than the %d this build knows; "
		    "use a newer qcg-broker or another database file", path, version, latest);
	for (size_t i = (size_t)version; i < registry_migration_count; i++)
		if (apply_migration(reg, &registry_migrations[i]) != 0)
			return -1;
	return 0;
}

/*
 * SQLite's memory statistics (on by default) take one process-wide mutex around every
 * allocation and free it makes: the broker's workers, each on its own connection, met on that
 * mutex in every statement of every Resolve (the profile in bench/broker/README.md). Nothing
 * here reads the statistics. The setting must come before SQLite initializes; when something
 * in the process already used SQLite, sqlite3_config refuses (SQLITE_MISUSE) and the default
 * stays, which is only slower.
 */
static void
configure_sqlite_once(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int
registry_open(const char *path, struct registry **out, char *err, size_t errlen)
{
	static pthread_once_t sqlite_configured = PTHREAD_ONCE_INIT;
	struct registry *reg;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

	(void)pthread_once(&sqlite_configured, configure_sqlite_once);
	*out = NULL;
	if (path == NULL || path[0] == '\0') {
		snprintf(err, errlen, "registry_open: no database path given");
		return -1;
	}
	if ((reg = calloc(1, sizeof(*reg))) == NULL) {
		snprintf(err, errlen, "registry_open: %s: out of memory", path);
		return -1;
	}
	if (sqlite3_open_v2(path, &reg->db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "registry_open: %s: %s", path,
		    reg->db ? sqlite3_errmsg(reg->db) : "out of memory");
		registry_close(reg);
		return -1;
	}
	if (configure_connection(reg, path) != 0 || reg_cache_attach(reg) != 0 ||
	    migrate(reg, path) != 0) {
		snprintf(err, errlen, "%s", reg->error);
		registry_close(reg);
		return -1;
	}
	*out = reg;
	return 0;
}

int
registry_migrations_applied(const struct registry *reg)
{
	return reg->migrations_applied;
}

void
registry_close(struct registry *reg)
{
	if (reg == NULL)
		return;
	reg_cache_detach(reg);
	for (int i = 0; i < STMT_COUNT; i++)
		sqlite3_finalize(reg->stmt[i]);
	/* With every statement finalized close cannot be busy; if it fails anyway the connection
	 * leaks, which is better than freeing memory SQLite still uses. */
	if (sqlite3_close(reg->db) != SQLITE_OK)
		log_warn("registry_close: %s", sqlite3_errmsg(reg->db));
	free(reg);
}

const char *
registry_error(const struct registry *reg)
{
	if (reg == NULL)
		return "no registry";
	return reg->error[0] ? reg->error : "no error";
}
