/*
 * coll_qcg_allgatherv.c: allgather with per-rank counts, on the allgather's schedule: gatherv
 * on each hidden cluster communicator, cluster masters -> site master (LAN), one WAN exchange of
 * whole site ranges between site masters, then each site master's pipelined multilevel bcast
 * inside its site (coll_qcg_bcast.c, from level 1). Every rank knows every count (MPI requires
 * the same recvcounts everywhere), so every rank computes the same byte offsets: blocks travel
 * packed in dfs order (site, cluster, rank), variable in size, and are put at their places with
 * the user's type only at the end.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

/* Byte offsets of every dfs position's block: off[p] .. off[p+1]. Returns the total. */
static size_t
block_offsets(const struct qcg_topo_layout *lay, const int *rcounts, size_t tsize, size_t *off)
{
	off[0] = 0;
	for (int p = 0; p < lay->n; p++) {
		int c = rcounts[lay->dfs[p]];
		off[p + 1] = off[p] + (c > 0 ? (size_t)c * tsize : 0);
	}
	return off[lay->n];
}

/* Gatherv of our cluster's blocks to its master (cluster comm rank 0), at their offsets. */
static int
gather_cluster(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, char *full,
    const size_t *off, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int C = lay->unit[1][m->rank], first = lay->dfs_start[1][C], k = lay->usize[1][C];
	int *counts = malloc((size_t)k * sizeof(int)), *displs = malloc((size_t)k * sizeof(int));
	int rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (counts != NULL && displs != NULL) {
		for (int i = 0; i < k; i++) {
			counts[i] = (int)(off[first + i + 1] - off[first + i]);
			displs[i] = (int)(off[first + i] - off[first]);
		}
		ompi_communicator_t *cl = m->cluster_comm;
		rc = cl->c_coll->coll_gatherv(sbuf, scount, sdtype, full + off[first], counts, displs,
		    MPI_BYTE, 0, cl, cl->c_coll->coll_gatherv_module);
	}
	free(counts);
	free(displs);
	return rc;
}

/* Send (or receive) the byte range of dfs positions [first, first + k) to (from) peer. */
static int
move_range(int sending, char *full, const size_t *off, int first, int k, int peer, int tag,
    ompi_request_t **req, struct ompi_communicator_t *comm)
{
	char *at = full + off[first];
	int len = (int)(off[first + k] - off[first]);
	return sending ? MCA_PML_CALL(isend(at, len, MPI_BYTE, peer, tag,
	    MCA_PML_BASE_SEND_STANDARD, comm, req)) :
	    MCA_PML_CALL(irecv(at, len, MPI_BYTE, peer, tag, comm, req));
}

/* The cluster masters of our site send their ranges to the site master. */
static int
site_step(char *full, const size_t *off, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	const int tag = MCA_COLL_BASE_TAG_ALLGATHERV;
	int S = lay->unit[0][m->rank], sm = lay->master[0][S], me = m->rank;
	int k = qcg_topo_nchildren(lay, 1, S), nr = 0, rc = OMPI_SUCCESS;
	ompi_request_t **reqs = malloc((size_t)(k > 0 ? k : 1) * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int i = 0; i < k && rc == OMPI_SUCCESS; i++) {
		int C = lay->child_list[1][lay->child_start[1][S] + i], cm = lay->master[1][C];
		if (cm == sm || (me != sm && me != cm))
			continue;
		rc = move_range(me != sm, full, off, lay->dfs_start[1][C], lay->usize[1][C],
		    me == sm ? cm : sm, tag, &reqs[nr], comm);
		if (rc == OMPI_SUCCESS)
			nr++;
	}
	int wrc = nr > 0 ? ompi_request_wait_all((size_t)nr, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* Site masters: exchange whole site ranges over the WAN (one message per pair and way). */
static int
wan_step(char *full, const size_t *off, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int ns = lay->nunits[0], mi, si;
	size_t *offset = malloc((size_t)ns * sizeof(size_t));
	int *len = malloc((size_t)ns * sizeof(int)), rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (offset != NULL && len != NULL) {
		for (int s = 0; s < ns; s++) {
			int first = lay->dfs_start[0][s];
			offset[s] = off[first];
			len[s] = (int)(off[first + lay->usize[0][s]] - off[first]);
		}
		int k = mca_coll_qcg_holders(m, 0, 0, -1, m->holders, &mi, &si);
		rc = mca_coll_qcg_exchange_bytes(full, offset, len, m->holders, k, mi,
		    MCA_COLL_BASE_TAG_ALLGATHERV, comm);
	}
	free(offset);
	free(len);
	return rc;
}

/* Put every block at its rank's place in rbuf with the user's type. */
static int
unpack_all(const char *full, const size_t *off, void *rbuf, const int *rcounts,
    const int *displs, struct ompi_datatype_t *rdtype, const struct qcg_topo_layout *lay)
{
	ptrdiff_t lb, rext;
	ompi_datatype_get_extent(rdtype, &lb, &rext);
	for (int p = 0; p < lay->n; p++) {
		int r = lay->dfs[p];
		if (rcounts[r] <= 0)
			continue;
		int rc = ompi_datatype_sndrcv((char *)full + off[p], (int)(off[p + 1] - off[p]),
		    MPI_PACKED, (char *)rbuf + (ptrdiff_t)displs[r] * rext, rcounts[r], rdtype);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

/* The schedule once offsets are known. */
static int
allgatherv_levels(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, char *full,
    const size_t *off, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, C = lay->unit[1][me];
	int cm = lay->master[1][C] == me, sm = lay->master[0][lay->unit[0][me]] == me;
	int rc = gather_cluster(sbuf, scount, sdtype, full, off, m);
	if (rc == OMPI_SUCCESS && cm)
		rc = site_step(full, off, comm, m);
	if (rc == OMPI_SUCCESS && sm)
		rc = wan_step(full, off, comm, m);
	if (rc == OMPI_SUCCESS) /* site masters (root -1) to their sites, from level 1 down */
		rc = mca_coll_qcg_bcast_levels(full, (int)off[lay->n], MPI_BYTE, -1, 1, comm, m);
	return rc;
}

int
mca_coll_qcg_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, const int *rcounts, const int *displs, struct ompi_datatype_t *rdtype,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	size_t tsize;
	ompi_datatype_type_size(rdtype, &tsize);
	size_t *off = malloc(((size_t)lay->n + 1) * sizeof(size_t));
	if (off == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	size_t total = block_offsets(lay, rcounts, tsize, off); /* equal on all ranks */
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_ALLGATHERV, total / (size_t)lay->n) ||
	    total > INT_MAX || !mca_coll_qcg_tmp_allowed(total)) {
		free(off);
		return m->previous_allgatherv(sbuf, scount, sdtype, rbuf, rcounts, displs, rdtype,
		    comm, m->previous_allgatherv_module);
	}
	int rc = total == 0 ? OMPI_SUCCESS : mca_coll_qcg_subcomms_ensure(comm, m);
	char *full = total > 0 && rc == OMPI_SUCCESS ? malloc(total) : NULL;
	if (total > 0 && rc == OMPI_SUCCESS && full == NULL)
		rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (total > 0 && rc == OMPI_SUCCESS) {
		if (sbuf == MPI_IN_PLACE) { /* our block is at its place in rbuf */
			ptrdiff_t lb, rext;
			ompi_datatype_get_extent(rdtype, &lb, &rext);
			sbuf = (char *)rbuf + (ptrdiff_t)displs[m->rank] * rext;
			scount = rcounts[m->rank], sdtype = rdtype;
		}
		rc = allgatherv_levels(sbuf, scount, sdtype, full, off, comm, m);
		if (rc == OMPI_SUCCESS)
			rc = unpack_all(full, off, rbuf, rcounts, displs, rdtype, lay);
	}
	free(full);
	free(off);
	return rc;
}
