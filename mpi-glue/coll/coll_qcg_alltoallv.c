/*
 * coll_qcg_alltoallv.c: alltoallv with per-site-pair aggregation, alltoall's schedule with
 * blocks of any size:
 *   A. ranks of one site exchange their site-local blocks directly (LAN); every rank sends its
 *      site master the sizes of its blocks for the other sites, then those blocks, packed;
 *   B. site masters exchange, per site pair, the sizes and then the blocks from all of S's
 *      ranks to all of T's ranks (the sizes in one message, the blocks in eager-sized chunks
 *      that need no rendezvous round trip): two WAN latencies;
 *   C. each site master sends each of its ranks all its blocks from the other sites, packed in
 *      one message (the rank knows their sizes: its own receive counts).
 * Sizes must travel because only the sender and the receiver of a block know its size.
 *
 * Blocks are packed in "slot" order: other sites' ranks in dfs order (site, cluster, rank),
 * then our own site's. A site pair's sizes are nS x nT ints, kept at offset nS x slot(T) in
 * arrays of nS x out ints, source-major on the way out (ours i, theirs j) and in (theirs j,
 * ours i); payloads are those blocks back to back in the same order.
 *
 * There is no size every rank knows, so there is no threshold every rank would agree on: the
 * call always aggregates (and fails cleanly if a site pair's data passes INT_MAX bytes or the
 * coll_qcg_tmp_max_mb bound).
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll_qcg.h"

#define TAG_LAN MCA_COLL_BASE_TAG_ALLTOALLV  /* site-local blocks; site-pair messages */
#define TAG_AGG MCA_COLL_BASE_TAG_ALLTOALLW  /* rank <-> its site master */

struct a2av {
	const struct qcg_topo_layout *lay;
	int n, S, base, nS, out, me, master;
	int *sb, *rb;        /* bytes of the block to / from each slot */
	size_t *so, *ro;     /* their offsets in sp / rp (n + 1 entries) */
	char *sp, *rp;       /* packed send / receive blocks, slot order */
	ompi_request_t **r;  /* requests of the current phase */
	int nr, rc;
	int cap;             /* entries r has room for */
};

/* The site master's buffers. */
struct a2av_master {
	int *hdr;            /* nS x out: bytes from our rank i to slot q, [i * out + q] */
	size_t *goff;        /* nS + 1: where rank i's packed other-site blocks start in g */
	char *g;
	int *hout, *hin;     /* nS x out: site-pair sizes, see above */
	size_t *oout, *oin;  /* nS x out + 1: their offsets in wout / win */
	char *wout, *win, *c;
	size_t *coff;        /* nS + 1: rank i's phase-C message in c */
};

static int
slot(const struct a2av *a, int p)
{
	if (p < a->base)
		return p;
	if (p < a->base + a->nS)
		return a->out + p - a->base;
	return p - a->nS;
}

static void
post(struct a2av *a, int sending, void *buf, size_t bytes, struct ompi_datatype_t *dt, int peer,
    int tag, struct ompi_communicator_t *comm)
{
	if (a->rc != OMPI_SUCCESS)
		return;
	if (bytes > INT_MAX) {
		a->rc = OMPI_ERR_NOT_SUPPORTED;
		return;
	}
	a->rc = sending ? MCA_PML_CALL(isend(buf, (int)bytes, dt, peer, tag,
	    MCA_PML_BASE_SEND_STANDARD, comm, &a->r[a->nr])) :
	    MCA_PML_CALL(irecv(buf, (int)bytes, dt, peer, tag, comm, &a->r[a->nr]));
	if (a->rc == OMPI_SUCCESS)
		a->nr++;
}

/* A site pair's range on the WAN, in eager-sized chunks (coll_qcg_chunks.c) so that it does
 * not wait a rendezvous round trip; grows the request array as needed. */
static void
post_wan(struct a2av *a, int sending, char *buf, size_t bytes, int peer,
    struct ompi_communicator_t *comm)
{
	if (a->rc != OMPI_SUCCESS)
		return;
	int need = mca_coll_qcg_nchunks(bytes, 1);
	if (a->nr + need > a->cap) {
		ompi_request_t **r = realloc(a->r, (size_t)(a->nr + need) * sizeof(*r));
		if (r == NULL) {
			a->rc = OMPI_ERR_OUT_OF_RESOURCE;
			return;
		}
		a->r = r, a->cap = a->nr + need;
	}
	a->nr += mca_coll_qcg_post_chunks(sending, 1, buf, bytes, peer, TAG_LAN, comm,
	    a->r + a->nr, &a->rc);
}

static int
wait_all(struct a2av *a)
{
	int rc = a->nr > 0 ? ompi_request_wait_all((size_t)a->nr, a->r, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	a->nr = 0;
	if (a->rc == OMPI_SUCCESS)
		a->rc = rc;
	return a->rc;
}

/* off[0..len] = prefix sums of sizes[0..len-1]; returns the total. */
static size_t
prefix(const int *sizes, int len, size_t *off)
{
	off[0] = 0;
	for (int i = 0; i < len; i++)
		off[i + 1] = off[i] + (size_t)(sizes[i] > 0 ? sizes[i] : 0);
	return off[len];
}

/* Sizes and offsets of our blocks, and the packed send blocks. */
static int
a2av_pack(struct a2av *a, const char *sbuf, const int *scounts, const int *sdispls,
    struct ompi_datatype_t *sdt, const int *rcounts, struct ompi_datatype_t *rdt)
{
	ptrdiff_t lb, sext;
	size_t ss, rs;
	ompi_datatype_get_extent(sdt, &lb, &sext);
	ompi_datatype_type_size(sdt, &ss);
	ompi_datatype_type_size(rdt, &rs);
	for (int p = 0; p < a->n; p++) {
		int r = a->lay->dfs[p], q = slot(a, p);
		size_t sbytes = scounts[r] > 0 ? ss * (size_t)scounts[r] : 0;
		size_t rbytes = rcounts[r] > 0 ? rs * (size_t)rcounts[r] : 0;
		if (sbytes > INT_MAX || rbytes > INT_MAX)
			return OMPI_ERR_NOT_SUPPORTED;
		a->sb[q] = (int)sbytes, a->rb[q] = (int)rbytes;
	}
	size_t stotal = prefix(a->sb, a->n, a->so), rtotal = prefix(a->rb, a->n, a->ro);
	if (!mca_coll_qcg_tmp_allowed(stotal + rtotal) || (a->sp = malloc(stotal + 1)) == NULL ||
	    (a->rp = malloc(rtotal + 1)) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int p = 0; p < a->n; p++) {
		int r = a->lay->dfs[p], q = slot(a, p);
		if (a->sb[q] == 0)
			continue;
		int rc = ompi_datatype_sndrcv((char *)sbuf + (ptrdiff_t)sdispls[r] * sext,
		    scounts[r], sdt, a->sp + a->so[q], a->sb[q], MPI_PACKED);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

/* Phase A for every rank; a non-master also posts its phase-C receive. */
static void
phase_local(struct a2av *a, struct a2av_master *mm, struct ompi_communicator_t *comm)
{
	for (int i = 0; i < a->nS; i++) {
		int peer = a->lay->dfs[a->base + i], q = a->out + i;
		if (peer == a->me) {
			memcpy(a->rp + a->ro[q], a->sp + a->so[q], (size_t)a->rb[q]);
			continue;
		}
		post(a, 0, a->rp + a->ro[q], (size_t)a->rb[q], MPI_BYTE, peer, TAG_LAN, comm);
		post(a, 1, a->sp + a->so[q], (size_t)a->sb[q], MPI_BYTE, peer, TAG_LAN, comm);
	}
	if (a->me != a->master) {
		post(a, 1, a->sb, (size_t)a->out, MPI_INT, a->master, TAG_AGG, comm);
		post(a, 1, a->sp, a->so[a->out], MPI_BYTE, a->master, TAG_AGG, comm);
		post(a, 0, a->rp, a->ro[a->out], MPI_BYTE, a->master, TAG_AGG, comm);
		return;
	}
	for (int i = 0; i < a->nS; i++) {
		int peer = a->lay->dfs[a->base + i];
		if (peer == a->me)
			memcpy(mm->hdr + (size_t)i * a->out, a->sb, (size_t)a->out * sizeof(int));
		else
			post(a, 0, mm->hdr + (size_t)i * a->out, (size_t)a->out, MPI_INT, peer,
			    TAG_AGG, comm);
	}
}

/* Master, once the sizes are in: receive every rank's other-site blocks into g. */
static void
master_gather(struct a2av *a, struct a2av_master *mm, struct ompi_communicator_t *comm)
{
	mm->goff[0] = 0;
	for (int i = 0; i < a->nS; i++) {
		mm->goff[i + 1] = mm->goff[i];
		for (int q = 0; q < a->out; q++)
			mm->goff[i + 1] += (size_t)mm->hdr[i * a->out + q];
	}
	size_t total = mm->goff[a->nS];
	if (!mca_coll_qcg_tmp_allowed(4 * total) || (mm->g = malloc(total + 1)) == NULL) {
		a->rc = OMPI_ERR_OUT_OF_RESOURCE;
		return;
	}
	for (int i = 0; i < a->nS; i++) {
		int peer = a->lay->dfs[a->base + i];
		if (peer == a->me)
			memcpy(mm->g + mm->goff[i], a->sp, a->so[a->out]);
		else
			post(a, 0, mm->g + mm->goff[i], mm->goff[i + 1] - mm->goff[i], MPI_BYTE, peer,
			    TAG_AGG, comm);
	}
}

/* Phase B, first half: regroup per site pair; exchange the sizes (small: both sides post
 * before waiting, so no rendezvous can block). */
static void
master_wan_send(struct a2av *a, struct a2av_master *mm, struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	int tot = a->nS * a->out;
	for (int T = 0; T < lay->nunits[0]; T++) {
		if (T == a->S)
			continue;
		int off = slot(a, lay->dfs_start[0][T]), nT = lay->usize[0][T];
		for (int i = 0; i < a->nS; i++)
			for (int j = 0; j < nT; j++)
				mm->hout[a->nS * off + i * nT + j] = mm->hdr[i * a->out + off + j];
	}
	prefix(mm->hout, tot, mm->oout);
	if ((mm->wout = malloc(mm->oout[tot] + 1)) == NULL) {
		a->rc = OMPI_ERR_OUT_OF_RESOURCE;
		return;
	}
	for (int T = 0; T < lay->nunits[0] && a->rc == OMPI_SUCCESS; T++) {
		if (T == a->S)
			continue;
		int off = slot(a, lay->dfs_start[0][T]), nT = lay->usize[0][T];
		for (int i = 0; i < a->nS; i++) {
			const char *from = mm->g + mm->goff[i];
			for (int q = 0; q < off; q++)
				from += mm->hdr[i * a->out + q];
			int h = a->nS * off + i * nT;
			memcpy(mm->wout + mm->oout[h], from, mm->oout[h + nT] - mm->oout[h]);
		}
		int h0 = a->nS * off, h1 = a->nS * (off + nT), peer = lay->master[0][T];
		post(a, 0, mm->hin + h0, (size_t)(h1 - h0), MPI_INT, peer, TAG_LAN, comm);
		post(a, 1, mm->hout + h0, (size_t)(h1 - h0), MPI_INT, peer, TAG_LAN, comm);
	}
}

/* Phase B, second half: once the other sites' sizes are in, send our blocks and receive
 * theirs in the same set of requests (each side's sends then find the receives posted). */
static void
master_wan_recv(struct a2av *a, struct a2av_master *mm, struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	int tot = a->nS * a->out;
	prefix(mm->hin, tot, mm->oin);
	if (!mca_coll_qcg_tmp_allowed(mm->oin[tot] + mm->oout[tot] + 2 * mm->goff[a->nS]) ||
	    (mm->win = malloc(mm->oin[tot] + 1)) == NULL) {
		a->rc = OMPI_ERR_OUT_OF_RESOURCE;
		return;
	}
	for (int T = 0; T < lay->nunits[0]; T++) {
		if (T == a->S)
			continue;
		int off = slot(a, lay->dfs_start[0][T]), nT = lay->usize[0][T];
		int h0 = a->nS * off, h1 = a->nS * (off + nT);
		post_wan(a, 0, mm->win + mm->oin[h0], mm->oin[h1] - mm->oin[h0], lay->master[0][T],
		    comm);
		post_wan(a, 1, mm->wout + mm->oout[h0], mm->oout[h1] - mm->oout[h0],
		    lay->master[0][T], comm);
	}
}

/* Phase C: each of our ranks gets its blocks from all other sites, in slot order. */
static void
master_scatter(struct a2av *a, struct a2av_master *mm, struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	if ((mm->c = malloc(mm->oin[a->nS * a->out] + 1)) == NULL) {
		a->rc = OMPI_ERR_OUT_OF_RESOURCE;
		return;
	}
	size_t at = 0;
	for (int i = 0; i < a->nS; i++) {
		mm->coff[i] = at;
		for (int T = 0; T < lay->nunits[0]; T++) {
			if (T == a->S)
				continue;
			int off = slot(a, lay->dfs_start[0][T]), nT = lay->usize[0][T];
			for (int j = 0; j < nT; j++) {
				int h = a->nS * off + j * a->nS + i;
				size_t len = mm->oin[h + 1] - mm->oin[h];
				memcpy(mm->c + at, mm->win + mm->oin[h], len);
				at += len;
			}
		}
	}
	mm->coff[a->nS] = at;
	for (int i = 0; i < a->nS; i++) {
		int peer = lay->dfs[a->base + i];
		size_t len = mm->coff[i + 1] - mm->coff[i];
		if (peer != a->me)
			post(a, 1, mm->c + mm->coff[i], len, MPI_BYTE, peer, TAG_AGG, comm);
		else if (len != a->ro[a->out])
			a->rc = MPI_ERR_TRUNCATE;
		else
			memcpy(a->rp, mm->c + mm->coff[i], len);
	}
}

static int
master_alloc(struct a2av *a, struct a2av_master *mm)
{
	size_t tot = (size_t)a->nS * (size_t)a->out;
	mm->hdr = malloc((tot + 1) * sizeof(int));
	mm->hout = malloc((tot + 1) * sizeof(int));
	mm->hin = malloc((tot + 1) * sizeof(int));
	mm->oout = malloc((tot + 1) * sizeof(size_t));
	mm->oin = malloc((tot + 1) * sizeof(size_t));
	mm->goff = malloc(((size_t)a->nS + 1) * sizeof(size_t));
	mm->coff = malloc(((size_t)a->nS + 1) * sizeof(size_t));
	if (mm->hdr == NULL || mm->hout == NULL || mm->hin == NULL || mm->oout == NULL ||
	    mm->oin == NULL || mm->goff == NULL || mm->coff == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	return OMPI_SUCCESS;
}

static void
master_free(struct a2av_master *mm)
{
	free(mm->hdr), free(mm->hout), free(mm->hin), free(mm->oout), free(mm->oin);
	free(mm->goff), free(mm->coff), free(mm->g), free(mm->wout), free(mm->win), free(mm->c);
}

static int
alltoallv_phases(struct a2av *a, struct ompi_communicator_t *comm)
{
	struct a2av_master mm;
	memset(&mm, 0, sizeof(mm));
	int master = a->me == a->master;
	if (master)
		a->rc = master_alloc(a, &mm);
	phase_local(a, &mm, comm);
	if (master && wait_all(a) == OMPI_SUCCESS) {
		master_gather(a, &mm, comm);
		if (wait_all(a) == OMPI_SUCCESS)
			master_wan_send(a, &mm, comm);
		if (wait_all(a) == OMPI_SUCCESS)
			master_wan_recv(a, &mm, comm);
		if (wait_all(a) == OMPI_SUCCESS)
			master_scatter(a, &mm, comm);
	}
	wait_all(a);
	if (master)
		master_free(&mm);
	return a->rc;
}

int
mca_coll_qcg_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
    struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts, const int *rdispls,
    struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_ALLTOALLV, QCG_BYTES_UNKNOWN))
		return m->previous_alltoallv(sbuf, scounts, sdispls, sdtype, rbuf, rcounts, rdispls,
		    rdtype, comm, m->previous_alltoallv_module);
	if (sbuf == MPI_IN_PLACE) /* packing copies the send blocks out before anything lands */
		sbuf = rbuf, scounts = rcounts, sdispls = rdispls, sdtype = rdtype;
	struct a2av a = { .lay = lay, .n = lay->n, .me = m->rank, .rc = OMPI_SUCCESS };
	a.S = lay->unit[0][a.me];
	a.base = lay->dfs_start[0][a.S];
	a.nS = lay->usize[0][a.S];
	a.out = a.n - a.nS;
	a.master = lay->master[0][a.S];
	a.sb = malloc((size_t)a.n * sizeof(int));
	a.rb = malloc((size_t)a.n * sizeof(int));
	a.so = malloc(((size_t)a.n + 1) * sizeof(size_t));
	a.ro = malloc(((size_t)a.n + 1) * sizeof(size_t));
	a.cap = 3 * a.n + 3;
	a.r = malloc((size_t)a.cap * sizeof(ompi_request_t *));
	int rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (a.sb != NULL && a.rb != NULL && a.so != NULL && a.ro != NULL && a.r != NULL)
		rc = a2av_pack(&a, sbuf, scounts, sdispls, sdtype, rcounts, rdtype);
	/* A local failure (memory, sizes past INT_MAX) returns at once: MPI leaves the
	 * communicator's state undefined after an error, and the others may then block. */
	if (rc == OMPI_SUCCESS)
		rc = alltoallv_phases(&a, comm);
	ptrdiff_t lb, rext;
	ompi_datatype_get_extent(rdtype, &lb, &rext);
	for (int p = 0; p < a.n && rc == OMPI_SUCCESS; p++) {
		int r = lay->dfs[p], q = slot(&a, p);
		if (a.rb[q] > 0)
			rc = ompi_datatype_sndrcv(a.rp + a.ro[q], a.rb[q], MPI_PACKED,
			    (char *)rbuf + (ptrdiff_t)rdispls[r] * rext, rcounts[r], rdtype);
	}
	free(a.sb), free(a.rb), free(a.so), free(a.ro), free(a.sp), free(a.rp), free(a.r);
	return rc;
}
