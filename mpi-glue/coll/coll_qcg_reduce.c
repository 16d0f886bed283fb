/*
 * coll_qcg_reduce.c: multilevel reduce, the broadcast in reverse: each node reduces on its
 * hidden node communicator to its holder, node holders reduce to their cluster's holder, cluster
 * holders to their site's, site holders to the root. Non-commutative operations need every
 * unit to be a contiguous range of ranks (then unit order is rank order); otherwise the
 * previous component does the call.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

int
mca_coll_qcg_reduce_levels(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, int to_level, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	for (int l = QCG_TOPO_LEVELS - 1; l >= to_level; l--) {
		int mi, di, U = qcg_topo_parent_of_rank(lay, l, m->rank);
		int k = mca_coll_qcg_holders(m, l, U, root, m->holders, &mi, &di);
		int rc = mca_coll_qcg_tree_reduce(acc, count, dtype, op, m->holders, k, mi, di,
		    mca_coll_qcg_component.level_alg[l], MCA_COLL_BASE_TAG_REDUCE, comm);
		if (rc != OMPI_SUCCESS || m->holders[di] != m->rank)
			return rc; /* our partial went up: done */
	}
	return OMPI_SUCCESS;
}

/* Whether qcg can run this reduction in the required order. */
static int
order_preserved(const mca_coll_qcg_module_t *m, struct ompi_op_t *op)
{
	return m->layout.contiguous || mca_coll_qcg_op_commutative(op);
}

/* Large commutative reductions: the pipelined tree (coll_qcg_reduce_pipe.c). */
static int
reduce_pipelined(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	char *base = NULL;
	void *acc = rbuf;
	if (m->rank != root && (acc = mca_coll_qcg_tmp_alloc(dtype, count, &base)) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int rc = OMPI_SUCCESS;
	if (sbuf != MPI_IN_PLACE)
		rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, acc, (char *)sbuf);
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_reduce_pipe(acc, count, dtype, op, root, comm, m);
	free(base);
	return rc;
}

int
mca_coll_qcg_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	if (m->in_setup ||
	    QCG_HAND_DOWN(m, QCG_COLL_REDUCE, mca_coll_qcg_bytes(dtype, count)) ||
	    !order_preserved(m, op) ||
	    !mca_coll_qcg_tmp_allowed(mca_coll_qcg_span(dtype, count)))
		return m->previous_reduce(sbuf, rbuf, count, dtype, op, root, comm,
		    m->previous_reduce_module);
	if (count == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	if (mca_coll_qcg_reduce_pipelined(m, count, dtype, op))
		return reduce_pipelined(sbuf, rbuf, count, dtype, op, root, comm, m);
	int holder = qcg_topo_holder(lay, 2, lay->unit[2][me], root);
	char *base = NULL;
	void *acc = rbuf;
	if (me == holder && me != root &&
	    (acc = mca_coll_qcg_tmp_alloc(dtype, count, &base)) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	ompi_communicator_t *node = m->node_comm;
	/* The root is its node's holder, so MPI_IN_PLACE stays meaningful on the node comm. */
	rc = node->c_coll->coll_reduce(sbuf, me == holder ? acc : NULL, count, dtype, op,
	    lay->pos[2][holder], node, node->c_coll->coll_reduce_module);
	if (rc == OMPI_SUCCESS && me == holder)
		rc = mca_coll_qcg_reduce_levels(acc, count, dtype, op, root, 0, comm, m);
	free(base);
	return rc;
}
