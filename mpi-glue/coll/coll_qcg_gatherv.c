/*
 * coll_qcg_gatherv.c: multilevel gatherv on the gather's schedule: each cluster gathers to its
 * holder (the previous gather of the byte sizes, then gatherv of the bytes, on the hidden
 * cluster communicator), cluster holders send their cluster's blocks to the site holder, site
 * holders send their site's blocks to the root in one WAN message each.
 *
 * Only the root knows every count, so the blocks travel self-described: a unit's part is two
 * messages, its members' byte sizes (usize ints, dfs order; the receiver knows how many) and
 * then their blocks back to back. The root puts every block at its place with its own counts
 * and type, and reports MPI_ERR_TRUNCATE if a sender sent more than the root expects.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll_qcg.h"

#define TAG MCA_COLL_BASE_TAG_GATHERV

/* The blocks of one unit (members dfs[base .. base+len-1]) held by its holder. */
struct vpart {
	int base, len;
	int *sizes;   /* bytes per member */
	char *data;   /* the blocks, back to back */
	size_t bytes; /* sum of sizes */
};

static void
vpart_free(struct vpart *v)
{
	free(v->sizes);
	free(v->data);
	v->sizes = NULL, v->data = NULL;
}

/* Sum of sizes[from .. to-1], or SIZE_MAX if a size is negative or the sum passes INT_MAX. */
static size_t
sum_sizes(const int *sizes, int from, int to)
{
	size_t s = 0;
	for (int i = from; i < to; i++) {
		if (sizes[i] < 0 || (s += (size_t)sizes[i]) > INT_MAX)
			return SIZE_MAX;
	}
	return s;
}

/* Our cluster's blocks at its holder (cluster comm position hpos), with their sizes. */
static int
gather_cluster(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, int hpos,
    struct vpart *v, mca_coll_qcg_module_t *m)
{
	ompi_communicator_t *cl = m->cluster_comm;
	int holding = ompi_comm_rank(cl) == hpos, k = ompi_comm_size(cl), mine, rc;
	size_t tsize;
	ompi_datatype_type_size(sdtype, &tsize);
	mine = scount > 0 ? (int)(tsize * (size_t)scount) : 0;
	int *displs = holding ? malloc((size_t)k * sizeof(int)) : NULL;
	if (holding && (displs == NULL || (v->sizes = malloc((size_t)k * sizeof(int))) == NULL)) {
		free(displs);
		return OMPI_ERR_OUT_OF_RESOURCE;
	}
	rc = cl->c_coll->coll_gather(&mine, 1, MPI_INT, v->sizes, 1, MPI_INT, hpos, cl,
	    cl->c_coll->coll_gather_module);
	if (rc == OMPI_SUCCESS && holding) {
		if ((v->bytes = sum_sizes(v->sizes, 0, k)) == SIZE_MAX ||
		    !mca_coll_qcg_tmp_allowed(v->bytes))
			rc = OMPI_ERR_OUT_OF_RESOURCE;
		else if ((v->data = malloc(v->bytes + 1)) == NULL)
			rc = OMPI_ERR_OUT_OF_RESOURCE;
		for (int i = 0, at = 0; i < k && rc == OMPI_SUCCESS; at += v->sizes[i++])
			displs[i] = at;
	}
	if (rc == OMPI_SUCCESS)
		rc = cl->c_coll->coll_gatherv(sbuf, scount, sdtype, v->data, v->sizes, displs,
		    MPI_BYTE, hpos, cl, cl->c_coll->coll_gatherv_module);
	free(displs);
	return rc;
}

/* Once U's sizes are known: receive the other children's blocks at their places in u, in
 * eager-sized chunks across the WAN (l == 0), and copy ours. */
static int
collect_blocks(struct vpart *u, const struct vpart *v, int l, int U, const int *peer,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int k = qcg_topo_nchildren(lay, l, U), nr = 0, rc = OMPI_SUCCESS;
	if ((u->bytes = sum_sizes(u->sizes, 0, u->len)) == SIZE_MAX ||
	    !mca_coll_qcg_tmp_allowed(u->bytes) || (u->data = malloc(u->bytes + 1)) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	/* sum over children of their chunks <= the chunks of the whole + one per child */
	size_t nreq = (size_t)mca_coll_qcg_nchunks(u->bytes, l == 0) + (size_t)k;
	ompi_request_t **reqs = malloc(nreq * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int i = 0; i < k && rc == OMPI_SUCCESS; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i];
		int at = lay->dfs_start[l][V] - u->base;
		char *to = u->data + sum_sizes(u->sizes, 0, at);
		size_t len = sum_sizes(u->sizes, at, at + lay->usize[l][V]);
		if (peer[i] == m->rank)
			memcpy(to, v->data, v->bytes);
		else
			nr += mca_coll_qcg_post_chunks(0, l == 0, to, len, peer[i], TAG, comm,
			    reqs + nr, &rc);
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* Receive the parts of the other children of U at level l and merge them with ours into U's:
 * their sizes first (each child's count is known), then their blocks. */
static int
collect_level(struct vpart *v, int l, int U, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int k = qcg_topo_nchildren(lay, l, U), nr = 0, rc = OMPI_SUCCESS;
	int ubase = l == 0 ? 0 : lay->dfs_start[l - 1][U];
	int ulen = l == 0 ? lay->n : lay->usize[l - 1][U];
	struct vpart u = { ubase, ulen, malloc((size_t)ulen * sizeof(int)), NULL, 0 };
	ompi_request_t **reqs = malloc((size_t)k * sizeof(*reqs));
	int *peer = malloc((size_t)k * sizeof(int));
	if (u.sizes == NULL || reqs == NULL || peer == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
	memcpy(u.sizes + (v->base - ubase), v->sizes, (size_t)v->len * sizeof(int));
	for (int i = 0; i < k && rc == OMPI_SUCCESS; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i];
		peer[i] = qcg_topo_holder(lay, l, V, root);
		if (peer[i] == m->rank)
			continue;
		rc = MCA_PML_CALL(irecv(u.sizes + lay->dfs_start[l][V] - ubase, lay->usize[l][V],
		    MPI_INT, peer[i], TAG, comm, &reqs[nr]));
		if (rc == OMPI_SUCCESS)
			nr++;
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : rc;
	if (rc == OMPI_SUCCESS)
		rc = wrc;
	if (rc == OMPI_SUCCESS)
		rc = collect_blocks(&u, v, l, U, peer, comm, m);
out:
	free(reqs);
	free(peer);
	vpart_free(v);
	*v = u;
	return rc;
}

/* Climb from our cluster to the unit we hold, then hand our part to the parent's holder. */
static int
gatherv_up(struct vpart *v, int level, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int rc = OMPI_SUCCESS;
	for (int l = 1; l > level && rc == OMPI_SUCCESS; l--)
		rc = collect_level(v, l, qcg_topo_parent_of_rank(lay, l, m->rank), root, comm, m);
	if (rc != OMPI_SUCCESS || level < 0)
		return rc;
	int dest = qcg_topo_holder(lay, level - 1, qcg_topo_parent_of_rank(lay, level, m->rank),
	    root);
	rc = MCA_PML_CALL(send(v->sizes, v->len, MPI_INT, dest, TAG, MCA_PML_BASE_SEND_STANDARD,
	    comm));
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_move_chunks(1, level == 0, v->data, v->bytes, dest, TAG, comm);
	return rc;
}

/* At the root: every block (dfs order) to its rank's place, with the root's counts. */
static int
gatherv_unpack(const struct vpart *v, void *rbuf, const int *rcounts, const int *displs,
    struct ompi_datatype_t *rdtype, int skip, mca_coll_qcg_module_t *m)
{
	ptrdiff_t lb, rext;
	size_t tsize, at = 0;
	ompi_datatype_get_extent(rdtype, &lb, &rext);
	ompi_datatype_type_size(rdtype, &tsize);
	for (int p = 0; p < m->layout.n; at += (size_t)v->sizes[p++]) {
		int r = m->layout.dfs[p];
		size_t want = rcounts[r] > 0 ? tsize * (size_t)rcounts[r] : 0;
		if ((size_t)v->sizes[p] > want)
			return MPI_ERR_TRUNCATE;
		if (r == skip || v->sizes[p] == 0)
			continue;
		int rc = ompi_datatype_sndrcv(v->data + at, v->sizes[p], MPI_PACKED,
		    (char *)rbuf + (ptrdiff_t)displs[r] * rext, rcounts[r], rdtype);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

int
mca_coll_qcg_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
    const int *rcounts, const int *displs, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	/* no size is known to all ranks: the choice is on the links alone */
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_GATHERV, QCG_BYTES_UNKNOWN))
		return m->previous_gatherv(sbuf, scount, sdtype, rbuf, rcounts, displs, rdtype, root,
		    comm, m->previous_gatherv_module);
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	int in_place = me == root && sbuf == MPI_IN_PLACE;
	if (in_place) { /* the root's block is already at its place: send it from there */
		ptrdiff_t lb, rext;
		ompi_datatype_get_extent(rdtype, &lb, &rext);
		sbuf = (char *)rbuf + (ptrdiff_t)displs[root] * rext;
		scount = rcounts[root], sdtype = rdtype;
	}
	int C = lay->unit[1][me], level, base, len;
	int holding = mca_coll_qcg_blocks_top(m, root, &level, &base, &len) == 0;
	struct vpart v = { lay->dfs_start[1][C], lay->usize[1][C], NULL, NULL, 0 };
	rc = gather_cluster(sbuf, scount, sdtype, lay->pos[1][qcg_topo_holder(lay, 1, C, root)],
	    &v, m);
	if (rc == OMPI_SUCCESS && holding)
		rc = gatherv_up(&v, level, root, comm, m);
	if (rc == OMPI_SUCCESS && me == root)
		rc = gatherv_unpack(&v, rbuf, rcounts, displs, rdtype, in_place ? root : -1, m);
	vpart_free(&v);
	return rc;
}
