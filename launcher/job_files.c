/*
 * job_files.c: hostfile, hosts map and topology file of a co-allocated job (job_files.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job_files.h"
#include "submit_run.h"
#include "job_topology.h"
#include "node_env.h"

int
job_files_same_host(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");
	return strcmp(a, b) == 0 || (la == lb && strncmp(a, b, la) == 0);
}

enum job_files_form
job_files_form(const struct coalloc *c, const char *self)
{
	int first = 1;
	for (int i = 0; i < c->count; i++)
		for (int n = 0; n < c->part[i].node_count; n++) {
			if (!first && job_files_same_host(c->part[i].node[n].name, self))
				return JOB_FILES_SEQ;
			first = 0;
		}
	return JOB_FILES_SLOTS;
}

const char *
job_files_map_by(enum job_files_form form)
{
	return form == JOB_FILES_SEQ ? "seq" : "slot";
}

int
job_files_hostfile(FILE *f, const struct coalloc *c, enum job_files_form form)
{
	for (int i = 0; i < c->count; i++)
		for (int n = 0; n < c->part[i].node_count; n++) {
			const struct coalloc_node *node = &c->part[i].node[n];
			if (form == JOB_FILES_SLOTS)
				fprintf(f, "%s slots=%d\n", node->name, node->count);
			else
				for (int s = 0; s < node->count; s++)
					fprintf(f, "%s\n", node->name);
		}
	return ferror(f) ? -1 : 0;
}

int
job_files_hosts(FILE *f, const struct coalloc *c)
{
	static struct rsh_target t; /* 8 KiB of words: not on the stack */
	char line[RSH_MAP_LINE_MAX];
	fprintf(f, "# qcg-rsh hosts map of job %s: HOST FRONTEND-URL RESERVATION-ID [NAME=VALUE...]\n",
	    c->job_id);
	for (int i = 0; i < c->count; i++)
		for (int n = 0; n < c->part[i].node_count; n++) {
			memset(&t, 0, sizeof(t));
			snprintf(t.host, sizeof(t.host), "%s", c->part[i].node[n].name);
			snprintf(t.frontend_url, sizeof(t.frontend_url), "%s", c->part[i].frontend_url);
			snprintf(t.reservation, sizeof(t.reservation), "%s", c->part[i].reservation);
			/* A node with a port window gets its libqcgnet.so words (node_env.h). */
			if (c->part[i].node[n].port_min > 0 &&
			    node_env_words(&c->part[i].node[n], c->helper_socket, &t) != 0)
				return -1;
			/* Every node gets its colors: its ranks read them from their environment,
			 * whatever they can or cannot read of the launcher's files. */
			if (t.envc >= RSH_MAP_ENV_MAX)
				return -1;
			job_topology_word(c, i, n, t.env[t.envc], sizeof(t.env[t.envc]));
			t.envc++;
			/* A cluster's own installed program (mpirun inside the job): the node's ranks
			 * start it through SUBMIT_EXEC_SCRIPT (submit_run.h). */
			const struct job_cluster *jc = c->part[i].cluster;
			if (jc != NULL && jc->executable.line) {
				if (t.envc >= RSH_MAP_ENV_MAX || (size_t)snprintf(t.env[t.envc],
				    sizeof(t.env[t.envc]), "%s=%s", SUBMIT_EXEC_ENV, jc->executable.text) >=
				    sizeof(t.env[t.envc]))
					return -1;
				t.envc++;
			}
			if (rsh_map_format_env(&t, line, sizeof(line)) != 0)
				return -1;
			fputs(line, f);
		}
	return ferror(f) ? -1 : 0;
}

int
job_files_topology(FILE *f, const struct coalloc *c)
{
	int rank = 0;
	fprintf(f, "# rank site cluster node (job %s)\n", c->job_id);
	for (int i = 0; i < c->count; i++) {
		int site, cluster;
		job_topology_part(c, i, &site, &cluster);
		for (int n = 0; n < c->part[i].node_count; n++)
			for (int s = 0; s < c->part[i].node[n].count; s++)
				fprintf(f, "%d %d %d %d\n", rank++, site, cluster, n);
	}
	return ferror(f) ? -1 : 0;
}

static int
write_one(const char *dir, const char *name, int (*fn)(FILE *, const struct coalloc *),
    const struct coalloc *c, enum job_files_form form, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = fn ? fn(f, c) : job_files_hostfile(f, c, form);
	if (fclose(f) != 0 || rc != 0) {
		snprintf(err, errlen, "%s: could not write it", path);
		return -1;
	}
	return 0;
}

int
job_files_write(const char *dir, const struct coalloc *c, enum job_files_form form, char *err,
    size_t errlen)
{
	/* fn NULL: the hostfile, the one file whose content depends on the form. */
	return write_one(dir, "hostfile", NULL, c, form, err, errlen) ||
	    write_one(dir, "hosts", job_files_hosts, c, form, err, errlen) ||
	    write_one(dir, "topology", job_files_topology, c, form, err, errlen) ? -1 : 0;
}
