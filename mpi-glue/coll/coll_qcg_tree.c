/*
 * coll_qcg_tree.c: temporary buffers and the point-to-point steps between the holders of the
 * units of one level (MPICH-G2's "masters"), on the parent communicator with the coll tags.
 *
 * A step works on a list of k holders (comm ranks) in unit order. Trees are described by
 * virtual ranks v = (index - tree_root + k) % k and are k-nomial of some radix: flat (radix k:
 * the root's children are all others), binomial (radix 2) or k-nomial (coll_qcg_knomial_radix).
 * The parent clears v's lowest non-zero base-radix digit; the children are v + j radix^i below
 * that digit. The subtrees of v's children, taken in increasing order, cover increasing index
 * ranges, which is what keeps non-commutative reductions in rank order when the tree root is
 * index 0.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

size_t
mca_coll_qcg_span(struct ompi_datatype_t *dtype, int count)
{
	ptrdiff_t lb, extent, true_lb, true_extent;
	if (count <= 0)
		return 0;
	ompi_datatype_get_extent(dtype, &lb, &extent);
	ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
	return (size_t)true_extent + (size_t)(count - 1) * (size_t)extent;
}

int
mca_coll_qcg_tmp_allowed(size_t bytes)
{
	return bytes <= ((size_t)mca_coll_qcg_component.tmp_max_mb << 20);
}

/*
 * A buffer for count elements of dtype; returns the pointer to pass as the buffer (shifted by
 * the type's true lower bound) and sets *base to what free() takes. NULL if out of memory.
 */
void *
mca_coll_qcg_tmp_alloc(struct ompi_datatype_t *dtype, int count, char **base)
{
	ptrdiff_t true_lb, true_extent;
	ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
	size_t span = mca_coll_qcg_span(dtype, count);
	*base = malloc(span > 0 ? span : 1);
	if (*base == NULL)
		return NULL;
	return *base - true_lb;
}

int
mca_coll_qcg_op_commutative(struct ompi_op_t *op)
{
	int commute = 0;
	PMPI_Op_commutative(op, &commute);
	return commute;
}

/*
 * The holders of the level-l children of level-(l-1) unit U, in unit order, into m->holders.
 * *my_index is our index (-1 if we hold none), *src_index that of U's own holder. Returns k.
 */
int
mca_coll_qcg_holders(const mca_coll_qcg_module_t *m, int l, int U, int root, int *list,
    int *my_index, int *src_index)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int k = qcg_topo_nchildren(lay, l, U);
	int src = qcg_topo_holder(lay, l - 1, U, root);
	*my_index = *src_index = -1;
	for (int i = 0; i < k; i++) {
		int V = lay->child_list[l][lay->child_start[l][U] + i];
		list[i] = qcg_topo_holder(lay, l, V, root);
		if (list[i] == m->rank)
			*my_index = i;
		if (list[i] == src)
			*src_index = i;
	}
	return k;
}

/* The radix of alg's tree: flat is one level of everyone, binomial radix 2. */
static int
tree_radix(int alg, int k)
{
	if (alg == QCG_TREE_FLAT)
		return k > 2 ? k : 2;
	if (alg == QCG_TREE_KNOMIAL)
		return mca_coll_qcg_component.knomial_radix;
	return 2;
}

/* Parent virtual rank of v in a k-nomial tree (flat and binomial are k-nomial trees), or -1
 * for the tree root: v with its lowest non-zero base-radix digit cleared. */
static int
tree_parent_k(int v, int radix)
{
	if (v == 0)
		return -1;
	int unit = 1;
	while ((v / unit) % radix == 0)
		unit *= radix;
	return v - ((v / unit) % radix) * unit;
}

/* Children of v in increasing order: v + j * radix^i for every digit i below v's lowest
 * non-zero digit and j = 1 .. radix-1, within k. Their subtrees cover increasing ranges. */
static int
tree_children_k(int v, int k, int radix, int *out)
{
	int n = 0;
	for (long unit = 1; unit < k; unit *= radix) {
		if (v != 0 && (v / unit) % radix != 0)
			break;
		for (int j = 1; j < radix && v + j * unit < k; j++)
			out[n++] = v + j * (int)unit;
	}
	return n;
}

static int
tree_parent(int v, int k, int alg)
{
	return tree_parent_k(v, tree_radix(alg, k));
}

static int
tree_children(int v, int k, int alg, int *out)
{
	return tree_children_k(v, k, tree_radix(alg, k), out);
}

int
mca_coll_qcg_tree_bcast(void *buf, int count, struct ompi_datatype_t *dtype, const int *list,
    int k, int me, int src, int alg, int tag, struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	int v = (me - src + k) % k, rc = OMPI_SUCCESS;
	int parent = tree_parent(v, k, alg);
	if (parent >= 0) {
		rc = MCA_PML_CALL(recv(buf, count, dtype, list[(parent + src) % k], tag, comm,
		    MPI_STATUS_IGNORE));
		if (rc != OMPI_SUCCESS)
			return rc;
	}
	int *child = malloc((size_t)k * sizeof(int));
	ompi_request_t **reqs = malloc((size_t)k * sizeof(*reqs));
	if (child == NULL || reqs == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
	int nc = tree_children(v, k, alg, child);
	for (int i = nc - 1; i >= 0; i--) { /* largest subtree first */
		rc = MCA_PML_CALL(isend(buf, count, dtype, list[(child[i] + src) % k], tag,
		    MCA_PML_BASE_SEND_STANDARD, comm, &reqs[nc - 1 - i]));
		if (rc != OMPI_SUCCESS) {
			nc = nc - 1 - i; /* wait for those already posted */
			break;
		}
	}
	int wrc = nc > 0 ? ompi_request_wait_all((size_t)nc, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	if (rc == OMPI_SUCCESS)
		rc = wrc;
out:
	free(child);
	free(reqs);
	return rc;
}

/* acc = acc (op) in, keeping acc first: MPI_Reduce_local computes inout = in (op) inout. */
static int
combine_after(void *acc, void *in, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int commute)
{
	int rc = PMPI_Reduce_local(commute ? in : acc, commute ? acc : in, count, dtype, op);
	if (rc != MPI_SUCCESS || commute)
		return rc;
	return ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, (char *)acc, (char *)in);
}

/* Receive the partial results of our tree children and fold them into acc, in child order. */
static int
reduce_children(void *acc, int count, struct ompi_datatype_t *dtype, struct ompi_op_t *op,
    const int *list, int k, int v, int tr, int alg, int tag, struct ompi_communicator_t *comm)
{
	int commute = mca_coll_qcg_op_commutative(op), rc = OMPI_SUCCESS;
	int *child = malloc((size_t)k * sizeof(int));
	if (child == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int nc = tree_children(v, k, alg, child);
	/* All children at once when memory allows (their transfers then overlap), else one by one. */
	size_t span = mca_coll_qcg_span(dtype, count);
	int window = mca_coll_qcg_tmp_allowed((size_t)nc * span) ? nc : 1;
	char **base = calloc((size_t)(nc > 0 ? nc : 1), sizeof(char *));
	void **tmp = calloc((size_t)(nc > 0 ? nc : 1), sizeof(void *));
	ompi_request_t **reqs = calloc((size_t)(nc > 0 ? nc : 1), sizeof(*reqs));
	if (base == NULL || tmp == NULL || reqs == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
	for (int first = 0; first < nc && rc == OMPI_SUCCESS; first += window) {
		int last = first + window < nc ? first + window : nc;
		for (int i = first; i < last && rc == OMPI_SUCCESS; i++) {
			int j = i - first;
			if (tmp[j] == NULL && (tmp[j] = mca_coll_qcg_tmp_alloc(dtype, count,
			    &base[j])) == NULL) {
				rc = OMPI_ERR_OUT_OF_RESOURCE;
				break;
			}
			rc = MCA_PML_CALL(irecv(tmp[j], count, dtype, list[(child[i] + tr) % k],
			    tag, comm, &reqs[j]));
		}
		if (rc != OMPI_SUCCESS)
			break;
		rc = ompi_request_wait_all((size_t)(last - first), reqs, MPI_STATUSES_IGNORE);
		for (int i = first; i < last && rc == OMPI_SUCCESS; i++)
			rc = combine_after(acc, tmp[i - first], count, dtype, op, commute);
	}
out:
	for (int j = 0; base != NULL && j < nc; j++)
		free(base[j]);
	free(base);
	free(tmp);
	free(reqs);
	free(child);
	return rc;
}

int
mca_coll_qcg_tree_reduce(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, const int *list, int k, int me, int dst, int alg, int tag,
    struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	/* Non-commutative: the tree is rooted at index 0 so that subtrees are in order; its
	 * result then moves to the destination in one more message. */
	int tr = mca_coll_qcg_op_commutative(op) ? dst : 0;
	int v = (me - tr + k) % k;
	int rc = reduce_children(acc, count, dtype, op, list, k, v, tr, alg, tag, comm);
	if (rc != OMPI_SUCCESS)
		return rc;
	int parent = tree_parent(v, k, alg);
	if (parent >= 0)
		rc = MCA_PML_CALL(send(acc, count, dtype, list[(parent + tr) % k], tag,
		    MCA_PML_BASE_SEND_STANDARD, comm));
	if (rc != OMPI_SUCCESS || tr == dst)
		return rc;
	if (me == tr)
		return MCA_PML_CALL(send(acc, count, dtype, list[dst], tag,
		    MCA_PML_BASE_SEND_STANDARD, comm));
	if (me == dst)
		return MCA_PML_CALL(recv(acc, count, dtype, list[tr], tag, comm, MPI_STATUS_IGNORE));
	return OMPI_SUCCESS;
}

int
mca_coll_qcg_tree_fanin(const int *list, int k, int me, int dst, int alg, int tag,
    struct ompi_communicator_t *comm)
{
	if (k <= 1)
		return OMPI_SUCCESS;
	int v = (me - dst + k) % k, rc = OMPI_SUCCESS;
	int *child = malloc((size_t)k * sizeof(int));
	if (child == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int nc = tree_children(v, k, alg, child);
	for (int i = 0; i < nc && rc == OMPI_SUCCESS; i++)
		rc = MCA_PML_CALL(recv(NULL, 0, MPI_BYTE, list[(child[i] + dst) % k], tag, comm,
		    MPI_STATUS_IGNORE));
	free(child);
	int parent = tree_parent(v, k, alg);
	if (rc == OMPI_SUCCESS && parent >= 0)
		rc = MCA_PML_CALL(send(NULL, 0, MPI_BYTE, list[(parent + dst) % k], tag,
		    MCA_PML_BASE_SEND_STANDARD, comm));
	return rc;
}

/*
 * The neighbours of list index me in a tree over k indexes rooted at src: *parent gets the
 * parent's index (-1 at the root), child[] the children's indexes, largest subtree first (the
 * order to send in). Returns the number of children.
 */
int
mca_coll_qcg_tree_links(int k, int me, int src, int alg, int *parent, int *child)
{
	int v = (me - src + k) % k, nc;
	int p = tree_parent(v, k, alg);
	*parent = p < 0 ? -1 : (p + src) % k;
	nc = tree_children(v, k, alg, child);
	for (int i = 0; i < nc / 2; i++) { /* increasing order -> largest subtree first */
		int t = child[i];
		child[i] = child[nc - 1 - i];
		child[nc - 1 - i] = t;
	}
	for (int i = 0; i < nc; i++)
		child[i] = (child[i] + src) % k;
	return nc;
}
