/*
 * node_env.h: what a job's processes need in their environment to go through libqcgnet.so
 * (mpi-glue/net/README.md), node by node, and how it gets there.
 *
 * Every node of the job gets its own window of NODE_ENV_WINDOW listening ports, unique in the
 * job (the broker keys access points by job and port), inside its cluster's open range for a
 * port-range cluster; mpirun gets one too. qcg-submit writes DIR/nodeenv, one line per node:
 *
 *     HOST VAR=value VAR=value ...
 *
 * (QCG_NET=1, QCG_HELPER_SOCKET, QCG_NET_PORTS and the Open MPI port parameters of that
 * window), and mpirun's plm_rsh_agent is `qcg-submit --rsh-agent`: it finds the host's line
 * in $QCG_NODE_ENV and runs `qcg-rsh HOST env VAR=value... COMMAND...`, so orted (and the
 * ranks it forks) start with their node's values. The variables are not given to mpirun
 * itself: it would forward OMPI_MCA_* to every rank, over each node's own.
 */
#ifndef QCG_NODE_ENV_H
#define QCG_NODE_ENV_H

#include <stdio.h>

#include "coalloc.h"

#define NODE_ENV_WINDOW 16        /* ports per node: orted plus a few ranks (2 each) */
#define NODE_ENV_PORT_BASE 20000  /* first window of clusters without a port range */
#define NODE_ENV_TOKEN_LEN 32     /* hex digits of a job token (helper: 16..128 bytes) */
#define NODE_ENV_LINE_MAX 4096
#define NODE_ENV_VARS_MAX 16
/* Where a node's helper listens: %h is replaced by the node's name. */
#define NODE_ENV_SOCKET_VAR "QCG_NODE_HELPER_SOCKET"
#define NODE_ENV_DEFAULT_SOCKET "/run/qcg/helper.sock"

/* Give every node of c, and mpirun (*launcher_port), a window. -1 with err when a port-range
 * cluster has no room for its nodes' windows. */
int node_env_assign(struct coalloc *c, int *launcher_port, char *err, size_t errlen);

/* The nodeenv lines of c (windows assigned); socket_pattern may be NULL (the default). */
int node_env_write(FILE *f, const struct coalloc *c, const char *socket_pattern);

/* A fresh job token: NODE_ENV_TOKEN_LEN hex digits and a NUL. */
int node_env_token(char token[NODE_ENV_TOKEN_LEN + 1]);

/* Let the local helper admit mpirun: append "JOB TOKEN ACCOUNT" to its token file. */
int node_env_register_token(const char *path, const char *job, const char *token, char *err,
    size_t errlen);

/* qcg-submit --rsh-agent HOST COMMAND...: exec rsh with HOST's variables before COMMAND.
 * Returns only on failure (255, as ssh and qcg-rsh do). */
int node_env_agent(int argc, char **argv, const char *rsh);

#endif
