/*
 * proxy_config.c: qcg-proxy's settings (format in proxy_config.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "proxy_config.h"

void
proxy_config_defaults(struct proxy_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	relay_config_defaults(&cfg->relay);
	cfg->stats_interval_s = 60;
	cfg->log_level = LOG_LEVEL_INFO;
}

/* A whole decimal number in [min, max]. */
static int
parse_unsigned(const char *key, const char *value, unsigned long min, unsigned long max,
    unsigned *out, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	unsigned long v = isdigit((unsigned char)value[0]) ? strtoul(value, &end, 10) : 0;
	if (!isdigit((unsigned char)value[0]) || errno != 0 || *end != '\0' || v < min || v > max) {
		snprintf(err, errlen, "%s: expected a whole number in %lu..%lu, got '%.40s'", key, min,
		    max, value);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int
parse_bool(const char *key, const char *value, bool *out, char *err, size_t errlen)
{
	if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
		*out = true;
		return 0;
	}
	if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
		*out = false;
		return 0;
	}
	snprintf(err, errlen, "%s: expected yes or no, got '%.40s'", key, value);
	return -1;
}

static int
parse_path(const char *key, const char *value, char *out, char *err, size_t errlen)
{
	if (strlen(value) >= PROXY_PATH_MAX) {
		snprintf(err, errlen, "%s: path longer than %d bytes", key, PROXY_PATH_MAX - 1);
		return -1;
	}
	strcpy(out, value);
	return 0;
}

/* "HOST:PORT", "[V6]:PORT" or "*:PORT"; port 0 asks for any free port. */
static int
parse_listen(const char *value, struct relay_config *relay, char *err, size_t errlen)
{
	const char *colon = strrchr(value, ':');
	unsigned port;

	if (colon == NULL || parse_unsigned("listen port", colon + 1, 0, 65535, &port, err,
	    errlen) < 0) {
		if (colon == NULL)
			snprintf(err, errlen, "listen: expected HOST:PORT, got '%.60s'", value);
		return -1;
	}
	const char *host = value;
	size_t hostlen = (size_t)(colon - value);
	if (hostlen >= 2 && host[0] == '[' && host[hostlen - 1] == ']') {
		host++;
		hostlen -= 2;
	}
	if (hostlen == 1 && host[0] == '*')
		hostlen = 0;
	if (hostlen >= sizeof(relay->listen_host)) {
		snprintf(err, errlen, "listen: host longer than %zu bytes",
		    sizeof(relay->listen_host) - 1);
		return -1;
	}
	memcpy(relay->listen_host, host, hostlen);
	relay->listen_host[hostlen] = '\0';
	relay->listen_port = (uint16_t)port;
	return 0;
}

int
proxy_config_set(struct proxy_config *cfg, const char *key, const char *value, char *err,
    size_t errlen)
{
	struct relay_config *r = &cfg->relay;

	if (strcmp(key, "listen") == 0)
		return parse_listen(value, r, err, errlen);
	if (strcmp(key, "threads") == 0)
		return parse_unsigned(key, value, 0, RELAY_MAX_THREADS, &r->threads, err, errlen);
	if (strcmp(key, "max-legs") == 0)
		return parse_unsigned(key, value, 2, RELAY_MAX_LEGS_LIMIT, &r->max_legs, err, errlen);
	if (strcmp(key, "max-ids") == 0)
		return parse_unsigned(key, value, 1, 10ul * RELAY_MAX_LEGS_LIMIT, &r->max_ids, err,
		    errlen);
	if (strcmp(key, "pipe-size") == 0)
		return parse_unsigned(key, value, RELAY_PIPE_SIZE_MIN, RELAY_PIPE_SIZE_MAX,
		    &r->pipe_size, err, errlen);
	if (strcmp(key, "hello-timeout-ms") == 0)
		return parse_unsigned(key, value, 1, RELAY_TIMEOUT_MAX_MS, &r->hello_timeout_ms, err,
		    errlen);
	if (strcmp(key, "partner-timeout-ms") == 0)
		return parse_unsigned(key, value, 1, RELAY_TIMEOUT_MAX_MS, &r->partner_timeout_ms,
		    err, errlen);
	if (strcmp(key, "used-id-ttl-ms") == 0)
		return parse_unsigned(key, value, 1, RELAY_TIMEOUT_MAX_MS, &r->used_id_ttl_ms, err,
		    errlen);
	if (strcmp(key, "accept-any-id") == 0)
		return parse_bool(key, value, &r->accept_any_id, err, errlen);
	if (strcmp(key, "control") == 0)
		return parse_path(key, value, cfg->control_path, err, errlen);
	if (strcmp(key, "ready-file") == 0)
		return parse_path(key, value, cfg->ready_file, err, errlen);
	if (strcmp(key, "stats-interval") == 0)
		return parse_unsigned(key, value, 0, PROXY_STATS_INTERVAL_MAX, &cfg->stats_interval_s,
		    err, errlen);
	if (strcmp(key, "syslog") == 0)
		return parse_bool(key, value, &cfg->use_syslog, err, errlen);
	if (strcmp(key, "log-level") == 0) {
		int level = log_level_parse(value);
		if (level < 0) {
			snprintf(err, errlen, "log-level: expected error, warn, info or debug, got "
			    "'%.40s'", value);
			return -1;
		}
		cfg->log_level = level;
		return 0;
	}
	snprintf(err, errlen, "unknown setting '%.60s'", key);
	return -1;
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

int
proxy_config_line(struct proxy_config *cfg, char *line, bool *in_section, char *err,
    size_t errlen)
{
	char *s = trim(line);

	if (s[0] == '\0' || s[0] == '#' || s[0] == ';')
		return 0;
	if (s[0] == '[') {
		size_t n = strlen(s);
		if (s[n - 1] != ']') {
			snprintf(err, errlen, "section header without ']'");
			return -1;
		}
		*in_section = strcmp(s, "[proxy]") == 0;
		return 0;
	}
	if (!*in_section)
		return 0;
	char *eq = strchr(s, '=');
	if (eq == NULL) {
		snprintf(err, errlen, "expected 'key = value'");
		return -1;
	}
	*eq = '\0';
	return proxy_config_set(cfg, trim(s), trim(eq + 1), err, errlen);
}

int
proxy_config_load(struct proxy_config *cfg, const char *path, char *err, size_t errlen)
{
	char line[PROXY_CONFIG_LINE_MAX], why[256];
	bool in_section = true; /* keys before any header are ours */
	unsigned lineno = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s line %u: longer than %d bytes", path, lineno,
			    PROXY_CONFIG_LINE_MAX - 2);
			goto fail;
		}
		if (lineno > PROXY_CONFIG_LINES_MAX) {
			snprintf(err, errlen, "%s: more than %d lines", path, PROXY_CONFIG_LINES_MAX);
			goto fail;
		}
		if (proxy_config_line(cfg, line, &in_section, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s line %u: %s", path, lineno, why);
			goto fail;
		}
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	return -1;
}
