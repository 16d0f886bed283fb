/*
 * coll_qcg_allgather.c: gather each site's blocks at its site master (cluster comm, then
 * cluster masters to the site master), exchange the site ranges between site masters in one
 * WAN round (direct exchange: one WAN latency), then every site master broadcasts the whole
 * result inside its site on the pipelined multilevel tree (coll_qcg_bcast.c, from level 1:
 * cluster holders, node holders, node members, segment by segment), and every rank puts the
 * blocks at their places. The choice "segmented" (large blocks) overlaps the three stages
 * instead, one stream of pieces (coll_qcg_allgather_seg.c); "spread" sends every rank's block
 * across the WAN on its own connection (coll_qcg_allgather_spread.c).
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

/* The site master's part: collect the site, exchange with the other sites. */
static int
allgather_site_master(char *full, size_t B, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	const int tag = MCA_COLL_BASE_TAG_ALLGATHER;
	int S = lay->unit[0][m->rank], ns = lay->nunits[0];
	int rc = mca_coll_qcg_blocks_collect(full, 0, 1, S, -1, B, tag, comm, m);
	size_t *offset = malloc((size_t)ns * sizeof(size_t));
	int *len = malloc((size_t)ns * sizeof(int));
	if (offset == NULL || len == NULL)
		rc = OMPI_ERR_OUT_OF_RESOURCE;
	for (int s = 0; s < ns && rc == OMPI_SUCCESS; s++) {
		offset[s] = (size_t)lay->dfs_start[0][s] * B;
		len[s] = (int)((size_t)lay->usize[0][s] * B);
	}
	int mi, si;
	int k = mca_coll_qcg_holders(m, 0, 0, -1, m->holders, &mi, &si);
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_exchange_bytes(full, offset, len, m->holders, k, mi, tag, comm);
	free(offset);
	free(len);
	return rc;
}

/* A cluster master's part: its cluster's blocks to the site master. */
static int
allgather_cluster_master(char *full, size_t B, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int C = lay->unit[1][m->rank], sm = lay->master[0][lay->unit[0][m->rank]];
	return mca_coll_qcg_move_chunks(1, 0, full + (size_t)lay->dfs_start[1][C] * B,
	    (size_t)lay->usize[1][C] * B, sm, MCA_COLL_BASE_TAG_ALLGATHER, comm);
}

int
mca_coll_qcg_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
    int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	int in_place = sbuf == MPI_IN_PLACE;
	size_t type_size;
	ompi_datatype_type_size(in_place ? rdtype : sdtype, &type_size);
	int count = in_place ? rcount : scount;
	size_t B = count > 0 ? type_size * (size_t)count : 0;
	size_t total = B * (size_t)lay->n; /* equal on all ranks: the choices below agree */
	int alg = m->in_setup ? QCG_ALG_PREVIOUS : mca_coll_qcg_choose(m, QCG_COLL_ALLGATHER, B);
	if (alg == QCG_ALG_PREVIOUS || total > INT_MAX ||
	    !mca_coll_qcg_tmp_allowed(total))
		return m->previous_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
		    m->previous_allgather_module);
	if (B == 0)
		return OMPI_SUCCESS;
	ptrdiff_t lb, rext, true_lb, true_ext;
	ompi_datatype_get_extent(rdtype, &lb, &rext);
	ompi_datatype_get_true_extent(rdtype, &true_lb, &true_ext);
	if (in_place) /* our block is already at its place in rbuf: send it from there */
		sbuf = (char *)rbuf + (ptrdiff_t)me * rcount * rext, scount = rcount, sdtype = rdtype;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	/* Ranks in dfs order (contiguous layout) into contiguous memory: rbuf is the packed
	 * buffer itself, which saves a copy of the whole result and its allocation. */
	int direct = lay->contiguous && (size_t)rcount * (size_t)lay->n <= INT_MAX &&
	    ompi_datatype_is_contiguous_memory_layout(rdtype, rcount * lay->n);
	char *full = direct ? (char *)rbuf + true_lb : malloc(total);
	if (full == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int C = lay->unit[1][me], cluster_master = lay->master[1][C] == me;
	ompi_communicator_t *cl = m->cluster_comm;
	if (alg == QCG_ALG_SEGMENTED || alg == QCG_ALG_SPREAD) {
		rc = (alg == QCG_ALG_SEGMENTED ? mca_coll_qcg_allgather_seg :
		    mca_coll_qcg_allgather_spread)(sbuf, scount, sdtype, full, B, direct && in_place,
		    comm, m);
		goto unpack;
	}
	rc = cl->c_coll->coll_gather(direct && in_place && cluster_master ? MPI_IN_PLACE : sbuf,
	    scount, sdtype, full + (size_t)lay->dfs_start[1][C] * B, (int)B, MPI_BYTE, 0, cl,
	    cl->c_coll->coll_gather_module);
	if (rc == OMPI_SUCCESS && cluster_master)
		rc = lay->master[0][lay->unit[0][me]] == me ?
		    allgather_site_master(full, B, comm, m) :
		    allgather_cluster_master(full, B, comm, m);
	if (rc == OMPI_SUCCESS) /* site masters (root -1) to their sites, from level 1 down */
		rc = mca_coll_qcg_bcast_levels(full, (int)total, MPI_BYTE, -1, 1, comm, m);
unpack:
	if (!direct) {
		if (rc == OMPI_SUCCESS)
			rc = mca_coll_qcg_blocks_user(full, B, rbuf, rcount, rdtype, -1, 1, m);
		free(full);
	}
	return rc;
}
