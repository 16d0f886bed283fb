/*
 * coll_qcg_alltoall.c: alltoall with per-site-pair aggregation, so that each WAN link carries
 * one large message per direction instead of |S| x |T| small ones.
 *
 *   A. inside each site, ranks exchange their site-local blocks directly (LAN), and every rank
 *      sends its blocks for each other site, one message per site, to its site master;
 *   B. site masters exchange one message per site pair: all blocks from S's ranks to T's ranks;
 *   C. each site master sends each of its ranks, one message per other site, the blocks from
 *      that site for that rank.
 * The WAN sees one latency and ns x (ns-1) messages instead of n x (n - |S|).
 *
 * The aggregation costs only what it must (issue 22): every receive is posted before anything
 * is sent; a rank's blocks land at the master straight in their place in the WAN message (a
 * vector receive, destination-major), so the master copies none of them; a site's WAN message
 * leaves as soon as its blocks are in, while the others still arrive; a site's received part
 * goes out to the ranks as soon as it is complete, each rank's range contiguous (the sending
 * master ordered it by destination). No round trip per chunk: WAN messages are eager chunks.
 *
 * Blocks travel packed (B bytes each, equal on every rank since type signatures match), in
 * "slot" order: first the blocks of other sites in dfs order (site, cluster, rank), then the
 * rank's own site's blocks. Send and receive sides are both packed first, so MPI_IN_PLACE and
 * derived datatypes cost one copy each and nothing else.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll_qcg.h"

#define TAG_LAN MCA_COLL_BASE_TAG_ALLTOALL   /* site-local blocks, and the site-pair messages */
#define TAG_AGG MCA_COLL_BASE_TAG_ALLTOALLW  /* rank <-> its site master (aggregates) */

/* The geometry of one call, seen by one rank. */
struct a2a {
	const struct qcg_topo_layout *lay;
	size_t B;      /* bytes per block */
	int n;         /* ranks */
	int S, base;   /* our site and its first dfs position */
	int nS;        /* ranks in our site */
	int out;       /* blocks to or from other sites: n - nS */
	char *sp, *rp; /* packed send / received blocks, slot order */
};

/* Slot of dfs position p: other sites first (dfs order), then our own site. */
static int
slot(const struct a2a *a, int p)
{
	if (p < a->base)
		return p;
	if (p < a->base + a->nS)
		return a->out + p - a->base;
	return p - a->nS;
}

/* Collects requests of one phase (growing as needed); wait_all waits for them and resets. */
struct reqs {
	ompi_request_t **r;
	int n, cap, rc;
};

/* One message; on the WAN in eager-sized chunks (coll_qcg_chunks.c): no rendezvous RTT. */
static void
post(struct reqs *q, int sending, int wan, void *buf, size_t bytes, int peer, int tag,
    struct ompi_communicator_t *comm)
{
	if (q->rc != OMPI_SUCCESS)
		return;
	int need = mca_coll_qcg_nchunks(bytes, wan);
	if (q->n + need > q->cap) {
		int cap = 2 * (q->n + need);
		ompi_request_t **r = realloc(q->r, (size_t)cap * sizeof(*r));
		if (r == NULL) {
			q->rc = OMPI_ERR_OUT_OF_RESOURCE;
			return;
		}
		q->r = r, q->cap = cap;
	}
	q->n += mca_coll_qcg_post_chunks(sending, wan, buf, bytes, peer, tag, comm, q->r + q->n,
	    &q->rc);
}

static int
wait_all(struct reqs *q)
{
	int rc = q->n > 0 ? ompi_request_wait_all((size_t)q->n, q->r, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	q->n = 0;
	return q->rc != OMPI_SUCCESS ? q->rc : rc;
}

/* Where site T's blocks sit in our slot order (other sites come in dfs order). */
static void
site_slots(const struct a2a *a, int T, int *off, int *nT)
{
	*off = slot(a, a->lay->dfs_start[0][T]);
	*nT = a->lay->usize[0][T];
}

/* Phase A for every rank: site-local blocks directly; for a rank that is not the site master
 * also, per other site (in site order), its blocks for that site to the master and, from the
 * master, the blocks from that site (both posted at once: the master sends in site order). */
static void
phase_local(struct a2a *a, int master, int me, struct reqs *q,
    struct ompi_communicator_t *comm)
{
	for (int i = 0; i < a->nS; i++) {
		int peer = a->lay->dfs[a->base + i];
		size_t at = (size_t)(a->out + i) * a->B;
		if (peer == me) {
			memcpy(a->rp + at, a->sp + at, a->B);
			continue;
		}
		post(q, 0, 0, a->rp + at, a->B, peer, TAG_LAN, comm);
		post(q, 1, 0, a->sp + at, a->B, peer, TAG_LAN, comm);
	}
	if (me == master)
		return;
	for (int T = 0; T < a->lay->nunits[0]; T++) {
		int off, nT;
		if (T == a->S)
			continue;
		site_slots(a, T, &off, &nT);
		post(q, 1, 0, a->sp + (size_t)off * a->B, (size_t)nT * a->B, master, TAG_AGG, comm);
		post(q, 0, 0, a->rp + (size_t)off * a->B, (size_t)nT * a->B, master, TAG_AGG, comm);
	}
}

/*
 * The site master's buffers, per other site T at nS x off blocks: out, T's part to send,
 * destination-major (their rank j, our rank i), so that T's master forwards each of its ranks
 * one contiguous range; in, T's part received, (our rank i, their rank j), forwarded the same
 * way. Each rank's blocks land in out straight from the network (a vector receive), so the
 * master copies no byte itself, only its own.
 */
struct master {
	char *out, *in;
	ompi_request_t **gather; /* per T, nS receives (own slot NULL) */
	ompi_request_t **wan;    /* per T, its chunks from wan_first[T] */
	int *wan_first;
	int nwan;
};

static void
master_free(struct master *mm)
{
	free(mm->out);
	free(mm->in);
	free(mm->gather);
	free(mm->wan);
	free(mm->wan_first);
}

/* All requests of a[0..n) done (NULL entries count as done)? Frees the finished ones. */
static int
all_done(ompi_request_t **r, int n, int *rc)
{
	int done = 1;
	for (int k = 0; k < n; k++) {
		if (r[k] == NULL || r[k] == MPI_REQUEST_NULL)
			continue;
		int flag = 0;
		int trc = ompi_request_test(&r[k], &flag, MPI_STATUS_IGNORE);
		if (trc != OMPI_SUCCESS)
			*rc = trc;
		if (!flag)
			done = 0;
	}
	return done;
}

/* Post the master's receives: every other site's WAN part, and its ranks' blocks per site. */
static int
master_post(struct a2a *a, struct master *mm, int me, struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	int nsites = lay->nunits[0], rc = OMPI_SUCCESS;
	size_t big = (size_t)a->nS * (size_t)a->out * a->B;
	int chunks = 0;
	for (int T = 0; T < nsites; T++)
		if (T != a->S)
			chunks += mca_coll_qcg_nchunks((size_t)a->nS * lay->usize[0][T] * a->B, 1);
	mm->out = malloc(big + 1);
	mm->in = malloc(big + 1);
	mm->gather = calloc((size_t)nsites * (size_t)a->nS, sizeof(*mm->gather));
	mm->wan = calloc((size_t)chunks + 1, sizeof(*mm->wan));
	mm->wan_first = calloc((size_t)nsites + 1, sizeof(int));
	if (mm->out == NULL || mm->in == NULL || mm->gather == NULL || mm->wan == NULL ||
	    mm->wan_first == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int T = 0; T < nsites && rc == OMPI_SUCCESS; T++) {
		int off, nT;
		mm->wan_first[T] = mm->nwan;
		if (T == a->S)
			continue;
		site_slots(a, T, &off, &nT);
		size_t part = (size_t)a->nS * (size_t)nT * a->B;
		char *in = mm->in + (size_t)a->nS * off * a->B, *out = mm->out + (size_t)a->nS *
		    off * a->B;
		mm->nwan += mca_coll_qcg_post_chunks(0, 1, in, part, lay->master[0][T], TAG_LAN,
		    comm, mm->wan + mm->nwan, &rc);
		ompi_datatype_t *vt = NULL;
		if (rc == OMPI_SUCCESS)
			rc = ompi_datatype_create_vector(nT, (int)a->B, (int)((size_t)a->nS * a->B),
			    MPI_BYTE, &vt);
		if (rc == OMPI_SUCCESS)
			rc = ompi_datatype_commit(&vt);
		for (int i = 0; i < a->nS && rc == OMPI_SUCCESS; i++) {
			int peer = lay->dfs[a->base + i];
			if (peer != me) {
				rc = MCA_PML_CALL(irecv(out + (size_t)i * a->B, 1, vt, peer, TAG_AGG,
				    comm, &mm->gather[T * a->nS + i]));
				continue;
			}
			for (int j = 0; j < nT; j++) /* our own blocks for T: the one copy */
				memcpy(out + ((size_t)j * a->nS + i) * a->B,
				    a->sp + (size_t)(off + j) * a->B, a->B);
		}
		if (vt != NULL)
			ompi_datatype_destroy(&vt); /* the posted receives hold their reference */
	}
	mm->wan_first[nsites] = mm->nwan;
	return rc;
}

/*
 * Phases B and C at the site master, overlapped: a site's WAN message leaves as soon as all of
 * our ranks' blocks for it have landed, and a site's received part goes out to our ranks as
 * soon as it is complete (in site order, the order the ranks posted their receives), while
 * other sites' parts are still arriving.
 */
static int
master_run(struct a2a *a, struct master *mm, int me, struct reqs *q,
    struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	int nsites = lay->nunits[0], rc = OMPI_SUCCESS, next_fwd = 0, unsent = nsites - 1;
	char *sent = calloc((size_t)nsites, 1);
	if (sent == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	while (rc == OMPI_SUCCESS && q->rc == OMPI_SUCCESS && (unsent > 0 || next_fwd < nsites)) {
		int progressed = 0;
		for (int T = 0; T < nsites && unsent > 0; T++) {
			int off, nT;
			if (T == a->S || sent[T] || !all_done(mm->gather + T * a->nS, a->nS, &rc))
				continue;
			site_slots(a, T, &off, &nT);
			post(q, 1, 1, mm->out + (size_t)a->nS * off * a->B,
			    (size_t)a->nS * (size_t)nT * a->B, lay->master[0][T], TAG_LAN, comm);
			sent[T] = 1, unsent--, progressed = 1;
		}
		while (next_fwd < nsites && (next_fwd == a->S ||
		    all_done(mm->wan + mm->wan_first[next_fwd],
		    mm->wan_first[next_fwd + 1] - mm->wan_first[next_fwd], &rc))) {
			int T = next_fwd++, off, nT;
			progressed = 1;
			if (T == a->S)
				continue;
			site_slots(a, T, &off, &nT);
			const char *in = mm->in + (size_t)a->nS * off * a->B;
			for (int i = 0; i < a->nS; i++) {
				int peer = lay->dfs[a->base + i];
				const char *part = in + (size_t)i * nT * a->B;
				if (peer == me)
					memcpy(a->rp + (size_t)off * a->B, part, (size_t)nT * a->B);
				else
					post(q, 1, 0, (char *)part, (size_t)nT * a->B, peer, TAG_AGG,
					    comm);
			}
		}
		if (!progressed)
			opal_progress();
	}
	free(sent);
	return rc != OMPI_SUCCESS ? rc : q->rc;
}

/* Pack (unpacking == 0) the user's send blocks into a->sp, or unpack a->rp into rbuf. */
static int
user_blocks(struct a2a *a, char *ubuf, int ucount, struct ompi_datatype_t *udt, int unpacking)
{
	ptrdiff_t lb, extent;
	ompi_datatype_get_extent(udt, &lb, &extent);
	for (int p = 0; p < a->n; p++) {
		char *block = ubuf + (ptrdiff_t)a->lay->dfs[p] * ucount * extent;
		char *packed = (unpacking ? a->rp : a->sp) + (size_t)slot(a, p) * a->B;
		int rc = unpacking ?
		    ompi_datatype_sndrcv(packed, (int)a->B, MPI_PACKED, block, ucount, udt) :
		    ompi_datatype_sndrcv(block, ucount, udt, packed, (int)a->B, MPI_PACKED);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

/* The three phases; the site master's buffers are allocated here. */
static int
alltoall_phases(struct a2a *a, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m)
{
	int me = m->rank, master = a->lay->master[0][a->S], rc = OMPI_SUCCESS;
	struct master mm = { NULL, NULL, NULL, NULL, NULL, 0 };
	struct reqs q = { malloc((size_t)(3 * a->n + 2) * sizeof(ompi_request_t *)), 0,
		3 * a->n + 2, OMPI_SUCCESS };
	if (q.r == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	if (me == master)
		rc = master_post(a, &mm, me, comm);
	if (rc == OMPI_SUCCESS)
		phase_local(a, master, me, &q, comm);
	if (rc == OMPI_SUCCESS && me == master)
		rc = master_run(a, &mm, me, &q, comm);
	/* on an error, still wait for what was posted: buffers must outlive their requests */
	int wrc = wait_all(&q);
	if (me == master && mm.wan != NULL && mm.nwan > 0)
		(void)ompi_request_wait_all((size_t)mm.nwan, mm.wan, MPI_STATUSES_IGNORE);
	if (me == master && mm.gather != NULL)
		for (int k = 0; k < a->lay->nunits[0] * a->nS; k++)
			if (mm.gather[k] != NULL)
				(void)ompi_request_wait(&mm.gather[k], MPI_STATUS_IGNORE);
	if (me == master)
		master_free(&mm);
	free(q.r);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

int
mca_coll_qcg_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
    int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	const struct qcg_topo_layout *lay = &m->layout;
	int in_place = sbuf == MPI_IN_PLACE;
	size_t type_size;
	ompi_datatype_type_size(in_place ? rdtype : sdtype, &type_size);
	int count = in_place ? rcount : scount;
	struct a2a a = { .lay = lay, .B = count > 0 ? type_size * (size_t)count : 0, .n = lay->n };
	a.S = lay->unit[0][m->rank];
	a.base = lay->dfs_start[0][a.S];
	a.nS = lay->usize[0][a.S];
	a.out = a.n - a.nS;
	size_t total = a.B * (size_t)a.n; /* equal on all ranks: the choices below agree */
	size_t master_bytes = 3 * (size_t)a.nS * (size_t)a.out * a.B;
	if (m->in_setup || QCG_HAND_DOWN(m, QCG_COLL_ALLTOALL, a.B) || total > INT_MAX ||
	    a.B > (size_t)mca_coll_qcg_component.alltoall_max ||
	    !mca_coll_qcg_tmp_allowed(2 * total + master_bytes))
		return m->previous_alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
		    m->previous_alltoall_module);
	if (a.B == 0)
		return OMPI_SUCCESS;
	a.sp = malloc(total);
	a.rp = malloc(total);
	int rc = a.sp == NULL || a.rp == NULL ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
	if (rc == OMPI_SUCCESS)
		rc = in_place ? user_blocks(&a, rbuf, rcount, rdtype, 0) :
		    user_blocks(&a, (char *)sbuf, scount, sdtype, 0);
	if (rc == OMPI_SUCCESS)
		rc = alltoall_phases(&a, comm, m);
	if (rc == OMPI_SUCCESS)
		rc = user_blocks(&a, rbuf, rcount, rdtype, 1);
	free(a.sp);
	free(a.rp);
	return rc;
}
