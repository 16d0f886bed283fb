/*
 * coll_qcg_links.c: the level parameters of the cost model (coll_qcg_decision.c): per link
 * class (WAN, LAN, host, node) a one-way latency and a bandwidth, measured once per job.
 *
 * When: lazily, at the first call of a collective on a communicator qcg took whose algorithm
 * is chosen by the model (coll_qcg_choice.c): a collective call, so every member gets there,
 * and the probe is collective over that communicator, on point-to-point messages, like
 * discovery. Not at MPI_Init: there it cost 0.3-2.2 s of start-up (mostly the 1 MiB transfers
 * across the WAN) in every job, including those that never call a collective across sites.
 * The communicator's rank 0 first says whether it holds figures from an earlier probe (any
 * communicator's: the links are the job's); if so every member takes those, else all probe.
 * Either way its rank 0 broadcasts them: every member holds identical values and takes
 * identical decisions.
 *
 * How: the layout gives, per class, the first pair of ranks linked that way (lowest rank, then
 * lowest partner). Steps run one after another, started by rank 0 (a "go" message to the
 * step's timing side) so that no two measurements share the links or the cores:
 *   - one pair: coll_qcg_discovery_pings timed 8-byte round trips after one warm-up (minimum:
 *     the latency is half of it; none where discovery already timed the class's round trips
 *     at a millisecond or more: known_round_trips), then one warm-up and PROBE_REPS timed
 *     transfers of
 *     coll_qcg_links_probe_kb KiB (in the WAN chunks qcg itself uses: no rendezvous) answered
 *     by 8 bytes; bandwidth = bytes / (least time - round trip);
 *   - WAN only, every pair of the two sites at once (i-th rank of one with the i-th of the
 *     other): the total bandwidth the sites get when all their ranks cross together (one line
 *     per site on the testbed; shared memory on one host), which topology-oblivious
 *     algorithms rely on.
 * Only the side that sends first times (see discovery's ping_pair for why). The timing side
 * reports to rank 0; rank 0 computes and broadcasts. Cost: a few round trips and transfers per
 * class: about 0.2 s across a 5 ms WAN at 1 MiB probes.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll_qcg.h"

#define LINK_TAG MCA_COLL_BASE_TAG_ALLTOALLW /* as discovery: nothing else runs during init */
#define PROBE_REPS 3
#define LATENCY_ROUNDS 3          /* rounds over the classes, each on another pair */
#define PINGS_MAX 200            /* round trips per pair at most */
#define PINGS_BUDGET_US 20000.0  /* more than coll_qcg_discovery_pings only within this time */

static const char *const class_names[QCG_NLINKS] = { "wan", "lan", "host", "node" };

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The class of the link between ranks a and b: the highest level at which they differ. */
static int
link_class(const struct qcg_topo_layout *lay, int a, int b)
{
	for (int l = 0; l < QCG_TOPO_LEVELS; l++)
		if (lay->unit[l][a] != lay->unit[l][b])
			return l;
	return QCG_LINK_NODE;
}

/* The idx-th of disjoint pairs of class c (lowest a, then lowest b, no rank in two of them);
 * 0 if there are fewer. Rounds use different pairs: on an oversubscribed host two processes
 * sharing one core take a context switch per message, whatever link joins them. */
static int
nth_pair(const struct qcg_topo_layout *lay, int c, int idx, int *pa, int *pb)
{
	int found = 0;
	char *used = calloc((size_t)lay->n, 1);
	if (used == NULL)
		return 0;
	for (int a = 0; a < lay->n && found <= idx; a++) {
		for (int b = a + 1; b < lay->n && !used[a]; b++) {
			if (used[b] || link_class(lay, a, b) != c)
				continue;
			used[a] = used[b] = 1;
			*pa = a, *pb = b;
			found++;
		}
	}
	free(used);
	return found > idx;
}

/* For every pair of the sites of a and b at once: our partner and whether we time; 0 if we
 * take no part. Also the number of pairs. */
static int
site_pair_role(const struct qcg_topo_layout *lay, int a, int b, int me, int *peer, int *timing,
    int *npairs)
{
	int sa = lay->unit[0][a], sb = lay->unit[0][b];
	int na = lay->usize[0][sa], nb = lay->usize[0][sb], np = na < nb ? na : nb;
	*npairs = np;
	int mine = lay->unit[0][me], i = lay->pos[0][me];
	if ((mine != sa && mine != sb) || i >= np)
		return 0;
	int other = mine == sa ? sb : sa;
	for (int r = 0; r < lay->n; r++)
		if (lay->unit[0][r] == other && lay->pos[0][r] == i)
			*peer = r;
	*timing = mine == sa;
	return 1;
}

/* Blocking send / receive that spins: the two ranks being timed keep their cores (the others
 * nap in their patient waits), so a nap's granularity (tens of microseconds) does not end up
 * in a latency of a few. */
static int
spin_xfer(int sending, void *buf, int count, int peer, struct ompi_communicator_t *comm)
{
	ompi_request_t *req;
	int rc = sending ? MCA_PML_CALL(isend(buf, count, MPI_BYTE, peer, LINK_TAG,
	    MCA_PML_BASE_SEND_STANDARD, comm, &req)) :
	    MCA_PML_CALL(irecv(buf, count, MPI_BYTE, peer, LINK_TAG, comm, &req));
	return rc != OMPI_SUCCESS ? rc : ompi_request_wait(&req, MPI_STATUS_IGNORE);
}

/* One timed transfer of len bytes to (timing) or from peer, answered by 8 bytes. */
static int
transfer(int timing, char *buf, size_t len, int peer, struct ompi_communicator_t *comm,
    double *dt)
{
	int n = mca_coll_qcg_nchunks(len, 1), rc, posted;
	ompi_request_t **reqs = malloc((size_t)n * sizeof(*reqs));
	char ack[8] = { 0 };
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	double t0 = now_us();
	posted = mca_coll_qcg_post_chunks(timing, 1, buf, len, peer, LINK_TAG, comm, reqs, &rc);
	int wrc = posted > 0 ? ompi_request_wait_all((size_t)posted, reqs, MPI_STATUSES_IGNORE) :
	    OMPI_SUCCESS;
	free(reqs);
	if (rc == OMPI_SUCCESS)
		rc = wrc;
	if (rc == OMPI_SUCCESS)
		rc = spin_xfer(!timing, ack, 8, peer, comm);
	*dt = now_us() - t0;
	return rc;
}

/* Our part in one pair's measurement: *rtt (if rtt) and *dt the least times; -1 if echoing. */
static int
measure_pair(int timing, int peer, char *buf, size_t len, double *rtt, double *dt,
    struct ompi_communicator_t *comm)
{
	int rc = OMPI_SUCCESS;
	char msg[8] = { 0 };
	/* at least coll_qcg_discovery_pings, then more while they are cheap: on a loaded host
	 * a few round trips may all include a descheduling, and the minimum needs one that
	 * does not (the echoing side follows the timing side's count: it pings back until the
	 * timing side says stop, in the message itself) */
	double start = now_us();
	for (int p = 0; rtt != NULL && rc == OMPI_SUCCESS; p++) {
		double t0 = now_us();
		if (timing)
			msg[0] = p >= PINGS_MAX || (p > mca_coll_qcg_component.discovery_pings &&
			    t0 - start > PINGS_BUDGET_US);
		rc = spin_xfer(timing, msg, 8, peer, comm);
		if (rc == OMPI_SUCCESS)
			rc = spin_xfer(!timing, msg, 8, peer, comm);
		double t = now_us() - t0;
		if (p > 0 && (*rtt < 0 || t < *rtt))
			*rtt = t;
		if (msg[0]) /* the last exchange: the timing side said so */
			break;
	}
	for (int p = 0; p <= PROBE_REPS && rc == OMPI_SUCCESS; p++) {
		double t = 0;
		rc = transfer(timing, buf, len, peer, comm, &t);
		if (p > 0 && (*dt < 0 || t < *dt))
			*dt = t;
	}
	if (!timing) {
		if (rtt != NULL)
			*rtt = -1;
		*dt = -1;
	}
	return rc;
}

/* One step: rank 0 starts the timing sides, they measure with their partners and report
 * (rtt, dt, same host) to rank 0, which keeps the round trip, the slowest transfer and whether
 * every pair shared a host in rep[] (rep[2] starts at 1). */
static int
run_step(const int *peer_of, const int *timing_of, int me, char *buf, size_t len, int want_rtt,
    double *rep, struct ompi_communicator_t *comm)
{
	int n = ompi_comm_size(comm), rc = OMPI_SUCCESS;
	char go[8] = { 0 };
	double r[3] = { -1, -1, 1 };
	if (me == 0)
		for (int t = 1; t < n && rc == OMPI_SUCCESS; t++)
			if (peer_of[t] >= 0 && timing_of[t])
				rc = mca_coll_qcg_patient_xfer(1, go, 8, MPI_BYTE, t, comm);
	if (rc == OMPI_SUCCESS && peer_of[me] >= 0) {
		if (me != 0 && timing_of[me])
			rc = mca_coll_qcg_patient_xfer(0, go, 8, MPI_BYTE, 0, comm);
		if (rc == OMPI_SUCCESS)
			rc = measure_pair(timing_of[me], peer_of[me], buf, len, want_rtt ? &r[0] : NULL,
			    &r[1], comm);
		/* whether the pair shares one host (then it talks through shared memory, whatever
		 * the topology calls the link between them) */
		r[2] = OPAL_PROC_ON_LOCAL_NODE(ompi_comm_peer_lookup(comm,
		    peer_of[me])->super.proc_flags) ? 1 : 0;
		if (rc == OMPI_SUCCESS && me != 0 && timing_of[me])
			rc = mca_coll_qcg_patient_xfer(1, r, 3, MPI_DOUBLE, 0, comm);
	}
	if (me != 0 || rc != OMPI_SUCCESS)
		return rc;
	for (int t = 0; t < n && rc == OMPI_SUCCESS; t++) {
		if (peer_of[t] < 0 || !timing_of[t])
			continue;
		if (t != 0)
			rc = mca_coll_qcg_patient_xfer(0, r, 3, MPI_DOUBLE, t, comm);
		if (r[0] >= 0)
			rep[0] = r[0];
		if (r[1] > rep[1])
			rep[1] = r[1];
		if (r[2] < rep[2])
			rep[2] = r[2];
	}
	return rc;
}

/* Rank 0: the parameters of class c from its steps' reports. */
static void
derive(struct qcg_link_params *p, const double *single, const double *all, int npairs,
    size_t len)
{
	double rtt = single[0], dt = single[1] - rtt;
	if (dt <= 0)
		dt = single[1];
	p->latency_us = rtt / 2;
	p->mb_per_s = (double)len / dt;
	p->shared_mb_per_s = -1;
	if (all[1] > 0) {
		double dta = all[1] - rtt > 0 ? all[1] - rtt : all[1];
		p->shared_mb_per_s = (double)npairs * (double)len / dta;
	}
}

/* One class's steps: its first pair alone (single[]: rtt unless !want_rtt, transfer time)
 * and, for the WAN on the first round, every pair of the two sites at once (all[], npairs). */
static int
probe_class(int c, int round, int want_rtt, const struct qcg_topo_layout *lay, int me,
    char *buf, size_t len, int *peer_of, int *timing_of, double *single, double *all,
    int *npairs, struct ompi_communicator_t *comm)
{
	int a, b, n = lay->n, rc;
	if (!nth_pair(lay, c, round, &a, &b) && (round == 0 || !nth_pair(lay, c, 0, &a, &b)))
		return OMPI_SUCCESS; /* stays unmeasured (-1) */
	for (int r = 0; r < n; r++)
		peer_of[r] = -1, timing_of[r] = 0;
	peer_of[a] = b, peer_of[b] = a, timing_of[a] = 1;
	rc = run_step(peer_of, timing_of, me, buf, len, want_rtt, single, comm);
	if (rc == OMPI_SUCCESS && c == QCG_LINK_WAN && round == 0) {
		for (int r = 0; r < n; r++) {
			int p = -1, t = 0;
			peer_of[r] = -1, timing_of[r] = 0;
			if (site_pair_role(lay, a, b, r, &p, &t, npairs))
				peer_of[r] = p, timing_of[r] = t;
		}
		if (*npairs > 1)
			rc = run_step(peer_of, timing_of, me, buf, len, 0, all, comm);
	}
	return rc;
}

/*
 * Classes whose probed pairs all shared one host in Open MPI's eyes (a topology file on one
 * machine; the testbed's namespaces have host names of their own, so they do not count) are
 * one link, shared memory, whatever the topology calls them: each takes the best latency and
 * bandwidth any of them measured (a pair that shared a core measured context switches).
 */
static void
same_host_is_one_link(struct qcg_link_params *got, const int *one_host)
{
	struct qcg_link_params best = { -1, 0, -1 };
	for (int k = 0; k < QCG_NLINKS; k++) {
		if (got[k].latency_us < 0 || !one_host[k])
			continue;
		if (best.latency_us < 0 || got[k].latency_us < best.latency_us)
			best.latency_us = got[k].latency_us;
		if (got[k].mb_per_s > best.mb_per_s)
			best.mb_per_s = got[k].mb_per_s;
		if (got[k].shared_mb_per_s > best.shared_mb_per_s)
			best.shared_mb_per_s = got[k].shared_mb_per_s;
	}
	for (int k = 0; k < QCG_NLINKS; k++)
		if (got[k].latency_us >= 0 && one_host[k]) {
			double shared = got[k].shared_mb_per_s;
			got[k] = best;
			got[k].shared_mb_per_s = shared > 0 ? best.shared_mb_per_s : -1;
		}
}

/*
 * The round trips discovery already timed (world rank 0 holds them; broadcast so that every
 * rank skips the same pings): a class's only where they are slow enough that discovery's
 * patient waits (naps of at most 3 % of a wait) barely inflate them: across sites and slow
 * site networks, where each round trip costs milliseconds (3 rounds of at least
 * coll_qcg_discovery_pings + 1 round trips: 0.2 s and more at a 5 ms WAN). -1: not known,
 * measure.
 */
#define KNOWN_RTT_MIN_US 1000.0

static int
known_round_trips(double *known, struct ompi_communicator_t *comm)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	for (int k = 0; k < QCG_NLINKS; k++) {
		double d = c->discovered_rtt_us[k];
		known[k] = ompi_comm_rank(comm) == 0 && c->origin == QCG_TOPO_DISCOVERED &&
		    k != QCG_LINK_NODE && d >= KNOWN_RTT_MIN_US ? d : -1;
	}
	return mca_coll_qcg_patient_bcast(known, QCG_NLINKS, MPI_DOUBLE, comm);
}

/* Rank 0 returns once every rank has sent it a zero-byte "ready"; the others at once. */
static int
everyone_ready(struct ompi_communicator_t *comm)
{
	int n = ompi_comm_size(comm), me = ompi_comm_rank(comm), rc = OMPI_SUCCESS;
	if (me != 0)
		return mca_coll_qcg_patient_xfer(1, NULL, 0, MPI_BYTE, 0, comm);
	for (int r = 1; r < n && rc == OMPI_SUCCESS; r++)
		rc = mca_coll_qcg_patient_xfer(0, NULL, 0, MPI_BYTE, r, comm);
	return rc;
}

int
mca_coll_qcg_links_probe(struct ompi_communicator_t *comm, const struct qcg_topo_layout *lay,
    struct qcg_link_params *out)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	int n = lay->n, me = ompi_comm_rank(comm), rc = OMPI_SUCCESS;
	size_t len = (size_t)c->links_probe_kb * 1024;
	double t0 = now_us(), res[QCG_NLINKS * 3];
	struct qcg_link_params got[QCG_NLINKS];
	for (int k = 0; k < QCG_NLINKS; k++)
		got[k] = (struct qcg_link_params){ -1, 0, -1 };
	char *buf = calloc(len, 1);
	int *peer_of = malloc((size_t)n * sizeof(int)), *timing_of = malloc((size_t)n * sizeof(int));
	if (buf == NULL || peer_of == NULL || timing_of == NULL)
		rc = OMPI_ERR_OUT_OF_RESOURCE;
	/* every rank runs the same steps in the same order (the layout is the same everywhere);
	 * an allocation failure on one rank would leave its partners waiting, as in discovery */
	/* start when every rank is here and napping in its patient wait, not still busy in its
	 * own MPI_Init (that CPU time would land in the first class's round trips) */
	if (rc == OMPI_SUCCESS)
		rc = everyone_ready(comm);
	/*
	 * LATENCY_ROUNDS rounds over the classes, each on another pair of ranks where the layout
	 * has one (the least round trip and the quickest transfer count): on a loaded host two
	 * ranks may share a core for the whole probe, and every message between them then waits
	 * for a context switch, which says nothing about the link.
	 */
	double single[QCG_NLINKS][3], all[QCG_NLINKS][3], rtt[QCG_NLINKS], known[QCG_NLINKS];
	double spent[QCG_NLINKS] = { 0 };
	int npairs[QCG_NLINKS], one_host[QCG_NLINKS];
	for (int k = 0; k < QCG_NLINKS; k++) {
		single[k][0] = single[k][1] = all[k][0] = all[k][1] = rtt[k] = known[k] = -1;
		single[k][2] = all[k][2] = 1;
		npairs[k] = 1, one_host[k] = 1;
	}
	if (rc == OMPI_SUCCESS)
		rc = known_round_trips(known, comm);
	for (int round = 0; round < LATENCY_ROUNDS && rc == OMPI_SUCCESS; round++)
		for (int k = 0; k < QCG_NLINKS && rc == OMPI_SUCCESS; k++) {
			double one[3] = { -1, -1, 1 }, t_class = now_us();
			rc = probe_class(k, round, known[k] < 0, lay, me, buf, len, peer_of, timing_of,
			    one, all[k], &npairs[k], comm);
			spent[k] += now_us() - t_class;
			if (one[1] >= 0 && known[k] >= 0)
				one[0] = known[k];
			if (one[0] >= 0 && (rtt[k] < 0 || one[0] < rtt[k]))
				rtt[k] = one[0];
			if (one[1] >= 0 && (single[k][1] < 0 || one[1] < single[k][1]))
				single[k][1] = one[1]; /* the quickest transfer of the rounds */
			if (one[1] >= 0 && one[2] < 1)
				one_host[k] = 0;
		}
	for (int k = 0; k < QCG_NLINKS && rc == OMPI_SUCCESS && me == 0; k++)
		if (single[k][1] >= 0) {
			single[k][0] = rtt[k];
			derive(&got[k], single[k], all[k], npairs[k], len);
		}
	if (me == 0)
		same_host_is_one_link(got, one_host);
	for (int k = 0; k < QCG_NLINKS; k++) {
		res[3 * k] = got[k].latency_us;
		res[3 * k + 1] = got[k].mb_per_s;
		res[3 * k + 2] = got[k].shared_mb_per_s;
	}
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_patient_bcast(res, 3 * QCG_NLINKS, MPI_DOUBLE, comm);
	free(buf);
	free(peer_of);
	free(timing_of);
	if (rc != OMPI_SUCCESS) {
		opal_output(0, "coll:qcg: link probe failed (error %d): the previous component "
		    "runs every collective", rc);
		return rc;
	}
	for (int k = 0; k < QCG_NLINKS; k++) {
		out[k] = (struct qcg_link_params){ res[3 * k], res[3 * k + 1], res[3 * k + 2] };
		if (res[3 * k] < 0)
			QCG_VERBOSE(me == 0 ? 10 : 30, "links: %-4s not in this job", class_names[k]);
		else
			QCG_VERBOSE(me == 0 ? 10 : 30, "links: %-4s one-way latency %10.1f us, "
			    "bandwidth %9.1f MB/s one pair, %9.1f MB/s all pairs of two sites",
			    class_names[k], res[3 * k], res[3 * k + 1], res[3 * k + 2]);
	}
	for (int k = 0; k < QCG_NLINKS; k++)
		if (res[3 * k] >= 0)
			QCG_VERBOSE(me == 0 ? 10 : 30, "links: %-4s probed in %.1f ms, round trip %s",
			    class_names[k], spent[k] / 1000, known[k] >= 0 ? "from discovery" :
			    "timed here");
	QCG_VERBOSE(me == 0 ? 10 : 30, "links: measured in %.1f ms with %zu KiB probes",
	    (now_us() - t0) / 1000, len / 1024);
	return OMPI_SUCCESS;
}

/*
 * The first call of m's communicator that needs a choice, on every member: its rank 0 sends
 * whether it holds figures from an earlier probe, and which; every member takes them, or all
 * probe now. links_probe is the job's parameter, the same on every rank, so either all
 * members take part or none does.
 */
/* Guards the component's links[] and links_known: under MPI_THREAD_MULTIPLE two
 * communicators may agree (read them) while a third probes (writes them). */
static pthread_mutex_t component_links_lock = PTHREAD_MUTEX_INITIALIZER;

void
mca_coll_qcg_links_agree(mca_coll_qcg_module_t *m)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	struct ompi_communicator_t *comm = m->comm;
	double have[1 + 3 * QCG_NLINKS];
	m->links_agreed = 1;
	m->links_known = 0;
	if (!c->links_probe)
		return;
	pthread_mutex_lock(&component_links_lock);
	have[0] = m->rank == 0 && c->links_known;
	for (int k = 0; k < QCG_NLINKS; k++) {
		have[1 + 3 * k] = c->links[k].latency_us;
		have[2 + 3 * k] = c->links[k].mb_per_s;
		have[3 + 3 * k] = c->links[k].shared_mb_per_s;
	}
	pthread_mutex_unlock(&component_links_lock);
	if (mca_coll_qcg_patient_bcast(have, 1 + 3 * QCG_NLINKS, MPI_DOUBLE, comm) != OMPI_SUCCESS) {
		opal_output(0, "coll:qcg: comm %d: could not agree on the links: the previous "
		    "component runs every collective", m->cid);
		return;
	}
	if (have[0]) {
		for (int k = 0; k < QCG_NLINKS; k++)
			m->links[k] = (struct qcg_link_params){ have[1 + 3 * k], have[2 + 3 * k],
			    have[3 + 3 * k] };
		m->links_known = 1;
		QCG_VERBOSE(m->rank == 0 ? 10 : 30, "links: comm %d takes the figures probed "
		    "earlier", m->cid);
		return;
	}
	QCG_VERBOSE(m->rank == 0 ? 10 : 30, "links: comm %d probes them at its first collective "
	    "that needs a choice", m->cid);
	if (mca_coll_qcg_links_probe(comm, &m->layout, m->links) != OMPI_SUCCESS)
		return;
	m->links_known = 1;
	pthread_mutex_lock(&component_links_lock);
	memcpy(c->links, m->links, sizeof(c->links));
	c->links_known = 1;
	pthread_mutex_unlock(&component_links_lock);
}
