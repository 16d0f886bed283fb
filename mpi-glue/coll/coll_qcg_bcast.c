/*
 * coll_qcg_bcast.c: multilevel broadcast (MPICH-G2) as one pipelined tree.
 *
 * The tree is the union of one tree per level: the root reaches one holder per site (level 0,
 * flat by default: one WAN latency, the postal model), each site holder one holder per cluster
 * (level 1), each cluster holder one holder per node (level 2, binomial), each node holder the
 * other members of its node (binomial). A rank receives at exactly one level (the one where it
 * first holds a unit other than its parent's) and sends at that level and every level below.
 *
 * Pipelining: the message is cut into segments (coll_qcg_bcast_segsize bytes); a rank posts the
 * receives of all segments at once, and forwards each segment to all its children as soon as it
 * has it, without waiting for the rest. So the WAN carries segment s+1 while the LAN and the
 * node forward segment s, and no hop waits for a whole message, nor for a rendezvous round
 * trip per segment (the receives are already posted when the sends arrive).
 *
 * The data travels as packed bytes: MPI lets every rank describe its buffer with its own
 * datatype (only the type signature must match), so element counts may differ between ranks
 * but the byte count does not, and segments cut in bytes line up everywhere. Contiguous
 * buffers are used in place; others are packed at the root and unpacked at the end.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"
#include "coll_qcg_mcast.h"

#define QCG_BCAST_MAX_SEGMENTS 1024 /* bounds the requests one call posts */

/* Our parent and children (comm ranks) in the broadcast tree, children in sending order. */
struct links {
	int parent;
	int n;
	int *child; /* up to lay->n entries */
};

/* The members of our node in rank order into list; returns how many. */
static int
node_members(const struct qcg_topo_layout *lay, int me, int *list)
{
	int k = 0, node = lay->unit[2][me];
	for (int r = 0; r < lay->n; r++)
		if (lay->unit[2][r] == node)
			list[k++] = r;
	return k;
}

/* Our links in the tree from level from_level down (root < 0: every unit's master holds it). */
static int
bcast_links(const mca_coll_qcg_module_t *m, int root, int from_level, struct links *L)
{
	return mca_coll_qcg_bcast_tree(m, root, from_level, &L->parent, L->child, &L->n);
}

int
mca_coll_qcg_bcast_tree(const mca_coll_qcg_module_t *m, int root, int from_level, int *parent,
    int *child, int *nchild)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, *idx = malloc((size_t)lay->n * sizeof(int));
	int *list = malloc((size_t)lay->n * sizeof(int));
	if (idx == NULL || list == NULL) {
		free(idx);
		free(list);
		return OMPI_ERR_OUT_OF_RESOURCE;
	}
	*parent = -1, *nchild = 0;
	for (int l = from_level; l <= QCG_TOPO_LEVELS; l++) {
		int k, mi, si, alg, p;
		if (l < QCG_TOPO_LEVELS) {
			if (qcg_topo_holder(lay, l, lay->unit[l][me], root) != me)
				continue; /* not holding this level's unit: we get the data further down */
			k = mca_coll_qcg_holders(m, l, qcg_topo_parent_of_rank(lay, l, me), root, list,
			    &mi, &si);
			alg = mca_coll_qcg_component.level_alg[l];
		} else { /* the node's members, from the node's holder */
			k = node_members(lay, me, list);
			mi = lay->pos[2][me];
			si = lay->pos[2][qcg_topo_holder(lay, 2, lay->unit[2][me], root)];
			alg = QCG_TREE_BINOMIAL;
		}
		if (k <= 1)
			continue;
		int nc = mca_coll_qcg_tree_links(k, mi, si, alg, &p, idx);
		if (p >= 0)
			*parent = list[p];
		for (int i = 0; i < nc; i++)
			child[(*nchild)++] = list[idx[i]];
	}
	free(idx);
	free(list);
	return OMPI_SUCCESS;
}

/* Receive (unless the source) and forward count elements, segment by segment. */
static int
bcast_pipeline(char *buf, int count, struct ompi_datatype_t *dtype, const struct links *L,
    struct ompi_communicator_t *comm)
{
	const int tag = MCA_COLL_BASE_TAG_BCAST;
	size_t tsize;
	ptrdiff_t lb, extent;
	ompi_datatype_type_size(dtype, &tsize);
	ompi_datatype_get_extent(dtype, &lb, &extent);
	size_t seg = (size_t)mca_coll_qcg_component.bcast_segsize / (tsize > 0 ? tsize : 1);
	if (seg == 0 || seg >= (size_t)count)
		seg = (size_t)count;
	if (((size_t)count + seg - 1) / seg > QCG_BCAST_MAX_SEGMENTS)
		seg = ((size_t)count + QCG_BCAST_MAX_SEGMENTS - 1) / QCG_BCAST_MAX_SEGMENTS;
	int nseg = (int)(((size_t)count + seg - 1) / seg), nr = 0, rc = OMPI_SUCCESS;
	ompi_request_t **recv = malloc((size_t)nseg * sizeof(*recv));
	ompi_request_t **send = malloc(((size_t)nseg * (size_t)L->n + 1) * sizeof(*send));
	if (recv == NULL || send == NULL) {
		free(recv);
		free(send);
		return OMPI_ERR_OUT_OF_RESOURCE;
	}
	for (int s = 0; L->parent >= 0 && s < nseg && rc == OMPI_SUCCESS; s++) {
		size_t first = (size_t)s * seg, n = (size_t)count - first < seg ? count - first : seg;
		rc = MCA_PML_CALL(irecv(buf + (ptrdiff_t)first * extent, (int)n, dtype, L->parent,
		    tag, comm, &recv[s]));
		if (rc != OMPI_SUCCESS)
			nseg = s; /* stop here; what was posted is waited for below */
	}
	for (int s = 0; s < nseg; s++) {
		size_t first = (size_t)s * seg, n = (size_t)count - first < seg ? count - first : seg;
		if (L->parent >= 0) {
			int wrc = ompi_request_wait(&recv[s], MPI_STATUS_IGNORE);
			if (rc == OMPI_SUCCESS)
				rc = wrc;
		}
		for (int c = 0; c < L->n && rc == OMPI_SUCCESS; c++) {
			rc = MCA_PML_CALL(isend(buf + (ptrdiff_t)first * extent, (int)n, dtype,
			    L->child[c], tag, MCA_PML_BASE_SEND_STANDARD, comm, &send[nr]));
			if (rc == OMPI_SUCCESS)
				nr++;
		}
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, send, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	free(recv);
	free(send);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

int
mca_coll_qcg_bcast_levels(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    int from_level, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	if (count <= 0)
		return OMPI_SUCCESS;
	struct links L = { -1, 0, malloc((size_t)m->layout.n * sizeof(int)) };
	if (L.child == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int rc = bcast_links(m, root, from_level, &L);
	if (rc == OMPI_SUCCESS)
		rc = bcast_pipeline((char *)buf, count, dtype, &L, comm);
	free(L.child);
	return rc;
}

/* Packed bytes from root: the multicast broadcast where it applies (its size range), else the
 * pipelined tree. */
static int
bcast_bytes(char *bytes, int nbytes, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	if (mca_coll_qcg_mcast_wanted(m, (size_t)nbytes))
		return mca_coll_qcg_mcast_bcast(bytes, nbytes, root, comm, m);
	return mca_coll_qcg_bcast_levels(bytes, nbytes, MPI_BYTE, root, 0, comm, m);
}

int
mca_coll_qcg_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	size_t type_size;
	ompi_datatype_type_size(dtype, &type_size);
	size_t nbytes = type_size * (size_t)(count > 0 ? count : 0);
	/* The byte count is the same on every rank, so these choices agree everywhere. */
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_BCAST, nbytes) || nbytes > INT_MAX ||
	    !mca_coll_qcg_tmp_allowed(nbytes))
		return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
	if (nbytes == 0)
		return OMPI_SUCCESS;
	if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
		ptrdiff_t true_lb, true_extent;
		ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
		return bcast_bytes((char *)buf + true_lb, (int)nbytes, root, comm, m);
	}
	char *bytes = malloc(nbytes);
	if (bytes == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int rc = OMPI_SUCCESS;
	if (m->rank == root)
		rc = ompi_datatype_sndrcv(buf, count, dtype, bytes, (int)nbytes, MPI_PACKED);
	if (rc == OMPI_SUCCESS)
		rc = bcast_bytes(bytes, (int)nbytes, root, comm, m);
	if (rc == OMPI_SUCCESS && m->rank != root)
		rc = ompi_datatype_sndrcv(bytes, (int)nbytes, MPI_PACKED, buf, count, dtype);
	free(bytes);
	return rc;
}
