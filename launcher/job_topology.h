/*
 * job_topology.h: the grid topology of a co-allocated job (MPICH-G2's depths and colors,
 * DESIGN.md section 4), and how it reaches every rank through its environment.
 *
 * Colors per level, slowest first: site (numbered in order of first appearance in the
 * description), cluster (within its site), node (within its cluster, in grant order). All
 * ranks of one node share their colors, so a node's colors are one environment word,
 * QCG_TOPOLOGY_COLORS=site,cluster,node, that qcg-rsh gives orted from the node's line of the
 * hosts map (job_files.h) and orted passes on to the ranks it forks: nothing is shared between
 * hosts. The ranks on mpirun's own host, if it is one of the job's nodes, get the word from
 * mpirun's environment instead. Every rank also gets QCG_TOPOLOGY_REQUIRED=1 (mpirun -x), so
 * that a rank whose colors did not arrive says so (mpi-glue/topo/README.md) rather than
 * letting coll/qcg step aside in silence.
 */
#ifndef QCG_JOB_TOPOLOGY_H
#define QCG_JOB_TOPOLOGY_H

#include <stddef.h>

#include "coalloc.h"

#define JOB_TOPOLOGY_COLORS_ENV "QCG_TOPOLOGY_COLORS"
#define JOB_TOPOLOGY_REQUIRED_ENV "QCG_TOPOLOGY_REQUIRED"
#define JOB_TOPOLOGY_WORD_MAX 64 /* "QCG_TOPOLOGY_COLORS=" and three small numbers */

/* The site and cluster colors of part i of c. */
void job_topology_part(const struct coalloc *c, int i, int *site, int *cluster);

/* "QCG_TOPOLOGY_COLORS=site,cluster,node" for node n of part i, into word (at least
 * JOB_TOPOLOGY_WORD_MAX bytes). */
void job_topology_word(const struct coalloc *c, int i, int n, char *word, size_t len);

/* The colors word of the job's node that host self (a host name, matched in full or up to its
 * first '.') is, into word; 1 when self is one of the job's nodes, 0 (word empty) when not. */
int job_topology_local_word(const struct coalloc *c, const char *self, char *word, size_t len);

#endif
