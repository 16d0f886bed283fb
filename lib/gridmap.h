/*
 * gridmap.h: the grid-mapfile, which maps a user's certificate DN to a local account:
 *
 *   "/O=Grid/OU=qcg-ompi/CN=Jane Doe" jane
 *   "/O=Grid/OU=qcg-ompi/CN=John Roe" jroe,jroe2      (first account is the default)
 *
 * Blank lines and lines starting with '#' are ignored. Any other malformed line is an error:
 * a silently skipped line would silently lock a user out.
 */
#ifndef QCG_GRIDMAP_H
#define QCG_GRIDMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"

#define GRIDMAP_ACCOUNT_MAX 33 /* POSIX login names, with the NUL */

struct gridmap_entry {
	char dn[QCG_DN_MAX];
	char account[GRIDMAP_ACCOUNT_MAX]; /* the default (first) account */
};

struct gridmap {
	struct gridmap_entry *entries;
	size_t count;
	pthread_rwlock_t lock; /* entries and count, against gridmap_reload (SIGHUP) */
};

/* Parse text into a new map (initialises all of it); on error err says "origin:line: reason". */
int gridmap_parse(struct gridmap *map, const char *text, const char *origin, char *err,
    size_t errlen);
int gridmap_load(struct gridmap *map, const char *path, char *err, size_t errlen);
/* Replace the entries of a loaded map with those of path, atomically for concurrent lookups.
 * On error the map keeps its entries. */
int gridmap_reload(struct gridmap *map, const char *path, char *err, size_t errlen);
void gridmap_free(struct gridmap *map);
/* The account mapped to dn, or NULL when the DN is not mapped (exact match): a pointer into the
 * map, for code that never reloads it (tools, tests). */
const char *gridmap_lookup(const struct gridmap *map, const char *dn);
/* Whether dn is mapped, and then its account copied into account (may be NULL); safe against a
 * gridmap_reload in another thread. What services use. */
bool gridmap_account_of(const struct gridmap *map, const char *dn,
    char account[GRIDMAP_ACCOUNT_MAX]);

#endif
