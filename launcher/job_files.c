/*
 * job_files.c: rankfile, hosts map and topology file of a co-allocated job (job_files.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "job_files.h"
#include "node_env.h"

int
job_files_rankfile(FILE *f, const struct coalloc *c)
{
	int rank = 0;
	for (int i = 0; i < c->count; i++)
		for (int n = 0; n < c->part[i].node_count; n++)
			for (int s = 0; s < c->part[i].node[n].count; s++)
				/* slot=* (any processor): a numbered slot is a core id on the node, and
				 * a grant of 4 slots on a 2-core node made mpirun exit 1 without a
				 * word (testbed, 24 ranks); ranks are not bound (--bind-to none). */
				fprintf(f, "rank %d=%s slot=*\n", rank++, c->part[i].node[n].name);
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
			if (rsh_map_format_env(&t, line, sizeof(line)) != 0)
				return -1;
			fputs(line, f);
		}
	return ferror(f) ? -1 : 0;
}

int
job_files_topology(FILE *f, const struct coalloc *c)
{
	int rank = 0, site_color[JOB_CLUSTERS_MAX], cluster_color[JOB_CLUSTERS_MAX];
	fprintf(f, "# rank site cluster node (job %s)\n", c->job_id);
	for (int i = 0; i < c->count; i++) {
		const char *site = c->part[i].cluster->site;
		site_color[i] = -1;
		int sites = 0, clusters_in_site = 0;
		for (int j = 0; j < i; j++) {
			if (strcmp(c->part[j].cluster->site, site) == 0) {
				site_color[i] = site_color[j];
				clusters_in_site++;
			}
			sites = site_color[j] + 1 > sites ? site_color[j] + 1 : sites;
		}
		if (site_color[i] < 0)
			site_color[i] = sites;
		cluster_color[i] = clusters_in_site;
		for (int n = 0; n < c->part[i].node_count; n++)
			for (int s = 0; s < c->part[i].node[n].count; s++)
				fprintf(f, "%d %d %d %d\n", rank++, site_color[i], cluster_color[i], n);
	}
	return ferror(f) ? -1 : 0;
}

static int
write_one(const char *dir, const char *name, int (*fn)(FILE *, const struct coalloc *),
    const struct coalloc *c, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = fn(f, c);
	if (fclose(f) != 0 || rc != 0) {
		snprintf(err, errlen, "%s: could not write it", path);
		return -1;
	}
	return 0;
}

int
job_files_write(const char *dir, const struct coalloc *c, char *err, size_t errlen)
{
	return write_one(dir, "rankfile", job_files_rankfile, c, err, errlen) ||
	    write_one(dir, "hosts", job_files_hosts, c, err, errlen) ||
	    write_one(dir, "topology", job_files_topology, c, err, errlen) ? -1 : 0;
}
