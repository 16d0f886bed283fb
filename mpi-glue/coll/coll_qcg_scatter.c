/*
 * coll_qcg_scatter.c: multilevel scatter, the gather in reverse. The root packs the blocks in
 * (site, cluster, rank) order, sends each site its range in one WAN message, site holders send
 * each cluster its range, and each cluster holder scatters on the hidden cluster communicator.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

/* Receive the blocks of the unit we hold from its parent's holder, pass the children theirs. */
static int
scatter_down(char *buf, int level, int base, int len, int root, size_t B,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int rc = OMPI_SUCCESS;
	if (level >= 0) {
		int src = qcg_topo_holder(lay, level - 1,
		    qcg_topo_parent_of_rank(lay, level, m->rank), root);
		rc = mca_coll_qcg_move_chunks(0, level == 0, buf, (size_t)len * B, src,
		    MCA_COLL_BASE_TAG_SCATTER, comm);
	}
	for (int l = level + 1; l <= 1 && rc == OMPI_SUCCESS; l++)
		rc = mca_coll_qcg_blocks_distribute(buf, base, l,
		    qcg_topo_parent_of_rank(lay, l, m->rank), root, B, MCA_COLL_BASE_TAG_SCATTER,
		    comm, m);
	return rc;
}

int
mca_coll_qcg_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
    int rcount, struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	size_t type_size;
	ompi_datatype_type_size(me == root ? sdtype : rdtype, &type_size);
	int count = me == root ? scount : rcount;
	size_t B = count > 0 ? type_size * (size_t)count : 0;
	size_t total = B * (size_t)lay->n; /* equal on all ranks: the choices below agree */
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_SCATTER, B) || total > INT_MAX ||
	    !mca_coll_qcg_tmp_allowed(total))
		return m->previous_scatter(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
		    m->previous_scatter_module);
	if (B == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	int level, base, len;
	int holding = mca_coll_qcg_blocks_top(m, root, &level, &base, &len) == 0;
	char *buf = holding ? malloc((size_t)len * B) : NULL;
	if (holding && buf == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	if (me == root)
		rc = mca_coll_qcg_blocks_user(buf, B, (char *)sbuf, scount, sdtype, -1, 0, m);
	if (rc == OMPI_SUCCESS && holding)
		rc = scatter_down(buf, level, base, len, root, B, comm, m);
	int C = lay->unit[1][me], ch = qcg_topo_holder(lay, 1, C, root);
	ompi_communicator_t *cl = m->cluster_comm;
	if (rc == OMPI_SUCCESS)
		rc = cl->c_coll->coll_scatter(
		    holding ? buf + (size_t)(lay->dfs_start[1][C] - base) * B : NULL, (int)B,
		    MPI_BYTE, rbuf, rcount, rdtype, lay->pos[1][ch], cl,
		    cl->c_coll->coll_scatter_module);
	free(buf);
	return rc;
}
