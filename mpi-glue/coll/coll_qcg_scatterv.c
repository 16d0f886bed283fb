/*
 * coll_qcg_scatterv.c: multilevel scatterv, the gatherv in reverse. The root packs every rank's
 * block in dfs order (site, cluster, rank) and sends each site holder its site's part in one
 * WAN message, site holders send each cluster holder its cluster's part, and each cluster
 * holder runs the previous scatterv on the hidden cluster communicator.
 *
 * Only the root knows every count, so a unit's part travels as its members' byte sizes (usize
 * ints, dfs order: the receiver knows how many) and then their blocks back to back, in
 * eager-sized chunks (coll_qcg_chunks.c).
 * The receiving ranks need no sizes: each receives rcount elements of its own type.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

#define TAG MCA_COLL_BASE_TAG_SCATTERV

/* Bytes before dfs position p (relative to the part's first member) in a part. */
static size_t
offset_of(const int *sizes, int p)
{
	size_t s = 0;
	for (int i = 0; i < p; i++)
		s += (size_t)sizes[i];
	return s;
}

/* The root: sizes and blocks of every rank in dfs order. */
static int
scatterv_pack(const void *sbuf, const int *scounts, const int *displs,
    struct ompi_datatype_t *sdtype, int **sizes, char **data, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	ptrdiff_t lb, ext;
	size_t tsize, total = 0;
	ompi_datatype_get_extent(sdtype, &lb, &ext);
	ompi_datatype_type_size(sdtype, &tsize);
	if ((*sizes = malloc((size_t)lay->n * sizeof(int))) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int p = 0; p < lay->n; p++) {
		int c = scounts[lay->dfs[p]];
		size_t b = c > 0 ? tsize * (size_t)c : 0;
		if (b > INT_MAX || (total += b) > INT_MAX)
			return OMPI_ERR_NOT_SUPPORTED; /* one WAN message carries a whole site */
		(*sizes)[p] = (int)b;
	}
	if (!mca_coll_qcg_tmp_allowed(total) || (*data = malloc(total + 1)) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int p = 0, at = 0; p < lay->n; at += (*sizes)[p++]) {
		int r = lay->dfs[p];
		if ((*sizes)[p] == 0)
			continue;
		int rc = ompi_datatype_sndrcv((char *)sbuf + (ptrdiff_t)displs[r] * ext, scounts[r],
		    sdtype, *data + at, (*sizes)[p], MPI_PACKED);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

/* A holder below the root: its unit's sizes, then its blocks, from the parent's holder. */
static int
scatterv_receive(int level, int len, int root, int **sizes, char **data,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int src = qcg_topo_holder(lay, level - 1, qcg_topo_parent_of_rank(lay, level, m->rank), root);
	if ((*sizes = malloc((size_t)len * sizeof(int))) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int rc = MCA_PML_CALL(recv(*sizes, len, MPI_INT, src, TAG, comm, MPI_STATUS_IGNORE));
	if (rc != OMPI_SUCCESS)
		return rc;
	size_t total = offset_of(*sizes, len);
	if (total > INT_MAX || !mca_coll_qcg_tmp_allowed(total) ||
	    (*data = malloc(total + 1)) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	return mca_coll_qcg_move_chunks(0, level == 0, *data, total, src, TAG, comm);
}

/* Send each other child unit of U at level l its sizes and blocks. */
static int
scatterv_children(const int *sizes, char *data, int base, int l, int U, int root,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int k = qcg_topo_nchildren(lay, l, U), nr = 0, rc = OMPI_SUCCESS;
	size_t nreq = (size_t)k;
	for (int i = 0; i < k; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i], at = lay->dfs_start[l][V] - base;
		nreq += (size_t)mca_coll_qcg_nchunks(offset_of(sizes + at, lay->usize[l][V]), l == 0);
	}
	ompi_request_t **reqs = malloc(nreq * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int i = 0; i < k && rc == OMPI_SUCCESS; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i];
		int peer = qcg_topo_holder(lay, l, V, root), at = lay->dfs_start[l][V] - base;
		if (peer == m->rank)
			continue;
		size_t off = offset_of(sizes, at), len = offset_of(sizes + at, lay->usize[l][V]);
		rc = MCA_PML_CALL(isend((void *)(sizes + at), lay->usize[l][V], MPI_INT, peer, TAG,
		    MCA_PML_BASE_SEND_STANDARD, comm, &reqs[nr]));
		if (rc != OMPI_SUCCESS)
			break;
		nr++;
		nr += mca_coll_qcg_post_chunks(1, l == 0, data + off, len, peer, TAG, comm, reqs + nr, &rc);
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* The cluster holder's previous scatterv on the cluster communicator (everyone calls it). */
static int
scatterv_cluster(const int *sizes, char *data, int base, void *rbuf, int rcount,
    struct ompi_datatype_t *rdtype, int root, int in_place, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int C = lay->unit[1][m->rank], hpos = lay->pos[1][qcg_topo_holder(lay, 1, C, root)];
	ompi_communicator_t *cl = m->cluster_comm;
	int holding = ompi_comm_rank(cl) == hpos, k = lay->usize[1][C], at = lay->dfs_start[1][C];
	int *displs = holding ? malloc((size_t)k * sizeof(int)) : NULL;
	if (holding && displs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	const int *csizes = holding ? sizes + (at - base) : NULL;
	char *cdata = holding ? data + offset_of(sizes, at - base) : NULL;
	for (int i = 0, off = 0; holding && i < k; off += csizes[i++])
		displs[i] = off;
	int rc = cl->c_coll->coll_scatterv(cdata, csizes, displs, MPI_BYTE,
	    in_place ? MPI_IN_PLACE : rbuf, rcount, rdtype, hpos, cl,
	    cl->c_coll->coll_scatterv_module);
	free(displs);
	return rc;
}

int
mca_coll_qcg_scatterv(const void *sbuf, const int *scounts, const int *displs,
    struct ompi_datatype_t *sdtype, void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
    int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	/* no size is known to all ranks: the choice is on the links alone */
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_SCATTERV, QCG_BYTES_UNKNOWN))
		return m->previous_scatterv(sbuf, scounts, displs, sdtype, rbuf, rcount, rdtype,
		    root, comm, m->previous_scatterv_module);
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	int level, base, len, *sizes = NULL;
	char *data = NULL;
	int holding = mca_coll_qcg_blocks_top(m, root, &level, &base, &len) == 0;
	if (me == root)
		rc = scatterv_pack(sbuf, scounts, displs, sdtype, &sizes, &data, m);
	else if (holding)
		rc = scatterv_receive(level, len, root, &sizes, &data, comm, m);
	for (int l = level + 1; holding && l <= 1 && rc == OMPI_SUCCESS; l++)
		rc = scatterv_children(sizes, data, base, l, qcg_topo_parent_of_rank(lay, l, me), root,
		    comm, m);
	/* On an error above, the cluster step is skipped here only: the job is then broken. */
	if (rc == OMPI_SUCCESS)
		rc = scatterv_cluster(sizes, data, base, rbuf, rcount, rdtype, root,
		    me == root && rbuf == MPI_IN_PLACE, m);
	free(sizes);
	free(data);
	return rc;
}
