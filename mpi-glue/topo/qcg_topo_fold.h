/*
 * qcg_topo_fold.h: the paths of a communicator's members, any depth, as the three levels the
 * collectives and the layout work on (mpi-glue/topo/README.md, "Any depth").
 *
 * Pure C, no MPI: every member folds the same paths and gets the same colors.
 */
#ifndef QCG_TOPO_FOLD_H
#define QCG_TOPO_FOLD_H

#include "qcg_topo_source.h"

/*
 * Fold the paths of n members into colors[r * QCG_TOPO_LEVELS + l]: level 0 (site) is the
 * first color, level 1 (cluster) the path without its node color, level 2 (node) the whole
 * path; each numbered by the lowest member holding it. Levels between the site and the node are
 * thus kept apart (members share a cluster iff they share every one of them) but not told
 * apart from each other. With depth 3 this is the identity on units; with depth 2 every site is
 * one cluster. Returns 0, or -1 for n < 1, a depth outside QCG_TOPO_DEPTH_MIN..MAX, or no memory.
 */
int qcg_topo_fold(const struct qcg_topo_path *paths, int n, int *colors);

/*
 * The units of `level` (0 = the first color) among n members: unit[r] is numbered 0.. in the
 * order of each unit's lowest member for a member whose depth exceeds level (members share a
 * unit iff their first level + 1 colors are equal), -1 for a shallower one. Returns the number
 * of units, or -1 for bad arguments (as qcg_topo_fold, or level outside 0..DEPTH_MAX-1).
 */
int qcg_topo_prefix_units(const struct qcg_topo_path *paths, int n, int level, int *unit);

/* The deepest path among n (0 when n < 1). */
int qcg_topo_max_depth(const struct qcg_topo_path *paths, int n);

#endif
