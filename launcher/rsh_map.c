/*
 * rsh_map.c: parse and write the qcg-rsh hosts map (rsh_map.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsh_map.h"

#define RSH_MAP_HOSTS_MAX 65536 /* lines with a host; a bigger map is a mistake */

/* Copy the next blank-separated field of *p (bounded by end) to dst (cap bytes); 0 ok, -1 too
 * long, 1 no field left. */
static int
next_field(const char **p, const char *end, char *dst, size_t cap)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	const char *e = s;
	while (e < end && *e != ' ' && *e != '\t')
		e++;
	*p = e;
	if (e == s)
		return 1;
	if ((size_t)(e - s) >= cap)
		return -1;
	memcpy(dst, s, (size_t)(e - s));
	dst[e - s] = '\0';
	return 0;
}

/* Parse one line (no newline) into t. Returns 0, 1 for a blank/comment line, -1 with err. */
static int
parse_line(const char *s, const char *end, struct rsh_target *t, char *err, size_t errlen)
{
	const char *p = s;
	char extra[2];
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p == '#')
		return 1;
	if (memchr(s, '\0', (size_t)(end - s)) != NULL) {
		snprintf(err, errlen, "a NUL byte in the line");
		return -1;
	}
	static const char *const names[] = { "host name", "front-end URL", "reservation id" };
	char *dst[] = { t->host, t->frontend_url, t->reservation };
	size_t cap[] = { sizeof(t->host), sizeof(t->frontend_url), sizeof(t->reservation) };
	for (int i = 0; i < 3; i++) {
		int rc = next_field(&p, end, dst[i], cap[i]);
		if (rc != 0) {
			snprintf(err, errlen, rc > 0 ? "expected HOST FRONTEND-URL RESERVATION-ID, "
			    "the %s is missing" : "the %s is longer than %zu bytes", names[i],
			    cap[i] - 1);
			return -1;
		}
	}
	if (next_field(&p, end, extra, sizeof(extra)) != 1) {
		snprintf(err, errlen, "expected HOST FRONTEND-URL RESERVATION-ID, found more fields");
		return -1;
	}
	if (strncmp(t->frontend_url, "https://", 8) != 0) {
		snprintf(err, errlen, "front-end URL must start with https://, got '%.64s'",
		    t->frontend_url);
		return -1;
	}
	return 0;
}

int
rsh_map_find(const char *text, size_t len, const char *origin, const char *host,
    struct rsh_target *out, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	struct rsh_target t;
	char why[256];
	int found = 0, line = 0, hosts = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		line++;
		if (e - p >= RSH_MAP_LINE_MAX) {
			snprintf(err, errlen, "%s:%d: line longer than %d bytes", origin, line,
			    RSH_MAP_LINE_MAX);
			return -1;
		}
		int rc = parse_line(p, e > p && e[-1] == '\r' ? e - 1 : e, &t, why, sizeof(why));
		if (rc < 0) {
			snprintf(err, errlen, "%s:%d: %s", origin, line, why);
			return -1;
		}
		if (rc == 0 && ++hosts > RSH_MAP_HOSTS_MAX) {
			snprintf(err, errlen, "%s:%d: more than %d hosts", origin, line,
			    RSH_MAP_HOSTS_MAX);
			return -1;
		}
		if (rc == 0 && strcmp(t.host, host) == 0) {
			if (found) {
				snprintf(err, errlen, "%s:%d: host %s appears twice", origin, line,
				    host);
				return -1;
			}
			*out = t;
			found = 1;
		}
		p = nl ? nl + 1 : end;
	}
	return found ? 0 : 1;
}

int
rsh_map_lookup(const char *path, const char *host, struct rsh_target *out, char *err,
    size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "hosts map %s: %s", path, strerror(errno));
		return -1;
	}
	char *buf = malloc(RSH_MAP_FILE_MAX + 1);
	if (buf == NULL) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t n = fread(buf, 1, RSH_MAP_FILE_MAX + 1, f);
	int bad = ferror(f);
	fclose(f);
	int rc = -1;
	if (bad)
		snprintf(err, errlen, "hosts map %s: read error", path);
	else if (n > RSH_MAP_FILE_MAX)
		snprintf(err, errlen, "hosts map %s: larger than %d bytes", path, RSH_MAP_FILE_MAX);
	else
		rc = rsh_map_find(buf, n, path, host, out, err, errlen);
	free(buf);
	return rc;
}

static int
plain_field(const char *s)
{
	return s[0] != '\0' && strpbrk(s, " \t\r\n#") == NULL;
}

int
rsh_map_format(const struct rsh_target *t, char *buf, size_t len)
{
	if (!plain_field(t->host) || !plain_field(t->frontend_url) || !plain_field(t->reservation))
		return -1;
	int n = snprintf(buf, len, "%s %s %s\n", t->host, t->frontend_url, t->reservation);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
