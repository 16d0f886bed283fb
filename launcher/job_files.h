/*
 * job_files.h: the files qcg-submit writes into the job's directory before it starts mpirun:
 *
 *   hostfile   Open MPI's, read with --map-by slot: "NODE slots=N" per granted node, cluster by
 *              cluster in the order of the description, within a cluster node by node in the
 *              front-end's grant order; mpirun fills each node's slots before the next, so
 *              ranks follow that order. Not a rankfile: Open MPI 4.1 binds every rank a
 *              rankfile places ("slot=*" put them all on core 0, --bind-to none or not), and
 *              a numbered slot is a core id we cannot know on a remote node. The binding is
 *              mpirun's --bind-to (job_desc.h).
 *              Open MPI puts its own host first whatever the hostfile says: when the launcher
 *              runs on one of the job's nodes that is not the first, the file lists one line
 *              per rank instead, for --map-by seq (which cannot bind: see job_files_form).
 *   hosts      qcg-rsh's hosts map (rsh_map.h): NODE FRONTEND-URL RESERVATION, then the
 *              node's libqcgnet.so words when it has a port window (node_env.h), then its
 *              QCG_TOPOLOGY_COLORS word (job_topology.h), then QCG_EXECUTABLE=PATH when its
 *              cluster has a program path of its own (submit_run.h SUBMIT_EXEC_ENV)
 *   topology   mpi-glue/topo's topology file: "rank site cluster node" colors; sites numbered
 *              in order of first appearance, clusters within their site, nodes within their
 *              cluster (job_topology.h). A record of the layout, not read by the job: each rank
 *              gets its own colors through its environment, since the nodes cannot read
 *              this host's files
 */
#ifndef QCG_JOB_FILES_H
#define QCG_JOB_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "coalloc.h"

/* How the hostfile places ranks: mpirun's --map-by word for each. */
enum job_files_form {
	JOB_FILES_SLOTS,        /* "NODE slots=N", --map-by slot */
	JOB_FILES_SEQ,          /* "NODE" once per rank, --map-by seq */
};

/* The form for a launcher on host self (its host name): SEQ when self names one of the job's
 * nodes other than the first (Open MPI would give it the first ranks), else SLOTS. A name
 * matches in full or up to its first '.' on either side. */
enum job_files_form job_files_form(const struct coalloc *c, const char *self);
/* Whether host names a and b are the same host: equal, or equal up to the first '.' of
 * either (a node "a1" and a launcher host "a1.example.org"). */
int job_files_same_host(const char *a, const char *b);
/* "slot" or "seq". */
const char *job_files_map_by(enum job_files_form form);

/* Write the three files into dir, the hostfile in the given form; 0, or -1 with err. */
int job_files_write(const char *dir, const struct coalloc *c, enum job_files_form form,
    char *err, size_t errlen);

/* The same, each to a stream (what job_files_write uses, and the unit tests). */
int job_files_hostfile(FILE *f, const struct coalloc *c, enum job_files_form form);
int job_files_hosts(FILE *f, const struct coalloc *c);
int job_files_topology(FILE *f, const struct coalloc *c);

#endif
