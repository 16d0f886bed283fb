/*
 * coll_qcg_reduce_pipe.c: pipelined multilevel reduce for large messages and commutative
 * operations: the broadcast tree of coll_qcg_bcast.c (node members -> node holder -> cluster
 * holder -> site holder -> root, flat at the WAN by default) run backwards, segment by segment.
 * Every rank posts the receives of all its children's segments at once, folds segment s as soon
 * as all children delivered it and sends it up at once, so the WAN carries the sum of segment s
 * while the LAN and the nodes still reduce segment s+1.
 *
 * Any tree gives the same result for a commutative operation; non-commutative ones keep the
 * level-by-level path of coll_qcg_reduce.c, whose trees keep rank order.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

#define QCG_REDUCE_MAX_SEGMENTS 1024 /* bounds the requests one call posts */

struct rpipe {
	struct ompi_datatype_t *dt;
	struct ompi_op_t *op;
	int count, seg, nseg;
	ptrdiff_t extent;
	int parent, n, *child;
	char **base;            /* per child: its buffer as malloc'ed */
	void **in;              /* per child: where its segments land */
	ompi_request_t **recv;  /* n x nseg, child-major */
	ompi_request_t **send;  /* nseg */
};

static int
seg_len(const struct rpipe *p, int s)
{
	int first = s * p->seg;
	return p->count - first < p->seg ? p->count - first : p->seg;
}

/* Post every child's receives for every segment. */
static int
post_receives(struct rpipe *p, struct ompi_communicator_t *comm)
{
	for (int c = 0; c < p->n; c++) {
		if ((p->in[c] = mca_coll_qcg_tmp_alloc(p->dt, p->count, &p->base[c])) == NULL)
			return OMPI_ERR_OUT_OF_RESOURCE;
		for (int s = 0; s < p->nseg; s++) {
			int rc = MCA_PML_CALL(irecv((char *)p->in[c] + (ptrdiff_t)s * p->seg * p->extent,
			    seg_len(p, s), p->dt, p->child[c], MCA_COLL_BASE_TAG_REDUCE, comm,
			    &p->recv[c * p->nseg + s]));
			if (rc != OMPI_SUCCESS)
				return rc;
		}
	}
	return OMPI_SUCCESS;
}

/* Fold the children's segments into acc and pass each up as soon as it is complete. */
static int
fold_and_forward(struct rpipe *p, char *acc, struct ompi_communicator_t *comm)
{
	int nsent = 0, rc = OMPI_SUCCESS;
	for (int s = 0; s < p->nseg && rc == OMPI_SUCCESS; s++) {
		ptrdiff_t at = (ptrdiff_t)s * p->seg * p->extent;
		for (int c = 0; c < p->n && rc == OMPI_SUCCESS; c++) {
			rc = ompi_request_wait(&p->recv[c * p->nseg + s], MPI_STATUS_IGNORE);
			if (rc == OMPI_SUCCESS) /* acc = in op acc: any order, the op commutes */
				rc = PMPI_Reduce_local((char *)p->in[c] + at, acc + at, seg_len(p, s),
				    p->dt, p->op);
		}
		if (rc == OMPI_SUCCESS && p->parent >= 0) {
			rc = MCA_PML_CALL(isend(acc + at, seg_len(p, s), p->dt, p->parent,
			    MCA_COLL_BASE_TAG_REDUCE, MCA_PML_BASE_SEND_STANDARD, comm, &p->send[s]));
			if (rc == OMPI_SUCCESS)
				nsent++;
		}
	}
	int wrc = nsent > 0 ? ompi_request_wait_all((size_t)nsent, p->send, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* Whether this call takes the pipelined path: the same answer on every rank. */
int
mca_coll_qcg_reduce_pipelined(const mca_coll_qcg_module_t *m, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
	size_t tsize;
	ompi_datatype_type_size(dtype, &tsize);
	size_t segsize = (size_t)mca_coll_qcg_component.bcast_segsize;
	/* A rank has at most n - 1 children, each with a whole-vector buffer. */
	return segsize > 0 && tsize * (size_t)count > segsize && mca_coll_qcg_op_commutative(op) &&
	    mca_coll_qcg_tmp_allowed((size_t)m->layout.n * mca_coll_qcg_span(dtype, count));
}

/* acc holds this rank's contribution; on return the root's acc holds the result. */
int
mca_coll_qcg_reduce_pipe(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	size_t tsize;
	ptrdiff_t lb;
	ompi_datatype_type_size(dtype, &tsize);
	struct rpipe p = { .dt = dtype, .op = op, .count = count };
	ompi_datatype_get_extent(dtype, &lb, &p.extent);
	p.seg = (int)((size_t)mca_coll_qcg_component.bcast_segsize / (tsize > 0 ? tsize : 1));
	if (p.seg <= 0 || p.seg > count)
		p.seg = count;
	if ((count + p.seg - 1) / p.seg > QCG_REDUCE_MAX_SEGMENTS)
		p.seg = (count + QCG_REDUCE_MAX_SEGMENTS - 1) / QCG_REDUCE_MAX_SEGMENTS;
	p.nseg = (count + p.seg - 1) / p.seg;
	int n = m->layout.n, rc = OMPI_ERR_OUT_OF_RESOURCE;
	p.child = malloc((size_t)n * sizeof(int));
	p.base = calloc((size_t)n, sizeof(char *));
	p.in = calloc((size_t)n, sizeof(void *));
	if (p.child == NULL || p.base == NULL || p.in == NULL)
		goto out;
	rc = mca_coll_qcg_bcast_tree(m, root, 0, &p.parent, p.child, &p.n);
	p.recv = malloc(((size_t)p.n * (size_t)p.nseg + 1) * sizeof(*p.recv));
	p.send = malloc((size_t)p.nseg * sizeof(*p.send));
	if (rc == OMPI_SUCCESS && (p.recv == NULL || p.send == NULL))
		rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (rc == OMPI_SUCCESS)
		rc = post_receives(&p, comm);
	if (rc == OMPI_SUCCESS)
		rc = fold_and_forward(&p, (char *)acc, comm);
out:
	for (int c = 0; p.base != NULL && c < n; c++)
		free(p.base[c]);
	free(p.base);
	free(p.in);
	free(p.child);
	free(p.recv);
	free(p.send);
	return rc;
}
