/*
 * coll_qcg_alltoall.c: alltoall with per-site-pair aggregation, so that each WAN link carries
 * one large message per direction instead of |S| x |T| small ones.
 *
 *   A. inside each site, ranks exchange their site-local blocks directly (LAN), and every rank
 *      sends its blocks for all other sites, in one message, to its site master;
 *   B. site masters exchange one message per site pair: all blocks from S's ranks to T's ranks;
 *   C. each site master sends each of its ranks, in one message, the blocks from all other
 *      sites for that rank.
 * The WAN sees one latency and ns x (ns-1) messages instead of n x (n - |S|).
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

/* Phase A for every rank: site-local blocks, and our other-site blocks to the master. */
static void
phase_local(struct a2a *a, char *gathered, int master, int me, struct reqs *q,
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
	size_t agg = (size_t)a->out * a->B;
	if (me != master) {
		post(q, 1, 0, a->sp, agg, master, TAG_AGG, comm);
		return;
	}
	for (int i = 0; i < a->nS; i++) {
		int peer = a->lay->dfs[a->base + i];
		if (peer == me)
			memcpy(gathered + (size_t)i * agg, a->sp, agg);
		else
			post(q, 0, 0, gathered + (size_t)i * agg, agg, peer, TAG_AGG, comm);
	}
}

/* Phase B at the site master: one message per other site each way. wan_out / wan_in hold, at
 * offset nS x slot(T) blocks, T's part (source-major: our i, their j / their j, our i). */
static void
phase_wan(struct a2a *a, const char *gathered, char *wan_out, char *wan_in, struct reqs *q,
    struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	for (int T = 0; T < lay->nunits[0]; T++) {
		if (T == a->S)
			continue;
		int off = slot(a, lay->dfs_start[0][T]), nT = lay->usize[0][T];
		size_t part = (size_t)a->nS * (size_t)nT * a->B;
		char *w = wan_out + (size_t)a->nS * off * a->B;
		for (int i = 0; i < a->nS; i++)
			memcpy(w + (size_t)i * nT * a->B,
			    gathered + ((size_t)i * a->out + (size_t)off) * a->B, (size_t)nT * a->B);
		int peer = lay->master[0][T];
		post(q, 0, 1, wan_in + (size_t)a->nS * off * a->B, part, peer, TAG_LAN, comm);
		post(q, 1, 1, w, part, peer, TAG_LAN, comm);
	}
}

/* Phase C at the site master: regroup by destination and send each rank its blocks. */
static void
phase_scatter(struct a2a *a, const char *wan_in, char *sorted, int me, struct reqs *q,
    struct ompi_communicator_t *comm)
{
	const struct qcg_topo_layout *lay = a->lay;
	size_t agg = (size_t)a->out * a->B;
	for (int T = 0; T < lay->nunits[0]; T++) {
		if (T == a->S)
			continue;
		int off = slot(a, lay->dfs_start[0][T]), nT = lay->usize[0][T];
		const char *in = wan_in + (size_t)a->nS * off * a->B;
		for (int j = 0; j < nT; j++)         /* their rank j ... */
			for (int i = 0; i < a->nS; i++) /* ... to our rank i */
				memcpy(sorted + (size_t)i * agg + (size_t)(off + j) * a->B,
				    in + ((size_t)j * a->nS + (size_t)i) * a->B, a->B);
	}
	for (int i = 0; i < a->nS; i++) {
		int peer = lay->dfs[a->base + i];
		if (peer == me)
			memcpy(a->rp, sorted + (size_t)i * agg, agg);
		else
			post(q, 1, 0, sorted + (size_t)i * agg, agg, peer, TAG_AGG, comm);
	}
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
	int me = m->rank, master = a->lay->master[0][a->S], rc;
	size_t big = (size_t)a->nS * (size_t)a->out * a->B;
	char *gathered = NULL, *wan_out = NULL, *wan_in = NULL;
	struct reqs q = { malloc((size_t)(3 * a->n + 2) * sizeof(ompi_request_t *)), 0,
		3 * a->n + 2, OMPI_SUCCESS };
	if (q.r == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	if (me == master && (gathered = malloc(big + 1)) == NULL)
		q.rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (me == master && ((wan_out = malloc(big + 1)) == NULL || (wan_in = malloc(big + 1)) ==
	    NULL))
		q.rc = OMPI_ERR_OUT_OF_RESOURCE;
	phase_local(a, gathered, master, me, &q, comm);
	rc = wait_all(&q);
	if (rc == OMPI_SUCCESS && me == master) {
		phase_wan(a, gathered, wan_out, wan_in, &q, comm);
		rc = wait_all(&q);
		if (rc == OMPI_SUCCESS)
			phase_scatter(a, wan_in, gathered, me, &q, comm); /* gathered is free again */
	} else if (rc == OMPI_SUCCESS)
		post(&q, 0, 0, a->rp, (size_t)a->out * a->B, master, TAG_AGG, comm);
	if (rc == OMPI_SUCCESS)
		rc = wait_all(&q);
	free(gathered);
	free(wan_out);
	free(wan_in);
	free(q.r);
	return rc;
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
