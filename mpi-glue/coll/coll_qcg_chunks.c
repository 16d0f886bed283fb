/*
 * coll_qcg_chunks.c: large byte ranges that cross the WAN as several messages of at most
 * coll_qcg_bcast_segsize bytes each (32 KiB by default).
 *
 * Why: Open MPI sends a message above the BTL's eager limit (64 KiB on TCP) by rendezvous,
 * which waits one round trip for the receiver's go-ahead: on a WAN link that is a whole RTT
 * added to every gather, scatter, allgather and alltoall step. Chunks under the limit go out at
 * once, back to back, into receives already posted. Both sides derive the same chunks from the
 * length alone, and a zero length is one empty message, so the messages always match.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>

#include "coll_qcg.h"

/* On the WAN, chunks of the segment size; elsewhere (LAN, node: a round trip costs little
 * there, and every message costs some CPU) the range whole. */
static size_t
chunk_bytes(int wan)
{
	int seg = mca_coll_qcg_component.bcast_segsize;
	return wan && seg > 0 ? (size_t)seg : (size_t)INT_MAX;
}

int
mca_coll_qcg_nchunks(size_t len, int wan)
{
	size_t c = chunk_bytes(wan);
	return len == 0 ? 1 : (int)((len + c - 1) / c);
}

/* Post the chunks of buf[0..len) to (sending) or from peer into reqs; returns how many were
 * posted (mca_coll_qcg_nchunks(len) unless an error stopped it) and sets *rc. */
int
mca_coll_qcg_post_chunks(int sending, int wan, char *buf, size_t len, int peer, int tag,
    struct ompi_communicator_t *comm, ompi_request_t **reqs, int *rc)
{
	size_t c = chunk_bytes(wan);
	int n = mca_coll_qcg_nchunks(len, wan), posted = 0;
	*rc = OMPI_SUCCESS;
	for (int i = 0; i < n && *rc == OMPI_SUCCESS; i++) {
		size_t at = (size_t)i * c, k = len - at < c ? len - at : c;
		*rc = sending ? MCA_PML_CALL(isend(buf + at, (int)k, MPI_BYTE, peer, tag,
		    MCA_PML_BASE_SEND_STANDARD, comm, &reqs[posted])) :
		    MCA_PML_CALL(irecv(buf + at, (int)k, MPI_BYTE, peer, tag, comm, &reqs[posted]));
		if (*rc == OMPI_SUCCESS)
			posted++;
	}
	return posted;
}

/* Blocking: all the chunks of one range to or from peer. */
int
mca_coll_qcg_move_chunks(int sending, int wan, char *buf, size_t len, int peer, int tag,
    struct ompi_communicator_t *comm)
{
	ompi_request_t **reqs = malloc((size_t)mca_coll_qcg_nchunks(len, wan) * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int rc, n = mca_coll_qcg_post_chunks(sending, wan, buf, len, peer, tag, comm, reqs, &rc);
	int wrc = n > 0 ? ompi_request_wait_all((size_t)n, reqs, MPI_STATUSES_IGNORE) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}
