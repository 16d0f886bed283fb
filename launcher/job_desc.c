/*
 * job_desc.c: the internal form of job descriptions: setters with bounds, shared value
 * parsers (counts, ISO 8601 durations), and loading a file in whichever format it is.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_desc.h"

struct job_desc *
job_desc_new(const char *origin, enum job_format format)
{
	struct job_desc *d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	snprintf(d->origin, sizeof(d->origin), "%s", origin);
	d->format = format;
	return d;
}

void
job_error(const struct job_desc *d, int line, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[JOB_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s", d->origin, line, msg);
	else
		snprintf(err, errlen, "%s: %s", d->origin, msg);
}

int
job_set_string(struct job_desc *d, struct job_string *s, const char *what, const char *value,
    int line, char *err, size_t errlen)
{
	if (s->line > 0) {
		job_error(d, line, err, errlen, "%s given twice (first on line %d)", what, s->line);
		return -1;
	}
	if (strlen(value) >= sizeof(s->text)) {
		job_error(d, line, err, errlen, "%s is longer than %d bytes", what,
		    JOB_STRING_MAX - 1);
		return -1;
	}
	snprintf(s->text, sizeof(s->text), "%s", value);
	s->line = line > 0 ? line : 1;
	return 0;
}

/* Copy value into a list entry (the list's count is checked by the caller). */
static int
set_entry(struct job_desc *d, struct job_string *s, const char *what, const char *value,
    int line, char *err, size_t errlen)
{
	s->line = 0;
	return job_set_string(d, s, what, value, line, err, errlen);
}

int
job_add_arg(struct job_desc *d, const char *value, int line, char *err, size_t errlen)
{
	if (d->argc == JOB_ARGS_MAX) {
		job_error(d, line, err, errlen, "more than %d arguments", JOB_ARGS_MAX);
		return -1;
	}
	if (set_entry(d, &d->arg[d->argc], "argument", value, line, err, errlen) != 0)
		return -1;
	d->argc++;
	return 0;
}

int
job_add_env(struct job_desc *d, const char *name_value, int line, char *err, size_t errlen)
{
	if (d->envc == JOB_ENV_MAX) {
		job_error(d, line, err, errlen, "more than %d environment variables", JOB_ENV_MAX);
		return -1;
	}
	if (set_entry(d, &d->env[d->envc], "environment entry", name_value, line, err,
	    errlen) != 0)
		return -1;
	d->envc++;
	return 0;
}

int
job_add_stage(struct job_desc *d, int out, const char *from, const char *to, int line,
    char *err, size_t errlen)
{
	int *count = out ? &d->stage_out_count : &d->stage_in_count;
	struct job_stage *s = out ? &d->stage_out[*count] : &d->stage_in[*count];
	if (*count == JOB_STAGE_MAX) {
		job_error(d, line, err, errlen, "more than %d stage-%s files", JOB_STAGE_MAX,
		    out ? "out" : "in");
		return -1;
	}
	if (set_entry(d, &s->from, "stage file", from, line, err, errlen) != 0 ||
	    set_entry(d, &s->to, "stage file", to, line, err, errlen) != 0)
		return -1;
	(*count)++;
	return 0;
}

struct job_cluster *
job_add_cluster(struct job_desc *d, const char *name, const char *site, int line, char *err,
    size_t errlen)
{
	if (d->cluster_count == JOB_CLUSTERS_MAX) {
		job_error(d, line, err, errlen, "more than %d clusters", JOB_CLUSTERS_MAX);
		return NULL;
	}
	struct job_cluster *c = &d->cluster[d->cluster_count];
	if (strlen(name) >= sizeof(c->name) || (site && strlen(site) >= sizeof(c->site))) {
		job_error(d, line, err, errlen, "cluster or site name longer than %d bytes",
		    QCG_NAME_MAX - 1);
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->site, sizeof(c->site), "%s", site && site[0] ? site : name);
	c->line = line;
	d->cluster_count++;
	return c;
}

int
job_cluster_add_node(struct job_desc *d, struct job_cluster *c, const char *node, int line,
    char *err, size_t errlen)
{
	if (c->node_count == JOB_NODES_MAX) {
		job_error(d, line, err, errlen, "cluster %s: more than %d nodes", c->name,
		    JOB_NODES_MAX);
		return -1;
	}
	if (strlen(node) >= QCG_NAME_MAX) {
		job_error(d, line, err, errlen, "node name longer than %d bytes", QCG_NAME_MAX - 1);
		return -1;
	}
	snprintf(c->node[c->node_count++], QCG_NAME_MAX, "%s", node);
	return 0;
}

int
job_parse_count(const char *s, int max, int *out)
{
	char *end;
	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end != '\0' || v <= 0 || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static const char *const binding_names[] = {
	[JOB_BIND_NONE] = "none", [JOB_BIND_CORE] = "core", [JOB_BIND_SOCKET] = "socket",
};

const char *
job_binding_name(enum job_binding b)
{
	return (unsigned)b < sizeof(binding_names) / sizeof(binding_names[0]) ? binding_names[b]
	    : "none";
}

int
job_set_binding(struct job_desc *d, const char *what, const char *value, int line, char *err,
    size_t errlen)
{
	if (d->binding_line) {
		job_error(d, line, err, errlen, "%s given twice (first on line %d)", what,
		    d->binding_line);
		return -1;
	}
	for (size_t i = 0; i < sizeof(binding_names) / sizeof(binding_names[0]); i++)
		if (strcmp(value, binding_names[i]) == 0) {
			d->binding = (enum job_binding)i;
			d->binding_line = line > 0 ? line : 1;
			return 0;
		}
	job_error(d, line, err, errlen, "%s must be one of " JOB_BINDING_CHOICES ", got '%.60s'",
	    what, value);
	return -1;
}

int
job_set_reserve_timeout(struct job_desc *d, const char *what, long seconds, const char *text,
    int line, char *err, size_t errlen)
{
	if (d->reserve_timeout_line) {
		job_error(d, line, err, errlen, "%s given twice (first on line %d)", what,
		    d->reserve_timeout_line);
		return -1;
	}
	if (seconds < 1 || seconds > JOB_RESERVE_TIMEOUT_MAX) {
		job_error(d, line, err, errlen, "%s must be 1 to %ld seconds, got '%.60s'", what,
		    JOB_RESERVE_TIMEOUT_MAX, text);
		return -1;
	}
	d->reserve_timeout = seconds;
	d->reserve_timeout_line = line > 0 ? line : 1;
	return 0;
}

/* A yes/no setting into *flag_line: line for yes|true|1, 0 for no|false|0; else -1 with err
 * naming what. */
static int
set_yes_no(struct job_desc *d, int *flag_line, const char *what, const char *value, int line,
    char *err, size_t errlen)
{
	if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
		*flag_line = line;
		return 0;
	}
	if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
		*flag_line = 0;
		return 0;
	}
	job_error(d, line, err, errlen, "%s must be yes or no (true or false), got '%s'", what,
	    value);
	return -1;
}

int
job_set_executable_staged(struct job_desc *d, const char *what, const char *value, int line,
    char *err, size_t errlen)
{
	return set_yes_no(d, &d->executable_staged_line, what, value, line, err, errlen);
}

int
job_set_keep_directory(struct job_desc *d, const char *what, const char *value, int line,
    char *err, size_t errlen)
{
	return set_yes_no(d, &d->keep_directory_line, what, value, line, err, errlen);
}

int
job_stage_executable(struct job_desc *d, char *err, size_t errlen)
{
	char base[JOB_STRING_MAX], run[JOB_STRING_MAX + 2];
	if (d->executable_staged_line == 0)
		return 0;
	const char *slash = strrchr(d->executable.text, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : d->executable.text);
	if (base[0] == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		job_error(d, d->executable_staged_line, err, errlen, "the executable '%s' is to be "
		    "staged but names no file", d->executable.text);
		return -1;
	}
	if (snprintf(run, sizeof(run), "./%s", base) >= (int)sizeof(d->executable.text)) {
		job_error(d, d->executable_staged_line, err, errlen, "the staged executable's "
		    "name is too long");
		return -1;
	}
	if (job_add_stage(d, 0, d->executable.text, base, d->executable_staged_line, err,
		errlen) != 0)
		return -1;
	/* replaced, not set: job_set_string refuses a value given twice */
	memcpy(d->executable.text, run, strlen(run) + 1);
	return 0;
}

int
job_parse_duration(const char *s, long *seconds)
{
	/* Designators in the order ISO 8601 allows them, with their length in seconds. */
	static const struct { char unit; int time_part; long scale; } parts[] = {
		{ 'W', 0, 7 * 86400 }, { 'D', 0, 86400 }, { 'H', 1, 3600 }, { 'M', 1, 60 },
		{ 'S', 1, 1 },
	};
	size_t next = 0;
	int in_time = 0, any = 0;
	long total = 0;

	if (s == NULL || *s++ != 'P')
		return -1;
	while (*s) {
		if (*s == 'T') {
			if (in_time || s[1] == '\0')
				return -1;
			in_time = 1;
			s++;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			return -1;
		long v = 0;
		while (isdigit((unsigned char)*s)) {
			v = v * 10 + (*s++ - '0');
			if (v > JOB_WALLTIME_MAX)
				return -1;
		}
		while (next < 5 && (parts[next].unit != *s || parts[next].time_part != in_time))
			next++;
		if (next == 5)
			return -1;
		total += v * parts[next++].scale;
		if (total > JOB_WALLTIME_MAX)
			return -1;
		s++;
		any = 1;
	}
	if (!any)
		return -1;
	*seconds = total;
	return 0;
}

int
job_total_processes(const struct job_desc *d)
{
	long n = 0;
	for (int i = 0; i < d->cluster_count; i++)
		n += d->cluster[i].processes;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* The format of text: JSDL when its root element is JobDefinition, native when it is other
 * XML, QCG-Simple otherwise. */
static enum job_format
detect_format(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i == len || text[i] != '<')
		return JOB_FORMAT_SIMPLE;
	size_t window = len - i < 4096 ? len - i : 4096;
	for (size_t j = i; j + 14 <= i + window; j++)
		if (memcmp(text + j, "JobDefinition", 13) == 0 && j > 0 &&
		    (text[j - 1] == '<' || text[j - 1] == ':'))
			return JOB_FORMAT_JSDL;
	return JOB_FORMAT_XML;
}

struct job_desc *
job_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(JOB_FILE_MAX + 1);
	size_t n = buf ? fread(buf, 1, JOB_FILE_MAX + 1, f) : 0;
	int bad = buf == NULL || ferror(f);
	fclose(f);
	struct job_desc *d = NULL;
	if (bad)
		snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
	else if (n > JOB_FILE_MAX)
		snprintf(err, errlen, "%s: larger than %d bytes", path, JOB_FILE_MAX);
	else if (n == 0)
		snprintf(err, errlen, "%s: the file is empty", path);
	else {
		switch (detect_format(buf, n)) {
		case JOB_FORMAT_JSDL: d = job_parse_jsdl(buf, n, path, err, errlen); break;
		case JOB_FORMAT_XML: d = job_parse_xml(buf, n, path, err, errlen); break;
		case JOB_FORMAT_SIMPLE: d = job_parse_simple(buf, n, path, err, errlen); break;
		}
		if (d != NULL && (job_stage_executable(d, err, errlen) != 0 ||
				     job_validate(d, err, errlen) != 0)) {
			free(d);
			d = NULL;
		}
	}
	free(buf);
	return d;
}

int
job_has_cluster_executables(const struct job_desc *d)
{
	for (int i = 0; i < d->cluster_count; i++)
		if (d->cluster[i].executable.line)
			return 1;
	return 0;
}
