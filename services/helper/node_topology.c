/*
 * node_topology.c: the node's topology as hwloc XML for the job's processes
 * (node_topology.h).
 */
#include "config.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node_topology.h"

int
node_topology_write(const char *path, char *err, size_t errlen)
{
	char tmp[4096];
	hwloc_topology_t topo;
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "topology file %.200s: path too long", path);
		return -1;
	}
	if (hwloc_topology_init(&topo) != 0) {
		snprintf(err, errlen, "hwloc: cannot start a topology: %s", strerror(errno));
		return -1;
	}
	/* as Open MPI's own discovery (opal_hwloc_base_topology_set_flags with I/O) */
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	int fd = -1, rc = -1;
	if (hwloc_topology_load(topo) != 0) {
		snprintf(err, errlen, "hwloc: cannot discover this node: %s", strerror(errno));
		goto out;
	}
	if ((fd = mkstemp(tmp)) < 0) {
		snprintf(err, errlen, "topology file %.200s: %s", tmp, strerror(errno));
		goto out;
	}
	close(fd);
	if (hwloc_topology_export_xml(topo, tmp, 0) != 0 || chmod(tmp, 0644) != 0 ||
	    rename(tmp, path) != 0) {
		snprintf(err, errlen, "topology file %.200s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	hwloc_topology_destroy(topo);
	return rc;
}

/* Whether word is srun, by itself or as a path's last part. */
static bool
is_srun(const char *word)
{
	const char *slash = strrchr(word, '/');
	return strcmp(slash ? slash + 1 : word, "srun") == 0;
}

bool
node_topology_applies(char *const *argv, int argc, char *const *env, int envc)
{
	size_t n = strlen(NODE_TOPOLOGY_ENV);
	for (int i = 0; i < envc; i++)
		if (strncmp(env[i], NODE_TOPOLOGY_ENV, n) == 0 && env[i][n] == '=')
			return false;
	/* the front-end's Slurm prefix: "srun ..." or "env SLURM_CONF=... srun ..." */
	for (int i = 0; i < argc && i < 3; i++)
		if (argv[i] != NULL && is_srun(argv[i]))
			return false;
	return true;
}
