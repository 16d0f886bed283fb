/*
 * qcg_topo.h: the grid topology for MPI applications (libqcgtopo), in the manner of MPICH-G2's
 * MPICHX_TOPOLOGY_DEPTHS / MPICHX_TOPOLOGY_COLORS attributes and MPICH/MadIII's MPI_USER_COMM.
 *
 * Levels, slowest first: QCGX_LEVEL_WAN (0, sites), QCGX_LEVEL_LAN (1, clusters of a site),
 * QCGX_LEVEL_HOST (2, nodes of a cluster). A description may give each process any depth from
 * 2 to 16 (MPICH-G2's depths): the attributes then carry every level it gave, and
 * QCGX_Comm_split_level works on the three folded levels (README, "Any depth"). Where the
 * colors come from is described in mpi-glue/topo/README.md (the same sources the coll
 * component reads).
 *
 *   QCGX_Topology_init();                        after MPI_Init, on all ranks
 *   int *depths, **colors, flag;
 *   MPI_Comm_get_attr(MPI_COMM_WORLD, QCGX_TOPOLOGY_DEPTHS, &depths, &flag);
 *   MPI_Comm_get_attr(MPI_COMM_WORLD, QCGX_TOPOLOGY_COLORS, &colors, &flag);
 *   colors[r][l] == colors[q][l]  <=>  ranks r and q are in the same level-l unit
 *   QCGX_Comm_split_level(MPI_COMM_WORLD, QCGX_LEVEL_LAN, &my_cluster);
 */
#ifndef QCG_TOPO_H
#define QCG_TOPO_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QCGX_LEVEL_WAN 0  /* sites, joined by wide-area links */
#define QCGX_LEVEL_LAN 1  /* clusters of one site */
#define QCGX_LEVEL_HOST 2 /* nodes of one cluster */
#define QCGX_NUM_LEVELS 3

/* Where this process's colors came from (QCGX_Topology_origin). */
#define QCGX_ORIGIN_HOSTNAME 0 /* nothing configured: one site, one cluster, nodes by hostname */
#define QCGX_ORIGIN_ENV 1      /* $QCG_TOPOLOGY_COLORS, set per rank by the launcher */
#define QCGX_ORIGIN_FILE 2     /* a topology file */

/*
 * Attribute keyvals, valid after QCGX_Topology_init. On a communicator with the topology
 * attached, QCGX_TOPOLOGY_DEPTHS is an int[size] (levels known for each rank: as its description
 * gave them, 2..16; QCGX_NUM_LEVELS when nothing was configured) and QCGX_TOPOLOGY_COLORS an
 * int *[size] whose row r is int[depths[r]]: colors numbered 0.. in order of each unit's lowest
 * rank, a level-l unit being the ranks that share colors 0..l. MPI_Comm_dup copies them.
 */
extern int QCGX_TOPOLOGY_DEPTHS;
extern int QCGX_TOPOLOGY_COLORS;

/* Collective over MPI_COMM_WORLD: create the keyvals, attach the topology to MPI_COMM_WORLD.
 * Returns MPI_SUCCESS, or an MPI error (a message on stderr names the broken source). */
int QCGX_Topology_init(void);

/* Where this process's colors came from (QCGX_ORIGIN_*), or -1 before QCGX_Topology_init. */
int QCGX_Topology_origin(void);

/* Collective over comm: compute and attach the two attributes to comm. */
int QCGX_Comm_attach_topology(MPI_Comm comm);

/*
 * Collective over comm: *newcomm holds the members of comm in our level-`level` unit (our site,
 * our cluster or our node; with a deeper description the cluster is the path without its node
 * color), in comm's rank order, with the topology attached. MPI_ERR_ARG for a
 * level outside 0..QCGX_NUM_LEVELS-1.
 */
int QCGX_Comm_split_level(MPI_Comm comm, int level, MPI_Comm *newcomm);

#ifdef __cplusplus
}
#endif

#endif
