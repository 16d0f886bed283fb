/*
 * coll_bench.c: qcg vs tuned vs han vs the lower bound, side by side in one job. Three
 * duplicates of MPI_COMM_WORLD differ only in the coll components they may use (the
 * per-communicator info key ompi_comm_coll_preference): "qcg" (qcg first, no han: qcg where the
 * topology spans clusters, tuned elsewhere), "tuned" (^qcg,han), "han" (han first, no qcg).
 *
 * Every figure is a per-call latency: each call starts at one time common to all ranks (a clock
 * corrected by each rank's offset to rank 0, coll_clock.c) and ends when the last rank leaves it.
 * Rooted collectives are measured from every root and averaged over roots; each (root, setting)
 * keeps its fastest of a few repetitions, the settings alternating call by call (measure_case).
 * Sizes are bytes per rank (per block for gather, scatter, allgather and alltoall).
 *
 * The lower bound: one WAN crossing on the critical path plus the LAN tree, from point-to-point
 * latency and bandwidth measured first in the same job (ping-pong of world rank 0 with a rank on
 * its node, on another node of its site, on another site), with the bytes each collective must
 * move through the busiest site, node and rank (see bound_us and bench/coll/README.md).
 *
 * Usage: coll_bench SITES NODES_PER_SITE RANKS_PER_NODE [repetitions [COLL,COLL...]]
 *   (the list keeps only those collectives: short runs while working on one)
 *   ranks are placed contiguously: node by node, site by site (mpirun --host a1:P,a2:P,...).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "coll_clock.h"

enum { C_QCG, C_TUNED, C_HAN, NCOMMS };
static const char *comm_pref[NCOMMS] = { "qcg,^han", "^qcg,han", "han,^qcg" };

enum { BCAST, REDUCE, ALLREDUCE, BARRIER, GATHER, SCATTER, ALLGATHER, ALLTOALL, NCOLLS };
static const char *colls[NCOLLS] = { "bcast", "reduce", "allreduce", "barrier", "gather",
	"scatter", "allgather", "alltoall" };
static const int sizes[] = { 8, 65536, 1048576 };
#define NSIZES 3
#define BIG (1 << 20)
#define MAX_SAMPLES 20000 /* calls whose entry lateness is kept for the summary */
#define CLOCK_PINGS 8     /* ping-pongs per rank for its clock offset */

static char *sbuf, *rbuf;
static int nsites, nnodes, nper; /* layout given on the command line */

/* Point-to-point figures: one-way latency (us) and bandwidth (bytes/us) per link kind. */
enum { L_NODE, L_LAN, L_WAN, NLINKS };
static const char *link_names[NLINKS] = { "node", "lan", "wan" };
static double lat_us[NLINKS], bw[NLINKS];
/* Bytes/us into one site when every rank of the other sites sends to it at once: what the
 * site's WAN link carries, which one pair's connection need not fill. */
static double bw_site_in;
/* The same into each site while every site receives so at once (reported, not in the bound:
 * on a real grid the sites' links are their own; on the testbed they share two cores). */
static double bw_every_site_in;

/* The raw forms (raw_transfers): not collectives, the traffic of one. */
enum { RAW_ALLREDUCE = NCOLLS, RAW_ALLREDUCE_NODES, RAW_ALLREDUCE_WAN, RAW_ALLGATHER,
	RAW_ALLTOALL };
static void raw_transfers(int c, int bytes);

/* One call of collective c with `bytes` per rank on comm; root for rooted ones. */
static void
run_one(int c, int bytes, int root, MPI_Comm comm)
{
	int ints = bytes / 4 > 0 ? bytes / 4 : 1;
	switch (c) {
	case RAW_ALLREDUCE:
	case RAW_ALLREDUCE_NODES:
	case RAW_ALLREDUCE_WAN:
	case RAW_ALLGATHER:
	case RAW_ALLTOALL: raw_transfers(c, bytes); break;
	case BCAST: MPI_Bcast(sbuf, bytes, MPI_BYTE, root, comm); break;
	case REDUCE: MPI_Reduce(sbuf, rbuf, ints, MPI_INT, MPI_SUM, root, comm); break;
	case ALLREDUCE: MPI_Allreduce(sbuf, rbuf, ints, MPI_INT, MPI_SUM, comm); break;
	case BARRIER: MPI_Barrier(comm); break;
	case GATHER:
		MPI_Gather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, root, comm);
		break;
	case SCATTER:
		MPI_Scatter(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, root, comm);
		break;
	case ALLGATHER: MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm); break;
	default: MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm); break;
	}
}

static int
rooted(int c)
{
	return c == BCAST || c == REDUCE || c == GATHER || c == SCATTER;
}

/*
 * Per-call latency. Every call starts at one time fixed in rank 0's clock (each rank converts it
 * with its offset, coll_clock.c) and lasts until the last rank leaves it: latency = max over ranks
 * of (exit - start), reduced with MAX. A barrier cannot give that start: its release reaches the
 * ranks of other sites a WAN latency apart. The MAX reduction of the exit times also fixes the
 * next start, `margin` after the last exit, so that calls never overlap.
 */
struct sampler {
	MPI_Comm ctl;      /* control communicator (reductions of exit times), tuned only */
	double offset;     /* this rank's clock minus rank 0's, seconds */
	double margin;     /* from the last exit to the next start, seconds */
	double next_start; /* in rank 0's clock, seconds */
	int shared_clock;  /* one kernel for all ranks: offsets are exactly 0 */
	int late;          /* samples redone because a rank learnt the start after it */
	int retried;       /* calls retried because a rank entered late (LATE_OK_S) */
	int kept_late;     /* samples where every try had a late entry: the best kept */
	double lateness[MAX_SAMPLES]; /* entry after the start, max over ranks, seconds */
	int nlateness;
};

#define MARGIN_MAX_S 5.0 /* past this, the control reduction itself is broken */
#define LATE_OK_S 200e-6 /* a call counts when every rank entered within this of the start */
#define LATE_OK_SHARE 0.02 /* ... or within this share of the call's own latency */
#define LATE_TRIES 4     /* calls tried per sample before the best late one is kept */

/* Fixes the next start `margin` after now (after untimed calls such as warm-ups). */
static void
sampler_restart(struct sampler *s)
{
	double now0 = coll_clock_now() - s->offset, latest;
	MPI_Allreduce(&now0, &latest, 1, MPI_DOUBLE, MPI_MAX, s->ctl);
	s->next_start = latest + s->margin;
}

/* Seconds of one call of collective c (see struct sampler); *late gets how long after the
 * start the last rank entered. A sample where some rank received the start time after it had
 * passed is redone with twice the margin. */
static double
sample_call(struct sampler *s, int c, int bytes, int root, MPI_Comm comm, double *late)
{
	for (;;) {
		double start = s->next_start, start_mine = start + s->offset;
		double told_late = coll_clock_now() > start_mine ? 1 : 0;
		coll_clock_wait_until(start_mine);
		double entry = coll_clock_now();
		run_one(c, bytes, root, comm);
		double mine[3] = { coll_clock_now() - s->offset, told_late, entry - start_mine };
		double all[3];
		MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, s->ctl);
		s->next_start = all[0] + s->margin;
		if (all[1] == 0) {
			if (s->nlateness < MAX_SAMPLES)
				s->lateness[s->nlateness++] = all[2];
			*late = all[2];
			return all[0] - start;
		}
		s->late++;
		s->margin *= 2;
		if (s->margin > MARGIN_MAX_S) {
			fprintf(stderr, "coll_bench: the start time still reached a rank too late "
			    "with a %.1f s margin: the control reduction is stuck\n", s->margin);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		s->next_start += s->margin;
	}
}

/*
 * One sample: a call in which every rank entered within LATE_OK_S of the start (or within
 * LATE_OK_SHARE of the call's latency, for long calls). On this shared
 * 2-core machine a rank is sometimes held off the CPU for milliseconds by other load just as
 * the call starts; that call then measures the scheduler, and is tried again (LATE_TRIES).
 */
static double
sample_prompt(struct sampler *s, int c, int bytes, int root, MPI_Comm comm)
{
	double best = INFINITY;
	for (int t = 0; t < LATE_TRIES; t++) {
		double late, lat = sample_call(s, c, bytes, root, comm, &late);
		if (late <= LATE_OK_S || late <= LATE_OK_SHARE * lat)
			return lat;
		best = fmin(best, lat);
		s->retried++;
	}
	s->kept_late++;
	return best;
}

/* Untimed calls first: hidden communicators and connections. Open MPI opens a TCP connection
 * on a pair's first message, which costs WAN round trips; every root once (small sizes run
 * first) so that no component pays for its pairs inside a timed call. */
static void
warm_up(int c, int bytes, MPI_Comm comm, int n)
{
	for (int r = 0; r < (rooted(c) && bytes < BIG ? n : 1); r++)
		run_one(c, bytes, r, comm);
}

/*
 * A message of `bytes` to or from peer as pieces of PIECE bytes, all posted at once. Pieces stay
 * under the TCP BTL's eager limit (64 KiB), so none waits for the receiver's go-ahead: a single
 * 1 MiB message would add a rendezvous round trip (a whole WAN RTT) to the time, and the
 * bandwidth derived from it would be the protocol's, not the link's (the bound then stopped
 * being one: components that chunk their WAN traffic came out below it).
 */
#define PIECE 32768
#define MAX_PIECES (BIG / PIECE)

static void
move_pieces(int sending, int peer, int bytes)
{
	MPI_Request req[MAX_PIECES];
	int n = 0;
	for (int at = 0; at < bytes || (bytes == 0 && n == 0); at += PIECE) {
		int len = bytes - at < PIECE ? bytes - at : PIECE;
		if (sending)
			MPI_Isend(sbuf + at, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[n++]);
		else
			MPI_Irecv(rbuf + at, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[n++]);
		if (bytes == 0)
			break;
	}
	MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}

/* Minimum one-way time (us) of `bytes` (at most BIG) between world ranks 0 and peer, over reps
 * ping-pongs. */
static double
pingpong_us(int peer, int bytes, int reps)
{
	int me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	double best = 1e30;
	for (int i = 0; i <= reps; i++) { /* i == 0 warms the connection up */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (me == 0 || me == peer) {
			move_pieces(me == 0, me == 0 ? peer : 0, bytes);
			move_pieces(me != 0, me == 0 ? peer : 0, bytes);
		}
		double t = (MPI_Wtime() - t0) * 1e6 / 2;
		if (i > 0 && t < best)
			best = t;
	}
	MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return best;
}

/*
 * Bytes/us into a site from every rank of the others: each rank of a receiving site asks (one
 * byte) the rank at its own position in each other site for BIG bytes and times the answer from
 * its own request, so no barrier's skew across the WAN enters the figure: elapsed = two WAN
 * latencies + the transfer. The slowest receiver's least time of `reps` counts. With `every`,
 * every site receives so at once (and sends to the others): what each site's link carries
 * while all are loaded, as they are in an allgather, an alltoall or an allreduce's WAN step.
 */
static double
site_ingress_bw(int reps, int every)
{
	int me, nS = nnodes * nper;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	int site = me / nS, pos = me % nS;
	int receiving = every || site == 0, sending = every || site != 0;
	/* per other site: the pieces in, a request out, the pieces out */
	MPI_Request *req = malloc((size_t)nsites * (2 * MAX_PIECES + 1) * sizeof(*req));
	double best = 1e30;
	if (req == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	char go = 1, got;
	for (int i = 0; i <= reps; i++) { /* i == 0 warms the connections up */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime(), t = 0;
		int nreq = 0, j = 0;
		for (int T = 0; T < nsites && receiving; T++) {
			if (T == site)
				continue;
			for (int at = 0; at < BIG; at += PIECE)
				MPI_Irecv(rbuf + (size_t)j * BIG + at, PIECE, MPI_BYTE, T * nS + pos, 2,
				    MPI_COMM_WORLD, &req[nreq++]);
			MPI_Isend(&go, 1, MPI_BYTE, T * nS + pos, 3, MPI_COMM_WORLD, &req[nreq++]);
			j++;
		}
		for (int T = 0; T < nsites && sending; T++) {
			if (T == site || (!every && T != 0))
				continue;
			MPI_Recv(&got, 1, MPI_BYTE, T * nS + pos, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (int at = 0; at < BIG; at += PIECE)
				MPI_Isend(sbuf + at, PIECE, MPI_BYTE, T * nS + pos, 2, MPI_COMM_WORLD,
				    &req[nreq++]);
		}
		MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
		if (receiving)
			t = (MPI_Wtime() - t0) * 1e6;
		MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		if (i > 0 && t < best)
			best = t;
	}
	free(req);
	double transfer = best - 2 * lat_us[L_WAN];
	return (double)nS * (nsites - 1) * BIG / (transfer > 1 ? transfer : 1);
}

static void
measure_links(void)
{
	int peer[NLINKS] = { 1, nper, nper * nnodes };
	for (int k = 0; k < NLINKS; k++) {
		lat_us[k] = pingpong_us(peer[k], 8, 20);
		double big = pingpong_us(peer[k], BIG, 5);
		bw[k] = BIG / (big - lat_us[k] > 1 ? big - lat_us[k] : 1);
	}
	bw_site_in = nsites > 1 ? site_ingress_bw(3, 0) : 0;
	bw_every_site_in = nsites > 1 ? site_ingress_bw(3, 1) : 0;
}

/*
 * The raw transfers of a collective's form at 1 MiB: every message the form (for allreduce and
 * allgather the spread forms, mpi-glue/coll/README.md) moves, posted at once, with no dependency
 * between them, no reduction and no copy. No execution of that form can be faster on this
 * machine, so the raw time over the bound says how much of the bound the machine itself can
 * give, with every rank and the WAN moving data at once (the bound's rates are each measured
 * with the rest idle).
 *   allreduce: inside the site a slice m/k to and from each other member twice (reduce-scatter,
 *   then allgather), and across the WAN the slice to and from member j of every other site
 *   (also timed alone: the one WAN step that every allreduce with one WAN latency needs; and
 *   with the site's steps by node: m/P to and from each other rank of the node, then m/k to
 *   and from the rank at the same place in each other node of the site, each twice, fewer
 *   bytes over the site's network than the flat form: P ranks per node);
 *   allgather: the block to and from member j of every other site, then everything a member
 *   holds (S blocks) to and from each other member of its site;
 *   alltoall (its only form: every block goes once, straight to its destination): each block
 *   to and from its rank.
 * k members per site, S sites; WAN messages in pieces under the eager limit, as qcg's are.
 */
static void
raw_post(MPI_Request *req, int *n, size_t *roff, int peer, int len, int wan)
{
	int piece = wan ? PIECE : len;
	for (int at = 0; at < len; at += piece) {
		int l = len - at < piece ? len - at : piece;
		MPI_Isend(sbuf + at, l, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[(*n)++]);
		MPI_Irecv(rbuf + *roff, l, MPI_BYTE, peer, 4, MPI_COMM_WORLD, &req[(*n)++]);
		*roff += (size_t)l;
	}
}

static void
raw_transfers(int c, int bytes)
{
	int me, k = nnodes * nper, S = nsites;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	int site = me / k, j = me % k, n = 0;
	size_t roff = 0;
	int reduce = c == RAW_ALLREDUCE || c == RAW_ALLREDUCE_NODES || c == RAW_ALLREDUCE_WAN;
	int slice = bytes / k, site_len = reduce ? slice : S * bytes, wan_len = reduce ? slice : bytes;
	MPI_Request *req = malloc(((size_t)2 * S * k * (wan_len / PIECE + 1) + (size_t)4 * k) *
	    sizeof(*req));
	if (req == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int p = 0; p < S * k && c == RAW_ALLTOALL; p++)
		if (p != me)
			raw_post(req, &n, &roff, p, bytes, p / k != site);
	for (int T = 0; T < S && c != RAW_ALLTOALL; T++)
		if (T != site)
			raw_post(req, &n, &roff, T * k + j, wan_len, 1);
	for (int pass = 0; pass < 2 && c == RAW_ALLREDUCE_NODES; pass++) {
		int node = j / nper, at = j % nper;
		for (int i = 0; i < nper; i++)
			if (i != at)
				raw_post(req, &n, &roff, site * k + node * nper + i, bytes / nper, 0);
		for (int o = 0; o < nnodes; o++)
			if (o != node)
				raw_post(req, &n, &roff, site * k + o * nper + at, slice, 0);
	}
	for (int pass = 0; pass < (c == RAW_ALLREDUCE ? 2 : c == RAW_ALLGATHER); pass++)
		for (int i = 0; i < k; i++)
			if (i != j)
				raw_post(req, &n, &roff, site * k + i, site_len, 0);
	MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
	free(req);
}

/* Time of one hop of kind k carrying v bytes: over the WAN at the faster of one pair and a
 * whole site's link (any algorithm may spread its WAN bytes over many connections). */
static double
hop(int k, double v)
{
	double rate = k == L_WAN && bw_site_in > bw[k] ? bw_site_in : bw[k];
	return lat_us[k] + v / rate;
}

/*
 * The lower bound (us): one WAN hop, one LAN hop and one intra-node hop (two of each of the
 * last for collectives that go up and back down), each carrying what must cross the busiest
 * link of its kind: m for bcast/reduce/allreduce; for gather/scatter the data of the other sites
 * through the root's site link, of the other node of its site, of the root's node neighbour;
 * for allgather and alltoall what a site, a node and a rank must receive.
 */
static double
bound_us(int c, double m)
{
	double n = nsites * nnodes * nper, nS = nnodes * nper, nN = nper;
	switch (c) {
	case BCAST:
	case REDUCE: return hop(L_WAN, m) + hop(L_LAN, m) + hop(L_NODE, m);
	case ALLREDUCE: return hop(L_WAN, m) + 2 * (hop(L_LAN, m) + hop(L_NODE, m));
	case BARRIER: return hop(L_WAN, 0) + 2 * (hop(L_LAN, 0) + hop(L_NODE, 0));
	case GATHER:
	case SCATTER: return hop(L_WAN, (n - nS) * m) + hop(L_LAN, (nS - nN) * m) + hop(L_NODE, m);
	case ALLGATHER:
		return hop(L_NODE, m) + hop(L_LAN, nN * m) + hop(L_WAN, (n - nS) * m) +
		    hop(L_LAN, (n - nN) * m) + hop(L_NODE, (n - 1) * m);
	default:
		return hop(L_WAN, nS * (n - nS) * m) + hop(L_LAN, nN * (n - nN) * m) +
		    hop(L_NODE, (n - 1) * m);
	}
}

/* A duplicate of MPI_COMM_WORLD restricted to the components of `pref` (the info key is not
 * inherited by MPI_Comm_dup, so every communicator is made from the world with its own). */
static void
dup_with_pref(const char *pref, MPI_Comm *out)
{
	MPI_Info info;
	MPI_Info_create(&info);
	MPI_Info_set(info, "ompi_comm_coll_preference", pref);
	MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, out);
	MPI_Info_free(&info);
}

static void
make_comms(MPI_Comm *comm)
{
	for (int k = 0; k < NCOMMS; k++)
		dup_with_pref(comm_pref[k], &comm[k]);
}

/* Whether collective c is in the comma-separated list only (NULL: all). */
static int
selected(int c, const char *only)
{
	if (only == NULL)
		return 1;
	size_t len = strlen(colls[c]);
	for (const char *p = only; *p != '\0'; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, colls[c], len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return 1;
	return 0;
}

/*
 * Per-call latency (us) of c with `bytes` under each setting, into us[NCOMMS]: for each root
 * (rooted collectives; one "root" otherwise) the minimum over `reps` calls, then the average over
 * roots. The minimum, because on this shared machine noise only adds time (another process
 * scheduled on the core a rank needs), so the fastest of a few calls is the closest sight of the
 * schedule itself. Settings and roots alternate inside each repetition so that drift of the
 * machine's load hits all three alike.
 *
 * Each timed call follows an untimed one of the same setting and root, as in an application's
 * loop. Without it, a setting's calls ran after another setting's: where both run the same
 * algorithm (qcg handing a call down to tuned), the second found the first's TCP windows open,
 * while the first found its pairs idle for seconds and restarting from the initial window (Linux
 * slow start after idle): at 0.2 ms, a gather of 1 MiB that qcg handed to tuned came out 1.18x
 * of tuned's, on identical code.
 */
static void
measure_case(struct sampler *smp, MPI_Comm *comm, int c, int bytes, int reps, int n, double *us)
{
	int nroots = rooted(c) ? n : 1;
	double *best = malloc((size_t)NCOMMS * (size_t)nroots * sizeof(*best));
	if (best == NULL) {
		fprintf(stderr, "coll_bench: out of memory for %d roots\n", nroots);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int i = 0; i < NCOMMS * nroots; i++)
		best[i] = INFINITY;
	for (int k = 0; k < NCOMMS; k++)
		warm_up(c, bytes, comm[k], n);
	sampler_restart(smp);
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < NCOMMS; k++)
			for (int root = 0; root < nroots; root++) {
				run_one(c, bytes, root, comm[k]);
				sampler_restart(smp);
				double t = sample_prompt(smp, c, bytes, root, comm[k]);
				best[k * nroots + root] = fmin(best[k * nroots + root], t);
			}
	for (int k = 0; k < NCOMMS; k++) {
		double sum = 0;
		for (int root = 0; root < nroots; root++)
			sum += best[k * nroots + root];
		us[k] = sum / nroots * 1e6;
	}
	free(best);
}

/* The control communicator's reduction time (s, slowest rank): the first margin is twice it. */
static double
ctl_reduction_s(MPI_Comm ctl)
{
	double x = 0, y;
	MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, ctl); /* connections first */
	double t0 = coll_clock_now();
	for (int i = 0; i < 4; i++)
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, ctl);
	double mine = (coll_clock_now() - t0) / 4, slowest;
	MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, ctl);
	return slowest;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The measurement's own resolution, after the table: clock offsets, how late ranks entered. */
static void
print_lateness(struct sampler *smp, double err_max, double off_max)
{
	int m = smp->nlateness;
	qsort(smp->lateness, (size_t)m, sizeof(double), cmp_double);
	if (smp->shared_clock)
		printf("# clocks: all ranks under one kernel (same boot id), so every offset is exactly "
		    "0 and used as such; the ping-pong estimate was off by up to %.1f us\n",
		    off_max * 1e6);
	else
		printf("# clock offsets to rank 0 by ping-pong (min round trip of %d): largest "
		    "|offset| %.1f us, largest half round trip %.1f us\n", CLOCK_PINGS,
		    off_max * 1e6, err_max * 1e6);
	if (m > 0)
		printf("# entry after the common start, slowest rank, over %d calls: median %.1f us, "
		    "95%% %.1f us, max %.1f us\n", m, smp->lateness[m / 2] * 1e6,
		    smp->lateness[m * 95 / 100] * 1e6, smp->lateness[m - 1] * 1e6);
	printf("# %d calls retried (a rank entered more than %.0f us late); %d samples kept late "
	    "after %d tries; %d calls redone because the start reached a rank late; final margin "
	    "%.1f ms\n", smp->retried, LATE_OK_S * 1e6, smp->kept_late, LATE_TRIES, smp->late,
	    smp->margin * 1e3);
}

/* The raw transfers `raw` (raw_transfers), timed as the collectives are: the least of
 * RAW_REPS x reps samples (they are short, and a floor wants the machine's best moment),
 * printed after its collective's 1 MiB row with its ratio to the bound b. */
#define RAW_REPS 5
static void
measure_raw(struct sampler *smp, int raw, int reps, int me, double b)
{
	static const char *what[] = { "allreduce: the transfers of its spread form",
		"allreduce: the same with the site's steps by node", "allreduce: its WAN step",
		"allgather: the transfers of its spread form",
		"alltoall: the transfers of its direct form" };
	double best = INFINITY;
	run_one(raw, BIG, 0, MPI_COMM_WORLD); /* warm, as every timed call is */
	sampler_restart(smp);
	for (int r = 0; r < RAW_REPS * reps; r++) {
		run_one(raw, BIG, 0, MPI_COMM_WORLD);
		sampler_restart(smp);
		best = fmin(best, sample_prompt(smp, raw, BIG, 0, MPI_COMM_WORLD));
	}
	if (me == 0)
		printf("# raw %s %d B alone, posted at once, no dependency, no reduction: %.0f us, "
		    "%.2fx the bound\n", what[raw - RAW_ALLREDUCE], BIG, best * 1e6, best * 1e6 / b);
}

static void
run_all(MPI_Comm *comm, struct sampler *smp, int reps, int me, int n, const char *only)
{
	if (me == 0)
		printf("%-10s %8s %11s %11s %11s %11s %9s %9s %9s %9s %9s\n", "coll", "bytes",
		    "qcg_us", "tuned_us", "han_us", "bound_us", "qcg/tun", "qcg/han", "qcg/bnd",
		    "tun/bnd", "han/bnd");
	double err_max = 0, off_all = 0;
	for (int c = 0; c < NCOLLS; c++) {
		if (!selected(c, only))
			continue;
		/* re-estimate the offsets per collective: clocks of separate hosts drift */
		double err, off_max;
		smp->offset = coll_clock_offsets(smp->ctl, CLOCK_PINGS, &err, &off_max);
		if (smp->shared_clock)
			smp->offset = 0; /* the estimate's error still shows in off_max */
		err_max = fmax(err_max, err);
		off_all = fmax(off_all, off_max);
		for (int s = 0; s < NSIZES; s++) {
			if (c == BARRIER && s > 0)
				continue; /* barrier has no size */
			double t[NCOMMS];
			measure_case(smp, comm, c, sizes[s], reps, n, t);
			double b = bound_us(c, c == BARRIER ? 0 : sizes[s]);
			if (me == 0)
				printf("%-10s %8d %11.0f %11.0f %11.0f %11.0f %9.2f %9.2f %9.2f %9.2f "
				    "%9.2f\n", colls[c], c == BARRIER ? 0 : sizes[s], t[0], t[1],
				    t[2], b, t[0] / t[1], t[0] / t[2], t[0] / b, t[1] / b, t[2] / b);
			if (sizes[s] == BIG && c == ALLREDUCE) {
				measure_raw(smp, RAW_ALLREDUCE, reps, me, b);
				measure_raw(smp, RAW_ALLREDUCE_NODES, reps, me, b);
				measure_raw(smp, RAW_ALLREDUCE_WAN, reps, me, b);
			} else if (sizes[s] == BIG && (c == ALLGATHER || c == ALLTOALL)) {
				measure_raw(smp, c == ALLGATHER ? RAW_ALLGATHER : RAW_ALLTOALL, reps, me, b);
			}
			fflush(stdout);
		}
	}
	if (me == 0)
		print_lateness(smp, err_max, off_all);
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	nsites = argc > 3 ? atoi(argv[1]) : 0;
	nnodes = argc > 3 ? atoi(argv[2]) : 0;
	nper = argc > 3 ? atoi(argv[3]) : 0;
	int reps = argc > 4 ? atoi(argv[4]) : 3;
	const char *only = argc > 5 ? argv[5] : NULL;
	int known = 0;
	for (int c = 0; c < NCOLLS; c++)
		known += selected(c, only);
	if (nsites < 2 || nnodes < 2 || nper < 2 || nsites * nnodes * nper != n || reps < 1 ||
	    reps > 100 || known == 0) {
		if (me == 0)
			fprintf(stderr, "usage: coll_bench SITES NODES_PER_SITE RANKS_PER_NODE "
			    "[repetitions 1..100 [COLL,COLL...]]: each at least 2, product = %d ranks; "
			    "COLL among bcast reduce allreduce barrier gather scatter allgather "
			    "alltoall\n", n);
		MPI_Finalize();
		return 2;
	}
	MPI_Comm comm[NCOMMS];
	make_comms(comm);
	size_t big = (size_t)BIG * (size_t)n;
	sbuf = calloc(big, 1);
	rbuf = calloc(big, 1);
	measure_links();
	if (me == 0)
		for (int k = 0; k < NLINKS; k++)
			printf("# link %-4s one-way latency %8.1f us, bandwidth %8.1f MB/s%s\n",
			    link_names[k], lat_us[k], bw[k], k == L_WAN && nsites > 1 ?
			    ", one pair (the bound takes the faster of it and the next)" : "");
	if (me == 0 && nsites > 1)
		printf("# link wan  into one site from every rank of the others at once: %8.1f MB/s; "
		    "into each site while every site receives so: %8.1f MB/s\n", bw_site_in,
		    bw_every_site_in);
	static struct sampler smp; /* static: the lateness record is large */
	/* its own communicator, tuned: control never mixes with the timed calls */
	dup_with_pref(comm_pref[C_TUNED], &smp.ctl);
	smp.margin = 2 * ctl_reduction_s(smp.ctl) + 1e-3;
	smp.shared_clock = coll_clock_shared(smp.ctl);
	run_all(comm, &smp, reps, me, n, only);
	MPI_Comm_free(&smp.ctl);
	for (int k = 0; k < NCOMMS; k++)
		MPI_Comm_free(&comm[k]);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
