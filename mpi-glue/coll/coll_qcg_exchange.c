/*
 * coll_qcg_exchange.c: all-to-all steps between the holders of one level, used at the WAN level
 * where one round of latency beats the two of a reduce-then-broadcast (postal model): every
 * holder sends to every other at once.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

/* Elements per message: messages stay under the BTL's eager limit (coll_qcg_chunks.c) so
 * that no WAN step waits a round trip for a rendezvous; at least one element. */
static int
elems_per_msg(struct ompi_datatype_t *dtype)
{
	size_t ts;
	ompi_datatype_type_size(dtype, &ts);
	int seg = mca_coll_qcg_component.bcast_segsize;
	if (seg <= 0 || ts == 0)
		return INT_MAX;
	return (size_t)seg / ts > 0 ? (int)((size_t)seg / ts) : 1;
}

/* Post count elements at buf to or from peer, e elements per message (one empty message for
 * a zero count, so that both sides always post the same messages). */
static int
post_elems(int sending, char *buf, int count, int e, struct ompi_datatype_t *dtype, int peer,
    int tag, struct ompi_communicator_t *comm, ompi_request_t **reqs, int *rc)
{
	ptrdiff_t lb, extent;
	ompi_datatype_get_extent(dtype, &lb, &extent);
	int n = 0;
	for (int first = 0; *rc == OMPI_SUCCESS && (first < count || (count <= 0 && n == 0));
	    first += e) {
		int c = count - first < e ? count - first : e;
		char *at = buf + (ptrdiff_t)first * extent;
		*rc = sending ? MCA_PML_CALL(isend(at, c > 0 ? c : 0, dtype, peer, tag,
		    MCA_PML_BASE_SEND_STANDARD, comm, &reqs[n])) :
		    MCA_PML_CALL(irecv(at, c > 0 ? c : 0, dtype, peer, tag, comm, &reqs[n]));
		if (*rc == OMPI_SUCCESS)
			n++;
		if (count <= 0)
			break;
	}
	return n;
}

/* Post the sends and receives with every other holder, in eager-sized messages; wait for all.
 * Buffers and counts per peer index (ours is skipped). */
int
mca_coll_qcg_exchange_typed(void *const *sbuf, const int *scount, void *const *rbuf,
    const int *rcount, struct ompi_datatype_t *dtype, const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm)
{
	int e = elems_per_msg(dtype), total = 0, nr = 0, rc = OMPI_SUCCESS;
	for (int j = 0; j < k; j++)
		if (j != me)
			total += (rcount[j] > 0 ? (rcount[j] - 1) / e + 1 : 1) +
			    (scount[j] > 0 ? (scount[j] - 1) / e + 1 : 1);
	ompi_request_t **reqs = malloc((size_t)(total > 0 ? total : 1) * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int j = 0; j < k && rc == OMPI_SUCCESS; j++)
		if (j != me)
			nr += post_elems(0, rbuf[j], rcount[j], e, dtype, list[j], tag, comm, reqs + nr,
			    &rc);
	for (int j = 0; j < k && rc == OMPI_SUCCESS; j++)
		if (j != me)
			nr += post_elems(1, sbuf[j], scount[j], e, dtype, list[j], tag, comm, reqs + nr,
			    &rc);
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

int
mca_coll_qcg_exchange_signal(const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	void **none = calloc((size_t)k, sizeof(void *));
	int *zero = calloc((size_t)k, sizeof(int));
	int rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (none != NULL && zero != NULL)
		rc = mca_coll_qcg_exchange_typed(none, zero, none, zero, MPI_BYTE, list, k, me, tag,
		    comm);
	free(none);
	free(zero);
	return rc;
}

/* Per-peer buffers of a reducing exchange: every peer's count elements of dtype land in in[j]
 * (a temporary, or `mine` for our own index when given), our own data leaves from out. */
struct fold_bufs {
	char **base;  /* what free() takes for each temporary */
	void **in;    /* where peer j's elements land */
	void **out;   /* what we send to peer j: always `out` */
	int *counts;  /* count for every peer */
};

static void
fold_bufs_free(struct fold_bufs *f, int k)
{
	for (int j = 0; f->base != NULL && j < k; j++)
		free(f->base[j]);
	free(f->base);
	free(f->in);
	free(f->out);
	free(f->counts);
}

/* Allocates f for k holders; mine (or NULL: a temporary) receives our own index's slot. */
static int
fold_bufs_alloc(struct fold_bufs *f, int k, int me, void *out, void *mine, int count,
    struct ompi_datatype_t *dtype)
{
	f->base = calloc((size_t)k, sizeof(char *));
	f->in = calloc((size_t)k, sizeof(void *));
	f->out = calloc((size_t)k, sizeof(void *));
	f->counts = calloc((size_t)k, sizeof(int));
	if (f->base == NULL || f->in == NULL || f->out == NULL || f->counts == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int j = 0; j < k; j++) {
		f->counts[j] = count;
		f->out[j] = out;
		f->in[j] = j == me && mine != NULL ? mine :
		    mca_coll_qcg_tmp_alloc(dtype, count, &f->base[j]);
		if (f->in[j] == NULL)
			return OMPI_ERR_OUT_OF_RESOURCE;
	}
	return OMPI_SUCCESS;
}

int
mca_coll_qcg_exchange_reduce(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	struct fold_bufs f;
	int rc = fold_bufs_alloc(&f, k, me, acc, acc, count, dtype);
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_exchange_typed(f.out, f.counts, f.in, f.counts, dtype, list, k, me,
		    tag, comm);
	/* Every holder folds p0 op (p1 op (... op p(k-1))) in the same order on the same data,
	 * so all of them get the same bits, and the order is the rank order of the units. */
	for (int j = k - 2; j >= 0 && rc == OMPI_SUCCESS; j--)
		rc = PMPI_Reduce_local(f.in[j], f.in[k - 1], count, dtype, op);
	if (rc == OMPI_SUCCESS && me != k - 1)
		rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, (char *)acc,
		    (char *)f.in[k - 1]);
	fold_bufs_free(&f, k);
	return rc;
}

/* Every holder sends its range full[offset[me]..] to every other and receives theirs at
 * their offsets, in eager-sized chunks (coll_qcg_chunks.c). */
int
mca_coll_qcg_exchange_bytes(char *full, const size_t *offset, const int *len, const int *list,
    int k, int me, int tag, struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	int total = 0, nr = 0, rc = OMPI_SUCCESS;
	for (int j = 0; j < k; j++)
		total += j == me ? 0 : mca_coll_qcg_nchunks((size_t)len[j], 1) +
		    mca_coll_qcg_nchunks((size_t)len[me], 1);
	ompi_request_t **reqs = malloc((size_t)(total > 0 ? total : 1) * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int j = 0; j < k && rc == OMPI_SUCCESS; j++)
		if (j != me)
			nr += mca_coll_qcg_post_chunks(0, 1, full + offset[j], (size_t)len[j], list[j], tag,
			    comm, reqs + nr, &rc);
	for (int j = 0; j < k && rc == OMPI_SUCCESS; j++)
		if (j != me)
			nr += mca_coll_qcg_post_chunks(1, 1, full + offset[me], (size_t)len[me], list[j],
			    tag, comm, reqs + nr, &rc);
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/*
 * For scan: every holder sends its unit's total to every other (one latency); on return
 * prefix holds in[0] op ... op in[me-1] (untouched when me == 0) and total the fold of all k,
 * both in unit order, so non-commutative operations keep rank order over contiguous units.
 */
int
mca_coll_qcg_exchange_prefix(void *total, void *prefix, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	struct fold_bufs f;
	int rc = fold_bufs_alloc(&f, k, me, total, NULL, count, dtype);
	if (rc == OMPI_SUCCESS)
		rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, f.in[me], total);
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_exchange_typed(f.out, f.counts, f.in, f.counts, dtype, list, k, me,
		    tag, comm);
	/* in[j] becomes in[0] op ... op in[j], left to right. */
	for (int j = 1; j < k && rc == OMPI_SUCCESS; j++)
		rc = PMPI_Reduce_local(f.in[j - 1], f.in[j], count, dtype, op);
	if (rc == OMPI_SUCCESS && me > 0)
		rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, prefix, f.in[me - 1]);
	if (rc == OMPI_SUCCESS)
		rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, total, f.in[k - 1]);
	fold_bufs_free(&f, k);
	return rc;
}
