/*
 * job_validate.c: what every job description must satisfy, whatever its format, before
 * qcg-submit reserves anything. Each refusal names the file, the line and what was expected.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "job_desc.h"
#include "stage_path.h"

/* Names that travel to the broker and front-ends: [A-Za-z0-9][A-Za-z0-9._-]*, bounded. */
static int
name_ok(const char *s)
{
	if (!isalnum((unsigned char)s[0]) || strlen(s) >= QCG_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return 0;
	return 1;
}

static int
env_ok(const struct job_desc *d, const struct job_string *e, char *err, size_t errlen)
{
	const char *eq = strchr(e->text, '=');
	const char *s = e->text;
	int ok = eq != NULL && eq != s && (isalpha((unsigned char)*s) || *s == '_');
	for (; ok && s < eq; s++)
		ok = isalnum((unsigned char)*s) || *s == '_';
	if (!ok) {
		job_error(d, e->line, err, errlen, "environment must be NAME=value with NAME made "
		    "of letters, digits and '_', got '%.60s'", e->text);
		return -1;
	}
	if (strncmp(e->text, "QCG_TOPOLOGY_", 13) == 0) {
		job_error(d, e->line, err, errlen, "%.*s is set by the launcher for every rank and "
		    "cannot be given", (int)(eq - e->text), e->text);
		return -1;
	}
	return 0;
}

static int
cluster_ok(const struct job_desc *d, int i, char *err, size_t errlen)
{
	const struct job_cluster *c = &d->cluster[i];
	if (!name_ok(c->name) || !name_ok(c->site)) {
		job_error(d, c->line, err, errlen, "cluster and site names are letters, digits, "
		    "'.', '_' and '-' (at most %d), got '%s' in site '%s'", QCG_NAME_MAX - 1,
		    c->name, c->site);
		return -1;
	}
	for (int j = 0; j < i; j++)
		if (strcmp(d->cluster[j].name, c->name) == 0) {
			job_error(d, c->line, err, errlen, "cluster %s is listed twice (first on line "
			    "%d); give it one entry with all its processes", c->name,
			    d->cluster[j].line);
			return -1;
		}
	if (c->processes <= 0 || c->processes > JOB_PROCESSES_MAX) {
		job_error(d, c->line, err, errlen, "cluster %s: expected a process count of 1 to %d "
		    "(procs, nodes, processes)", c->name, JOB_PROCESSES_MAX);
		return -1;
	}
	if (c->per_node > c->processes) {
		job_error(d, c->line, err, errlen, "cluster %s: %d processes per node but only %d "
		    "processes", c->name, c->per_node, c->processes);
		return -1;
	}
	for (int k = 0; k < c->node_count; k++) {
		if (!name_ok(c->node[k])) {
			job_error(d, c->line, err, errlen, "cluster %s: bad node name '%s'", c->name,
			    c->node[k]);
			return -1;
		}
		for (int m = 0; m < k; m++)
			if (strcmp(c->node[m], c->node[k]) == 0) {
				job_error(d, c->line, err, errlen, "cluster %s: node %s is listed "
				    "twice", c->name, c->node[k]);
				return -1;
			}
	}
	if (c->node_count && c->per_node &&
	    (long)c->node_count * c->per_node < c->processes) {
		job_error(d, c->line, err, errlen, "cluster %s: %d nodes of %d processes cannot hold "
		    "%d processes", c->name, c->node_count, c->per_node, c->processes);
		return -1;
	}
	return 0;
}

static int
paths_ok(const struct job_desc *d, char *err, size_t errlen)
{
	for (int i = 0; i < d->cluster_count; i++) {
		const struct job_cluster *c = &d->cluster[i];
		/* It travels as one word of qcg-rsh's hosts map, as the job's executable then
		 * does for the other clusters: no blanks in either. */
		if (c->executable.line && (c->executable.text[0] != '/' ||
		    strpbrk(c->executable.text, " \t\n") || strpbrk(d->executable.text, " \t\n"))) {
			job_error(d, c->executable.line, err, errlen, "cluster %s: its executable "
			    "must be an absolute path on its nodes without blanks (nor may the job's "
			    "executable have any), got '%s'", c->name, c->executable.text);
			return -1;
		}
		if (c->executable.line && d->executable_staged_line) {
			job_error(d, c->executable.line, err, errlen, "cluster %s: an installed path "
			    "of the executable and a staged executable (line %d) exclude each other",
			    c->name, d->executable_staged_line);
			return -1;
		}
	}
	if (d->workdir.line && d->workdir.text[0] != '/') {
		job_error(d, d->workdir.line, err, errlen, "the working directory must be an "
		    "absolute path on the nodes, got '%s'", d->workdir.text);
		return -1;
	}
	/* The names on the nodes must stay inside the job's directory (lib/stage_path.h); the
	 * user's own files here may be anywhere the user can read or write. */
	for (int i = 0; i < d->stage_in_count + d->stage_out_count; i++) {
		bool in = i < d->stage_in_count;
		const struct job_stage *s = in ? &d->stage_in[i] : &d->stage_out[i - d->stage_in_count];
		const char *remote = in ? s->to.text : s->from.text;
		char why[160];
		if (stage_path_check(remote, why, sizeof(why)) != 0) {
			job_error(d, s->from.line, err, errlen, "stage-%s name '%s' on the nodes %s",
			    in ? "in" : "out", remote, why);
			return -1;
		}
	}
	return 0;
}

int
job_validate(const struct job_desc *d, char *err, size_t errlen)
{
	if (d->executable.line == 0 || d->executable.text[0] == '\0') {
		job_error(d, 0, err, errlen, "no executable given (the program every rank runs)");
		return -1;
	}
	if (d->name.line && !name_ok(d->name.text)) {
		job_error(d, d->name.line, err, errlen, "job name must be letters, digits, '.', '_' "
		    "and '-' (at most %d), got '%s'", QCG_NAME_MAX - 1, d->name.text);
		return -1;
	}
	if (d->cluster_count == 0) {
		job_error(d, 0, err, errlen, "no cluster given (host, cluster or HostName): "
		    "a job needs at least one");
		return -1;
	}
	long total = 0;
	for (int i = 0; i < d->cluster_count; i++) {
		if (cluster_ok(d, i, err, errlen) != 0)
			return -1;
		total += d->cluster[i].processes;
	}
	if (total > JOB_PROCESSES_MAX) {
		job_error(d, 0, err, errlen, "%ld processes in all; at most %d", total,
		    JOB_PROCESSES_MAX);
		return -1;
	}
	for (int i = 0; i < d->envc; i++)
		if (env_ok(d, &d->env[i], err, errlen) != 0)
			return -1;
	return paths_ok(d, err, errlen);
}
