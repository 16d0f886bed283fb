/*
 * coll_qcg_discovery.c: finding the topology at startup when nothing was injected: nodes by host
 * name, clusters and sites by grouping the round-trip times measured between node leaders.
 *
 * Runs once, inside the selection of MPI_COMM_WORLD during MPI_Init (the PML is up by then, and
 * every rank of the job takes part in that selection, so the protocol below is collective over
 * MPI_COMM_WORLD), using point-to-point messages with a coll tag. World rank 0 decides and
 * everyone else learns its decision, so all ranks hold identical colors:
 *   1. every rank sends its host name to rank 0 (one round, flat);
 *   2. rank 0 numbers the hosts (nodes) and broadcasts node_of[rank] (binomial tree);
 *      a node's leader is its lowest rank;
 *   3. leaders measure RTTs pairwise, round-robin (L-1 rounds of disjoint pairs, so the pairs of
 *      a round run at once): one warm-up exchange (it opens the connection), then
 *      coll_qcg_discovery_pings exchanges of 8 bytes, keeping the minimum (only the lower
 *      index of a pair times them: see ping_pair);
 *   4. leaders send their row to rank 0, which groups the matrix (qcg_topo_group.c);
 *   5. rank 0 broadcasts the cluster and site of every node (binomial tree).
 * Every wait polls with short naps after a brief spin, so that ranks not being timed leave the
 * CPU to those that are (jobs often have more ranks than cores). Cost: about (L-1) x (pings+1)
 * x the largest RTT of each round; 6 nodes on three sites with a 10 ms RTT take some 0.3 s. A
 * job of one host measures nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_qcg.h"
#include "qcg_topo_group.h"

#define HOST_LEN 256                       /* bytes per host name on the wire, NUL included */
#define DISC_TAG MCA_COLL_BASE_TAG_ALLTOALLW /* unused by qcg; nothing else runs during init */
#define PATIENT_SPIN_US 50.0                  /* spin this long before napping */
#define PATIENT_NAP_MIN_US 20.0               /* then poll every 20 us at first, */
#define PATIENT_NAP_MAX_US 1000.0             /* longer as the wait goes on, up to 1 ms: */
#define PATIENT_NAP_SHARE 32.0                /* a nap is at most 1/32 of the time waited */

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/*
 * Wait for n requests without hogging a core: spin briefly, then poll with naps that grow with
 * the time already waited. Ranks are often more than cores (oversubscribed test jobs); a
 * waiting rank that spins steals the CPU from the pair being timed and adds scheduling delays
 * of milliseconds to its RTT. A fixed 20 us nap was not enough: in the link probe most ranks
 * wait for seconds while one pair is timed, and 24 ranks on 2 cores, each waking some 15,000
 * times a second (20 us plus the timer slack), kept both cores busy; the timed pair, the TCP
 * stack and the grid services the job's connections go through got a share each, and the
 * probe took 3-19 s instead of 1.6-2.4 (issue 12, bench/launch/README.md). A nap of at most
 * 1/32 of the wait so far overshoots a round trip by 3 % at most, and a rank that waits long
 * wakes 1,000 times a second.
 */
int
mca_coll_qcg_patient_wait(ompi_request_t **reqs, int n)
{
	double t0 = now_us();
	for (;;) {
		int done = 0;
		int rc = ompi_request_test_all((size_t)n, reqs, &done, MPI_STATUSES_IGNORE);
		if (rc != OMPI_SUCCESS || done)
			return rc;
		opal_progress();
		double waited = now_us() - t0;
		if (waited > PATIENT_SPIN_US) {
			double us = waited / PATIENT_NAP_SHARE;
			us = us < PATIENT_NAP_MIN_US ? PATIENT_NAP_MIN_US :
			    us > PATIENT_NAP_MAX_US ? PATIENT_NAP_MAX_US : us;
			const struct timespec nap = { 0, (long)(us * 1000) };
			nanosleep(&nap, NULL);
		}
	}
}

/* Blocking send / receive with a patient wait (also the link probe's, coll_qcg_links.c). */
int
mca_coll_qcg_patient_xfer(int sending, void *buf, int count, struct ompi_datatype_t *dt,
    int peer, struct ompi_communicator_t *comm)
{
	ompi_request_t *req;
	int rc = sending ? MCA_PML_CALL(isend(buf, count, dt, peer, DISC_TAG,
	    MCA_PML_BASE_SEND_STANDARD, comm, &req)) :
	    MCA_PML_CALL(irecv(buf, count, dt, peer, DISC_TAG, comm, &req));
	return rc != OMPI_SUCCESS ? rc : mca_coll_qcg_patient_wait(&req, 1);
}

/* Binomial broadcast of count items from rank 0 to every rank (virtual rank = rank). */
int
mca_coll_qcg_patient_bcast(void *buf, int count, struct ompi_datatype_t *dt,
    struct ompi_communicator_t *comm)
{
	int n = ompi_comm_size(comm), me = ompi_comm_rank(comm), rc = OMPI_SUCCESS, mask = 1;
	while (mask < n && !(me & mask)) /* our parent clears our lowest set bit */
		mask <<= 1;
	if (me != 0)
		rc = mca_coll_qcg_patient_xfer(0, buf, count, dt, me & ~mask, comm);
	for (mask >>= 1; rc == OMPI_SUCCESS && mask > 0; mask >>= 1)
		if (me + mask < n)
			rc = mca_coll_qcg_patient_xfer(1, buf, count, dt, me + mask, comm);
	return rc;
}

/* Step 1 at rank 0: every rank's host name into names[r * HOST_LEN]. */
static int
gather_hostnames(char *names, int n, struct ompi_communicator_t *comm)
{
	ompi_request_t **reqs = malloc((size_t)n * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int nr = 0, rc = OMPI_SUCCESS;
	for (int r = 1; r < n && rc == OMPI_SUCCESS; r++) {
		rc = MCA_PML_CALL(irecv(names + (size_t)r * HOST_LEN, HOST_LEN, MPI_CHAR, r, DISC_TAG,
		    comm, &reqs[nr]));
		if (rc == OMPI_SUCCESS)
			nr++;
	}
	int wrc = nr > 0 ? mca_coll_qcg_patient_wait(reqs, nr) : OMPI_SUCCESS;
	free(reqs);
	for (int r = 0; r < n; r++)
		names[(size_t)r * HOST_LEN + HOST_LEN - 1] = '\0';
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* Step 2 at rank 0: node_of[r] numbers distinct host names in order of their lowest rank. */
static int
number_nodes(const char *names, int n, int *node_of)
{
	int L = 0;
	for (int r = 0; r < n; r++) {
		node_of[r] = -1;
		for (int q = 0; q < r && node_of[r] < 0; q++)
			if (strcmp(names + (size_t)q * HOST_LEN, names + (size_t)r * HOST_LEN) == 0)
				node_of[r] = node_of[q];
		if (node_of[r] < 0)
			node_of[r] = L++;
	}
	return L;
}

/* Round-robin ("circle") schedule: our partner in round t among M (even) slots, or -1. */
static int
partner(int i, int t, int M, int L)
{
	int p;
	if (i == M - 1)
		p = t;
	else if (i == t)
		p = M - 1;
	else
		p = ((2 * t - i) % (M - 1) + (M - 1)) % (M - 1);
	return p < L ? p : -1; /* slot L is the bye of an odd count */
}

/* Step 3 for one pair: the lower index times pings exchanges; *rtt is their minimum there, and -1
 * (not measured) on the echoing side. */
static int
ping_pair(int peer, int timing, int pings, double *rtt, struct ompi_communicator_t *comm)
{
	char msg[8] = { 0 };
	double best = -1;
	for (int p = 0; p <= pings; p++) { /* p == 0 is the warm-up: it may open the connection */
		double t0 = now_us();
		int rc;
		rc = mca_coll_qcg_patient_xfer(timing, msg, 8, MPI_BYTE, peer, comm);
		if (rc == OMPI_SUCCESS)
			rc = mca_coll_qcg_patient_xfer(!timing, msg, 8, MPI_BYTE, peer, comm);
		if (rc != OMPI_SUCCESS)
			return rc;
		double dt = now_us() - t0;
		if (p > 0 && (best < 0 || dt < best))
			best = dt;
	}
	/*
	 * Only the side that sends first times a round trip. The echoing side's interval runs from
	 * its last pong to the next ping's arrival: when it was descheduled meanwhile (ranks share
	 * cores) the ping is already queued and that interval is a few microseconds, which the
	 * minimum of the two directions would take for a 10 ms WAN link (seen: 42 us across 5 ms
	 * each way, merging two sites).
	 */
	*rtt = timing ? best : -1;
	return OMPI_SUCCESS;
}

/* Step 3 for leader index i of L (leader[] = their world ranks): fill row[] (-1 = not ours). */
static int
measure_row(int i, int L, const int *leader, double *row, struct ompi_communicator_t *comm)
{
	int M = L % 2 ? L + 1 : L, rc = OMPI_SUCCESS;
	for (int j = 0; j < L; j++)
		row[j] = -1;
	for (int t = 0; t < M - 1 && rc == OMPI_SUCCESS; t++) {
		int j = partner(i, t, M, L);
		if (j >= 0)
			rc = ping_pair(leader[j], i < j, mca_coll_qcg_component.discovery_pings,
			    &row[j], comm);
	}
	return rc;
}

/* Step 4 at rank 0: the rows of the other leaders into rtt[L*L]. */
static int
gather_rows(double *rtt, int L, const int *leader, struct ompi_communicator_t *comm)
{
	ompi_request_t **reqs = malloc((size_t)L * sizeof(*reqs));
	if (reqs == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	int nr = 0, rc = OMPI_SUCCESS;
	for (int i = 1; i < L && rc == OMPI_SUCCESS; i++) {
		rc = MCA_PML_CALL(irecv(rtt + (size_t)i * L, L, MPI_DOUBLE, leader[i], DISC_TAG,
		    comm, &reqs[nr]));
		if (rc == OMPI_SUCCESS)
			nr++;
	}
	int wrc = nr > 0 ? mca_coll_qcg_patient_wait(reqs, nr) : OMPI_SUCCESS;
	free(reqs);
	return rc != OMPI_SUCCESS ? rc : wrc;
}

/* Rank 0, once grouped: the least round trip of each link class between node leaders, kept
 * for the link probe (coll_qcg_links.c), which then need not time these round trips again. */
static void
least_rtt_per_class(const double *rtt, int L, const int *cluster, const int *site)
{
	double *least = mca_coll_qcg_component.discovered_rtt_us;
	for (int k = 0; k < QCG_NLINKS; k++)
		least[k] = -1;
	for (int i = 0; i < L; i++)
		for (int j = i + 1; j < L; j++) {
			double x = rtt[(size_t)i * L + j] >= 0 ? rtt[(size_t)i * L + j] :
			    rtt[(size_t)j * L + i];
			int k = site[i] != site[j] ? QCG_LINK_WAN :
			    cluster[i] != cluster[j] ? QCG_LINK_LAN : QCG_LINK_HOST;
			if (x >= 0 && (least[k] < 0 || x < least[k]))
				least[k] = x;
		}
}

/* Rank 0: group the matrix, print what was found, fill levels[0] and cluster/site per node. */
static void
decide(const double *rtt, int L, const int *leader, const char *names, int *levels,
    int *cluster, int *site)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	struct qcg_topo_group_params p = { .floor_us = c->discovery_floor_us,
		.ratio = c->discovery_ratio };
	*levels = qcg_topo_group(L, rtt, &p, cluster, site);
	if (*levels < 0) {
		opal_output(0, "coll:qcg: discovery: cannot group %d nodes (floor %.0f us, ratio "
		    "%.2f: want floor >= 0, ratio > 1); every node in one cluster", L, p.floor_us,
		    p.ratio);
		memset(cluster, 0, (size_t)L * sizeof(int));
		memset(site, 0, (size_t)L * sizeof(int));
	}
	least_rtt_per_class(rtt, L, cluster, site);
	for (int i = 0; i < L; i++) {
		char line[512];
		int len = snprintf(line, sizeof(line), "rtt_us");
		for (int j = 0; j < L && len < (int)sizeof(line) - 16; j++) {
			double x = rtt[(size_t)i * L + j] >= 0 ? rtt[(size_t)i * L + j] :
			    rtt[(size_t)j * L + i];
			len += snprintf(line + len, sizeof(line) - (size_t)len, " %.0f", i == j ? 0 : x);
		}
		QCG_VERBOSE(10, "discovery: node %d host %s leader rank %d: site %d cluster %d; %s",
		    i, names + (size_t)leader[i] * HOST_LEN, leader[i], site[i], cluster[i], line);
	}
}

/* Steps 3-5 once node_of[] is known everywhere: fills clusters[0..L) and sites[L..2L). */
static int
measure_and_group(int *node_of, int L, const char *names, int *result,
    struct ompi_communicator_t *comm)
{
	int n = ompi_comm_size(comm), me = ompi_comm_rank(comm), rc = OMPI_SUCCESS;
	int *leader = malloc((size_t)L * sizeof(int));
	double *rtt = malloc((size_t)L * (size_t)L * sizeof(double));
	if (leader == NULL || rtt == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
	for (int r = n - 1; r >= 0; r--)
		leader[node_of[r]] = r;
	int i = node_of[me], measured = L <= mca_coll_qcg_component.discovery_max_nodes;
	if (measured && leader[i] == me)
		rc = measure_row(i, L, leader, rtt + (size_t)i * L, comm);
	if (rc == OMPI_SUCCESS && measured && me != 0 && leader[i] == me)
		rc = mca_coll_qcg_patient_xfer(1, rtt + (size_t)i * L, L, MPI_DOUBLE, 0, comm);
	if (rc == OMPI_SUCCESS && measured && me == 0)
		rc = gather_rows(rtt, L, leader, comm);
	if (rc == OMPI_SUCCESS && me == 0) {
		if (!measured) {
			opal_output(0, "coll:qcg: discovery: %d nodes exceed "
			    "coll_qcg_discovery_max_nodes (%d): not measured, one cluster", L,
			    mca_coll_qcg_component.discovery_max_nodes);
			for (int k = 0; k < L * L; k++)
				rtt[k] = -1;
			memset(result, 0, (size_t)(2 * L + 1) * sizeof(int));
		} else
			decide(rtt, L, leader, names, &result[2 * L], result, result + L);
	}
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_patient_bcast(result, 2 * L + 1, MPI_INT, comm);
out:
	free(leader);
	free(rtt);
	return rc;
}

/* Every rank's own view of what rank 0 decided, so that each rank's output shows the tiers:
 * the levels found above the node, plus the node itself. */
static void
report_tiers(int me, int node, const int *result, int L)
{
	int sites = 0, clusters = 0;
	for (int i = 0; i < L; i++) {
		sites = result[L + i] + 1 > sites ? result[L + i] + 1 : sites;
		clusters = result[i] + 1 > clusters ? result[i] + 1 : clusters;
	}
	QCG_VERBOSE(10, "discovery: rank %d: %d tiers discovered (%d sites, %d clusters, %d "
	    "nodes); mine: site %d cluster %d node %d", me, result[2 * L] + 1, sites, clusters, L,
	    result[L + node], result[node], node);
}

/* Store the world colors (site, cluster, node) decided by rank 0. */
static int
store_colors(const int *node_of, int n, const int *result, int L)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	c->world_colors = malloc((size_t)n * QCG_TOPO_LEVELS * sizeof(int));
	if (c->world_colors == NULL)
		return OMPI_ERR_OUT_OF_RESOURCE;
	for (int r = 0; r < n; r++) {
		int *col = &c->world_colors[r * QCG_TOPO_LEVELS];
		col[0] = result[L + node_of[r]];
		col[1] = result[node_of[r]];
		col[2] = node_of[r];
	}
	c->world_size = n;
	c->origin = QCG_TOPO_DISCOVERED;
	return OMPI_SUCCESS;
}

int
mca_coll_qcg_discover(struct ompi_communicator_t *comm)
{
	int n = ompi_comm_size(comm), me = ompi_comm_rank(comm), rc = OMPI_SUCCESS, L = 0;
	double t0 = now_us();
	char *names = malloc(me == 0 ? (size_t)n * HOST_LEN : HOST_LEN);
	int *node_of = malloc((size_t)n * sizeof(int)), *result = NULL;
	if (names == NULL || node_of == NULL) {
		rc = OMPI_ERR_OUT_OF_RESOURCE;
		goto out;
	}
	memset(names, 0, HOST_LEN);
	if (gethostname(names, HOST_LEN - 1) != 0)
		strcpy(names, "?");
	if (me != 0)
		rc = mca_coll_qcg_patient_xfer(1, names, HOST_LEN, MPI_CHAR, 0, comm);
	else
		rc = gather_hostnames(names, n, comm);
	if (rc == OMPI_SUCCESS && me == 0)
		number_nodes(names, n, node_of);
	if (rc == OMPI_SUCCESS)
		rc = mca_coll_qcg_patient_bcast(node_of, n, MPI_INT, comm);
	for (int r = 0; rc == OMPI_SUCCESS && r < n; r++)
		L = node_of[r] + 1 > L ? node_of[r] + 1 : L;
	if (rc == OMPI_SUCCESS && (result = calloc((size_t)(2 * L + 1), sizeof(int))) == NULL)
		rc = OMPI_ERR_OUT_OF_RESOURCE;
	if (rc == OMPI_SUCCESS)
		rc = measure_and_group(node_of, L, names, result, comm);
	if (rc == OMPI_SUCCESS)
		rc = store_colors(node_of, n, result, L);
	if (rc == OMPI_SUCCESS)
		report_tiers(me, node_of[me], result, L);
	if (rc == OMPI_SUCCESS && me == 0)
		QCG_VERBOSE(10, "discovery: %d ranks on %d nodes: %d level%s above the node, "
		    "rank 0 decided in %.1f ms", n, L, result[2 * L], result[2 * L] == 1 ? "" : "s",
		    (now_us() - t0) / 1000);
out:
	if (rc != OMPI_SUCCESS)
		opal_output(0, "coll:qcg: topology discovery failed (error %d); qcg steps aside",
		    rc);
	free(names);
	free(node_of);
	free(result);
	return rc;
}
