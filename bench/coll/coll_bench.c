/*
 * coll_bench.c: qcg vs tuned vs han vs the lower bound, side by side in one job. Three
 * duplicates of MPI_COMM_WORLD differ only in the coll components they may use (the
 * per-communicator info key ompi_comm_coll_preference): "qcg" (qcg first, no han: qcg where the
 * topology spans clusters, tuned elsewhere), "tuned" (^qcg,han), "han" (han first, no qcg). Each
 * (collective, size) is timed on the three in rotation, several rounds, keeping each one's best
 * round, so that drift on a shared machine hits all three alike. Rooted collectives rotate the
 * root over every rank (the time is the average over roots). Sizes are bytes per rank (per block
 * for gather, scatter, allgather and alltoall).
 *
 * The lower bound: one WAN crossing on the critical path plus the LAN tree, from point-to-point
 * latency and bandwidth measured first in the same job (ping-pong of world rank 0 with a rank on
 * its node, on another node of its site, on another site), with the bytes each collective must
 * move through the busiest site, node and rank (see bound_us and bench/coll/README.md).
 *
 * Usage: coll_bench SITES NODES_PER_SITE RANKS_PER_NODE [rounds [COLL,COLL...]]
 *   (the list keeps only those collectives: short runs while working on one)
 *   ranks are placed contiguously: node by node, site by site (mpirun --host a1:P,a2:P,...).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { C_QCG, C_TUNED, C_HAN, NCOMMS };
static const char *comm_pref[NCOMMS] = { "qcg,^han", "^qcg,han", "han,^qcg" };

enum { BCAST, REDUCE, ALLREDUCE, BARRIER, GATHER, SCATTER, ALLGATHER, ALLTOALL, NCOLLS };
static const char *colls[NCOLLS] = { "bcast", "reduce", "allreduce", "barrier", "gather",
	"scatter", "allgather", "alltoall" };
static const int sizes[] = { 8, 65536, 1048576 };
#define NSIZES 3
#define BIG (1 << 20)

static char *sbuf, *rbuf;
static int nsites, nnodes, nper; /* layout given on the command line */

/* Point-to-point figures: one-way latency (us) and bandwidth (bytes/us) per link kind. */
enum { L_NODE, L_LAN, L_WAN, NLINKS };
static const char *link_names[NLINKS] = { "node", "lan", "wan" };
static double lat_us[NLINKS], bw[NLINKS];

/* One call of collective c with `bytes` per rank on comm; root for rooted ones. */
static void
run_one(int c, int bytes, int root, MPI_Comm comm)
{
	int ints = bytes / 4 > 0 ? bytes / 4 : 1;
	switch (c) {
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

/* Seconds per call, the slowest rank's average over iters calls (roots rotate). */
static double
time_case(int c, int bytes, MPI_Comm comm, int iters)
{
	int n;
	MPI_Comm_size(comm, &n);
	/* Warm-up: hidden communicators and connections. Open MPI opens a TCP connection on a
	 * pair's first message, which costs WAN round trips; every root once (small sizes run
	 * first) so that no component pays for its pairs inside the timed loop. */
	for (int r = 0; r < (rooted(c) && bytes < BIG ? n : 1); r++)
		run_one(c, bytes, r, comm);
	MPI_Barrier(comm);
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++)
		run_one(c, bytes, rooted(c) ? i % n : 0, comm);
	double mine = (MPI_Wtime() - t0) / iters, slowest;
	MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
	return slowest;
}

/* Minimum one-way time (us) of `bytes` between world ranks 0 and peer, over reps ping-pongs. */
static double
pingpong_us(int peer, int bytes, int reps)
{
	int me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	double best = 1e30;
	for (int i = 0; i <= reps; i++) { /* i == 0 warms the connection up */
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (me == 0) {
			MPI_Send(sbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (me == peer) {
			MPI_Recv(rbuf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(sbuf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
		double t = (MPI_Wtime() - t0) * 1e6 / 2;
		if (i > 0 && t < best)
			best = t;
	}
	MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return best;
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
}

/* Time of one hop of kind k carrying v bytes. */
static double
hop(int k, double v)
{
	return lat_us[k] + v / bw[k];
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

static void
make_comms(MPI_Comm *comm)
{
	for (int k = 0; k < NCOMMS; k++) {
		MPI_Info info = MPI_INFO_NULL;
		if (comm_pref[k] != NULL) {
			MPI_Info_create(&info);
			MPI_Info_set(info, "ompi_comm_coll_preference", comm_pref[k]);
		}
		MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm[k]);
		if (info != MPI_INFO_NULL)
			MPI_Info_free(&info);
	}
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

static void
run_all(MPI_Comm *comm, int rounds, int me, int n, const char *only)
{
	if (me == 0)
		printf("%-10s %8s %11s %11s %11s %11s %9s %9s %9s %9s %9s\n", "coll", "bytes",
		    "qcg_us", "tuned_us", "han_us", "bound_us", "qcg/tun", "qcg/han", "qcg/bnd",
		    "tun/bnd", "han/bnd");
	for (int c = 0; c < NCOLLS; c++) {
		for (int s = 0; s < NSIZES; s++) {
			if ((c == BARRIER && s > 0) || !selected(c, only))
				continue; /* barrier has no size */
			/* rooted: once per root; others: n small calls, 2 big ones (1 alltoall) */
			int iters = rooted(c) || sizes[s] < BIG ? n : c == ALLTOALL ? 1 : 2;
			double best[NCOMMS] = { 1e30, 1e30, 1e30 };
			for (int r = 0; r < rounds; r++)
				for (int k = 0; k < NCOMMS; k++) {
					double t = time_case(c, sizes[s], comm[k], iters) * 1e6;
					best[k] = t < best[k] ? t : best[k];
				}
			double b = bound_us(c, c == BARRIER ? 0 : sizes[s]);
			if (me == 0)
				printf("%-10s %8d %11.0f %11.0f %11.0f %11.0f %9.2f %9.2f %9.2f %9.2f "
				    "%9.2f\n", colls[c], c == BARRIER ? 0 : sizes[s], best[0], best[1],
				    best[2], b, best[0] / best[1], best[0] / best[2], best[0] / b,
				    best[1] / b, best[2] / b);
			fflush(stdout);
		}
	}
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
	int rounds = argc > 4 ? atoi(argv[4]) : 2;
	const char *only = argc > 5 ? argv[5] : NULL;
	int known = 0;
	for (int c = 0; c < NCOLLS; c++)
		known += selected(c, only);
	if (nsites < 2 || nnodes < 2 || nper < 2 || nsites * nnodes * nper != n || rounds < 1 ||
	    rounds > 100 || known == 0) {
		if (me == 0)
			fprintf(stderr, "usage: coll_bench SITES NODES_PER_SITE RANKS_PER_NODE "
			    "[rounds 1..100 [COLL,COLL...]]: each at least 2, product = %d ranks; "
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
			printf("# link %-4s one-way latency %8.1f us, bandwidth %8.1f MB/s\n",
			    link_names[k], lat_us[k], bw[k]);
	run_all(comm, rounds, me, n, only);
	for (int k = 0; k < NCOMMS; k++)
		MPI_Comm_free(&comm[k]);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
