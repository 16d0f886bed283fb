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
 */
#include "config.h"

#include "coll_qcg.h"

#include "opal/util/info.h"

int
mca_coll_qcg_subcomms_ensure(struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	if (m->node_comm != NULL && m->cluster_comm != NULL)
		return OMPI_SUCCESS;
	opal_info_t info;
	OBJ_CONSTRUCT(&info, opal_info_t);
	opal_info_set(&info, "ompi_comm_coll_preference", "tuned,^qcg,han");
	/* The splits run an allgather on comm, which is ours: let it take the previous path. */
	m->in_setup = true;
	int rc = OMPI_SUCCESS;
	if (m->node_comm == NULL)
		rc = ompi_comm_split_with_info(comm, m->layout.unit[2][m->rank], m->rank, &info,
		    &m->node_comm, false);
	if (rc == OMPI_SUCCESS && m->cluster_comm == NULL)
		rc = ompi_comm_split_with_info(comm, m->layout.unit[1][m->rank], m->rank, &info,
		    &m->cluster_comm, false);
	m->in_setup = false;
	OBJ_DESTRUCT(&info);
	if (rc != OMPI_SUCCESS) {
		opal_output(0, "coll:qcg: comm %s (cid %d): building hidden communicators failed "
		    "(error %d)", comm->c_name, comm->c_contextid, rc);
		return rc;
	}
	QCG_VERBOSE(20, "comm %s (cid %d): hidden node comm of %d, cluster comm of %d",
	    comm->c_name, comm->c_contextid, ompi_comm_size(m->node_comm),
	    ompi_comm_size(m->cluster_comm));
	return OMPI_SUCCESS;
}
