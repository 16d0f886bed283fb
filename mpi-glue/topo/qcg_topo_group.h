/*
 * qcg_topo_group.h: group nodes into clusters and sites from their measured round-trip times,
 * for topology discovery when nothing was injected (mpi-glue/topo/README.md, "Discovery").
 *
 * Pure C, no MPI: the coll component measures, this decides, and the unit test feeds it
 * synthetic matrices.
 */
#ifndef QCG_TOPO_GROUP_H
#define QCG_TOPO_GROUP_H

#define QCG_TOPO_GROUP_MAX_NODES 4096 /* larger inputs are refused (the matrix is L*L) */

/* How latencies are grouped; see qcg_topo_group() for their meaning. */
struct qcg_topo_group_params {
	double floor_us; /* RTTs up to this are one LAN whatever their ratios (absorbs noise) */
	double ratio;    /* a merge this many times slower than the level below starts a level */
};

/*
 * Group L nodes whose symmetric round-trip times (microseconds, rtt[i*L+j], diagonal ignored,
 * negative = not measured, treated as infinitely far) are given. Writes cluster[i] and site[i]:
 * group numbers 0.. in the order of each group's lowest node. Returns the number of distinct
 * levels found above the node (0, 1 or more: see the README), or -1 on bad arguments (L < 1,
 * L > QCG_TOPO_GROUP_MAX_NODES, floor_us < 0, ratio <= 1, out of memory).
 *
 * Single linkage in order of increasing RTT (Kruskal): merges up to floor_us are free; any
 * later merge whose RTT exceeds ratio times the largest merge so far (at least floor_us) closes
 * a level, which records the groups as they were just before it. Clusters are the first level
 * closed, sites the last one; with no level closed all nodes form one cluster and one site.
 */
int qcg_topo_group(int L, const double *rtt, const struct qcg_topo_group_params *p,
    int *cluster, int *site);

#endif
