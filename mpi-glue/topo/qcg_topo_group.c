/*
 * qcg_topo_group.c: clusters and sites from a matrix of round-trip times (single linkage with a
 * ratio threshold; the algorithm is described in qcg_topo_group.h and README.md).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "qcg_topo_group.h"

struct edge {
	double w; /* RTT, microseconds */
	int a, b; /* nodes, a < b */
};

static int
edge_cmp(const void *x, const void *y)
{
	const struct edge *e = x, *f = y;
	if (e->w != f->w)
		return e->w < f->w ? -1 : 1;
	if (e->a != f->a)
		return e->a < f->a ? -1 : 1;
	return e->b < f->b ? -1 : (e->b > f->b);
}

/* Union-find root of i, halving the path on the way. */
static int
find_root(int *up, int i)
{
	while (up[i] != i) {
		up[i] = up[up[i]];
		i = up[i];
	}
	return i;
}

/* Label every node with its group, groups numbered in the order of their lowest node. */
static void
snapshot(int L, int *up, int *label, int *scratch)
{
	for (int i = 0; i < L; i++)
		scratch[i] = -1;
	int next = 0;
	for (int i = 0; i < L; i++) {
		int r = find_root(up, i);
		if (scratch[r] < 0)
			scratch[r] = next++;
		label[i] = scratch[r];
	}
}

/* The measured pairs, i < j, each once (the smaller of the two directions if both given). */
static struct edge *
collect_edges(int L, const double *rtt, size_t *ne)
{
	struct edge *e = malloc(((size_t)L * (size_t)L / 2 + 1) * sizeof(*e));
	if (e == NULL)
		return NULL;
	size_t n = 0;
	for (int i = 0; i < L; i++) {
		for (int j = i + 1; j < L; j++) {
			double x = rtt[(size_t)i * L + j], y = rtt[(size_t)j * L + i];
			double w = x < 0 ? y : (y < 0 || x < y ? x : y);
			if (w < 0)
				continue;
			e[n].w = w, e[n].a = i, e[n].b = j;
			n++;
		}
	}
	*ne = n;
	return e;
}

int
qcg_topo_group(int L, const double *rtt, const struct qcg_topo_group_params *p, int *cluster,
    int *site)
{
	if (L < 1 || L > QCG_TOPO_GROUP_MAX_NODES || p->floor_us < 0 || !(p->ratio > 1))
		return -1;
	size_t ne;
	struct edge *e = collect_edges(L, rtt, &ne);
	int *up = malloc((size_t)L * sizeof(int)), *scratch = malloc((size_t)L * sizeof(int));
	int levels = -1;
	if (e == NULL || up == NULL || scratch == NULL)
		goto out;
	qsort(e, ne, sizeof(*e), edge_cmp);
	for (int i = 0; i < L; i++)
		up[i] = i, cluster[i] = site[i] = 0;
	levels = 0;
	int groups = L;
	double scale = p->floor_us; /* the largest merge of the current level */
	for (size_t k = 0; k < ne && groups > 1; k++) {
		int ra = find_root(up, e[k].a), rb = find_root(up, e[k].b);
		if (ra == rb)
			continue; /* not a merge: only spanning-tree edges shape the levels */
		if (e[k].w > p->ratio * scale) {
			snapshot(L, up, levels == 0 ? cluster : site, scratch);
			if (levels == 0)
				memcpy(site, cluster, (size_t)L * sizeof(int));
			levels++;
		}
		up[ra < rb ? rb : ra] = ra < rb ? ra : rb;
		groups--;
		if (e[k].w > scale)
			scale = e[k].w;
	}
	if (groups > 1) { /* pairs never measured: what stays apart is a level of its own */
		snapshot(L, up, levels == 0 ? cluster : site, scratch);
		if (levels == 0)
			memcpy(site, cluster, (size_t)L * sizeof(int));
		levels++;
	}
out:
	free(e);
	free(up);
	free(scratch);
	return levels;
}
