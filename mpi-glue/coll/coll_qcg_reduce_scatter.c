/*
 * coll_qcg_reduce_scatter.c: reduce_scatter and reduce_scatter_block with one WAN latency and
 * only the needed data on the WAN:
 *   1. each node reduces the whole vector to its master (hidden node communicator), node
 *      masters reduce to their cluster's and then their site's master (LAN trees);
 *   2. every site master sends every other site master the blocks of that site's ranks only,
 *      and folds what it receives in site order;
 *   3. each site master sends each rank of its site its block (LAN).
 * Non-commutative operations need every unit to be a contiguous range of ranks (then site order
 * is rank order); otherwise the previous component does the call, as for reduce.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

#define TAG MCA_COLL_BASE_TAG_REDUCE_SCATTER

/* The vector and its blocks, in elements: block of rank r at start[r], counts[r] long. */
struct rs {
	struct ompi_datatype_t *dt;
	struct ompi_op_t *op;
	const int *counts;
	size_t *start; /* n + 1 entries */
	ptrdiff_t ext;
	int total;
};

/* Copy the blocks of site T's ranks (dfs order) between the vector and a packed slice. */
static int
slice_copy(const struct rs *v, char *vec, char *slice, int T, int to_slice,
    const struct qcg_topo_layout *lay)
{
	size_t at = 0;
	for (int p = lay->dfs_start[0][T]; p < lay->dfs_start[0][T] + lay->usize[0][T]; p++) {
		int r = lay->dfs[p];
		char *x = vec + (ptrdiff_t)v->start[r] * v->ext, *y = slice + (ptrdiff_t)at * v->ext;
		int rc = ompi_datatype_copy_content_same_ddt(v->dt, (size_t)v->counts[r],
		    to_slice ? y : x, to_slice ? x : y);
		if (rc != OMPI_SUCCESS)
			return rc;
		at += (size_t)v->counts[r];
	}
	return OMPI_SUCCESS;
}

/* Elements of site T's blocks. */
static int
slice_len(const struct rs *v, int T, const struct qcg_topo_layout *lay)
{
	size_t len = 0;
	for (int p = lay->dfs_start[0][T]; p < lay->dfs_start[0][T] + lay->usize[0][T]; p++)
		len += (size_t)v->counts[lay->dfs[p]];
	return (int)len;
}

/* Step 2 at a site master: exchange slices with every other site master (eager-sized
 * messages on the WAN, coll_qcg_exchange.c), fold in site order into part[ns-1]. */
static int
site_exchange(const struct rs *v, char *acc, char **part, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int ns = lay->nunits[0], S = lay->unit[0][m->rank], mine = slice_len(v, S, lay);
	int rc = OMPI_SUCCESS;
	char **out = calloc((size_t)ns, sizeof(char *)), **base = calloc((size_t)ns, sizeof(char *));
	int *scount = calloc((size_t)ns, sizeof(int)), *rcount = calloc((size_t)ns, sizeof(int));
	int *masters = calloc((size_t)ns, sizeof(int));
	if (out == NULL || base == NULL || scount == NULL || rcount == NULL || masters == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto done;
	}
	rc = slice_copy(v, acc, part[S], S, 1, lay);
	for (int T = 0; T < ns && rc == OMPI_SUCCESS; T++) {
		masters[T] = lay->master[0][T];
		rcount[T] = mine;
		scount[T] = slice_len(v, T, lay);
		if (T == S)
			continue;
		out[T] = mca_coll_qcg_tmp_alloc(v->dt, scount[T], &base[T]);
		rc = out[T] == NULL ? OMPI_ERR_OUT_OF_RESOURCE : slice_copy(v, acc, out[T], T, 1, lay);
	}
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_exchange_typed((void *const *)out, scount, (void *const *)part,
		    rcount, v->dt, masters, ns, S, TAG, comm);
	for (int j = ns - 2; j >= 0 && rc == OMPI_SUCCESS; j--) /* p0 op (p1 op (... p(ns-1))) */
		rc = PMPI_Reduce_local(part[j], part[ns - 1], mine, v->dt, v->op);
done:
	for (int T = 0; base != NULL && T < ns; T++)
		free(base[T]);
	free(base);
	free(out);
	free(scount);
	free(rcount);
	free(masters);
	return rc;
}

/* Step 3 at a site master: every rank of the site its block (ours into rbuf). */
static int
site_scatter(const struct rs *v, char *result, void *rbuf, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int S = lay->unit[0][m->rank], nr = 0, rc = OMPI_SUCCESS;
	ompi_request_t **reqs = malloc((size_t)lay->usize[0][S] * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	size_t at = 0;
	for (int p = lay->dfs_start[0][S]; p < lay->dfs_start[0][S] + lay->usize[0][S]; p++) {
		int r = lay->dfs[p];
		char *block = result + (ptrdiff_t)at * v->ext;
		at += (size_t)v->counts[r];
		if (v->counts[r] <= 0)
			continue; /* the rank does not wait for an empty block */
		if (r == m->rank)
			rc = ompi_datatype_copy_content_same_ddt(v->dt, (size_t)v->counts[r], rbuf,
			    block);
		else if ((rc = MCA_PML_CALL(isend(block, v->counts[r], v->dt, r, TAG,
		    MCA_PML_BASE_SEND_STANDARD, comm, &reqs[nr]))) == OMPI_SUCCESS)
			nr++;
		if (rc != OMPI_SUCCESS)
			break;
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* The site master's steps 2 and 3, with its buffers. */
static int
site_master(const struct rs *v, char *acc, void *rbuf, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int ns = lay->nunits[0], mine = slice_len(v, lay->unit[0][m->rank], lay);
	int rc = OMPI_ERR_OUT_OF_RESOURCE;
	char **part = calloc((size_t)ns, sizeof(char *)), **base = calloc((size_t)ns, sizeof(char *));
	for (int T = 0; part != NULL && base != NULL && T < ns; T++)
		if ((part[T] = mca_coll_qcg_tmp_alloc(v->dt, mine, &base[T])) == NULL)
			goto done;
	if (part != NULL && base != NULL)
		rc = site_exchange(v, acc, part, comm, m);
	if (rc == OMPI_SUCCESS)
		rc = site_scatter(v, part[ns - 1], rbuf, comm, m);
done:
	for (int T = 0; base != NULL && T < ns; T++)
		free(base[T]);
	free(base);
	free(part);
	return rc;
}

/* Steps 1-3 for every rank; src holds this rank's whole input vector. */
static int
reduce_scatter_levels(const struct rs *v, const void *src, void *rbuf,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, nm = lay->master[2][lay->unit[2][me]] == me;
	int sm = lay->master[0][lay->unit[0][me]], rc = OMPI_SUCCESS;
	char *base = NULL, *acc = NULL;
	if (nm && ((acc = mca_coll_qcg_tmp_alloc(v->dt, v->total, &base)) == NULL ||
	    (rc = ompi_datatype_copy_content_same_ddt(v->dt, (size_t)v->total, acc,
	    (char *)src)) != OMPI_SUCCESS)) {
		free(base);
		return rc != OMPI_SUCCESS ? rc : OMPI_ERR_OUT_OF_RESOURCE;
	}
	ompi_communicator_t *node = m->node_comm; /* its rank 0 is the node master */
	rc = node->c_coll->coll_reduce(nm ? MPI_IN_PLACE : src, acc, v->total, v->dt, v->op, 0,
	    node, node->c_coll->coll_reduce_module);
	if (rc == OMPI_SUCCESS && nm)
		rc = mca_coll_qcg_reduce_levels(acc, v->total, v->dt, v->op, -1, 1, comm, m);
	if (rc == OMPI_SUCCESS && me == sm)
		rc = site_master(v, acc, rbuf, comm, m);
	else if (rc == OMPI_SUCCESS && v->counts[me] > 0)
		rc = MCA_PML_CALL(recv(rbuf, v->counts[me], v->dt, sm, TAG, comm,
		    MPI_STATUS_IGNORE));
	free(base);
	return rc;
}

int
mca_coll_qcg_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	int n = m->layout.n;
	struct rs v = { .dt = dtype, .op = op, .counts = rcounts };
	ptrdiff_t lb;
	ompi_datatype_get_extent(dtype, &lb, &v.ext);
	v.start = malloc(((size_t)n + 1) * sizeof(size_t));
	if (v.start == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	v.start[0] = 0;
	for (int r = 0; r < n; r++)
		v.start[r + 1] = v.start[r] + (size_t)(rcounts[r] > 0 ? rcounts[r] : 0);
	size_t total = v.start[n]; /* the same on every rank: the choices below agree */
	if (m->in_setup ||
	    QCG_HAND_DOWN(m, QCG_COLL_REDUCE_SCATTER,
	    mca_coll_qcg_bytes(dtype, total > INT_MAX ? INT_MAX : (int)total)) ||
	    total > INT_MAX ||
	    !(m->layout.contiguous || mca_coll_qcg_op_commutative(op)) ||
	    !mca_coll_qcg_tmp_allowed(3 * mca_coll_qcg_span(dtype, (int)total))) {
		free(v.start);
		return m->previous_reduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm,
		    m->previous_reduce_scatter_module);
	}
	v.total = (int)total;
	int rc = total == 0 ? OMPI_SUCCESS : mca_coll_qcg_subcomms_ensure(comm, m);
	if (total > 0 && rc == OMPI_SUCCESS)
		rc = reduce_scatter_levels(&v, sbuf == MPI_IN_PLACE ? rbuf : sbuf, rbuf, comm, m);
	free(v.start);
	return rc;
}

int
mca_coll_qcg_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	if (m->in_setup || (size_t)rcount * (size_t)m->layout.n > INT_MAX ||
	    QCG_HAND_DOWN(m, QCG_COLL_REDUCE_SCATTER,
	    mca_coll_qcg_bytes(dtype, rcount * m->layout.n)))
		return m->previous_reduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm,
		    m->previous_reduce_scatter_block_module);
	int *counts = malloc((size_t)m->layout.n * sizeof(int));
	if (counts == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int r = 0; r < m->layout.n; r++)
		counts[r] = rcount;
	/* Its fallback (non-commutative on interleaved ranks, memory) is the previous
	 * reduce_scatter, which computes the same thing. */
	int rc = mca_coll_qcg_reduce_scatter(sbuf, rbuf, counts, dtype, op, comm, module);
	free(counts);
	return rc;
}
