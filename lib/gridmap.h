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
};

/* Parse text; on error err says "origin:line: reason". */
int gridmap_parse(struct gridmap *map, const char *text, const char *origin, char *err,
    size_t errlen);
int gridmap_load(struct gridmap *map, const char *path, char *err, size_t errlen);
void gridmap_free(struct gridmap *map);
/* The account mapped to dn, or NULL when the DN is not mapped (exact match). */
const char *gridmap_lookup(const struct gridmap *map, const char *dn);

#endif
