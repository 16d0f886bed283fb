/*
 * qcg_topo_fold.c: paths of any depth folded to site, cluster and node (qcg_topo_fold.h).
 */
#include "config.h"

#include <stdlib.h>

#include "qcg_topo_fold.h"

/* A member's key at one level: the first len colors of its path. */
struct key {
	const int *color;
	int len, member;
};

static int
key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int n = a->len < b->len ? a->len : b->len;
	for (int i = 0; i < n; i++)
		if (a->color[i] != b->color[i])
			return a->color[i] < b->color[i] ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->member < b->member ? -1 : (a->member > b->member);
}

static int
same_key(const struct key *a, const struct key *b)
{
	if (a->len != b->len)
		return 0;
	for (int i = 0; i < a->len; i++)
		if (a->color[i] != b->color[i])
			return 0;
	return 1;
}

/* Set out[member * stride] for each of the n keys to the lowest member of equal key: sorted by
 * key, then by member, the first of each run is that lowest member. */
static void
number_keys(struct key *k, int n, int *out, int stride)
{
	qsort(k, (size_t)n, sizeof(*k), key_cmp);
	int first = 0;
	for (int i = 0; i < n; i++) {
		if (i == 0 || !same_key(&k[i], &k[i - 1]))
			first = k[i].member;
		out[k[i].member * stride] = first;
	}
}

static int
depths_ok(const struct qcg_topo_path *paths, int n)
{
	if (n < 1)
		return 0;
	for (int r = 0; r < n; r++)
		if (paths[r].depth < QCG_TOPO_DEPTH_MIN || paths[r].depth > QCG_TOPO_DEPTH_MAX)
			return 0;
	return 1;
}

int
qcg_topo_fold(const struct qcg_topo_path *paths, int n, int *colors)
{
	if (!depths_ok(paths, n))
		return -1;
	struct key *k = malloc((size_t)n * sizeof(*k));
	if (k == NULL)
		return -1;
	for (int level = 0; level < QCG_TOPO_LEVELS; level++) {
		for (int r = 0; r < n; r++) {
			int d = paths[r].depth;
			k[r].color = paths[r].color;
			k[r].len = level == 0 ? 1 : level == 1 ? d - 1 : d;
			k[r].member = r;
		}
		number_keys(k, n, colors + level, QCG_TOPO_LEVELS);
	}
	free(k);
	return 0;
}

int
qcg_topo_max_depth(const struct qcg_topo_path *paths, int n)
{
	int d = 0;
	for (int r = 0; r < n; r++)
		d = paths[r].depth > d ? paths[r].depth : d;
	return d;
}

int
qcg_topo_prefix_units(const struct qcg_topo_path *paths, int n, int level, int *unit)
{
	if (!depths_ok(paths, n) || level < 0 || level >= QCG_TOPO_DEPTH_MAX)
		return -1;
	struct key *k = malloc((size_t)n * sizeof(*k));
	if (k == NULL)
		return -1;
	int count = 0;
	for (int r = 0; r < n; r++) {
		unit[r] = -1;
		if (paths[r].depth > level)
			k[count++] = (struct key){ paths[r].color, level + 1, r };
	}
	number_keys(k, count, unit, 1);
	free(k);
	/* Lowest members to 0.. in their order; a unit's lowest member comes before its others. */
	int units = 0;
	for (int r = 0; r < n; r++)
		if (unit[r] >= 0)
			unit[r] = unit[r] == r ? units++ : unit[unit[r]];
	return units;
}
