/*
 * coll_qcg_scan.c: scan and exscan level by level, for communicators whose units are
 * contiguous ranges of ranks (then "the units before mine" is "the ranks before mine"):
 *   1. each node reduces its members' inputs to its master (node total) and runs the previous
 *      scan / exscan on the node communicator (each rank's prefix inside its node);
 *   2. going up, the masters of the nodes of a cluster, of the clusters of a site, and of the
 *      sites exchange their unit totals (one latency per level, one WAN latency in all): each
 *      learns the fold of the siblings before it, and the first sibling (the parent's master)
 *      the parent's total for the level above;
 *   3. going down, each parent master sends its unit's global prefix (the fold of every rank
 *      before the unit) to the other children masters, which fold in their sibling prefix;
 *   4. each node master broadcasts its node's global prefix on the node communicator, and every
 *      rank folds it in front of its node prefix.
 * Interleaved layouts defer to the previous component: no unit order is rank order there.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

#define TAG MCA_COLL_BASE_TAG_SCAN

/* A node master's per-level values: sibling prefix (valid when not the first sibling). */
struct scan_state {
	void *pre[QCG_TOPO_LEVELS];
	char *pre_base[QCG_TOPO_LEVELS];
	int first[QCG_TOPO_LEVELS]; /* index among siblings == 0: no sibling prefix */
	int top;                    /* highest level whose unit we are master of */
};

/* Up: exchange unit totals among siblings, from the node level to the highest we master. */
static int
scan_up(void *tot, int count, struct ompi_datatype_t *dt, struct ompi_op_t *op,
    struct scan_state *s, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	s->top = QCG_TOPO_LEVELS - 1;
	for (int l = QCG_TOPO_LEVELS - 1; l >= 0; l--) {
		int mi, si, U = qcg_topo_parent_of_rank(lay, l, me);
		int k = mca_coll_qcg_holders(m, l, U, -1, m->holders, &mi, &si);
		s->first[l] = mi == 0;
		if (mi > 0 && (s->pre[l] = mca_coll_qcg_tmp_alloc(dt, count, &s->pre_base[l])) == NULL)
			return OMPI_ERR_OUT_OF_RESOURCE;
		int rc = mca_coll_qcg_exchange_prefix(tot, s->pre[l], count, dt, op, m->holders, k,
		    mi, TAG, comm);
		s->top = l;
		if (rc != OMPI_SUCCESS || mi != 0)
			return rc; /* not the parent's master: it carries on */
	}
	return OMPI_SUCCESS;
}

/*
 * Down: g holds the global prefix of the unit at level top-1 we master (when that unit has
 * ranks before it); pass it to the sibling masters, fold ours. On return g is the node's.
 */
static int
scan_down(void *g, int count, struct ompi_datatype_t *dt, struct ompi_op_t *op,
    const struct scan_state *s, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, rc = OMPI_SUCCESS;
	for (int l = s->top; l < QCG_TOPO_LEVELS && rc == OMPI_SUCCESS; l++) {
		int mi, si, U = qcg_topo_parent_of_rank(lay, l, me);
		int k = mca_coll_qcg_holders(m, l, U, -1, m->holders, &mi, &si);
		/* The parent unit has ranks before it iff its lowest rank is not 0. */
		int have_g = l > 0 && lay->master[l - 1][U] != 0;
		if (have_g && mi == 0)
			for (int i = 1; i < k && rc == OMPI_SUCCESS; i++)
				rc = MCA_PML_CALL(send(g, count, dt, m->holders[i], TAG,
				    MCA_PML_BASE_SEND_STANDARD, comm));
		else if (have_g)
			rc = MCA_PML_CALL(recv(g, count, dt, m->holders[0], TAG, comm,
			    MPI_STATUS_IGNORE));
		if (rc != OMPI_SUCCESS || s->first[l])
			continue;
		if (have_g) /* g = g op pre */
			rc = PMPI_Reduce_local(g, s->pre[l], count, dt, op);
		if (rc == OMPI_SUCCESS)
			rc = ompi_datatype_copy_content_same_ddt(dt, (size_t)count, g, s->pre[l]);
	}
	return rc;
}

/* Steps 2 and 3 at a node master: tot is its node total, g receives the node's prefix. */
static int
scan_masters(void *tot, void *g, int count, struct ompi_datatype_t *dt, struct ompi_op_t *op,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	struct scan_state s = { { NULL }, { NULL }, { 0 }, 0 };
	int rc = scan_up(tot, count, dt, op, &s, comm, m);
	if (rc == OMPI_SUCCESS)
		rc = scan_down(g, count, dt, op, &s, comm, m);
	for (int l = 0; l < QCG_TOPO_LEVELS; l++)
		free(s.pre_base[l]);
	return rc;
}

static int
scan_levels(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dt,
    struct ompi_op_t *op, int exclusive, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, nm = lay->master[2][lay->unit[2][me]];
	ompi_communicator_t *node = m->node_comm;
	char *tbase = NULL, *gbase = NULL;
	void *tot = NULL, *g = mca_coll_qcg_tmp_alloc(dt, count, &gbase);
	if (g == NULL || (me == nm && (tot = mca_coll_qcg_tmp_alloc(dt, count, &tbase)) == NULL)) {
		free(gbase);
		return OMPI_ERR_OUT_OF_RESOURCE;
	}
	const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
	int rc = node->c_coll->coll_reduce(in, tot, count, dt, op, 0, node,
	    node->c_coll->coll_reduce_module);
	if (rc == OMPI_SUCCESS)
		rc = exclusive ? node->c_coll->coll_exscan(sbuf, rbuf, count, dt, op, node,
		    node->c_coll->coll_exscan_module) :
		    node->c_coll->coll_scan(sbuf, rbuf, count, dt, op, node,
		    node->c_coll->coll_scan_module);
	if (rc == OMPI_SUCCESS && me == nm)
		rc = scan_masters(tot, g, count, dt, op, comm, m);
	/* Every rank knows whether its node has ranks before it: then g is meaningful. */
	if (rc == OMPI_SUCCESS && nm != 0)
		rc = node->c_coll->coll_bcast(g, count, dt, 0, node, node->c_coll->coll_bcast_module);
	if (rc == OMPI_SUCCESS && nm != 0) {
		if (exclusive && me == nm) /* nothing before us on the node: the prefix is all */
			rc = ompi_datatype_copy_content_same_ddt(dt, (size_t)count, rbuf, g);
		else
			rc = PMPI_Reduce_local(g, rbuf, count, dt, op); /* rbuf = g op rbuf */
	}
	free(tbase);
	free(gbase);
	return rc;
}

int
mca_coll_qcg_scan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_SCAN, mca_coll_qcg_bytes(dtype, count)) ||
	    !m->layout.contiguous ||
	    !mca_coll_qcg_tmp_allowed(2 * mca_coll_qcg_span(dtype, count)))
		return m->previous_scan(sbuf, rbuf, count, dtype, op, comm, m->previous_scan_module);
	if (count == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	return rc != OMPI_SUCCESS ? rc : scan_levels(sbuf, rbuf, count, dtype, op, 0, comm, m);
}

int
mca_coll_qcg_exscan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_SCAN, mca_coll_qcg_bytes(dtype, count)) ||
	    !m->layout.contiguous ||
	    !mca_coll_qcg_tmp_allowed(2 * mca_coll_qcg_span(dtype, count)))
		return m->previous_exscan(sbuf, rbuf, count, dtype, op, comm,
		    m->previous_exscan_module);
	if (count == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	return rc != OMPI_SUCCESS ? rc : scan_levels(sbuf, rbuf, count, dtype, op, 1, comm, m);
}
