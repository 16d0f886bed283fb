/*
 * migrations.h: the schema migrations, embedded at build time from db/migrations/NNN_*.sql by
 * db/embed_migrations.sh. Entry i has version i + 1; its SQL ends by setting PRAGMA
 * user_version to that version, so applying it in a transaction moves the schema forward
 * atomically.
 */
#ifndef QCG_MIGRATIONS_H
#define QCG_MIGRATIONS_H

#include <stddef.h>

struct registry_migration {
	int version;      /* 1, 2, ...: the user_version the database has after it */
	const char *name; /* the file it came from, for error messages */
	const char *sql;  /* one or more statements, ending with the user_version bump */
};

extern const struct registry_migration registry_migrations[];
extern const size_t registry_migration_count;

#endif
