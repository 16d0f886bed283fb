/*
 * coll_qcg_allgather_seg.c: allgather for large blocks as one stream of segments (issue 20;
 * the candidate "segmented" of coll_qcg_decision.c).
 *
 * The multilevel allgather runs three stages one after the other: the site gathers at its
 * master, the site masters exchange, the master broadcasts the whole result down. Here the
 * three overlap. Every rank's block is cut into pieces of coll_qcg_bcast_segsize bytes (under
 * the eager limit: no rendezvous round trip on the WAN):
 *
 *   - every rank sends its block to its site master (inside the site: one message);
 *   - the site master sends each piece of its site's blocks to every other site master as soon
 *     as the block is there (all S-1 streams at once), and receives theirs, posted up front;
 *   - every piece the master holds goes down the site's tree (coll_qcg_bcast_tree from level 1)
 *     at once, in one order every rank of the site derives alike: first the site's own blocks,
 *     then the other sites' pieces round robin over the sites, the order in which the WAN
 *     streams deliver them. So the site's broadcast of piece i overlaps the WAN's piece i+1.
 *
 * The result lands in `full`, blocks in (site, cluster, rank) order, B bytes each, as in
 * coll_qcg_allgather.c, which unpacks it to the user's buffer where needed.
 */
#include "config.h"

#include <stdlib.h>

#include "coll_qcg.h"

#define TAG MCA_COLL_BASE_TAG_ALLGATHER

struct piece {
	size_t at, len; /* bytes in full */
	int block;      /* dfs index of the block it belongs to */
};

struct agrun {
	struct ompi_communicator_t *comm;
	const struct qcg_topo_layout *lay;
	char *full;
	size_t B, C; /* block bytes, piece bytes */
	int ppb;     /* pieces per block */
	int site, nsites, master, parent, nchild, *child;
	int npieces;
	struct piece *order; /* the site's stream order */
	ompi_request_t **sends;
	int nsends;
};

/* Piece p (0..ppb-1) of the block at dfs index d. */
static struct piece
piece_of(const struct agrun *a, int d, int p)
{
	struct piece x = { .at = (size_t)d * a->B + (size_t)p * a->C, .block = d };
	x.len = a->B - (size_t)p * a->C < a->C ? a->B - (size_t)p * a->C : a->C;
	return x;
}

/* Our site's blocks first, then the other sites' pieces round robin (piece k of each site's
 * sequence of (block, piece) in turn): the order every rank of the site walks. */
static int
make_order(struct agrun *a)
{
	const struct qcg_topo_layout *lay = a->lay;
	a->order = malloc(((size_t)lay->n * (size_t)a->ppb + 1) * sizeof(*a->order));
	if (a->order == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int first = lay->dfs_start[0][a->site], most = 0;
	a->npieces = 0;
	for (int d = first; d < first + lay->usize[0][a->site]; d++)
		for (int p = 0; p < a->ppb; p++)
			a->order[a->npieces++] = piece_of(a, d, p);
	for (int s = 0; s < a->nsites; s++)
		most = lay->usize[0][s] > most ? lay->usize[0][s] : most;
	for (int k = 0; k < most * a->ppb; k++)
		for (int t = 1; t < a->nsites; t++) {
			int s = (a->site + t) % a->nsites;
			if (k < lay->usize[0][s] * a->ppb)
				a->order[a->npieces++] = piece_of(a, lay->dfs_start[0][s] + k / a->ppb,
				    k % a->ppb);
		}
	return OMPI_SUCCESS;
}

static int
xfer(struct agrun *a, int sending, const struct piece *x, int peer, ompi_request_t **req)
{
	char *buf = a->full + x->at;
	return sending ? MCA_PML_CALL(isend(buf, (int)x->len, MPI_BYTE, peer, TAG,
	    MCA_PML_BASE_SEND_STANDARD, a->comm, req)) :
	    MCA_PML_CALL(irecv(buf, (int)x->len, MPI_BYTE, peer, TAG, a->comm, req));
}

/* The stream: wait for each piece in order (recv[i], or NULL where we already hold it) and
 * pass it on to our children, and (site_out) our own site's pieces to every other master. */
static int
stream(struct agrun *a, ompi_request_t **recv, ompi_request_t **block_recv, int site_out)
{
	int rc = OMPI_SUCCESS, own = a->lay->usize[0][a->site] * a->ppb;
	for (int i = 0; i < a->npieces && rc == OMPI_SUCCESS; i++) {
		const struct piece *x = &a->order[i];
		if (recv[i] != MPI_REQUEST_NULL)
			rc = ompi_request_wait(&recv[i], MPI_STATUS_IGNORE);
		if (rc == OMPI_SUCCESS && block_recv != NULL && i < own &&
		    block_recv[i / a->ppb] != MPI_REQUEST_NULL)
			rc = ompi_request_wait(&block_recv[i / a->ppb], MPI_STATUS_IGNORE);
		for (int s = 0; site_out && i < own && s < a->nsites && rc == OMPI_SUCCESS; s++)
			if (s != a->site)
				rc = xfer(a, 1, x, a->lay->master[0][s], &a->sends[a->nsends++]);
		for (int c = 0; c < a->nchild && rc == OMPI_SUCCESS; c++)
			rc = xfer(a, 1, x, a->child[c], &a->sends[a->nsends++]);
	}
	return rc;
}

/* The site master: its site's blocks come in whole, the other sites' pieces from their masters. */
static int
run_master(struct agrun *a, ompi_request_t **recv)
{
	const struct qcg_topo_layout *lay = a->lay;
	int k = lay->usize[0][a->site], first = lay->dfs_start[0][a->site], rc = OMPI_SUCCESS;
	ompi_request_t **block_recv = malloc((size_t)k * sizeof(*block_recv));
	if (block_recv == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int j = 0; j < k; j++) {
		int r = lay->dfs[first + j];
		block_recv[j] = MPI_REQUEST_NULL;
		if (r != a->master && rc == OMPI_SUCCESS)
			rc = MCA_PML_CALL(irecv(a->full + (size_t)(first + j) * a->B, (int)a->B,
			    MPI_BYTE, r, TAG, a->comm, &block_recv[j]));
	}
	for (int i = 0; i < a->npieces && rc == OMPI_SUCCESS; i++) {
		const struct piece *x = &a->order[i];
		int s = lay->unit[0][lay->dfs[x->block]];
		recv[i] = MPI_REQUEST_NULL;
		if (s != a->site)
			rc = xfer(a, 0, x, lay->master[0][s], &recv[i]);
	}
	if (rc == OMPI_SUCCESS)
		rc = stream(a, recv, block_recv, 1);
	free(block_recv);
	return rc;
}

/*
 * Every rank: full has room for every block; our own block is sent from sbuf (scount sdtype
 * elements, B bytes). in_place_direct: full is the user's buffer and our block is already in it.
 */
int
mca_coll_qcg_allgather_seg(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    char *full, size_t B, int in_place_direct, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank, n = lay->n, rc = OMPI_ERR_OUT_OF_RESOURCE;
	struct agrun a = { .comm = comm, .lay = lay, .full = full, .B = B,
		.site = lay->unit[0][me], .nsites = lay->nunits[0] };
	a.master = lay->master[0][a.site];
	a.C = mca_coll_qcg_component.bcast_segsize > 0 ?
	    (size_t)mca_coll_qcg_component.bcast_segsize : B;
	a.ppb = (int)((B + a.C - 1) / a.C);
	a.child = malloc((size_t)n * sizeof(int));
	ompi_request_t **recv = NULL;
	int mypos = qcg_topo_dfs_index(lay, me);
	if (a.child == NULL || (rc = make_order(&a)) != OMPI_SUCCESS)
		goto out;
	rc = mca_coll_qcg_bcast_tree(m, -1, 1, &a.parent, a.child, &a.nchild);
	recv = malloc(((size_t)a.npieces + 1) * sizeof(*recv));
	/* to children every piece; a master also its site's pieces to S-1 masters */
	a.sends = malloc(((size_t)a.npieces * (size_t)(a.nchild + a.nsites) + 1) *
	    sizeof(*a.sends));
	if (rc == OMPI_SUCCESS && (recv == NULL || a.sends == NULL))
		rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (rc != OMPI_SUCCESS)
		goto out;
	if (me == a.master) {
		if (!in_place_direct) /* our block into place, packed as the others arrive */
			rc = ompi_datatype_sndrcv(sbuf, scount, sdtype, full + (size_t)mypos * B,
			    (int)B, MPI_PACKED);
		if (rc == OMPI_SUCCESS)
			rc = run_master(&a, recv);
	} else {
		/* our block to the master first: the stream brings it back to where it is sent
		 * from (in place), so the receives wait until it has left */
		rc = MCA_PML_CALL(send(sbuf, scount, sdtype, a.master, TAG,
		    MCA_PML_BASE_SEND_STANDARD, comm));
		for (int i = 0; i < a.npieces && rc == OMPI_SUCCESS; i++)
			rc = xfer(&a, 0, &a.order[i], a.parent, &recv[i]);
		if (rc == OMPI_SUCCESS)
			rc = stream(&a, recv, NULL, 0);
	}
	if (a.nsends > 0) {
		int wrc = ompi_request_wait_all((size_t)a.nsends, a.sends, MPI_STATUSES_IGNORE);
		rc = rc != OMPI_SUCCESS ? rc : wrc;
	}
	if (rc == OMPI_SUCCESS && me == 0)
		QCG_VERBOSE(30, "allgather: segmented, %zu B blocks in %d pieces per block, %d sites",
		    B, a.ppb, a.nsites);
out:
	free(recv);
	free(a.sends);
	free(a.order);
	free(a.child);
	return rc;
}
