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

/* The length of entry's NAME when entry is NAME=VALUE with a shell-style name, else 0. */
static size_t
env_name_len(const char *entry)
{
	size_t i = 0;
	if (!(entry[0] == '_' || (entry[0] >= 'A' && entry[0] <= 'Z') ||
	    (entry[0] >= 'a' && entry[0] <= 'z')))
		return 0;
	while (entry[i] == '_' || (entry[i] >= 'A' && entry[i] <= 'Z') ||
	    (entry[i] >= 'a' && entry[i] <= 'z') || (entry[i] >= '0' && entry[i] <= '9'))
		i++;
	return entry[i] == '=' ? i : 0;
}

/* Whether entries a and b (NAME=... both) have the same name. */
static int
same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");
	return strncmp(a, b, n) == 0 && b[n] == '=';
}

/* The NAME=VALUE words after the reservation id into t; 0, or -1 with err. */
static int
parse_env_words(const char *p, const char *end, struct rsh_target *t, char *err, size_t errlen)
{
	char word[RSH_MAP_ENV_LEN];
	int rc;
	t->envc = 0;
	while ((rc = next_field(&p, end, word, sizeof(word))) != 1) {
		if (rc < 0) {
			snprintf(err, errlen, "an environment word is longer than %d bytes",
			    RSH_MAP_ENV_LEN - 1);
			return -1;
		}
		if (env_name_len(word) == 0) {
			snprintf(err, errlen, "expected NAME=VALUE after the reservation id, got '%.64s'",
			    word);
			return -1;
		}
		if (t->envc == RSH_MAP_ENV_MAX) {
			snprintf(err, errlen, "more than %d NAME=VALUE words", RSH_MAP_ENV_MAX);
			return -1;
		}
		for (int i = 0; i < t->envc; i++)
			if (same_name(t->env[i], word)) {
				snprintf(err, errlen, "%.*s is set twice", (int)env_name_len(word), word);
				return -1;
			}
		strcpy(t->env[t->envc++], word);
	}
	return 0;
}

/* Parse one line (no newline) into t. Returns 0, 1 for a blank/comment line, -1 with err. */
static int
parse_line(const char *s, const char *end, struct rsh_target *t, char *err, size_t errlen)
{
	const char *p = s;
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
	if (parse_env_words(p, end, t, err, errlen) != 0)
		return -1;
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

int
rsh_map_format_env(const struct rsh_target *t, char *buf, size_t len)
{
	if (rsh_map_format(t, buf, len) != 0 || t->envc < 0 || t->envc > RSH_MAP_ENV_MAX)
		return -1;
	size_t used = strlen(buf) - 1; /* overwrite the newline */
	for (int i = 0; i < t->envc; i++) {
		if (env_name_len(t->env[i]) == 0 || strpbrk(t->env[i], " \t\r\n") != NULL)
			return -1;
		int n = snprintf(buf + used, len - used, " %s", t->env[i]);
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	if (used + 2 > len)
		return -1;
	strcpy(buf + used, "\n");
	return 0;
}

int
rsh_env_node_local(const char *entry)
{
	static const char *const names[] = { "QCG_HELPER_SOCKET", "QCG_HELPER_TOKEN_FILE",
		"QCG_NET_PORTS", "QCG_NET_ADDRESS", "QCG_USER_CLUSTER", "QCG_TOPOLOGY_COLORS",
		"OMPI_MCA_btl_tcp_port_min_v4", "OMPI_MCA_btl_tcp_port_range_v4",
		"OMPI_MCA_oob_tcp_dynamic_ipv4_ports" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		if (strncmp(entry, names[i], n) == 0 && (entry[n] == '=' || entry[n] == '\0'))
			return 1;
	}
	return 0;
}

/* The value of name in t's words, or NULL. */
static const char *
target_value(const struct rsh_target *t, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < t->envc; i++)
		if (strncmp(t->env[i], name, n) == 0 && t->env[i][n] == '=')
			return t->env[i] + n + 1;
	return NULL;
}

/* Parse "MIN-MAX" (1 <= MIN <= MAX <= 65535); 0, or -1. */
static int
parse_window(const char *s, long *lo, long *hi)
{
	char *e;
	errno = 0;
	*lo = strtol(s, &e, 10);
	if (e == s || *e != '-' || errno)
		return -1;
	const char *h = e + 1;
	*hi = strtol(h, &e, 10);
	if (e == h || *e != '\0' || errno)
		return -1;
	return *lo >= 1 && *lo <= *hi && *hi <= 65535 ? 0 : -1;
}

/* Open MPI's port parameters for the window in *derived; returns how many (0 without one). */
static int
derive_ports(const struct rsh_target *t, struct rsh_node_derived *d, char *err, size_t errlen)
{
	static const char *const params[RSH_NODE_ENV_DERIVED] = { "OMPI_MCA_btl_tcp_port_min_v4",
		"OMPI_MCA_btl_tcp_port_range_v4", "OMPI_MCA_oob_tcp_dynamic_ipv4_ports" };
	const char *w = target_value(t, "QCG_NET_PORTS");
	long lo, hi;
	if (w == NULL)
		return 0;
	if (parse_window(w, &lo, &hi) != 0) {
		snprintf(err, errlen, "host %s: QCG_NET_PORTS must be MIN-MAX with 1 <= MIN <= MAX "
		    "<= 65535, got '%.32s'", t->host, w);
		return -1;
	}
	snprintf(d->entry[0], sizeof(d->entry[0]), "%s=%ld", params[0], lo);
	snprintf(d->entry[1], sizeof(d->entry[1]), "%s=%ld", params[1], hi - lo + 1);
	snprintf(d->entry[2], sizeof(d->entry[2]), "%s=%ld-%ld", params[2], lo, hi);
	int k = 0;
	for (int i = 0; i < RSH_NODE_ENV_DERIVED; i++)
		if (target_value(t, params[i]) == NULL) /* the map's own value wins */
			memmove(d->entry[k++], d->entry[i], sizeof(d->entry[i]));
	return k;
}

int
rsh_map_node_env(const struct rsh_target *t, char *const *carried, int n, char **out,
    size_t max, struct rsh_node_derived *derived, char *err, size_t errlen)
{
	size_t k = 0;
	int nd = derive_ports(t, derived, err, errlen);
	if (nd < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		int overridden = rsh_env_node_local(carried[i]);
		for (int j = 0; j < t->envc && !overridden; j++)
			overridden = same_name(t->env[j], carried[i]);
		if (overridden)
			continue;
		if (k == max)
			goto full;
		out[k++] = carried[i];
	}
	for (int j = 0; j < t->envc; j++) {
		if (k == max)
			goto full;
		out[k++] = (char *)t->env[j];
	}
	for (int j = 0; j < nd; j++) {
		if (k == max)
			goto full;
		out[k++] = derived->entry[j];
	}
	return (int)k;
full:
	snprintf(err, errlen, "host %s: more than %zu environment variables", t->host, max);
	return -1;
}
