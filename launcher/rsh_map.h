/*
 * rsh_map.h: the hosts map that qcg-submit writes and qcg-rsh reads (QCG_RSH_MAP=FILE).
 *
 * One line per host, fields separated by blanks:
 *
 *     HOST FRONTEND-URL RESERVATION-ID
 *
 * HOST is the node name as the rankfile gives it to mpirun (and the front-end's [nodes] name),
 * FRONTEND-URL the https:// URL of that node's cluster front-end, RESERVATION-ID the committed
 * reservation qcg-rsh launches under. Blank lines and lines starting with '#' are ignored. A
 * host appears at most once. Parsing works on a buffer, so it is tested without files.
 */
#ifndef QCG_RSH_MAP_H
#define QCG_RSH_MAP_H

#include <stddef.h>

#include "model.h"

#define RSH_MAP_FILE_MAX (1024 * 1024) /* bytes of a map file */
#define RSH_MAP_LINE_MAX 2048          /* bytes of one line */
#define RSH_MAP_URL_MAX 1024
#define RSH_MAP_RESERVATION_MAX 128

struct rsh_target {
	char host[QCG_NAME_MAX];
	char frontend_url[RSH_MAP_URL_MAX];
	char reservation[RSH_MAP_RESERVATION_MAX];
};

/* Find host in the map text (len bytes; origin names it in errors). Returns 0 and fills out,
 * 1 when the map is well formed but has no such host, -1 with err ("origin:line: why") when
 * the map is malformed (the whole map is checked, not only the lines before host). */
int rsh_map_find(const char *text, size_t len, const char *origin, const char *host,
    struct rsh_target *out, char *err, size_t errlen);

/* Read path (at most RSH_MAP_FILE_MAX bytes) and find host in it; as rsh_map_find. */
int rsh_map_lookup(const char *path, const char *host, struct rsh_target *out, char *err,
    size_t errlen);

/* One map line for t, with its newline, into buf; -1 if a field has blanks or is too long. */
int rsh_map_format(const struct rsh_target *t, char *buf, size_t len);

#endif
