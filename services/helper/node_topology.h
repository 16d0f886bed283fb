/*
 * node_topology.h: this node's hardware topology, found once by qcg-helper and kept as hwloc
 * XML for the job's processes (issue 15).
 *
 * Without it Open MPI's orted and every rank discover the topology in their start-up, each
 * reading every PCI device's configuration space through sysfs: on this project's virtual
 * machines that was ~40 % of the CPU a 24-rank start-up spends in its ranks and orteds
 * (bench/launch/README.md, session 13). Open MPI reads a topology from a file instead when
 * hwloc_base_topo_file is set (and then treats it as this system's: binding works), so the
 * helper sets OMPI_MCA_hwloc_base_topo_file in the launches it starts, unless the launch sets
 * it itself or runs under srun: inside a Slurm step the cgroup may allow fewer CPUs than the
 * node has, and a topology read from a file would not know it.
 */
#ifndef QCG_NODE_TOPOLOGY_H
#define QCG_NODE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#define NODE_TOPOLOGY_ENV "OMPI_MCA_hwloc_base_topo_file"

/* Discover the node (I/O devices filtered as Open MPI does: the important ones) and write it
 * to path as XML, readable by every account (0644), replacing what was there at once (a
 * temporary file renamed). 0, or -1 with err. */
int node_topology_write(const char *path, char *err, size_t errlen);

/* Whether a launch of argv (argc words) with env (envc entries) should get the topology file:
 * not when it names one itself, nor when it runs srun (see above). */
bool node_topology_applies(char *const *argv, int argc, char *const *env, int envc);

#endif
