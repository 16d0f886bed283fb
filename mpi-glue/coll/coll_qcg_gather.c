/*
 * coll_qcg_gather.c: multilevel gather. Each cluster gathers to its holder on the hidden
 * cluster communicator (the previous component's algorithm inside a cluster), cluster holders
 * send their cluster's blocks to their site holder, site holders send their site's blocks to the
 * root in one WAN message each. The root then puts every block at its rank's place.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

/* Bytes of one rank's block as this rank describes it. */
static size_t
block_bytes(int count, struct ompi_datatype_t *dtype)
{
	size_t type_size;
	ompi_datatype_type_size(dtype, &type_size);
	return count > 0 ? type_size * (size_t)count : 0;
}

/* Climb from the unit we hold to the root: collect our children's blocks, pass them up. */
static int
gather_up(char *buf, int level, int base, int len, int root, size_t B,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int rc = OMPI_SUCCESS;
	for (int l = 1; l > level && rc == OMPI_SUCCESS; l--)
		rc = mca_coll_qcg_blocks_collect(buf, base, l, qcg_topo_parent_of_rank(lay, l, m->rank),
		    root, B, MCA_COLL_BASE_TAG_GATHER, comm, m);
	if (rc != OMPI_SUCCESS || level < 0)
		return rc;
	int dest = qcg_topo_holder(lay, level - 1, qcg_topo_parent_of_rank(lay, level, m->rank),
	    root);
	return mca_coll_qcg_move_chunks(1, level == 0, buf, (size_t)len * B, dest,
	    MCA_COLL_BASE_TAG_GATHER, comm);
}

int
mca_coll_qcg_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
    int rcount, struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	size_t B = me == root ? block_bytes(rcount, rdtype) : block_bytes(scount, sdtype);
	size_t total = B * (size_t)lay->n; /* equal on all ranks: the choices below agree */
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_GATHER, B) || total > INT_MAX ||
	    !mca_coll_qcg_tmp_allowed(total))
		return m->previous_gather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
		    m->previous_gather_module);
	if (B == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	ptrdiff_t lb, rext;
	ompi_datatype_get_extent(rdtype, &lb, &rext);
	int in_place = me == root && sbuf == MPI_IN_PLACE;
	if (in_place) /* the root's block is already at its place: send it from there */
		sbuf = (char *)rbuf + (ptrdiff_t)root * rcount * rext, scount = rcount, sdtype = rdtype;
	int level, base, len;
	int holding = mca_coll_qcg_blocks_top(m, root, &level, &base, &len) == 0;
	char *buf = holding ? malloc((size_t)len * B) : NULL;
	if (holding && buf == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int C = lay->unit[1][me], ch = qcg_topo_holder(lay, 1, C, root);
	ompi_communicator_t *cl = m->cluster_comm;
	rc = cl->c_coll->coll_gather(sbuf, scount, sdtype,
	    holding ? buf + (size_t)(lay->dfs_start[1][C] - base) * B : NULL, (int)B, MPI_BYTE,
	    lay->pos[1][ch], cl, cl->c_coll->coll_gather_module);
	if (rc == OMPI_SUCCESS && holding)
		rc = gather_up(buf, level, base, len, root, B, comm, m);
	if (rc == OMPI_SUCCESS && me == root)
		rc = mca_coll_qcg_blocks_user(buf, B, rbuf, rcount, rdtype, in_place ? root : -1, 1,
		    m);
	free(buf);
	return rc;
}
