/*
 * coll_qcg_allreduce_spread.c: allreduce for large vectors over many WAN connections at once
 * (issue 20; the candidate "spread" of coll_qcg_decision.c). Commutative operations, sites of
 * equal size, contiguous datatypes.
 *
 * The multilevel and segmented allreduces cross the WAN from the site masters: one connection
 * per site pair, while a site's line carries several times what one connection does (the 5 ms
 * testbed: 200-250 MB/s one pair, 1000-1230 MB/s into a site from many). Here the WAN stage is
 * spread over every member, Rabenseifner's reduce-scatter + allgather with the WAN in the middle:
 *
 *   1. inside the site, a reduce-scatter: the vector is cut into k slices (k members), member j
 *      receives slice j from the others and folds them in: the site's partial of slice j;
 *   2. across the WAN, member j of every site exchanges that partial with member j of every
 *      other site (slices of the vector, every member at once: k connections per site pair) and
 *      folds the S partials in site order 0, 1, ..., so that every site computes the same bits;
 *   3. inside the site, an allgather of the final slices.
 *
 * Each member moves (k-1)/k of the vector twice inside its site and (S-1)/k of it across the
 * WAN each way; every WAN latency is paid once. WAN slices go in pieces under the eager limit
 * (no rendezvous round trip); partial and final slices use different tags.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll_qcg.h"

#define TAG_PARTIAL MCA_COLL_BASE_TAG_ALLREDUCE
#define TAG_FINAL MCA_COLL_BASE_TAG_BCAST

struct spread {
	char *acc;            /* the vector: this rank's contribution, then the result */
	size_t ext;           /* bytes per element (contiguous type) */
	int count, k, j, S, site;
	const struct qcg_topo_layout *lay;
	struct ompi_communicator_t *comm;
	ompi_request_t **reqs;
	int nreq;
};

/* Slice i (0..k-1) of the vector: its first element and length, in elements. */
static void
slice(const struct spread *s, int i, int *off, int *len)
{
	*off = (int)((long long)s->count * i / s->k);
	*len = (int)((long long)s->count * (i + 1) / s->k) - *off;
}

/* Member i of site T (sites are of equal size k). */
static int
member(const struct spread *s, int T, int i)
{
	return s->lay->dfs[s->lay->dfs_start[0][T] + i];
}

/* Post `len` elements at buf to or from peer (over the WAN in pieces under the eager limit). */
static int
post(struct spread *s, int sending, int wan, char *buf, int len, int peer, int tag)
{
	int rc;
	s->nreq += mca_coll_qcg_post_chunks(sending, wan, buf, (size_t)len * s->ext, peer, tag,
	    s->comm, s->reqs + s->nreq, &rc);
	return rc;
}

static int
wait_posted(struct spread *s)
{
	int rc = s->nreq > 0 ? ompi_request_wait_all((size_t)s->nreq, s->reqs,
	    MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	s->nreq = 0;
	return rc;
}

int
mca_coll_qcg_allreduce_spread_allowed(const mca_coll_qcg_module_t *m, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int k = lay->usize[0][0];
	for (int T = 1; T < lay->nunits[0]; T++)
		if (lay->usize[0][T] != k)
			return 0;
	size_t type_size;
	ptrdiff_t lb, extent, true_lb, true_ext;
	ompi_datatype_type_size(dtype, &type_size);
	ompi_datatype_get_extent(dtype, &lb, &extent);
	ompi_datatype_get_true_extent(dtype, &true_lb, &true_ext);
	/* elements packed back to back from the buffer's start: slices are plain byte ranges */
	return lay->nunits[0] > 1 && count >= k && mca_coll_qcg_op_commutative(op) &&
	    (size_t)(count / k + 1) * type_size <= INT_MAX && /* a slice is one message */
	    true_lb == 0 && (size_t)extent == type_size &&
	    ompi_datatype_is_contiguous_memory_layout(dtype, count) &&
	    mca_coll_qcg_tmp_allowed((size_t)(k + lay->nunits[0]) * type_size *
	    (size_t)(count / k + 1));
}

/* acc holds this rank's contribution; on return every rank's acc holds the result. */
int
mca_coll_qcg_allreduce_spread(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	struct spread s = { .count = count, .lay = lay, .comm = comm };
	ptrdiff_t lb, extent;
	ompi_datatype_get_extent(dtype, &lb, &extent);
	s.ext = (size_t)extent;
	s.acc = acc;
	s.site = lay->unit[0][m->rank];
	s.S = lay->nunits[0];
	s.k = lay->usize[0][s.site];
	s.j = qcg_topo_dfs_index(lay, m->rank) - lay->dfs_start[0][s.site];
	int off, len, most = count / s.k + 1, rc = OMPI_SUCCESS;
	int pieces = mca_coll_qcg_nchunks((size_t)most * s.ext, 1);
	/* slots: k for the site's partials (step 1), S for the sites' (step 2) */
	char *tmp = malloc((size_t)(s.k + s.S) * (size_t)most * s.ext + 1);
	s.reqs = malloc(((size_t)2 * (s.k + s.S) * (size_t)pieces + 1) * sizeof(*s.reqs));
	if (tmp == NULL || s.reqs == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
#define SLOT(q) (tmp + (size_t)(q) * (size_t)most * s.ext)
	/* 1. reduce-scatter inside the site: slice i of ours to member i, slice j of theirs here */
	slice(&s, s.j, &off, &len);
	for (int i = 0; i < s.k && rc == OMPI_SUCCESS; i++)
		if (i != s.j)
			rc = post(&s, 0, 0, SLOT(i), len, member(&s, s.site, i), TAG_PARTIAL);
	for (int i = 0; i < s.k && rc == OMPI_SUCCESS; i++) {
		int o, l;
		slice(&s, i, &o, &l);
		if (i != s.j)
			rc = post(&s, 1, 0, s.acc + (size_t)o * s.ext, l, member(&s, s.site, i),
			    TAG_PARTIAL);
	}
	int wrc = wait_posted(&s);
	rc = rc != OMPI_SUCCESS ? rc : wrc;
	for (int i = 0; i < s.k && rc == OMPI_SUCCESS; i++)
		if (i != s.j)
			rc = PMPI_Reduce_local(SLOT(i), s.acc + (size_t)off * s.ext, len, dtype, op);
	/* 2. the site partials of slice j across the WAN, member j to member j */
	char *sites = SLOT(s.k);
	for (int T = 0; T < s.S && rc == OMPI_SUCCESS; T++)
		if (T != s.site)
			rc = post(&s, 0, 1, sites + (size_t)T * (size_t)most * s.ext, len,
			    member(&s, T, s.j), TAG_PARTIAL);
	for (int T = 0; T < s.S && rc == OMPI_SUCCESS; T++)
		if (T != s.site)
			rc = post(&s, 1, 1, s.acc + (size_t)off * s.ext, len, member(&s, T, s.j),
			    TAG_PARTIAL);
	wrc = wait_posted(&s);
	rc = rc != OMPI_SUCCESS ? rc : wrc;
	if (rc == OMPI_SUCCESS) { /* fold in site order: the same bits on every site */
		char *own = sites + (size_t)s.site * (size_t)most * s.ext;
		memcpy(own, s.acc + (size_t)off * s.ext, (size_t)len * s.ext);
		memcpy(s.acc + (size_t)off * s.ext, sites, (size_t)len * s.ext);
		for (int T = 1; T < s.S && rc == OMPI_SUCCESS; T++)
			rc = PMPI_Reduce_local(sites + (size_t)T * (size_t)most * s.ext,
			    s.acc + (size_t)off * s.ext, len, dtype, op);
	}
	/* 3. allgather of the final slices inside the site */
	for (int i = 0; i < s.k && rc == OMPI_SUCCESS; i++) {
		int o, l;
		slice(&s, i, &o, &l);
		if (i != s.j)
			rc = post(&s, 0, 0, s.acc + (size_t)o * s.ext, l, member(&s, s.site, i),
			    TAG_FINAL);
	}
	for (int i = 0; i < s.k && rc == OMPI_SUCCESS; i++)
		if (i != s.j)
			rc = post(&s, 1, 0, s.acc + (size_t)off * s.ext, len, member(&s, s.site, i),
			    TAG_FINAL);
	wrc = wait_posted(&s);
	rc = rc != OMPI_SUCCESS ? rc : wrc;
#undef SLOT
	if (rc == OMPI_SUCCESS && m->rank == 0)
		QCG_VERBOSE(30, "allreduce: spread, %d elements in %d slices, %d sites", count, s.k,
		    s.S);
out:
	free(tmp);
	free(s.reqs);
	return rc;
}
