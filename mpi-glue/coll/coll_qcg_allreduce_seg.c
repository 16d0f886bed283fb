/*
 * coll_qcg_allreduce_seg.c: allreduce for large messages and commutative operations whose WAN
 * stage is a reduce-scatter + allgather between the site masters (issue 20; the candidate
 * "segmented" of coll_qcg_decision.c).
 *
 * The vector is cut into S blocks, one per site (block b: owned by site b's master), and every
 * block into segments of coll_qcg_bcast_segsize bytes. Segments are taken round robin over the
 * blocks (block 0 piece 0, block 1 piece 0, ...), so that every site master's WAN streams run
 * at once from the first segment on instead of one owner after the other.
 *
 *   1. Up: the site's pipelined reduce tree (coll_qcg_bcast_tree from level 1, run backwards as
 *      in coll_qcg_reduce_pipe.c): every rank folds its children's segment s and passes it up.
 *   2. Reduce-scatter: as soon as the site master holds its site's sum of segment s, it sends it
 *      to the segment's owner; stages 1 and 2 overlap: the WAN carries segment s while the site
 *      still reduces s+1. It folds the S-1 other sites' partials of its own segments as they
 *      are all in (tested between segments, waited for after the last) and sends each final
 *      segment to every other site master.
 *   3. Allgather + down: the site master passes every final segment, in order, down the same
 *      tree as soon as it holds it; the WAN delivers the other owners' segments meanwhile.
 *
 * Each site master sends and receives (S-1)/S of the message twice across the WAN (instead of
 * the whole message to or from S-1 sites), one stream per peer at once; every rank gets the
 * owners' bits, so the result is identical everywhere. Tags: partial sums (up the tree and to
 * owners) MCA_COLL_BASE_TAG_ALLREDUCE, final segments (owners to masters, down the tree)
 * MCA_COLL_BASE_TAG_BCAST: messages between one pair never match across the two phases.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

#define QCG_SEG_MAX_SEGMENTS 1024 /* bounds the requests one call posts */
#define TAG_PARTIAL MCA_COLL_BASE_TAG_ALLREDUCE
#define TAG_FINAL MCA_COLL_BASE_TAG_BCAST

struct seg {
	int off, len; /* elements */
	int owner;    /* index of the owning site master */
};

struct segrun {
	struct ompi_datatype_t *dt;
	struct ompi_op_t *op;
	struct ompi_communicator_t *comm;
	ptrdiff_t extent;
	char *acc;
	int nseg;
	struct seg *seg;
	int parent, nchild, *child; /* the site tree (parent < 0: a site master) */
	int S, mi, *masters;        /* site masters; mi: our index, -1 if not one */
	int own_off, own_len;       /* our block (masters) */
	int next_owned;             /* segments before it are final where we own them */
	char **base;                /* temporaries as malloc'ed: children, then peers */
	void **in;                  /* per child: the whole vector; per peer: our block */
	ompi_request_t **child_recv; /* nchild x nseg */
	ompi_request_t **peer_recv;  /* S x nseg (only our segments from the peers are posted) */
	ompi_request_t **partials;   /* our partial sums sent (up, or to their owners) */
	int npartials;
	ompi_request_t **sends;      /* final segments sent, waited for at the end */
	int nsends;
	ompi_request_t **final_recv; /* nseg */
};

/* Blocks of count elements over S owners, cut into segments of seg elements, round robin. */
static int
make_segments(struct segrun *r, int count, int seg)
{
	int S = r->S, pieces = 0;
	for (int b = 0; b < S; b++) {
		int len = count / S + (b < count % S);
		int p = (len + seg - 1) / seg;
		pieces = p > pieces ? p : pieces;
	}
	r->seg = malloc(((size_t)pieces * (size_t)S + 1) * sizeof(*r->seg));
	if (r->seg == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	r->nseg = 0;
	for (int i = 0; i < pieces; i++)
		for (int b = 0, start = 0; b < S; b++) {
			int len = count / S + (b < count % S);
			if (b == r->mi)
				r->own_off = start, r->own_len = len;
			if ((long)i * seg < len) {
				struct seg *s = &r->seg[r->nseg++];
				s->off = start + i * seg;
				s->len = len - i * seg < seg ? len - i * seg : seg;
				s->owner = b;
			}
			start += len;
		}
	return OMPI_SUCCESS;
}

static char *
at(const struct segrun *r, char *buf, int off)
{
	return buf + (ptrdiff_t)off * r->extent;
}

static int
post(struct segrun *r, int sending, char *buf, const struct seg *s, int peer, int tag,
    ompi_request_t **req)
{
	return sending ? MCA_PML_CALL(isend(buf, s->len, r->dt, peer, tag,
	    MCA_PML_BASE_SEND_STANDARD, r->comm, req)) :
	    MCA_PML_CALL(irecv(buf, s->len, r->dt, peer, tag, r->comm, req));
}

static int
post_send(struct segrun *r, char *buf, const struct seg *s, int peer, int tag)
{
	if (tag == TAG_PARTIAL)
		return post(r, 1, buf, s, peer, tag, &r->partials[r->npartials++]);
	return post(r, 1, buf, s, peer, tag, &r->sends[r->nsends++]);
}

/* Whether every other site's partial of our segment i is in (waiting for them if `wait`). */
static int
peers_in(struct segrun *r, int i, int wait, int *rc)
{
	for (int j = 0; j < r->S && *rc == OMPI_SUCCESS; j++) {
		int done = 1;
		if (j == r->mi)
			continue;
		*rc = wait ? ompi_request_wait(&r->peer_recv[j * r->nseg + i], MPI_STATUS_IGNORE) :
		    ompi_request_test(&r->peer_recv[j * r->nseg + i], &done, MPI_STATUS_IGNORE);
		if (!done)
			return 0;
	}
	return *rc == OMPI_SUCCESS;
}

/*
 * Our segments before `upto` (their site sums are done), in order from the first not yet
 * final: the other sites' partials folded in, each final segment at once to every other site
 * master (in segment order: the peers match them in that order). Without `wait`, it stops at
 * the first segment whose partials are not all in: called between the site's segments, it
 * lets the allgather start while the site still reduces.
 */
static int
fold_owned(struct segrun *r, int upto, int wait)
{
	int rc = OMPI_SUCCESS;
	for (; r->next_owned < upto && rc == OMPI_SUCCESS; r->next_owned++) {
		int i = r->next_owned;
		const struct seg *s = &r->seg[i];
		if (s->owner != r->mi)
			continue;
		if (!peers_in(r, i, wait, &rc))
			break;
		for (int j = 0; j < r->S && rc == OMPI_SUCCESS; j++)
			if (j != r->mi)
				rc = PMPI_Reduce_local(at(r, r->in[r->nchild + j], s->off - r->own_off),
				    at(r, r->acc, s->off), s->len, r->dt, r->op);
		for (int j = 0; j < r->S && rc == OMPI_SUCCESS; j++)
			if (j != r->mi)
				rc = post_send(r, at(r, r->acc, s->off), s, r->masters[j], TAG_FINAL);
	}
	return rc;
}

/*
 * Up the tree and across the WAN: fold the children's partials of every segment in order and
 * send it up, or (a site master) to its owner. Nothing here waits for the WAN: an owner that
 * waited for its peers' partials of segment s before sending its own partial of s+1 would
 * chain one WAN latency per segment across the sites. Owned segments whose partials are in
 * are finished between segments; the rest after the loop.
 */
static int
reduce_scatter(struct segrun *r)
{
	int rc = OMPI_SUCCESS;
	for (int i = 0; i < r->nseg && rc == OMPI_SUCCESS; i++) {
		const struct seg *s = &r->seg[i];
		for (int c = 0; c < r->nchild && rc == OMPI_SUCCESS; c++) {
			rc = ompi_request_wait(&r->child_recv[c * r->nseg + i], MPI_STATUS_IGNORE);
			if (rc == OMPI_SUCCESS) /* acc = in op acc: any order, the op commutes */
				rc = PMPI_Reduce_local(at(r, r->in[c], s->off), at(r, r->acc, s->off),
				    s->len, r->dt, r->op);
		}
		if (rc != OMPI_SUCCESS)
			break;
		if (r->mi < 0)
			rc = post_send(r, at(r, r->acc, s->off), s, r->parent, TAG_PARTIAL);
		else if (s->owner != r->mi)
			rc = post_send(r, at(r, r->acc, s->off), s, r->masters[s->owner], TAG_PARTIAL);
		if (rc == OMPI_SUCCESS && r->mi >= 0)
			rc = fold_owned(r, i + 1, 0);
	}
	return rc == OMPI_SUCCESS && r->mi >= 0 ? fold_owned(r, r->nseg, 1) : rc;
}

/* The final segments we do not own, from their owner (masters) or our parent, into acc: posted
 * only once our partials of them have left, since they land where those were sent from. */
static int
post_finals(struct segrun *r)
{
	int rc = r->npartials > 0 ?
	    ompi_request_wait_all((size_t)r->npartials, r->partials, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	r->npartials = 0;
	for (int i = 0; i < r->nseg && rc == OMPI_SUCCESS; i++) {
		const struct seg *s = &r->seg[i];
		r->final_recv[i] = MPI_REQUEST_NULL;
		if (r->mi >= 0 && s->owner == r->mi)
			continue;
		rc = post(r, 0, at(r, r->acc, s->off), s,
		    r->mi >= 0 ? r->masters[s->owner] : r->parent, TAG_FINAL, &r->final_recv[i]);
	}
	return rc;
}

/* Down the tree, in segment order, each segment as soon as we hold it. */
static int
allgather_down(struct segrun *r)
{
	int rc = OMPI_SUCCESS;
	for (int i = 0; i < r->nseg && rc == OMPI_SUCCESS; i++) {
		const struct seg *s = &r->seg[i];
		if (r->final_recv[i] != MPI_REQUEST_NULL)
			rc = ompi_request_wait(&r->final_recv[i], MPI_STATUS_IGNORE);
		for (int c = 0; c < r->nchild && rc == OMPI_SUCCESS; c++)
			rc = post_send(r, at(r, r->acc, s->off), s, r->child[c], TAG_FINAL);
	}
	return rc;
}

static int
setup(struct segrun *r, mca_coll_qcg_module_t *m, int count)
{
	size_t tsize;
	ompi_datatype_type_size(r->dt, &tsize);
	int seg = (int)((size_t)mca_coll_qcg_component.bcast_segsize / (tsize > 0 ? tsize : 1));
	if (seg <= 0 || seg > count)
		seg = count;
	int n = m->layout.n, si;
	r->child = malloc((size_t)n * sizeof(int));
	r->masters = malloc((size_t)n * sizeof(int));
	if (r->child == NULL || r->masters == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int rc = mca_coll_qcg_bcast_tree(m, -1, 1, &r->parent, r->child, &r->nchild);
	if (rc != OMPI_SUCCESS)
		return rc;
	r->S = mca_coll_qcg_holders(m, 0, 0, -1, r->masters, &r->mi, &si);
	/* about QCG_SEG_MAX_SEGMENTS segments at most, whatever the count */
	if ((count + seg - 1) / seg > QCG_SEG_MAX_SEGMENTS)
		seg = (count + QCG_SEG_MAX_SEGMENTS - 1) / QCG_SEG_MAX_SEGMENTS;
	if ((rc = make_segments(r, count, seg)) != OMPI_SUCCESS)
		return rc;
	size_t nseg = (size_t)r->nseg, nin = (size_t)r->nchild + (size_t)r->S;
	r->base = calloc(nin, sizeof(char *));
	r->in = calloc(nin, sizeof(void *));
	r->child_recv = malloc(((size_t)r->nchild * nseg + 1) * sizeof(*r->child_recv));
	r->peer_recv = malloc(((size_t)r->S * nseg + 1) * sizeof(*r->peer_recv));
	r->partials = malloc((nseg + 1) * sizeof(*r->partials));
	/* finals to peers (S x nseg) and to children (nchild x nseg) */
	r->sends = malloc((nin * nseg + 1) * sizeof(*r->sends));
	r->final_recv = malloc((nseg + 1) * sizeof(*r->final_recv));
	if (r->base == NULL || r->in == NULL || r->child_recv == NULL || r->peer_recv == NULL ||
	    r->partials == NULL || r->sends == NULL || r->final_recv == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int c = 0; c < r->nchild; c++) {
		if ((r->in[c] = mca_coll_qcg_tmp_alloc(r->dt, count, &r->base[c])) == NULL)
			return OMPI_ERR_OUT_OF_RESOURCE;
		for (int i = 0; i < r->nseg && rc == OMPI_SUCCESS; i++)
			rc = post(r, 0, at(r, r->in[c], r->seg[i].off), &r->seg[i], r->child[c],
			    TAG_PARTIAL, &r->child_recv[c * r->nseg + i]);
	}
	for (int j = 0; r->mi >= 0 && j < r->S && rc == OMPI_SUCCESS; j++) {
		if (j == r->mi)
			continue;
		void **in = &r->in[r->nchild + j];
		if ((*in = mca_coll_qcg_tmp_alloc(r->dt, r->own_len, &r->base[r->nchild + j])) == NULL)
			return OMPI_ERR_OUT_OF_RESOURCE;
		for (int i = 0; i < r->nseg && rc == OMPI_SUCCESS; i++)
			if (r->seg[i].owner == r->mi)
				rc = post(r, 0, at(r, *in, r->seg[i].off - r->own_off), &r->seg[i],
				    r->masters[j], TAG_PARTIAL, &r->peer_recv[j * r->nseg + i]);
	}
	return rc;
}

static void
teardown(struct segrun *r)
{
	size_t nin = (size_t)r->nchild + (size_t)r->S;
	for (size_t i = 0; r->base != NULL && i < nin; i++)
		free(r->base[i]);
	free(r->base);
	free(r->in);
	free(r->child_recv);
	free(r->peer_recv);
	free(r->partials);
	free(r->sends);
	free(r->final_recv);
	free(r->seg);
	free(r->child);
	free(r->masters);
}

/* Whether a call may take this path: commutative, and room for a temporary per tree child
 * and per peer site (the same answer on every rank). */
int
mca_coll_qcg_allreduce_seg_allowed(const mca_coll_qcg_module_t *m, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
	return count > 0 && mca_coll_qcg_op_commutative(op) &&
	    mca_coll_qcg_tmp_allowed((size_t)m->layout.n * mca_coll_qcg_span(dtype, count));
}

/* acc holds this rank's contribution; on return every rank's acc holds the result. */
int
mca_coll_qcg_allreduce_seg(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	struct segrun r = { .dt = dtype, .op = op, .comm = comm, .acc = acc, .mi = -1 };
	ptrdiff_t lb;
	ompi_datatype_get_extent(dtype, &lb, &r.extent);
	int rc = setup(&r, m, count);
	if (rc == OMPI_SUCCESS && m->rank == 0)
		QCG_VERBOSE(30, "allreduce: segmented, %d elements in %d segments over %d site "
		    "masters", count, r.nseg, r.S);
	if (rc == OMPI_SUCCESS)
		rc = reduce_scatter(&r);
	/* the finals a master sent its peers are received only once the peers' own partials
	 * have left: they stay pending until the end, not waited for here */
	if (rc == OMPI_SUCCESS)
		rc = post_finals(&r);
	if (rc == OMPI_SUCCESS)
		rc = allgather_down(&r);
	if (r.npartials > 0) /* after an error: never leave a request behind */
		(void)ompi_request_wait_all((size_t)r.npartials, r.partials, MPI_STATUSES_IGNORE);
	if (r.nsends > 0) {
		int wrc = ompi_request_wait_all((size_t)r.nsends, r.sends, MPI_STATUSES_IGNORE);
		rc = rc != OMPI_SUCCESS ? rc : wrc;
	}
	teardown(&r);
	return rc;
}
