/*
 * qcg_topo_layout.h: the multilevel structure of one communicator, computed from the colors of
 * its members (MPICH-G2's depths and colors, normalised).
 *
 * A level-l "unit" is a set of members sharing colors 0..l: level 0 a site, level 1 a cluster
 * of that site, level 2 a node of that cluster. Units are numbered 0.. in the order of their
 * lowest rank, so every member that computes the layout from the same colors gets the same
 * numbers, whatever colors the launcher chose. The whole communicator is the single unit of
 * level -1. Pure C, shared by the coll component and libqcgtopo, unit-tested on its own.
 */
#ifndef QCG_TOPO_LAYOUT_H
#define QCG_TOPO_LAYOUT_H

#include "qcg_topo_source.h"

struct qcg_topo_layout {
	int n;                                 /* members (communicator size) */
	int nunits[QCG_TOPO_LEVELS];           /* units per level */
	int *unit[QCG_TOPO_LEVELS];            /* unit[l][r]: level-l unit of rank r */
	int *pos[QCG_TOPO_LEVELS];             /* pos[l][r]: index of r among its unit's members */
	int *master[QCG_TOPO_LEVELS];          /* master[l][u]: lowest rank of unit u */
	int *usize[QCG_TOPO_LEVELS];           /* usize[l][u]: members of unit u */
	int *parent[QCG_TOPO_LEVELS];          /* parent[l][u]: level-(l-1) unit holding u */
	int *child_start[QCG_TOPO_LEVELS];     /* children at level l of level-(l-1) unit U are */
	int *child_list[QCG_TOPO_LEVELS];      /*   child_list[l][child_start[l][U]..[U+1]-1] */
	int *dfs;                              /* ranks ordered by (site, cluster, rank) */
	int *dfs_start[2];                     /* first dfs index of each site / cluster */
	int contiguous;                        /* 1 if every unit is a contiguous range of ranks */
};

/*
 * Build the layout of n members whose colors are colors[r*QCG_TOPO_LEVELS + l]. Returns 0, or -1
 * (n < 1 or out of memory) with the layout left empty. Free with qcg_topo_layout_free.
 */
int qcg_topo_layout_build(struct qcg_topo_layout *lay, int n, const int *colors);

void qcg_topo_layout_free(struct qcg_topo_layout *lay);

/* Number of children at level l of the level-(l-1) unit U (U is 0 for l == 0). */
static inline int
qcg_topo_nchildren(const struct qcg_topo_layout *lay, int l, int U)
{
	return lay->child_start[l][U + 1] - lay->child_start[l][U];
}

/* The index of rank r in lay->dfs (its block's place in a (site, cluster, rank) ordered
 * buffer): searched within r's site only. */
static inline int
qcg_topo_dfs_index(const struct qcg_topo_layout *lay, int r)
{
	int d = lay->dfs_start[0][lay->unit[0][r]];
	while (lay->dfs[d] != r)
		d++;
	return d;
}

/* The level-(l-1) unit holding rank r (0, the whole communicator, for l == 0). */
static inline int
qcg_topo_parent_of_rank(const struct qcg_topo_layout *lay, int l, int r)
{
	return l == 0 ? 0 : lay->unit[l - 1][r];
}

/*
 * The member that holds the data of level-l unit u in a rooted collective: the root if it is
 * inside u, otherwise u's master (its lowest rank). root < 0 means "no root": always the master.
 * l == -1 names the whole communicator.
 */
static inline int
qcg_topo_holder(const struct qcg_topo_layout *lay, int l, int u, int root)
{
	if (l < 0)
		return root >= 0 ? root : 0;
	if (root >= 0 && lay->unit[l][root] == u)
		return root;
	return lay->master[l][u];
}

#endif
