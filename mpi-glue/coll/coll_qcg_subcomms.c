/*
 * coll_qcg_subcomms.c: the hidden communicators of one qcg communicator.
 *
 * node_comm holds the members on our node, cluster_comm those in our cluster, both in the rank
 * order of the parent (key = parent rank), so positions in them are layout.pos[2] and pos[1].
 * They are built on the first collective that needs them (every member calls the same first
 * collective, so the splits match up), and carry the info key
 * ompi_comm_coll_preference=tuned,^qcg,han (the first ^ excludes the rest of the list): tuned
 * runs them; qcg never selects itself there
 * (they span one cluster, so it would step aside anyway); han is kept out because our levels
 * already separate the nodes, and han would add its own sub-communicators and steps to every
 * hidden communicator (under coll_han_priority 100 it took the cluster communicators).
 *
 * A split is collective over the communicator it splits, and on one that spans the WAN it costs
 * several WAN round trips (an allgather and the context id's agreement), paid by the first
 * collective on every new communicator: 106.9 ms for the first allreduce on a fresh dup of 12
 * ranks on the 3-site testbed, against 5.4 ms for the second. So only the cluster split runs
 * on the parent (59.4 ms); the node split runs inside the cluster, and a split where every
 * unit of the level has one member is not run at all: each member takes MPI_COMM_SELF. That
 * choice must be the same on every member that would call the split, so it looks at every unit
 * the split would make (all clusters of the communicator, all nodes of our cluster), not at
 * our own only.
 */
#include "config.h"

#include "coll_qcg.h"

#include "opal/util/info.h"

#define SELF (&ompi_mpi_comm_self.comm)

/* Whether some level-l unit among the members r whose level-(l-1) unit is `within` (-1: every
 * member) has more than one member. */
static int
some_unit_shared(const struct qcg_topo_layout *lay, int l, int within)
{
	for (int r = 0; r < lay->n; r++)
		if ((within < 0 || lay->unit[l - 1][r] == within) && lay->usize[l][lay->unit[l][r]] > 1)
			return 1;
	return 0;
}

/* comm split by the level-l units (key: our rank in the qcg communicator, so positions follow
 * its order), or MPI_COMM_SELF when no unit the split would make has more than one member. */
static int
split_level(struct ompi_communicator_t *comm, const mca_coll_qcg_module_t *m, int l, int within,
    opal_info_t *info, struct ompi_communicator_t **out)
{
	if (!some_unit_shared(&m->layout, l, within)) {
		*out = SELF;
		return OMPI_SUCCESS;
	}
	return ompi_comm_split_with_info(comm, m->layout.unit[l][m->rank], m->rank, info, out,
	    false);
}

int
mca_coll_qcg_subcomms_ensure(struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	if (m->node_comm != NULL && m->cluster_comm != NULL)
		return OMPI_SUCCESS;
	opal_info_t info;
	OBJ_CONSTRUCT(&info, opal_info_t);
	opal_info_set(&info, "ompi_comm_coll_preference", "tuned,^qcg,han");
	/* The cluster split runs an allgather on comm, which is ours: let it take the previous
	 * path. */
	m->in_setup = true;
	int rc = OMPI_SUCCESS;
	if (m->cluster_comm == NULL)
		rc = split_level(comm, m, 1, -1, &info, &m->cluster_comm);
	if (rc == OMPI_SUCCESS && m->node_comm == NULL)
		rc = split_level(m->cluster_comm, m, 2, m->layout.unit[1][m->rank], &info,
		    &m->node_comm);
	m->in_setup = false;
	OBJ_DESTRUCT(&info);
	if (rc != OMPI_SUCCESS) {
		opal_output(0, "coll:qcg: comm %s (cid %d): building hidden communicators failed "
		    "(error %d)", comm->c_name, comm->c_contextid, rc);
		return rc;
	}
	QCG_VERBOSE(20, "comm %s (cid %d): hidden node comm of %d%s, cluster comm of %d%s",
	    comm->c_name, comm->c_contextid, ompi_comm_size(m->node_comm),
	    m->node_comm == SELF ? " (self, no split)" : "", ompi_comm_size(m->cluster_comm),
	    m->cluster_comm == SELF ? " (self, no split)" : "");
	return OMPI_SUCCESS;
}

void
mca_coll_qcg_subcomms_free(mca_coll_qcg_module_t *m)
{
	if (m->node_comm != NULL && m->node_comm != SELF)
		ompi_comm_free(&m->node_comm);
	if (m->cluster_comm != NULL && m->cluster_comm != SELF)
		ompi_comm_free(&m->cluster_comm);
	m->node_comm = m->cluster_comm = NULL;
}
