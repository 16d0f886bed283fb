/*
 * config_file.c: INI-style configuration files with command-line overrides.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"

#define CONFIG_FILE_MAX (1024 * 1024) /* a configuration file larger than this is a mistake */

void
config_init(struct config *cfg)
{
	cfg->count = 0;
	cfg->origin_count = 0;
}

/* The entry for key, or NULL. */
static const struct config_entry *
config_find(const struct config *cfg, const char *key)
{
	for (size_t i = 0; i < cfg->count; i++)
		if (strcmp(cfg->entries[i].key, key) == 0)
			return &cfg->entries[i];
	return NULL;
}

/* The index of origin in cfg->origins, added when new; -1 when the table is full (errors then
 * name no file). A name too long keeps its end, where the file's own name is. */
static int
config_origin_index(struct config *cfg, const char *origin)
{
	size_t len = strlen(origin);
	char name[CONFIG_ORIGIN_MAX];

	if (len < sizeof(name))
		memcpy(name, origin, len + 1);
	else
		snprintf(name, sizeof(name), "...%s", origin + len - (sizeof(name) - 4));
	for (size_t i = 0; i < cfg->origin_count; i++)
		if (strcmp(cfg->origins[i], name) == 0)
			return (int)i;
	if (cfg->origin_count == CONFIG_ORIGINS_MAX)
		return -1;
	memcpy(cfg->origins[cfg->origin_count], name, sizeof(name));
	return (int)cfg->origin_count++;
}

static char *
trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* config_set, recording where the value came from (origin -1: no file). */
static int
config_set_at(struct config *cfg, const char *key, const char *value, int origin, int line,
    char *err, size_t errlen)
{
	if (strlen(key) >= CONFIG_KEY_MAX || strchr(key, '.') == NULL) {
		snprintf(err, errlen, "bad key '%.64s': want section.key under %d bytes", key,
		    CONFIG_KEY_MAX);
		return -1;
	}
	if (strlen(value) >= CONFIG_VALUE_MAX) {
		snprintf(err, errlen, "value of %s is longer than %d bytes", key, CONFIG_VALUE_MAX - 1);
		return -1;
	}
	struct config_entry *e = NULL;
	for (size_t i = 0; i < cfg->count; i++)
		if (strcmp(cfg->entries[i].key, key) == 0)
			e = &cfg->entries[i];
	if (e == NULL) {
		if (cfg->count == CONFIG_ENTRIES_MAX) {
			snprintf(err, errlen, "more than %d settings", CONFIG_ENTRIES_MAX);
			return -1;
		}
		e = &cfg->entries[cfg->count++];
		snprintf(e->key, sizeof(e->key), "%s", key);
	}
	snprintf(e->value, sizeof(e->value), "%s", value);
	e->origin = origin;
	e->line = line;
	return 0;
}

int
config_set(struct config *cfg, const char *key, const char *value, char *err, size_t errlen)
{
	return config_set_at(cfg, key, value, -1, 0, err, errlen);
}

/* Remove one pair of matching quotes around a value, so paths with spaces can be written. */
static char *
unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

static int
config_parse_line(struct config *cfg, char *line, char *section, const char *origin, int lineno,
    char *err, size_t errlen)
{
	char *s = trim(line);
	char key[CONFIG_KEY_MAX], msg[256];

	if (*s == '\0' || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		char *end = strchr(s, ']');
		if (end == NULL || end[1] != '\0' || end == s + 1) {
			snprintf(err, errlen, "%s:%d: section header must be [name]", origin, lineno);
			return -1;
		}
		*end = '\0';
		if (strlen(s + 1) >= CONFIG_KEY_MAX / 2) {
			snprintf(err, errlen, "%s:%d: section name too long", origin, lineno);
			return -1;
		}
		strcpy(section, s + 1);
		return 0;
	}
	char *eq = strchr(s, '=');
	if (eq == NULL) {
		snprintf(err, errlen, "%s:%d: expected key = value, got '%.40s'", origin, lineno, s);
		return -1;
	}
	if (section[0] == '\0') {
		snprintf(err, errlen, "%s:%d: key outside any [section]", origin, lineno);
		return -1;
	}
	*eq = '\0';
	char *name = trim(s), *value = unquote(trim(eq + 1));
	if (*name == '\0' || strchr(name, '.') != NULL) {
		snprintf(err, errlen, "%s:%d: empty key or key with '.'", origin, lineno);
		return -1;
	}
	if ((size_t)snprintf(key, sizeof(key), "%s.%s", section, name) >= sizeof(key)) {
		snprintf(err, errlen, "%s:%d: key too long", origin, lineno);
		return -1;
	}
	if (config_set_at(cfg, key, value, config_origin_index(cfg, origin), lineno, msg,
	    sizeof(msg)) != 0) {
		snprintf(err, errlen, "%s:%d: %s", origin, lineno, msg);
		return -1;
	}
	return 0;
}

int
config_load_text(struct config *cfg, const char *text, const char *origin, char *err,
    size_t errlen)
{
	char section[CONFIG_KEY_MAX / 2] = "";
	char line[CONFIG_LINE_MAX];
	int lineno = 0;

	for (const char *p = text; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (n >= sizeof(line)) {
			snprintf(err, errlen, "%s:%d: line longer than %d bytes", origin, lineno,
			    CONFIG_LINE_MAX - 1);
			return -1;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		if (config_parse_line(cfg, line, section, origin, lineno, err, errlen) != 0)
			return -1;
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

/* The 1-based number of the line of text that position at is on. */
static int
line_of(const char *text, const char *at)
{
	int line = 1;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

int
config_load_file(struct config *cfg, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *text = malloc(CONFIG_FILE_MAX + 1);
	if (text == NULL) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	size_t n = fread(text, 1, CONFIG_FILE_MAX + 1, f);
	int failed = ferror(f);
	fclose(f);
	int rc = -1;
	const char *nul = NULL;
	if (failed)
		snprintf(err, errlen, "%s: read error", path);
	else if (n > CONFIG_FILE_MAX)
		snprintf(err, errlen, "%s: larger than %d bytes", path, CONFIG_FILE_MAX);
	else if ((nul = memchr(text, '\0', n)) != NULL)
		snprintf(err, errlen, "%s:%d: contains a NUL byte", path, line_of(text, nul));
	else {
		text[n] = '\0';
		rc = config_load_text(cfg, text, path, err, errlen);
	}
	free(text);
	return rc;
}

int
config_apply_override(struct config *cfg, const char *assignment, char *err, size_t errlen)
{
	char key[CONFIG_KEY_MAX];
	const char *eq = strchr(assignment, '=');
	if (eq == NULL || eq == assignment || (size_t)(eq - assignment) >= sizeof(key)) {
		snprintf(err, errlen, "override '%.64s' must be section.key=value", assignment);
		return -1;
	}
	memcpy(key, assignment, (size_t)(eq - assignment));
	key[eq - assignment] = '\0';
	return config_set(cfg, key, eq + 1, err, errlen);
}

const char *
config_get(const struct config *cfg, const char *key, const char *fallback)
{
	const struct config_entry *e = config_find(cfg, key);
	return e ? e->value : fallback;
}

void
config_where(const struct config *cfg, const char *key, char *buf, size_t len)
{
	const struct config_entry *e = config_find(cfg, key);

	if (e == NULL)
		snprintf(buf, len, "%s", "");
	else if (e->origin < 0 || (size_t)e->origin >= cfg->origin_count)
		snprintf(buf, len, "--set");
	else
		snprintf(buf, len, "%s:%d", cfg->origins[e->origin], e->line);
}

int
config_error(const struct config *cfg, const char *key, char *err, size_t errlen,
    const char *fmt, ...)
{
	char where[CONFIG_ORIGIN_MAX + 16], reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	config_where(cfg, key, where, sizeof(where));
	snprintf(err, errlen, "%s%s%s: %s", where, where[0] ? ": " : "", key, reason);
	return -1;
}

int
config_copy(const struct config *cfg, const char *key, const char *fallback, char *dst,
    size_t dstlen, char *err, size_t errlen)
{
	const char *v = config_get(cfg, key, fallback);
	size_t len;

	if (v == NULL)
		return 1;
	len = strlen(v);
	if (len >= dstlen)
		return config_error(cfg, key, err, errlen, "value longer than %zu bytes",
		    dstlen - 1);
	memcpy(dst, v, len + 1);
	return 0;
}

int
config_copy_required(const struct config *cfg, const char *key, const char *fallback,
    char *dst, size_t dstlen, char *err, size_t errlen)
{
	const char *v = config_get(cfg, key, fallback);
	char where[CONFIG_ORIGIN_MAX + 16];

	if (v == NULL || v[0] == '\0') {
		config_where(cfg, key, where, sizeof(where));
		snprintf(err, errlen, "%s%s%s is required", where, where[0] ? ": " : "", key);
		return -1;
	}
	return config_copy(cfg, key, fallback, dst, dstlen, err, errlen);
}

int
config_get_int(const struct config *cfg, const char *key, long fallback, long min, long max,
    long *out, char *err, size_t errlen)
{
	const char *v = config_get(cfg, key, NULL);
	if (v == NULL) {
		*out = fallback;
		return 0;
	}
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || n < min || n > max) {
		snprintf(err, errlen, "%s must be an integer in [%ld, %ld], got '%.40s'", key, min, max,
		    v);
		return -1;
	}
	*out = n;
	return 0;
}

int
config_get_bool(const struct config *cfg, const char *key, bool fallback, bool *out, char *err,
    size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	const char *v = config_get(cfg, key, NULL);

	if (v == NULL) {
		*out = fallback;
		return 0;
	}
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	snprintf(err, errlen, "%s must be yes or no, got '%.40s'", key, v);
	return -1;
}

int
config_place(const struct config *cfg, const char *key, const char **origin, int *line)
{
	const struct config_entry *e = config_find(cfg, key);
	if (e == NULL)
		return -1;
	bool from_file = e->origin >= 0 && (size_t)e->origin < cfg->origin_count;
	*origin = from_file ? cfg->origins[e->origin] : NULL;
	*line = from_file ? e->line : 0;
	return 0;
}

/* Whether c may continue a key ("proxy.max_legs", "proxy.max-legs"): a key named in a message
 * must not be the start of a longer one. */
static bool
key_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* Where key occurs in msg as a whole word, or NULL. */
static const char *
find_key(const char *msg, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = strstr(msg, key); p != NULL; p = strstr(p + 1, key)) {
		bool starts = p == msg || !key_char(p[-1]);
		/* a key ends a sentence too: "... in proxy.networks." */
		bool ends = !key_char(p[n]) || (p[n] == '.' && !key_char(p[n + 1]));
		if (starts && ends)
			return p;
	}
	return NULL;
}

/* Whether msg starts with "PATH:DIGITS:", a place a file's parser or config_error gave
 * already (or config_error's "--set:" for a value from the command line). */
static bool
has_place(const char *msg)
{
	if (strncmp(msg, "--set:", 6) == 0)
		return true;
	const char *colon = strchr(msg, ':');
	if (colon == NULL || colon == msg || colon[1] < '0' || colon[1] > '9')
		return false;
	const char *p = colon + 1;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == ':';
}

void
config_locate_error(const struct config *cfg, const char *fallback, char *err, size_t errlen)
{
	const struct config_entry *named = NULL;
	const char *first = NULL;
	char reason[1024];

	if (has_place(err))
		return;
	for (size_t i = 0; i < cfg->count; i++) {
		const char *at = find_key(err, cfg->entries[i].key);
		if (at != NULL && (first == NULL || at < first)) {
			first = at;
			named = &cfg->entries[i];
		}
	}
	/* A file's own error ("/etc/qcg/hostkey.pem: No such file or directory") names the
	 * path, not the key: the entry whose value is that path. */
	for (size_t i = 0; named == NULL && i < cfg->count; i++) {
		const char *v = cfg->entries[i].value;
		if (strchr(v, '/') != NULL && strlen(v) > 1 && strstr(err, v) != NULL)
			named = &cfg->entries[i];
	}
	snprintf(reason, sizeof(reason), "%s", err);
	if (named != NULL && named->origin >= 0 && (size_t)named->origin < cfg->origin_count)
		snprintf(err, errlen, "%s:%d: %s", cfg->origins[named->origin], named->line, reason);
	else if (named != NULL)
		snprintf(err, errlen, "command line (-s %s): %s", named->key, reason);
	else
		snprintf(err, errlen, "%s: %s", fallback, reason);
}
