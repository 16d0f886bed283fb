/*
 * coll_qcg_topo.c: the colors of a communicator's members.
 *
 * Each process publishes its own colors through the PMIx modex while coll opens (before the
 * fence of MPI_Init); selection on any communicator then reads its members' colors locally, with
 * no message on the communicator. Every member reads the same values, so every member takes the
 * same decision: a precondition for a coll component, since a member that selected us and one
 * that did not would run different algorithms and hang.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_qcg.h"

#include "ompi/group/group.h"
#include "ompi/proc/proc.h"
#include "opal/mca/pmix/pmix.h"

#define QCG_MODEX_KEY "qcg.topo.colors" /* value: "site,...,node", any depth (2..16) */

int
mca_coll_qcg_publish_colors(void)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	ompi_proc_t *me = ompi_proc_local();
	c->origin = QCG_TOPO_NONE;
	if (me == NULL || opal_pmix.put == NULL) /* not an MPI process (ompi_info) */
		return OMPI_SUCCESS;
	char err[256];
	int origin = qcg_topo_local_path((int)me->super.proc_name.vpid, c->topology_file,
	    &c->path, err, sizeof(err));
	if (origin < 0) {
		/* Every member then lacks our colors, so qcg steps aside everywhere, consistently.
		 * The marker tells the others that a topology was configured here: nobody then
		 * starts a discovery that this rank would not join. */
		opal_output(0, "coll:qcg: %s; ignoring the topology (qcg will not be selected)", err);
		c->origin_broken = 1;
		int rc;
		OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, QCG_MODEX_KEY, "broken", OPAL_STRING);
		(void)rc;
		return OMPI_SUCCESS;
	}
	if (origin == QCG_TOPO_NONE) {
		QCG_VERBOSE(10, "rank %u: no topology configured (%s, %s, coll_qcg_topology_file)",
		    me->super.proc_name.vpid, QCG_TOPO_ENV_COLORS, QCG_TOPO_ENV_FILE);
		return OMPI_SUCCESS;
	}
	char text[16 * QCG_TOPO_DEPTH_MAX];
	qcg_topo_path_text(&c->path, text, sizeof(text));
	int rc;
	OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, QCG_MODEX_KEY, text, OPAL_STRING);
	if (rc != OPAL_SUCCESS) {
		opal_output(0, "coll:qcg: cannot publish this rank's topology (error %d)", rc);
		return OMPI_SUCCESS;
	}
	c->origin = origin;
	QCG_VERBOSE(20, "rank %u: colors %s (from %s)", me->super.proc_name.vpid, text,
	    origin == QCG_TOPO_FROM_ENV ? QCG_TOPO_ENV_COLORS : "the topology file");
	return OMPI_SUCCESS;
}

/* Read one member's path from the modex. Returns 0, -1 if that member published nothing,
 * -2 if it published the marker of a broken topology source. */
static int
member_path(opal_process_name_t *name, struct qcg_topo_path *path)
{
	char *text = NULL, err[128];
	int rc;
	OPAL_MODEX_RECV_VALUE_OPTIONAL(rc, QCG_MODEX_KEY, name, &text, OPAL_STRING);
	if (rc != OPAL_SUCCESS || text == NULL)
		return -1;
	rc = qcg_topo_parse_path(text, path, err, sizeof(err)) == 0 ? 0 : -2;
	free(text);
	return rc;
}

/*
 * Fill colors[r * QCG_TOPO_LEVELS + l] for every member r of comm. Returns the rank of the first
 * member without colors (the caller steps aside), or -1 when all have them.
 */
/* Members' colors from the discovered world table; members of another job have none. */
static int
discovered_colors(struct ompi_communicator_t *comm, int *colors)
{
	const mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	for (int r = 0; r < ompi_comm_size(comm); r++) {
		opal_process_name_t name = ompi_group_get_proc_name(comm->c_local_group, r);
		if (name.jobid != OMPI_PROC_MY_NAME->jobid || (int)name.vpid >= c->world_size)
			return r;
		memcpy(&colors[r * QCG_TOPO_LEVELS], &c->world_colors[name.vpid * QCG_TOPO_LEVELS],
		    QCG_TOPO_LEVELS * sizeof(int));
	}
	return -1;
}

/* How many members other than us published colors (or the broken marker) through the modex. */
int
mca_coll_qcg_comm_published(struct ompi_communicator_t *comm)
{
	int n = ompi_comm_size(comm), me = ompi_comm_rank(comm), count = 0;
	struct qcg_topo_path path;
	for (int r = 0; r < n; r++) {
		if (r == me)
			continue;
		opal_process_name_t name = ompi_group_get_proc_name(comm->c_local_group, r);
		count += member_path(&name, &path) != -1;
	}
	return count;
}

int
mca_coll_qcg_comm_colors(struct ompi_communicator_t *comm, int *colors)
{
	int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
	if (mca_coll_qcg_component.origin == QCG_TOPO_NONE)
		return me;
	if (mca_coll_qcg_component.origin == QCG_TOPO_DISCOVERED)
		return discovered_colors(comm, colors);
	/* Paths of any depth, folded to the three levels the collectives run on (every member
	 * folds the same paths the same way). */
	struct qcg_topo_path *paths = malloc((size_t)n * sizeof(*paths));
	if (paths == NULL)
		return me;
	int missing = -1;
	for (int r = 0; r < n && missing < 0; r++) {
		if (r == me) {
			paths[r] = mca_coll_qcg_component.path;
			continue;
		}
		opal_process_name_t name = ompi_group_get_proc_name(comm->c_local_group, r);
		if (member_path(&name, &paths[r]) != 0)
			missing = r;
	}
	if (missing < 0 && qcg_topo_fold(paths, n, colors) < 0)
		missing = me;
	if (missing < 0 && qcg_topo_max_depth(paths, n) != QCG_TOPO_LEVELS)
		QCG_VERBOSE(10, "comm %s (cid %d): paths of up to %d levels, folded to site, "
		    "cluster (every level between) and node", comm->c_name, comm->c_contextid,
		    qcg_topo_max_depth(paths, n));
	free(paths);
	return missing;
}
