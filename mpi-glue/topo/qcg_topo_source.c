/*
 * qcg_topo_source.c: read this process's topology colors from the environment or a file.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcg_topo_source.h"

#define LINE_MAX_LEN 256 /* a topology line is at most 17 small integers; longer is garbage */
/* What the formats are, for error messages. */
#define WANT_TEXT_3 "site,cluster,node (three numbers)"
#define WANT_TEXT_ANY "site,...,node (2 to 16 numbers)"
#define WANT_LINE_3 "'rank site cluster node'"
#define WANT_LINE_ANY "'rank site ... node' (2 to 16 levels)"

/* Parse one non-negative integer at *p, advance *p past it. Returns -1 if none or too big. */
static long
parse_color(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	char *end;
	long v = strtol(*p, &end, 10);
	if (errno != 0 || v > QCG_TOPO_COLOR_MAX)
		return -1;
	*p = end;
	return v;
}

/* Parse text into p with a depth from min to max; want names the caller's format. */
static int
parse_text(const char *text, struct qcg_topo_path *p, int min, int max, const char *want,
    char *err, size_t errlen)
{
	const char *s = text;
	p->depth = 0;
	for (;;) {
		long v = parse_color(&s);
		if (v < 0) {
			snprintf(err, errlen,
			    "topology colors '%.64s': level %d must be an integer 0..%d", text,
			    p->depth, QCG_TOPO_COLOR_MAX);
			return -1;
		}
		if (p->depth == max) {
			snprintf(err, errlen, "topology colors '%.64s': more than %d levels; want %s",
			    text, max, want);
			return -1;
		}
		p->color[p->depth++] = (int)v;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != ',')
			break;
		s++;
	}
	if (*s != '\0') {
		snprintf(err, errlen, "topology colors '%.64s': trailing text after the node color",
		    text);
		return -1;
	}
	if (p->depth < min) {
		snprintf(err, errlen, "topology colors '%.64s': %d level%s; want %s", text,
		    p->depth, p->depth == 1 ? "" : "s", want);
		return -1;
	}
	return 0;
}

int
qcg_topo_parse_path(const char *text, struct qcg_topo_path *p, char *err, size_t errlen)
{
	return parse_text(text, p, QCG_TOPO_DEPTH_MIN, QCG_TOPO_DEPTH_MAX, WANT_TEXT_ANY, err,
	    errlen);
}

int
qcg_topo_parse_colors(const char *text, int colors[QCG_TOPO_LEVELS], char *err, size_t errlen)
{
	struct qcg_topo_path p;
	if (parse_text(text, &p, QCG_TOPO_LEVELS, QCG_TOPO_LEVELS, WANT_TEXT_3, err, errlen) < 0)
		return -1;
	memcpy(colors, p.color, QCG_TOPO_LEVELS * sizeof(int));
	return 0;
}

void
qcg_topo_path_text(const struct qcg_topo_path *p, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int l = 0; l < p->depth && used < len; l++) {
		int k = snprintf(buf + used, len - used, "%s%d", l ? "," : "", p->color[l]);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

/* Parse "rank c0 ... cN" from one line with the comment removed, N+1 from min to max, blanks
 * between fields. Returns 1 parsed, 0 blank, -1 malformed. */
static int
parse_file_line(const char *line, long *rank, struct qcg_topo_path *p, int min, int max)
{
	const char *s = line;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return 0;
	*rank = parse_color(&s);
	if (*rank < 0 || *rank > QCG_TOPO_RANK_MAX)
		return -1;
	p->depth = 0;
	for (;;) {
		if (*s != '\0' && !isspace((unsigned char)*s))
			return -1; /* a number must be followed by a blank or the end */
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '\0')
			break;
		if (p->depth == max)
			return -1;
		long v = parse_color(&s);
		if (v < 0)
			return -1;
		p->color[p->depth++] = (int)v;
	}
	return p->depth >= min ? 1 : -1;
}

/* Find world rank `rank`'s line, every line of depth min..max; want names the format. */
static int
file_lookup(const char *path, int rank, struct qcg_topo_path *p, int min, int max,
    const char *want, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "topology file %s: %s", path, strerror(errno));
		return -1;
	}
	char line[LINE_MAX_LEN + 2];
	long lineno = 0, total = 0;
	int found = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		size_t n = strlen(line);
		total += (long)n;
		if (total > QCG_TOPO_FILE_MAX) {
			snprintf(err, errlen, "topology file %s: larger than %d bytes", path,
			    QCG_TOPO_FILE_MAX);
			goto fail;
		}
		if (n > LINE_MAX_LEN && line[n - 1] != '\n') {
			snprintf(err, errlen, "topology file %s line %ld: longer than %d bytes", path,
			    lineno, LINE_MAX_LEN);
			goto fail;
		}
		char *hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		long r;
		struct qcg_topo_path c;
		int rc = parse_file_line(line, &r, &c, min, max);
		if (rc < 0) {
			snprintf(err, errlen, "topology file %s line %ld: want %s (integers, colors "
			    "0..%d)", path, lineno, want, QCG_TOPO_COLOR_MAX);
			goto fail;
		}
		if (rc == 0 || r != rank)
			continue;
		if (found) {
			snprintf(err, errlen, "topology file %s line %ld: rank %ld appears twice",
			    path, lineno, r);
			goto fail;
		}
		*p = c;
		found = 1;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "topology file %s: read error", path);
		goto fail;
	}
	fclose(f);
	return found;
fail:
	fclose(f);
	return -1;
}

int
qcg_topo_file_lookup_path(const char *path, int rank, struct qcg_topo_path *p, char *err,
    size_t errlen)
{
	return file_lookup(path, rank, p, QCG_TOPO_DEPTH_MIN, QCG_TOPO_DEPTH_MAX, WANT_LINE_ANY,
	    err, errlen);
}

int
qcg_topo_file_lookup(const char *path, int rank, int colors[QCG_TOPO_LEVELS], char *err,
    size_t errlen)
{
	struct qcg_topo_path p;
	int rc = file_lookup(path, rank, &p, QCG_TOPO_LEVELS, QCG_TOPO_LEVELS, WANT_LINE_3, err,
	    errlen);
	if (rc == 1)
		memcpy(colors, p.color, QCG_TOPO_LEVELS * sizeof(int));
	return rc;
}

/* This process's source, as qcg_topo_local_path() describes; depths min..max. */
static int
local_source(int world_rank, const char *file_param, struct qcg_topo_path *p, int min, int max,
    char *err, size_t errlen)
{
	const char *env = getenv(QCG_TOPO_ENV_COLORS);
	if (env != NULL && *env != '\0') {
		if (parse_text(env, p, min, max, min == max ? WANT_TEXT_3 : WANT_TEXT_ANY, err,
			errlen) < 0)
			return -1;
		return QCG_TOPO_FROM_ENV;
	}
	const char *path = file_param;
	if (path == NULL || *path == '\0')
		path = getenv(QCG_TOPO_ENV_MCA_FILE);
	if (path == NULL || *path == '\0')
		path = getenv(QCG_TOPO_ENV_FILE);
	if (path == NULL || *path == '\0') {
		const char *required = getenv(QCG_TOPO_ENV_REQUIRED);
		if (required == NULL || *required == '\0')
			return QCG_TOPO_NONE;
		snprintf(err, errlen, "rank %d has no topology (%s unset, no topology file) though "
		    "its launcher gave the job one (%s=%s): its node's environment did not reach it",
		    world_rank, QCG_TOPO_ENV_COLORS, QCG_TOPO_ENV_REQUIRED, required);
		return -1;
	}
	int rc = file_lookup(path, world_rank, p, min, max, min == max ? WANT_LINE_3 : WANT_LINE_ANY,
	    err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(err, errlen, "topology file %s: no line for rank %d", path, world_rank);
		return -1;
	}
	return QCG_TOPO_FROM_FILE;
}

int
qcg_topo_local_path(int world_rank, const char *file_param, struct qcg_topo_path *p, char *err,
    size_t errlen)
{
	return local_source(world_rank, file_param, p, QCG_TOPO_DEPTH_MIN, QCG_TOPO_DEPTH_MAX, err,
	    errlen);
}

int
qcg_topo_local_colors(int world_rank, const char *file_param, int colors[QCG_TOPO_LEVELS],
    char *err, size_t errlen)
{
	struct qcg_topo_path p;
	int origin = local_source(world_rank, file_param, &p, QCG_TOPO_LEVELS, QCG_TOPO_LEVELS, err,
	    errlen);
	if (origin > 0)
		memcpy(colors, p.color, QCG_TOPO_LEVELS * sizeof(int));
	return origin;
}
