/*
 * coll_qcg_barrier.c: barrier on the node comm, fan-in of node masters to their site master,
 * one WAN exchange of empty messages between site masters (one WAN latency), fan-out back to
 * the node masters, and a second node barrier that holds every rank until its node master has
 * heard from all sites. No rank leaves before every rank has entered: each site master leaves
 * the exchange only after all site masters entered it, which each did only after its whole
 * site had entered.
 */
#include "config.h"

#include "coll_qcg.h"

/* The node master's part: fan in to the site master, exchange, fan out. */
static int
barrier_masters(struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int mi, si, k, rc, me = m->rank;
	const int tag = MCA_COLL_BASE_TAG_BARRIER;
	for (int l = QCG_TOPO_LEVELS - 1; l >= 1; l--) {
		k = mca_coll_qcg_holders(m, l, lay->unit[l - 1][me], -1, m->holders, &mi, &si);
		rc = mca_coll_qcg_tree_fanin(m->holders, k, mi, si,
		    mca_coll_qcg_component.level_alg[l], tag, comm);
		if (rc != OMPI_SUCCESS)
			return rc;
		if (m->holders[si] != me)
			break; /* our subtree has reported: wait for the fan-out */
	}
	if (lay->master[0][lay->unit[0][me]] == me) {
		k = mca_coll_qcg_holders(m, 0, 0, -1, m->holders, &mi, &si);
		rc = mca_coll_qcg_exchange_signal(m->holders, k, mi, tag, comm);
		if (rc != OMPI_SUCCESS)
			return rc;
	}
	for (int l = 1; l < QCG_TOPO_LEVELS; l++) {
		if (lay->master[l][lay->unit[l][me]] != me)
			continue;
		k = mca_coll_qcg_holders(m, l, lay->unit[l - 1][me], -1, m->holders, &mi, &si);
		rc = mca_coll_qcg_tree_bcast(NULL, 0, MPI_BYTE, m->holders, k, mi, si,
		    mca_coll_qcg_component.level_alg[l], tag, comm);
		if (rc != OMPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

int
mca_coll_qcg_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_BARRIER, 0))
		return m->previous_barrier(comm, m->previous_barrier_module);
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	ompi_communicator_t *node = m->node_comm;
	const struct qcg_topo_layout *lay = &m->layout;
	rc = node->c_coll->coll_barrier(node, node->c_coll->coll_barrier_module);
	if (rc == OMPI_SUCCESS && lay->master[2][lay->unit[2][m->rank]] == m->rank)
		rc = barrier_masters(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	return node->c_coll->coll_barrier(node, node->c_coll->coll_barrier_module);
}
