/*
 * stage_path.c: staged names that stay inside the job's directory (stage_path.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "stage_path.h"

/* Components of p (from its first byte) are all real names. */
static int
components_check(const char *p, char *err, size_t errlen)
{
	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 0) {
			snprintf(err, errlen, "has an empty component (\"//\" or a trailing '/')");
			return -1;
		}
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			snprintf(err, errlen, "has a '%.*s' component: it must stay inside the job's "
			    "directory", (int)n, p);
			return -1;
		}
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

static int
common_check(const char *path, char *err, size_t errlen)
{
	if (path == NULL || path[0] == '\0') {
		snprintf(err, errlen, "is empty");
		return -1;
	}
	if (strlen(path) > STAGE_PATH_MAX) {
		snprintf(err, errlen, "is longer than %d bytes", STAGE_PATH_MAX);
		return -1;
	}
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			snprintf(err, errlen, "holds a control character");
			return -1;
		}
	return 0;
}

int
stage_path_check(const char *path, char *err, size_t errlen)
{
	if (common_check(path, err, errlen) != 0)
		return -1;
	if (path[0] == '/') {
		snprintf(err, errlen, "is absolute: it must be relative to the job's directory");
		return -1;
	}
	return components_check(path, err, errlen);
}

int
stage_dir_check(const char *dir, char *err, size_t errlen)
{
	if (common_check(dir, err, errlen) != 0)
		return -1;
	if (dir[0] != '/') {
		snprintf(err, errlen, "must be absolute");
		return -1;
	}
	return dir[1] == '\0' ? 0 : components_check(dir + 1, err, errlen);
}
