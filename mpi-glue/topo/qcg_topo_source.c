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

#define LINE_MAX_LEN 256 /* a topology line is four small integers; longer is garbage */

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

int
qcg_topo_parse_colors(const char *text, int colors[QCG_TOPO_LEVELS], char *err, size_t errlen)
{
	const char *p = text;
	for (int l = 0; l < QCG_TOPO_LEVELS; l++) {
		long v = parse_color(&p);
		if (v < 0) {
			snprintf(err, errlen,
			    "topology colors '%.64s': level %d must be an integer 0..%d", text, l,
			    QCG_TOPO_COLOR_MAX);
			return -1;
		}
		colors[l] = (int)v;
		while (*p == ' ' || *p == '\t')
			p++;
		if (l + 1 < QCG_TOPO_LEVELS) {
			if (*p != ',') {
				snprintf(err, errlen,
				    "topology colors '%.64s': want site,cluster,node (three numbers)",
				    text);
				return -1;
			}
			p++;
		}
	}
	if (*p != '\0') {
		snprintf(err, errlen, "topology colors '%.64s': trailing text after the node color",
		    text);
		return -1;
	}
	return 0;
}

/* Parse "rank site cluster node" from one line with the comment removed. Returns 1 parsed,
 * 0 blank, -1 malformed. */
static int
parse_file_line(const char *line, long *rank, int colors[QCG_TOPO_LEVELS])
{
	const char *p = line;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0')
		return 0;
	*rank = parse_color(&p);
	if (*rank < 0 || *rank > QCG_TOPO_RANK_MAX)
		return -1;
	for (int l = 0; l < QCG_TOPO_LEVELS; l++) {
		if (*p != ' ' && *p != '\t')
			return -1;
		long v = parse_color(&p);
		if (v < 0)
			return -1;
		colors[l] = (int)v;
	}
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0' ? 1 : -1;
}

int
qcg_topo_file_lookup(const char *path, int rank, int colors[QCG_TOPO_LEVELS], char *err,
    size_t errlen)
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
		int c[QCG_TOPO_LEVELS];
		int rc = parse_file_line(line, &r, c);
		if (rc < 0) {
			snprintf(err, errlen,
			    "topology file %s line %ld: want 'rank site cluster node' "
			    "(integers, colors 0..%d)", path, lineno, QCG_TOPO_COLOR_MAX);
			goto fail;
		}
		if (rc == 0 || r != rank)
			continue;
		if (found) {
			snprintf(err, errlen, "topology file %s line %ld: rank %ld appears twice",
			    path, lineno, r);
			goto fail;
		}
		memcpy(colors, c, sizeof(c));
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
qcg_topo_local_colors(int world_rank, const char *file_param, int colors[QCG_TOPO_LEVELS],
    char *err, size_t errlen)
{
	const char *env = getenv(QCG_TOPO_ENV_COLORS);
	if (env != NULL && *env != '\0') {
		if (qcg_topo_parse_colors(env, colors, err, errlen) < 0)
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
	int rc = qcg_topo_file_lookup(path, world_rank, colors, err, errlen);
	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(err, errlen, "topology file %s: no line for rank %d", path, world_rank);
		return -1;
	}
	return QCG_TOPO_FROM_FILE;
}
