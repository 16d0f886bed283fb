/*
 * coll_qcg_mcast.c: the multicast broadcast (paper 001) as the LAN stage of the multilevel
 * broadcast. The multilevel tree carries the message to the holder of every cluster (the root
 * in its own cluster, the cluster's master elsewhere), exactly as the ordinary broadcast does;
 * inside each cluster the holder is the multicast root:
 *
 *   stage 1: the root multicasts the whole message in datagrams of coll_qcg_mcast_frag_size
 *            bytes; each receiver keeps a per-fragment "have" map of what arrived intact;
 *   stage 2: a fragmented chain along the virtual ring of the cluster communicator (rank order,
 *            starting after the root): every process sends each fragment it has, however it got
 *            it, reliably to its successor as soon as it has it; the root receives nothing (its
 *            predecessor's link is omitted). A process missing a fragment gets it from its
 *            predecessor, so the result is exact whatever the multicast lost.
 *
 * Unlike the paper's receivers, which cancel the redundant ring receive, ours receive every
 * fragment from their predecessor (and drop the copy they already have): a cancelled receive
 * whose message is already under way would be left over for the next broadcast. The price is
 * the bandwidth of a second copy and that a process leaves after its predecessor has forwarded;
 * without loss that is one hop after the multicast, whatever the number of processes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_qcg_mcast.h"

#define MCAST_TAG MCA_COLL_BASE_TAG_BCAST
#define MCAST_DRAIN_MAX 64 /* datagrams read per pass, so ring requests are served too */

/* One broadcast inside the cluster, as seen by one process. */
struct mcall {
	struct qcg_mcast *mc;
	struct ompi_communicator_t *cl; /* the cluster communicator */
	char *buf;                      /* the message (packed bytes) */
	size_t n, fs;                   /* its size; fragment size */
	uint32_t nfrag;                 /* datagrams of the multicast */
	uint32_t cf, nchunk;            /* fragments per ring chunk; ring chunks */
	int root, pred, succ;           /* cluster ranks; pred/succ -1 where the ring is cut */
	uint8_t *have;                  /* have[f]: fragment f is in buf */
	uint32_t *need;                 /* need[c]: fragments of chunk c still missing */
	uint32_t owned;                 /* fragments in buf */
	char *ring;                     /* where the predecessor's copies land */
	ompi_request_t **rreq, **sreq;  /* nchunk each */
	uint32_t *pending, npending;    /* ring receives not yet complete */
	uint32_t nsent;                 /* ring sends posted = chunks forwarded, in order */
	struct qcg_mcast_hdr want;      /* what this call's datagrams must say */
};

int
mca_coll_qcg_mcast_wanted(const mca_coll_qcg_module_t *m, size_t nbytes)
{
	const struct qcg_mcast_params *p = &mca_coll_qcg_mcast_params;
	(void)m;
	if (p->mode == QCG_MCAST_OFF || nbytes < (size_t)p->min_bytes ||
	    nbytes > (size_t)p->max_bytes)
		return 0;
	/* AUTO needs the services; the launcher gives every rank the same environment, so
	 * every rank decides alike (the decision changes the whole broadcast's schedule). */
	if (p->mode == QCG_MCAST_AUTO && getenv("QCG_HELPER_SOCKET") == NULL)
		return 0;
	return 1;
}

/* The multilevel tree down to the holder of every cluster (levels 0 and 1). */
static int
bcast_to_cluster_holders(char *buf, int n, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int me = m->rank;
	for (int l = 0; l < 2; l++) {
		int mi, si;
		if (qcg_topo_holder(lay, l, lay->unit[l][me], root) != me)
			return OMPI_SUCCESS; /* the data reaches us inside our cluster */
		int k = mca_coll_qcg_holders(m, l, qcg_topo_parent_of_rank(lay, l, me), root,
		    m->holders, &mi, &si);
		if (k <= 1 || mi < 0)
			continue;
		int rc = mca_coll_qcg_tree_bcast(buf, n, MPI_BYTE, m->holders, k, mi, si,
		    mca_coll_qcg_component.level_alg[l], MCAST_TAG, comm);
		if (rc != OMPI_SUCCESS)
			return rc;
	}
	return OMPI_SUCCESS;
}

/* Bytes of ring chunk k (cf fragments; the last may be shorter). */
static size_t
chunk_len(const struct mcall *c, uint32_t k)
{
	return qcg_mcast_frag_len(k, (uint32_t)c->n, c->fs * c->cf);
}

/*
 * Send our successor (reliably) every complete chunk from the next unsent one on, in order: MPI
 * matches the successor's receives (one tag, one source) in posting order, so its k-th receive
 * must get chunk k. A chunk the multicast completed early waits for the ones before it (which
 * our predecessor delivers in order too). The ring moves chunks of several datagrams: one MPI
 * message per chunk instead of one per datagram.
 */
static int
forward(struct mcall *c)
{
	while (c->succ >= 0 && c->nsent < c->nchunk && (c->need == NULL || !c->need[c->nsent])) {
		uint32_t k = c->nsent;
		int rc = MCA_PML_CALL(isend(c->buf + (size_t)k * c->cf * c->fs, (int)chunk_len(c, k),
		    MPI_BYTE, c->succ, MCAST_TAG, MCA_PML_BASE_SEND_STANDARD, c->cl, &c->sreq[k]));
		if (rc != OMPI_SUCCESS)
			return rc;
		c->nsent++;
	}
	return OMPI_SUCCESS;
}

/* xorshift32: the drop_percent test knob only, not security. */
static uint32_t
next_drop(uint32_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
	return *s;
}

/*
 * Empty the root's own socket: with multicast loop on (needed by receivers on the root's host),
 * the root receives its own datagrams, and as a root it never reads them; left there they would
 * fill the buffer and be read, and rejected, one by one when it next receives. Bounded.
 */
static void
root_discard(struct qcg_mcast *mc)
{
	for (int i = 0; i < QCG_MCAST_MAX_FRAGS; i++)
		if (qcg_mcast_recv(mc, mc->dgram, QCG_MCAST_MAX_DGRAM) <= 0)
			break;
}

/* Stage 1 at the root: every fragment once to the group (minus the test knob's drops). */
static int
root_multicast(struct mcall *c)
{
	struct qcg_mcast *mc = c->mc;
	struct qcg_mcast_hdr h = c->want;
	root_discard(mc);
	for (uint32_t f = 0; f < c->nfrag; f++) {
		size_t len = qcg_mcast_frag_len(f, (uint32_t)c->n, c->fs);
		if (mca_coll_qcg_mcast_params.drop_percent > 0 &&
		    next_drop(&mc->drop_state) % 100 < (uint32_t)mca_coll_qcg_mcast_params.drop_percent) {
			mc->dropped++;
			continue;
		}
		h.frag = f;
		qcg_mcast_hdr_encode(mc->dgram, &h);
		memcpy(mc->dgram + QCG_MCAST_HDR_BYTES, c->buf + (size_t)f * c->fs, len);
		int rc = qcg_mcast_send(mc, mc->dgram, QCG_MCAST_HDR_BYTES + len);
		if (rc < 0) /* not fatal: the ring delivers what the multicast does not */
			QCG_VERBOSE(1, "mcast: sending fragment %u failed", f);
		if (rc == 0)
			mc->sent++;
		else
			mc->dropped++;
	}
	return OMPI_SUCCESS;
}

/* Stage 1 at a receiver: take what datagrams are waiting; returns how many fragments were new. */
static int
drain_multicast(struct mcall *c, int *rc)
{
	struct qcg_mcast *mc = c->mc;
	int fresh = 0;
	for (int i = 0; i < MCAST_DRAIN_MAX && c->owned < c->nfrag; i++) {
		long len = qcg_mcast_recv(mc, mc->dgram, QCG_MCAST_MAX_DGRAM);
		if (len <= 0)
			break;
		const char *why;
		int f = qcg_mcast_hdr_check(mc->dgram, (size_t)len, &c->want, c->fs, &why);
		if (f < 0) {
			mc->rejected++;
			QCG_VERBOSE(40, "mcast: dropped a %ld-byte datagram: %s", len, why);
			continue;
		}
		if (c->have[f])
			continue;
		memcpy(c->buf + (size_t)f * c->fs, mc->dgram + QCG_MCAST_HDR_BYTES,
		    (size_t)len - QCG_MCAST_HDR_BYTES);
		c->have[f] = 1, c->owned++, mc->by_mcast++, fresh++;
		if (--c->need[(uint32_t)f / c->cf] == 0 && (*rc = forward(c)) != OMPI_SUCCESS)
			break;
	}
	return fresh;
}

/* Stage 2 at a receiver: collect the predecessor's fragments that have landed. */
static int
collect_ring(struct mcall *c, int *rc)
{
	int done = 0;
	for (uint32_t i = 0; i < c->npending && *rc == OMPI_SUCCESS;) {
		uint32_t k = c->pending[i];
		if (!REQUEST_COMPLETE(c->rreq[k])) {
			i++;
			continue;
		}
		*rc = ompi_request_wait(&c->rreq[k], MPI_STATUS_IGNORE); /* frees it */
		c->pending[i] = c->pending[--c->npending];
		done++;
		if (*rc != OMPI_SUCCESS || c->need[k] == 0)
			continue; /* the multicast brought all of it: this copy is redundant */
		/* Not forwarded yet (incomplete), so nobody reads this part of buf now. */
		size_t first = (size_t)k * c->cf * c->fs;
		memcpy(c->buf + first, c->ring + first, chunk_len(c, k));
		for (uint32_t f = k * c->cf; f < c->nfrag && f < (k + 1) * c->cf; f++)
			if (!c->have[f])
				c->have[f] = 1, c->owned++, c->mc->by_ring++;
		c->need[k] = 0;
		*rc = forward(c);
	}
	return done;
}

/* A receiver: post the ring receives, then serve multicast and ring until both are done. */
static int
receive(struct mcall *c)
{
	int rc = OMPI_SUCCESS;
	for (uint32_t k = 0; k < c->nchunk && rc == OMPI_SUCCESS; k++) {
		rc = MCA_PML_CALL(irecv(c->ring + (size_t)k * c->cf * c->fs, (int)chunk_len(c, k),
		    MPI_BYTE, c->pred, MCAST_TAG, c->cl, &c->rreq[k]));
		if (rc == OMPI_SUCCESS)
			c->pending[c->npending++] = k;
	}
	while (rc == OMPI_SUCCESS && c->npending > 0) {
		int progress = 0;
		if (c->owned < c->nfrag)
			progress += drain_multicast(c, &rc);
		if (rc == OMPI_SUCCESS)
			progress += collect_ring(c, &rc);
		if (!progress)
			opal_progress();
	}
	/* On error, wait for what is still posted before the buffers go. */
	for (uint32_t i = 0; i < c->npending; i++)
		(void)ompi_request_wait(&c->rreq[c->pending[i]], MPI_STATUS_IGNORE);
	return rc;
}

/*
 * The receiver the root waits for under QCG_DELAY_SYNC (the paper's randomized single-process
 * synchronization): drawn from the seed agreed at set-up and the call's number, so every process
 * computes the same one without talking. A cluster rank other than root.
 */
static int
sync_partner(const struct qcg_mcast *mc, int size, int root)
{
	uint64_t x = mc->seed ^ ((uint64_t)mc->seq * 0x9e3779b97f4a7c15ull);
	x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 29; /* splitmix-style mixing */
	return (root + 1 + (int)(x % (uint64_t)(size - 1))) % size;
}

/* The root's optional delay before multicasting (coll_qcg_mcast_delay). */
static int
root_delay(struct mcall *c, int size)
{
	const struct qcg_mcast_params *p = &mca_coll_qcg_mcast_params;
	if (p->delay == QCG_DELAY_FIXED && p->root_delay_us > 0) {
		struct timespec ts = { p->root_delay_us / 1000000,
			(long)(p->root_delay_us % 1000000) * 1000 };
		nanosleep(&ts, NULL);
	} else if (p->delay == QCG_DELAY_SYNC) {
		char dummy;
		return MCA_PML_CALL(recv(&dummy, 0, MPI_BYTE, sync_partner(c->mc, size, c->root),
		    MCAST_TAG, c->cl, MPI_STATUS_IGNORE));
	}
	return OMPI_SUCCESS;
}

/* Set up one call's bookkeeping; OMPI_ERR_OUT_OF_RESOURCE if memory is short. */
static int
mcall_init(struct mcall *c, struct qcg_mcast *mc, struct ompi_communicator_t *cl, char *buf,
    size_t n, int root)
{
	int size = ompi_comm_size(cl), me = ompi_comm_rank(cl);
	memset(c, 0, sizeof(*c));
	c->mc = mc, c->cl = cl, c->buf = buf, c->n = n, c->root = root;
	c->fs = (size_t)mca_coll_qcg_mcast_params.frag_size;
	c->nfrag = (uint32_t)((n + c->fs - 1) / c->fs);
	c->cf = (uint32_t)((size_t)mca_coll_qcg_mcast_params.ring_bytes / c->fs);
	c->cf = c->cf > 0 ? c->cf : 1;
	c->nchunk = (c->nfrag + c->cf - 1) / c->cf;
	c->pred = me == root ? -1 : (me + size - 1) % size;
	c->succ = (me + 1) % size == root ? -1 : (me + 1) % size;
	c->want = (struct qcg_mcast_hdr){ mc->tag, mc->seq, 0, c->nfrag, (uint32_t)n };
	c->sreq = calloc(c->nchunk, sizeof(*c->sreq));
	if (me != root) {
		c->have = calloc(c->nfrag, 1);
		c->need = calloc(c->nchunk, sizeof(*c->need));
		c->ring = malloc(n);
		c->rreq = calloc(c->nchunk, sizeof(*c->rreq));
		c->pending = calloc(c->nchunk, sizeof(*c->pending));
		if (c->have == NULL || c->need == NULL || c->ring == NULL || c->rreq == NULL ||
		    c->pending == NULL)
			return OMPI_ERR_OUT_OF_RESOURCE;
		for (uint32_t f = 0; f < c->nfrag; f++)
			c->need[f / c->cf]++;
	}
	return c->sreq == NULL ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
}

static void
mcall_free(struct mcall *c)
{
	free(c->sreq);
	free(c->have);
	free(c->need);
	free(c->ring);
	free(c->rreq);
	free(c->pending);
}

/* The two stages inside our cluster, from cluster rank root. */
static int
cluster_mcast(char *buf, size_t n, int root, struct qcg_mcast *mc, struct ompi_communicator_t *cl)
{
	struct mcall c;
	int size = ompi_comm_size(cl), rc = mcall_init(&c, mc, cl, buf, n, root);
	if (rc == OMPI_SUCCESS && c.pred < 0) { /* the root */
		rc = root_delay(&c, size);
		if (rc == OMPI_SUCCESS)
			rc = root_multicast(&c);
		if (rc == OMPI_SUCCESS)
			rc = forward(&c); /* the root has everything (need == NULL) */
	} else if (rc == OMPI_SUCCESS) {
		if (mca_coll_qcg_mcast_params.delay == QCG_DELAY_SYNC &&
		    sync_partner(mc, size, root) == ompi_comm_rank(cl))
			rc = MCA_PML_CALL(send(NULL, 0, MPI_BYTE, root, MCAST_TAG,
			    MCA_PML_BASE_SEND_STANDARD, cl));
		if (rc == OMPI_SUCCESS)
			rc = receive(&c);
	}
	int wrc = c.nsent > 0 ? ompi_request_wait_all(c.nsent, c.sreq, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	QCG_VERBOSE(30, "mcast: call %u, %zu bytes in %u fragments from cluster rank %d: %s",
	    mc->seq, n, c.nfrag, root, c.pred < 0 ? "sent" : "received");
	mc->seq++, mc->calls++;
	mcall_free(&c);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

int
mca_coll_qcg_mcast_bcast(char *buf, int nbytes, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	int rc = mca_coll_qcg_subcomms_ensure(comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	if (m->mcast == NULL && (m->mcast = calloc(1, sizeof(*m->mcast))) == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	if (m->mcast->ready == 0) /* once per communicator, on every member of the cluster */
		(void)qcg_mcast_setup(m->mcast, m->cluster_comm);
	rc = bcast_to_cluster_holders(buf, nbytes, root, comm, m);
	if (rc != OMPI_SUCCESS)
		return rc;
	int holder = qcg_topo_holder(lay, 1, lay->unit[1][m->rank], root);
	int croot = lay->pos[1][holder];
	struct ompi_communicator_t *cl = m->cluster_comm;
	if (ompi_comm_size(cl) < 2)
		return OMPI_SUCCESS;
	if (m->mcast->ready < 0) /* no group here: the cluster's ordinary broadcast */
		return cl->c_coll->coll_bcast(buf, nbytes, MPI_BYTE, croot, cl,
		    cl->c_coll->coll_bcast_module);
	return cluster_mcast(buf, (size_t)nbytes, croot, m->mcast, cl);
}

void
mca_coll_qcg_mcast_free(mca_coll_qcg_module_t *m)
{
	struct qcg_mcast *mc = m->mcast;
	if (mc == NULL)
		return;
	if (mc->calls > 0)
		QCG_VERBOSE(10, "mcast: %llu broadcasts: %llu fragments by multicast, %llu by the "
		    "ring; sent %llu datagrams, dropped %llu, rejected %llu",
		    (unsigned long long)mc->calls, (unsigned long long)mc->by_mcast,
		    (unsigned long long)mc->by_ring, (unsigned long long)mc->sent,
		    (unsigned long long)mc->dropped, (unsigned long long)mc->rejected);
	qcg_mcast_teardown(mc);
	free(mc);
	m->mcast = NULL;
}
