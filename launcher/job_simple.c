/*
 * job_simple.c: QCG-Simple descriptions: a script whose "#QCG name=value" lines are the
 * directives (every other line is the script's own business and ignored here).
 *
 *   host=CLUSTER[@SITE]   starts a cluster (rank order is the order of host directives)
 *   nodes=N:C[:P]         N nodes of C cores, P processes per node (default C), for the last host
 *   procs=N               processes on the last host (default N*P from nodes)
 *   executable=PATH  argument=ARG (repeatable)  environment=NAME=VALUE (repeatable)
 *   walltime=ISO-8601-DURATION (PT30M, P1DT2H)  name=NAME  output=FILE  error=FILE
 *   binding=none|core|socket  how each rank is bound on its node (default none)
 *   reserve-timeout=ISO-8601-DURATION  how long to wait for busy nodes (PT30S; at most PT1H)
 *   stage-executable=yes|no  the executable is staged from the submitting host (default no:
 *                    installed at its path on every node)
 *   host-executable=PATH  after host=: the program's installed path on that cluster's nodes
 *                    (default: executable=; mpirun inside the job only)
 *   keep-job-directory=yes|no  keep the job's directory on each node after the job (default
 *                    no: removed; mpirun inside the job)
 *   stage-in-file=LOCAL[ -> REMOTE]   stage-out-file=REMOTE[ -> LOCAL]
 *
 * Unknown directives are errors, not silently ignored.
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_desc.h"

#define SIMPLE_LINE_MAX 4096

struct simple_state {
	struct job_desc *d;
	struct job_cluster *current;  /* the last host directive's cluster */
	int nodes_line, procs_line;   /* of the current cluster */
	int nodes, cores, per_node;   /* from nodes=, 0 if not given */
};

/* Finish the current cluster: its process count from procs= and nodes=. */
static int
close_cluster(struct simple_state *s, char *err, size_t errlen)
{
	struct job_cluster *c = s->current;
	if (c == NULL)
		return 0;
	if (s->nodes_line) {
		long implied = (long)s->nodes * s->per_node;
		if (c->processes == 0)
			c->processes = implied > JOB_PROCESSES_MAX ? JOB_PROCESSES_MAX + 1 : (int)implied;
		else if (c->processes > implied) {
			job_error(s->d, s->procs_line, err, errlen, "procs=%d does not fit on "
			    "nodes=%d:%d:%d (at most %ld)", c->processes, s->nodes, s->cores,
			    s->per_node, implied);
			return -1;
		}
		c->per_node = s->per_node;
	}
	s->current = NULL;
	s->nodes_line = s->procs_line = 0;
	return 0;
}

/* nodes=N:C[:P] */
static int
parse_nodes(struct simple_state *s, const char *v, int line, char *err, size_t errlen)
{
	char buf[64], *fields[3] = { 0 }, *save = NULL;
	int n = 0, val[3] = { 0, 0, 0 };
	if (strlen(v) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *t = strtok_r(buf, ":", &save); t && n < 3; t = strtok_r(NULL, ":", &save))
		fields[n++] = t;
	if (n < 2 || strtok_r(NULL, ":", &save) != NULL || strstr(v, "::") || v[strlen(v) - 1] == ':')
		goto bad;
	for (int i = 0; i < n; i++)
		if (job_parse_count(fields[i], JOB_PROCESSES_MAX, &val[i]) != 0)
			goto bad;
	if (n == 3 && val[2] > val[1]) {
		job_error(s->d, line, err, errlen, "nodes=%s: %d processes per node exceed its %d "
		    "cores", v, val[2], val[1]);
		return -1;
	}
	s->nodes = val[0];
	s->cores = val[1];
	s->per_node = n == 3 ? val[2] : val[1];
	s->nodes_line = line;
	return 0;
bad:
	job_error(s->d, line, err, errlen, "nodes must be N:C or N:C:P with positive integers "
	    "(nodes, cores per node, processes per node), got '%s'", v);
	return -1;
}

/* host=CLUSTER[@SITE] */
static int
parse_host(struct simple_state *s, const char *v, int line, char *err, size_t errlen)
{
	char name[QCG_NAME_MAX * 2 + 2];
	if (close_cluster(s, err, errlen) != 0)
		return -1;
	if (strlen(v) >= sizeof(name)) {
		job_error(s->d, line, err, errlen, "host=%.40s...: too long", v);
		return -1;
	}
	snprintf(name, sizeof(name), "%s", v);
	char *at = strchr(name, '@');
	if (at)
		*at++ = '\0';
	if (name[0] == '\0' || (at && at[0] == '\0')) {
		job_error(s->d, line, err, errlen, "host must be CLUSTER or CLUSTER@SITE, got '%s'",
		    v);
		return -1;
	}
	s->current = job_add_cluster(s->d, name, at, line, err, errlen);
	return s->current ? 0 : -1;
}

/* A stage directive: FROM[ -> TO]; TO defaults to FROM's last path component. */
static int
parse_stage(struct simple_state *s, int out, const char *v, int line, char *err, size_t errlen)
{
	char from[JOB_STRING_MAX], to[JOB_STRING_MAX];
	const char *arrow = strstr(v, "->");
	size_t flen = arrow ? (size_t)(arrow - v) : strlen(v);
	while (flen > 0 && isspace((unsigned char)v[flen - 1]))
		flen--;
	if (flen == 0 || flen >= sizeof(from)) {
		job_error(s->d, line, err, errlen, "stage-%s-file must be FROM[ -> TO], got '%.60s'",
		    out ? "out" : "in", v);
		return -1;
	}
	memcpy(from, v, flen);
	from[flen] = '\0';
	if (arrow) {
		const char *t = arrow + 2;
		while (isspace((unsigned char)*t))
			t++;
		snprintf(to, sizeof(to), "%s", t);
	} else {
		const char *slash = strrchr(from, '/');
		snprintf(to, sizeof(to), "%s", slash ? slash + 1 : from);
	}
	if (to[0] == '\0') {
		job_error(s->d, line, err, errlen, "stage-%s-file: nothing after '->'",
		    out ? "out" : "in");
		return -1;
	}
	return job_add_stage(s->d, out, from, to, line, err, errlen);
}

/* A directive that belongs to a cluster needs a host before it. */
static int
need_host(struct simple_state *s, const char *key, int line, char *err, size_t errlen)
{
	if (s->current != NULL)
		return 0;
	job_error(s->d, line, err, errlen, "%s needs a host directive before it (host=CLUSTER)",
	    key);
	return -1;
}

static int
apply_directive(struct simple_state *s, const char *key, const char *v, int line, char *err,
    size_t errlen)
{
	struct job_desc *d = s->d;
	if (strcmp(key, "host") == 0)
		return parse_host(s, v, line, err, errlen);
	if (strcmp(key, "nodes") == 0)
		return need_host(s, key, line, err, errlen) || parse_nodes(s, v, line, err, errlen);
	if (strcmp(key, "host-executable") == 0)
		return need_host(s, key, line, err, errlen) || job_set_string(d,
		    &s->current->executable, key, v, line, err, errlen);
	if (strcmp(key, "procs") == 0) {
		if (need_host(s, key, line, err, errlen))
			return -1;
		if (s->procs_line) {
			job_error(d, line, err, errlen, "procs given twice for host %s (first on "
			    "line %d)", s->current->name, s->procs_line);
			return -1;
		}
		if (job_parse_count(v, JOB_PROCESSES_MAX, &s->current->processes) != 0) {
			job_error(d, line, err, errlen, "procs must be a positive integer up to %d, "
			    "got '%s'", JOB_PROCESSES_MAX, v);
			return -1;
		}
		s->procs_line = line;
		return 0;
	}
	if (strcmp(key, "walltime") == 0) {
		if (d->walltime_line || job_parse_duration(v, &d->walltime) != 0 || d->walltime == 0) {
			job_error(d, line, err, errlen, "walltime must be an ISO 8601 duration such as "
			    "PT30M or P1DT2H (at most a year, not zero), got '%s'", v);
			return -1;
		}
		d->walltime_line = line;
		return 0;
	}
	if (strcmp(key, "argument") == 0)
		return job_add_arg(d, v, line, err, errlen);
	if (strcmp(key, "binding") == 0)
		return job_set_binding(d, key, v, line, err, errlen);
	if (strcmp(key, "stage-executable") == 0)
		return job_set_executable_staged(d, key, v, line, err, errlen);
	if (strcmp(key, "keep-job-directory") == 0)
		return job_set_keep_directory(d, key, v, line, err, errlen);
	if (strcmp(key, "reserve-timeout") == 0) {
		long secs = -1;
		if (job_parse_duration(v, &secs) != 0)
			secs = -1;
		return job_set_reserve_timeout(d, "reserve-timeout (a duration such as PT30S)", secs,
		    v, line, err, errlen);
	}
	if (strcmp(key, "environment") == 0)
		return job_add_env(d, v, line, err, errlen);
	if (strcmp(key, "stage-in-file") == 0 || strcmp(key, "stage-out-file") == 0)
		return parse_stage(s, key[6] == 'o', v, line, err, errlen);
	static const struct { const char *key; size_t off; } strings[] = {
		{ "executable", offsetof(struct job_desc, executable) },
		{ "name", offsetof(struct job_desc, name) },
		{ "output", offsetof(struct job_desc, out) },
		{ "error", offsetof(struct job_desc, err) },
	};
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (strcmp(key, strings[i].key) == 0)
			return job_set_string(d, (struct job_string *)((char *)d + strings[i].off),
			    key, v, line, err, errlen);
	job_error(d, line, err, errlen, "unknown directive '%s' (known: host, nodes, procs, "
	    "executable, argument, environment, walltime, binding, reserve-timeout, stage-in-file, "
	    "stage-out-file, output, error, name, stage-executable, keep-job-directory, "
	    "host-executable)", key);
	return -1;
}

/* One line: a directive, or anything else (ignored). 0, or -1 with err. */
static int
parse_line(struct simple_state *s, char *text, int line, char *err, size_t errlen)
{
	if (strncmp(text, "#QCG", 4) != 0)
		return 0;
	if (text[4] != ' ' && text[4] != '\t') {
		job_error(s->d, line, err, errlen, "a directive is '#QCG name=value', got '%.40s'",
		    text);
		return -1;
	}
	char *p = text + 4, *end = text + strlen(text);
	while (end > p && isspace((unsigned char)end[-1]))
		*--end = '\0';
	while (isspace((unsigned char)*p))
		p++;
	char *eq = strchr(p, '=');
	if (eq == NULL || eq == p) {
		job_error(s->d, line, err, errlen, "expected '#QCG name=value', got '#QCG %.40s'", p);
		return -1;
	}
	*eq = '\0';
	char *key = p, *v = eq + 1;
	for (char *k = eq - 1; k > key && isspace((unsigned char)*k); k--)
		*k = '\0';
	while (isspace((unsigned char)*v))
		v++;
	if (*v == '\0') {
		job_error(s->d, line, err, errlen, "directive %s has no value", key);
		return -1;
	}
	return apply_directive(s, key, v, line, err, errlen);
}

struct job_desc *
job_parse_simple(const char *text, size_t len, const char *origin, char *err, size_t errlen)
{
	struct simple_state s = { 0 };
	char buf[SIMPLE_LINE_MAX];
	const char *p = text, *end = text + len;
	int line = 0, directives = 0;

	if ((s.d = job_desc_new(origin, JOB_FORMAT_SIMPLE)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", origin);
		return NULL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		line++;
		if (n >= sizeof(buf) || memchr(p, '\0', n) != NULL) {
			job_error(s.d, line, err, errlen, n >= sizeof(buf) ? "line longer than %d "
			    "bytes" : "a NUL byte in the line (is this a binary file?)",
			    SIMPLE_LINE_MAX - 1);
			goto fail;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		directives += strncmp(buf, "#QCG", 4) == 0;
		if (parse_line(&s, buf, line, err, errlen) != 0)
			goto fail;
		p = nl ? nl + 1 : end;
	}
	if (close_cluster(&s, err, errlen) != 0)
		goto fail;
	if (directives == 0) {
		job_error(s.d, 0, err, errlen, "not a job description: no XML and no '#QCG' "
		    "directive in it");
		goto fail;
	}
	return s.d;
fail:
	free(s.d);
	return NULL;
}
