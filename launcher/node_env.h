/*
 * node_env.h: what a job's processes need in their environment to go through libqcgnet.so
 * (mpi-glue/net/README.md), node by node, and how it gets there.
 *
 * Every node of the job gets its own window of listening ports (node_env_window), unique in the
 * job (the broker tells listeners apart by address and port, and by cluster only for an
 * initiator in one of them: unique ports keep two clusters on one private range unambiguous,
 * db/registry.h), inside its cluster's open range for a port-range cluster; mpirun gets one
 * too. The node's words (QCG_NET=1, its helper's
 * QCG_HELPER_SOCKET, QCG_NET_PORTS) go on its line of the hosts map (rsh_map.h), and qcg-rsh
 * starts orted with them and the Open MPI port parameters of the window, so orted and the
 * ranks it forks have their node's values. They are not given to mpirun itself: it would
 * forward OMPI_MCA_* to every rank, over each node's own.
 */
#ifndef QCG_NODE_ENV_H
#define QCG_NODE_ENV_H

#include <stdio.h>

#include "coalloc.h"
#include "rsh_map.h"

#define NODE_ENV_WINDOW 16        /* ports for mpirun, or a node with one rank, and its orted */
#define NODE_ENV_PER_PROCESS 6    /* more per further rank: its OOB and BTL listeners, and
                                   * room for ports still held from a previous job (4 ranks
                                   * of a node ran out of 16 ports on the testbed) */
#define NODE_ENV_PORT_BASE 20000  /* first window of clusters without a port range */
#define NODE_ENV_TOKEN_LEN 32     /* hex digits of a job token (helper: 16..128 bytes) */
/* Where a node's helper listens: %h is replaced by the node's name. */
#define NODE_ENV_SOCKET_VAR "QCG_NODE_HELPER_SOCKET"
#define NODE_ENV_DEFAULT_SOCKET "/run/qcg/helper.sock"

/* Ports in the window of a node running processes ranks. */
int node_env_window(int processes);

/* Give every node of c, and mpirun (*launcher_port), a window. -1 with err when a port-range
 * cluster has no room for its nodes' windows. */
int node_env_assign(struct coalloc *c, int *launcher_port, char *err, size_t errlen);

/* Set t's words for node nd (window assigned); socket_pattern may be NULL (the default).
 * -1 when the socket path would not make one word. */
int node_env_words(const struct coalloc_node *nd, const char *socket_pattern,
    struct rsh_target *t);

/* A fresh job token: NODE_ENV_TOKEN_LEN hex digits and a NUL. */
int node_env_token(char token[NODE_ENV_TOKEN_LEN + 1]);

/* Let the local helper admit mpirun: append "JOB TOKEN ACCOUNT" to its token file. */
int node_env_register_token(const char *path, const char *job, const char *token, char *err,
    size_t errlen);

#endif
