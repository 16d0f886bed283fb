/*
 * config_file.h: INI-style configuration files with command-line overrides.
 *
 *   # comment            ; comment too
 *   [broker]
 *   listen = 127.0.0.1:8443
 *
 * Keys are addressed as "section.key". Later assignments win, so command-line overrides
 * (`--set broker.listen=0.0.0.0:9443`) are applied after the file with config_set().
 */
#ifndef QCG_CONFIG_FILE_H
#define QCG_CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_KEY_MAX 128     /* "section.key", with the NUL */
#define CONFIG_VALUE_MAX 1024  /* one value, with the NUL */
#define CONFIG_LINE_MAX 2048   /* one line of a file */
#define CONFIG_ENTRIES_MAX 256 /* entries in one configuration */
#define CONFIG_ORIGINS_MAX 8   /* files one configuration is read from */
#define CONFIG_ORIGIN_MAX 256  /* a file's name as errors quote it, with the NUL */

struct config_entry {
	char key[CONFIG_KEY_MAX];     /* "section.key" */
	char value[CONFIG_VALUE_MAX]; /* trimmed; quotes removed */
	int origin;                   /* index in config.origins; -1: set by config_set */
	int line;                     /* 1-based line in that file; 0 with origin -1 */
};

struct config {
	struct config_entry entries[CONFIG_ENTRIES_MAX];
	size_t count;
	char origins[CONFIG_ORIGINS_MAX][CONFIG_ORIGIN_MAX]; /* the files read, for errors */
	size_t origin_count;
};

void config_init(struct config *cfg);
/* Read a file into cfg; on error err says "file:line: reason" and -1 is returned. */
int config_load_file(struct config *cfg, const char *path, char *err, size_t errlen);
/* Parse text (the file's contents) as if read from `origin`; what config_load_file uses. */
int config_load_text(struct config *cfg, const char *text, const char *origin, char *err,
    size_t errlen);
/* Set "section.key" to value, replacing an earlier value. */
int config_set(struct config *cfg, const char *key, const char *value, char *err, size_t errlen);
/* Apply an override of the form "section.key=value". */
int config_apply_override(struct config *cfg, const char *assignment, char *err, size_t errlen);

/* Where "section.key" got its value: *origin the file (NULL when set by config_set, i.e. on
 * the command line) and *line. Returns 0, or -1 when the key is absent. */
int config_place(const struct config *cfg, const char *key, const char **origin, int *line);
/* Give a reason a place, for `-n` and start-up errors: err (a getter's or a daemon's own
 * message, which names the key it is about, as they all do) becomes "FILE:LINE: reason" for
 * the key of cfg named earliest in it (or, failing that, the key whose value is a path the
 * message names: a file that cannot be read), or "command line (-s KEY): reason" for an
 * override.
 * A message that starts with a place already (a file's own "path:line:", or config_error's)
 * is left alone; one that names no key of cfg (a required key missing) gets "fallback: ". */
void config_locate_error(const struct config *cfg, const char *fallback, char *err,
    size_t errlen);

/* The value of "section.key", or fallback when absent. */
const char *config_get(const struct config *cfg, const char *key, const char *fallback);
/* An integer in [min, max]; absent → fallback; present but malformed or out of range → -1
 * with err naming the key and the value. */
int config_get_int(const struct config *cfg, const char *key, long fallback, long min, long max,
    long *out, char *err, size_t errlen);
/* yes/no, true/false, on/off, 1/0. */
int config_get_bool(const struct config *cfg, const char *key, bool fallback, bool *out,
    char *err, size_t errlen);

/*
 * Where key's value was set, for an error message: "FILE:LINE" for a file's line, "--set" for
 * an override or a value a program set, "" when key is absent.
 */
void config_where(const struct config *cfg, const char *key, char *buf, size_t len);

/* Write "FILE:LINE: key: reason" (config_where's place; just "key: reason" when key is absent)
 * into err and return -1, so that callers can `return config_error(...)`. */
int config_error(const struct config *cfg, const char *key, char *err, size_t errlen,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * Copy key's value (fallback when absent) into the fixed field dst of dstlen bytes. 0 when
 * copied; 1 when key is absent and fallback NULL (dst untouched); -1 when the value does not
 * fit, with err "FILE:LINE: key: value longer than N bytes".
 */
int config_copy(const struct config *cfg, const char *key, const char *fallback, char *dst,
    size_t dstlen, char *err, size_t errlen);
/* config_copy for a setting that must not be empty: absent (fallback NULL) or empty is -1 with
 * err "[FILE:LINE: ]key is required". 0 when copied. */
int config_copy_required(const struct config *cfg, const char *key, const char *fallback,
    char *dst, size_t dstlen, char *err, size_t errlen);

#endif
