/*
 * job_topology.c: a job's colors per node, as environment words (job_topology.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "job_files.h"
#include "job_topology.h"

void
job_topology_part(const struct coalloc *c, int i, int *site, int *cluster)
{
	/* Site colors in order of first appearance; a cluster's color counts the clusters of
	 * its site that come before it. */
	int site_color[JOB_CLUSTERS_MAX], sites = 0;
	for (int j = 0; j <= i; j++) {
		site_color[j] = -1;
		int before = 0;
		for (int k = 0; k < j; k++)
			if (strcmp(c->part[k].cluster->site, c->part[j].cluster->site) == 0) {
				site_color[j] = site_color[k];
				before++;
			}
		if (site_color[j] < 0)
			site_color[j] = sites++;
		*cluster = before;
	}
	*site = site_color[i];
}

void
job_topology_word(const struct coalloc *c, int i, int n, char *word, size_t len)
{
	int site, cluster;
	job_topology_part(c, i, &site, &cluster);
	snprintf(word, len, "%s=%d,%d,%d", JOB_TOPOLOGY_COLORS_ENV, site, cluster, n);
}

int
job_topology_local_word(const struct coalloc *c, const char *self, char *word, size_t len)
{
	for (int i = 0; i < c->count; i++)
		for (int n = 0; n < c->part[i].node_count; n++)
			if (job_files_same_host(c->part[i].node[n].name, self)) {
				job_topology_word(c, i, n, word, len);
				return 1;
			}
	if (len > 0)
		word[0] = '\0';
	return 0;
}
