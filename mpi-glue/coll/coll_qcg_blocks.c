/*
 * coll_qcg_blocks.c: moving per-rank blocks between unit holders, for gather, scatter and
 * allgather.
 *
 * Blocks travel packed (B bytes per rank, the same B on every rank since type signatures
 * match) in "dfs order": by site, then cluster, then rank (layout.dfs). In that order every
 * site and every cluster is one contiguous range, starting at layout.dfs_start[l][unit], so a
 * holder keeps the blocks of the unit it holds in one buffer and its children's ranges land at
 * fixed offsets. Only at the ends are blocks put into (or taken from) user buffers, at their
 * ranks' places, with the user's datatypes.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

/* Receive (collect) or send (distribute) each other child unit's range of U at level l, in
 * eager-sized chunks (coll_qcg_chunks.c). */
static int
move_children(char *buf, int base, int l, int U, int root, size_t B, int tag, int receiving,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int k = qcg_topo_nchildren(lay, l, U), nr = 0, rc = OMPI_SUCCESS, total = 0;
	for (int i = 0; i < k; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i];
		total += mca_coll_qcg_nchunks((size_t)lay->usize[l][V] * B, l == 0);
	}
	ompi_request_t **reqs = malloc((size_t)(total > 0 ? total : 1) * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int i = 0; i < k && rc == OMPI_SUCCESS; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i];
		int peer = qcg_topo_holder(lay, l, V, root);
		if (peer == m->rank)
			continue;
		char *at = buf + (size_t)(lay->dfs_start[l][V] - base) * B;
		nr += mca_coll_qcg_post_chunks(!receiving, l == 0, at, (size_t)lay->usize[l][V] * B, peer,
		    tag, comm, reqs + nr, &rc);
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

int
mca_coll_qcg_blocks_collect(char *buf, int base, int l, int U, int root, size_t B, int tag,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	return move_children(buf, base, l, U, root, B, tag, 1, comm, m);
}

int
mca_coll_qcg_blocks_distribute(char *buf, int base, int l, int U, int root, size_t B, int tag,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	return move_children(buf, base, l, U, root, B, tag, 0, comm, m);
}

/*
 * The highest unit we hold in a rooted block collective: sets *level (-1 whole communicator,
 * 0 site, 1 cluster), *base (its first dfs index) and *len (its members). Returns 0, or -1 if
 * we hold nothing (we only send or receive our own block).
 */
int
mca_coll_qcg_blocks_top(const mca_coll_qcg_module_t *m, int root, int *level, int *base,
    int *len)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	if (me == root) {
		*level = -1, *base = 0, *len = lay->n;
		return 0;
	}
	for (int l = 0; l < 2; l++) {
		int u = lay->unit[l][me];
		if (qcg_topo_holder(lay, l, u, root) == me) {
			*level = l, *base = lay->dfs_start[l][u], *len = lay->usize[l][u];
			return 0;
		}
	}
	return -1;
}

/* Copy packed blocks (dfs order) into or out of the user buffer at each rank's place. */
int
mca_coll_qcg_blocks_user(char *packed, size_t B, char *user, int ucount,
    struct ompi_datatype_t *udtype, int skip_rank, int unpacking, mca_coll_qcg_module_t *m)
{
	ptrdiff_t lb, extent;
	ompi_datatype_get_extent(udtype, &lb, &extent);
	for (int p = 0; p < m->layout.n; p++) {
		int r = m->layout.dfs[p];
		if (r == skip_rank)
			continue;
		char *block = user + (ptrdiff_t)r * ucount * extent;
		int rc = unpacking ?
		    ompi_datatype_sndrcv(packed + (size_t)p * B, (int)B, MPI_PACKED, block, ucount,
			udtype) :
		    ompi_datatype_sndrcv(block, ucount, udtype, packed + (size_t)p * B, (int)B,
			MPI_PACKED);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}
