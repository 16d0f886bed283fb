/*
 * qcg_topo_layout.c: number the units of each level and index them both ways.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "qcg_topo_layout.h"

/* One member during sorting: its key (unit ids or colors of the levels that matter) and rank. */
struct member_key {
	int key[QCG_TOPO_LEVELS];
	int nkey;
	int rank;
};

static int
member_key_cmp(const void *a, const void *b)
{
	const struct member_key *x = a, *y = b;
	for (int i = 0; i < x->nkey; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return x->rank < y->rank ? -1 : (x->rank > y->rank);
}

/* Whether two members share their key (the colors of levels 0..nkey-1). */
static int
same_key(const struct member_key *x, const struct member_key *y)
{
	return memcmp(x->key, y->key, (size_t)x->nkey * sizeof(int)) == 0;
}

static int
int_pair_cmp(const void *a, const void *b)
{
	const int *x = a, *y = b; /* (lowest rank, group index), compared by lowest rank */
	return x[0] < y[0] ? -1 : (x[0] > y[0]);
}

static int *
alloc_ints(size_t n)
{
	return calloc(n > 0 ? n : 1, sizeof(int));
}

/*
 * Give level l its unit numbers: group members by colors 0..l, number the groups by lowest rank.
 * Fills unit[l], nunits[l], master[l], usize[l], pos[l].
 */
static int
number_level(struct qcg_topo_layout *lay, int l, const int *colors, struct member_key *m)
{
	int n = lay->n;
	for (int r = 0; r < n; r++) {
		memcpy(m[r].key, &colors[r * QCG_TOPO_LEVELS], sizeof(m[r].key));
		m[r].nkey = l + 1;
		m[r].rank = r;
	}
	qsort(m, (size_t)n, sizeof(*m), member_key_cmp);
	int *groups = alloc_ints(2 * (size_t)n); /* (lowest rank, first sorted index) per group */
	if (groups == NULL)
		return -1;
	int ng = 0;
	for (int i = 0; i < n; i++) {
		if (i == 0 || !same_key(&m[i - 1], &m[i])) {
			groups[2 * ng] = m[i].rank; /* sorted by rank inside a group: the lowest */
			groups[2 * ng + 1] = i;
			ng++;
		}
	}
	qsort(groups, (size_t)ng, 2 * sizeof(int), int_pair_cmp);
	lay->nunits[l] = ng;
	lay->master[l] = alloc_ints((size_t)ng);
	lay->usize[l] = alloc_ints((size_t)ng);
	if (lay->master[l] == NULL || lay->usize[l] == NULL)
		goto fail;
	for (int u = 0; u < ng; u++) {
		lay->master[l][u] = groups[2 * u];
		for (int i = groups[2 * u + 1]; i < n; i++) {
			if (!same_key(&m[i], &m[groups[2 * u + 1]]))
				break;
			lay->unit[l][m[i].rank] = u;
		}
	}
	for (int r = 0; r < n; r++) /* ranks ascending: pos is the count of earlier members */
		lay->pos[l][r] = lay->usize[l][lay->unit[l][r]]++;
	free(groups);
	return 0;
fail:
	free(groups);
	return -1;
}

/* Parents, children (in unit order) and contiguity of level l. */
static int
link_level(struct qcg_topo_layout *lay, int l)
{
	int nparents = l == 0 ? 1 : lay->nunits[l - 1];
	lay->parent[l] = alloc_ints((size_t)lay->nunits[l]);
	lay->child_start[l] = alloc_ints((size_t)nparents + 1);
	lay->child_list[l] = alloc_ints((size_t)lay->nunits[l]);
	if (lay->parent[l] == NULL || lay->child_start[l] == NULL || lay->child_list[l] == NULL)
		return -1;
	for (int u = 0; u < lay->nunits[l]; u++) {
		int m = lay->master[l][u];
		lay->parent[l][u] = l == 0 ? 0 : lay->unit[l - 1][m];
		lay->child_start[l][lay->parent[l][u] + 1]++;
		/* a contiguous unit has its members at ranks master .. master + size - 1 */
		if (m + lay->usize[l][u] > lay->n || lay->unit[l][m + lay->usize[l][u] - 1] != u)
			lay->contiguous = 0;
	}
	for (int p = 0; p < nparents; p++)
		lay->child_start[l][p + 1] += lay->child_start[l][p];
	int *fill = alloc_ints((size_t)nparents);
	if (fill == NULL)
		return -1;
	for (int u = 0; u < lay->nunits[l]; u++) { /* u ascending keeps children in unit order */
		int p = lay->parent[l][u];
		lay->child_list[l][lay->child_start[l][p] + fill[p]++] = u;
	}
	free(fill);
	return 0;
}

/* The (site, cluster, rank) order used to lay out gathered blocks. */
static int
order_dfs(struct qcg_topo_layout *lay, struct member_key *m)
{
	int n = lay->n;
	lay->dfs = alloc_ints((size_t)n);
	lay->dfs_start[0] = alloc_ints((size_t)lay->nunits[0]);
	lay->dfs_start[1] = alloc_ints((size_t)lay->nunits[1]);
	if (lay->dfs == NULL || lay->dfs_start[0] == NULL || lay->dfs_start[1] == NULL)
		return -1;
	for (int r = 0; r < n; r++) {
		m[r].key[0] = lay->unit[0][r];
		m[r].key[1] = lay->unit[1][r];
		m[r].nkey = 2;
		m[r].rank = r;
	}
	qsort(m, (size_t)n, sizeof(*m), member_key_cmp);
	for (int i = n - 1; i >= 0; i--) { /* backwards: the first index of a unit wins */
		lay->dfs[i] = m[i].rank;
		lay->dfs_start[0][m[i].key[0]] = i;
		lay->dfs_start[1][m[i].key[1]] = i;
	}
	return 0;
}

int
qcg_topo_layout_build(struct qcg_topo_layout *lay, int n, const int *colors)
{
	memset(lay, 0, sizeof(*lay));
	if (n < 1)
		return -1;
	lay->n = n;
	lay->contiguous = 1;
	struct member_key *m = calloc((size_t)n, sizeof(*m));
	if (m == NULL)
		return -1;
	for (int l = 0; l < QCG_TOPO_LEVELS; l++) {
		lay->unit[l] = alloc_ints((size_t)n);
		lay->pos[l] = alloc_ints((size_t)n);
		if (lay->unit[l] == NULL || lay->pos[l] == NULL ||
		    number_level(lay, l, colors, m) < 0 || link_level(lay, l) < 0)
			goto fail;
	}
	if (order_dfs(lay, m) < 0)
		goto fail;
	free(m);
	return 0;
fail:
	free(m);
	qcg_topo_layout_free(lay);
	return -1;
}

void
qcg_topo_layout_free(struct qcg_topo_layout *lay)
{
	for (int l = 0; l < QCG_TOPO_LEVELS; l++) {
		free(lay->unit[l]);
		free(lay->pos[l]);
		free(lay->master[l]);
		free(lay->usize[l]);
		free(lay->parent[l]);
		free(lay->child_start[l]);
		free(lay->child_list[l]);
	}
	free(lay->dfs);
	free(lay->dfs_start[0]);
	free(lay->dfs_start[1]);
	memset(lay, 0, sizeof(*lay));
}
