/*
 * job_files.h: the files qcg-submit writes into the job's directory before it starts mpirun:
 *
 *   rankfile   Open MPI's: "rank R=NODE slot=*", ranks cluster by cluster in the order of the
 *              description, within a cluster node by node in the front-end's grant order
 *   hosts      qcg-rsh's hosts map (rsh_map.h): NODE FRONTEND-URL RESERVATION, then the
 *              node's libqcgnet.so words when it has a port window (node_env.h)
 *   topology   mpi-glue/topo's topology file: "rank site cluster node" colors; sites numbered
 *              in order of first appearance, clusters within their site, nodes within their
 *              cluster (MPICH-G2's depths and colors, DESIGN.md section 4)
 */
#ifndef QCG_JOB_FILES_H
#define QCG_JOB_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "coalloc.h"

/* Write the three files into dir; 0, or -1 with err. */
int job_files_write(const char *dir, const struct coalloc *c, char *err, size_t errlen);

/* The same, each to a stream (what job_files_write uses, and the unit tests). */
int job_files_rankfile(FILE *f, const struct coalloc *c);
int job_files_hosts(FILE *f, const struct coalloc *c);
int job_files_topology(FILE *f, const struct coalloc *c);

#endif
