/*
 * coll_qcg_allreduce.c: reduce inside each site (node comm, then node and cluster holders), one
 * WAN step between the site holders, then broadcast back down inside each site.
 *
 * The WAN step is an exchange for small messages (every site holder sends its partial to every
 * other and all fold them in site order: one WAN latency) and a reduce to rank 0 followed by a
 * broadcast for large ones (each site sends and receives one message instead of S-1), switched
 * by coll_qcg_allreduce_exchange_max. Non-commutative operations need contiguous units, as in
 * reduce; otherwise the previous component does the call. The choice "segmented" (large
 * messages, commutative operations) is coll_qcg_allreduce_seg.c instead: reduce-scatter +
 * allgather between the site masters, overlapped with the site's reduce and broadcast; the
 * choice "spread" (equal sites) is coll_qcg_allreduce_spread.c: the WAN stage on every member.
 */
#include "config.h"

#include "coll_qcg.h"

/* Whether the WAN step is an exchange; every rank computes the same answer. */
static int
use_exchange(const mca_coll_qcg_module_t *m, int count, struct ompi_datatype_t *dtype)
{
	size_t type_size;
	ompi_datatype_type_size(dtype, &type_size);
	size_t span = mca_coll_qcg_span(dtype, count);
	return type_size * (size_t)count <= (size_t)mca_coll_qcg_component.allreduce_exchange_max &&
	    mca_coll_qcg_tmp_allowed((size_t)m->layout.nunits[0] * span);
}

/* Node holders (node masters) carry rbuf's node partial up, across the WAN and back down. */
static int
allreduce_holders(void *rbuf, int count, struct ompi_datatype_t *dtype, struct ompi_op_t *op,
    int exchange, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, rc;
	if (!exchange) /* reduce all the way to rank 0; bcast_levels then starts at level 0 */
		return mca_coll_qcg_reduce_levels(rbuf, count, dtype, op, 0, 0, comm, m);
	rc = mca_coll_qcg_reduce_levels(rbuf, count, dtype, op, -1, 1, comm, m);
	if (rc != OMPI_SUCCESS || lay->master[0][lay->unit[0][me]] != me)
		return rc;
	int mi, si;
	int k = mca_coll_qcg_holders(m, 0, 0, -1, m->holders, &mi, &si);
	return mca_coll_qcg_exchange_reduce(rbuf, count, dtype, op, m->holders, k, mi,
	    MCA_COLL_BASE_TAG_ALLREDUCE, comm);
}

int
mca_coll_qcg_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	int alg = m->in_setup ? QCG_ALG_PREVIOUS :
	    mca_coll_qcg_choose(m, QCG_COLL_ALLREDUCE, mca_coll_qcg_bytes(dtype, count));
	if (alg == QCG_ALG_PREVIOUS ||
	    !(m->layout.contiguous || mca_coll_qcg_op_commutative(op)) ||
	    !mca_coll_qcg_tmp_allowed(mca_coll_qcg_span(dtype, count)))
		return m->previous_allreduce(sbuf, rbuf, count, dtype, op, comm,
		    m->previous_allreduce_module);
	if (count == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	if (sbuf != MPI_IN_PLACE) {
		rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, (char *)rbuf,
		    (char *)sbuf);
		if (rc != OMPI_SUCCESS)
			return rc;
	}
	if (alg == QCG_ALG_SEGMENTED && mca_coll_qcg_allreduce_seg_allowed(m, count, dtype, op))
		return mca_coll_qcg_allreduce_seg(rbuf, count, dtype, op, comm, m);
	if (alg == QCG_ALG_SPREAD && mca_coll_qcg_allreduce_spread_allowed(m, count, dtype, op))
		return mca_coll_qcg_allreduce_spread(rbuf, count, dtype, op, comm, m);
	int exchange = use_exchange(m, count, dtype);
	if (!exchange && mca_coll_qcg_reduce_pipelined(m, count, dtype, op)) {
		/* large and commutative: pipelined reduce to rank 0, pipelined bcast back */
		rc = mca_coll_qcg_reduce_pipe(rbuf, count, dtype, op, 0, comm, m);
		return rc != OMPI_SUCCESS ? rc :
		    mca_coll_qcg_bcast_levels(rbuf, count, dtype, 0, 0, comm, m);
	}
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, node_master = lay->master[2][lay->unit[2][me]] == me;
	ompi_communicator_t *node = m->node_comm;
	/* Node masters are rank 0 of their node comm (lowest parent rank, rank-ordered split). */
	rc = node->c_coll->coll_reduce(node_master ? MPI_IN_PLACE : rbuf, node_master ? rbuf : NULL,
	    count, dtype, op, 0, node, node->c_coll->coll_reduce_module);
	if (rc == OMPI_SUCCESS && node_master)
		rc = allreduce_holders(rbuf, count, dtype, op, exchange, comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	return mca_coll_qcg_bcast_levels(rbuf, count, dtype, exchange ? -1 : 0, exchange ? 1 : 0,
	    comm, m);
}
