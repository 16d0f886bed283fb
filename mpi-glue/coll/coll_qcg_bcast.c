/*
 * coll_qcg_bcast.c: multilevel broadcast (MPICH-G2): the root reaches one holder per site over
 * the WAN, each site holder one holder per cluster, each cluster holder one holder per node,
 * then every node broadcasts on its hidden node communicator. The root holds every unit it is
 * in, so no unit waits for data to come back to it.
 *
 * The data travels as packed bytes: MPI lets every rank describe its buffer with its own
 * datatype (only the type signature must match), so element counts may differ between ranks
 * but the byte count does not, and segments cut in bytes line up everywhere. Contiguous
 * buffers are used in place; others are packed at the root and unpacked at the end. Large
 * messages go in segments, so that lower levels forward one while the WAN carries the next.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

int
mca_coll_qcg_bcast_levels(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    int from_level, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, rc;
	for (int l = from_level; l < QCG_TOPO_LEVELS; l++) {
		if (qcg_topo_holder(lay, l, lay->unit[l][me], root) != me)
			continue; /* not holding this level's unit: we get the data further down */
		int mi, si, U = qcg_topo_parent_of_rank(lay, l, me);
		int k = mca_coll_qcg_holders(m, l, U, root, m->holders, &mi, &si);
		rc = mca_coll_qcg_tree_bcast(buf, count, dtype, m->holders, k, mi, si,
		    mca_coll_qcg_component.level_alg[l], MCA_COLL_BASE_TAG_BCAST, comm);
		if (rc != OMPI_SUCCESS)
			return rc;
	}
	ompi_communicator_t *node = m->node_comm;
	int node_root = lay->pos[2][qcg_topo_holder(lay, 2, lay->unit[2][me], root)];
	return node->c_coll->coll_bcast(buf, count, dtype, node_root, node,
	    node->c_coll->coll_bcast_module);
}

/* Broadcast nbytes packed bytes at bytes[], segment by segment. */
static int
bcast_bytes(char *bytes, size_t nbytes, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	size_t seg = (size_t)mca_coll_qcg_component.bcast_segsize;
	if (seg == 0 || seg > nbytes)
		seg = nbytes;
	int rc = OMPI_SUCCESS;
	for (size_t done = 0; done < nbytes && rc == OMPI_SUCCESS; done += seg) {
		size_t n = nbytes - done < seg ? nbytes - done : seg;
		rc = mca_coll_qcg_bcast_levels(bytes + done, (int)n, MPI_BYTE, root, 0, comm, m);
	}
	return rc;
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
	if (m->in_setup || nbytes > INT_MAX || !mca_coll_qcg_tmp_allowed(nbytes))
		return m->previous_bcast(buf, count, dtype, root, comm, m->previous_bcast_module);
	if (nbytes == 0)
		return OMPI_SUCCESS;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
		ptrdiff_t true_lb, true_extent;
		ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
		return bcast_bytes((char *)buf + true_lb, nbytes, root, comm, m);
	}
	char *bytes = malloc(nbytes);
	if (bytes == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	if (m->rank == root)
		rc = ompi_datatype_sndrcv(buf, count, dtype, bytes, (int)nbytes, MPI_PACKED);
	if (rc == OMPI_SUCCESS)
		rc = bcast_bytes(bytes, nbytes, root, comm, m);
	if (rc == OMPI_SUCCESS && m->rank != root)
		rc = ompi_datatype_sndrcv(bytes, (int)nbytes, MPI_PACKED, buf, count, dtype);
	free(bytes);
	return rc;
}
