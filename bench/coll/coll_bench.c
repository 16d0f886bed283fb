/*
 * coll_bench.c: qcg vs tuned vs han, side by side in one job. Three duplicates of
 * MPI_COMM_WORLD differ only in the coll components they may use (the per-communicator info key
 * ompi_comm_coll_preference): "qcg" (whatever selection gives: qcg where the topology spans
 * clusters), "tuned" (^qcg,han), "han" (han first, no qcg). Each (collective, size) is timed on
 * the three in rotation, several rounds, keeping each one's best round, so that drift on a
 * shared machine hits all three alike. Sizes are bytes per rank (per block for the gather,
 * scatter, allgather and alltoall families). Prints one line per case with the ratios.
 *
 * Usage: coll_bench [rounds]   (default 3)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { C_QCG, C_TUNED, C_HAN, NCOMMS };
static const char *comm_pref[NCOMMS] = { NULL, "^qcg,han", "han,^qcg" };

static const char *colls[] = { "bcast", "reduce", "allreduce", "barrier", "gather", "scatter",
	"allgather", "alltoall" };
#define NCOLLS (int)(sizeof(colls) / sizeof(colls[0]))
static const int sizes[] = { 8, 65536, 1048576 };
#define NSIZES 3

static char *sbuf, *rbuf;

/* One call of collective c with `bytes` per rank on comm. */
static void
run_one(int c, int bytes, MPI_Comm comm)
{
	int ints = bytes / 4 > 0 ? bytes / 4 : 1;
	switch (c) {
	case 0: MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, comm); break;
	case 1: MPI_Reduce(sbuf, rbuf, ints, MPI_INT, MPI_SUM, 0, comm); break;
	case 2: MPI_Allreduce(sbuf, rbuf, ints, MPI_INT, MPI_SUM, comm); break;
	case 3: MPI_Barrier(comm); break;
	case 4: MPI_Gather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, 0, comm); break;
	case 5: MPI_Scatter(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, 0, comm); break;
	case 6: MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm); break;
	default: MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, comm); break;
	}
}

/* Seconds per call, the slowest rank's average over iters calls. */
static double
time_case(int c, int bytes, MPI_Comm comm, int iters)
{
	run_one(c, bytes, comm); /* warm-up: hidden communicators, connections */
	MPI_Barrier(comm);
	double t0 = MPI_Wtime();
	for (int i = 0; i < iters; i++)
		run_one(c, bytes, comm);
	double mine = (MPI_Wtime() - t0) / iters, slowest;
	MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
	return slowest;
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rounds = argc > 1 ? atoi(argv[1]) : 3, me, n;
	if (rounds < 1 || rounds > 100)
		rounds = 3;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Comm comm[NCOMMS];
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
	size_t big = (size_t)sizes[NSIZES - 1] * (size_t)n;
	sbuf = calloc(big, 1);
	rbuf = calloc(big, 1);
	if (me == 0)
		printf("%-10s %8s %12s %12s %12s %10s %10s\n", "coll", "bytes", "qcg_us",
		    "tuned_us", "han_us", "qcg/tuned", "qcg/han");
	for (int c = 0; c < NCOLLS; c++) {
		for (int s = 0; s < NSIZES; s++) {
			if (c == 3 && s > 0)
				continue; /* barrier has no size */
			int iters = sizes[s] >= 1048576 ? 5 : sizes[s] >= 65536 ? 20 : 200;
			double best[NCOMMS] = { 1e30, 1e30, 1e30 };
			for (int r = 0; r < rounds; r++)
				for (int k = 0; k < NCOMMS; k++) {
					double t = time_case(c, sizes[s], comm[k], iters);
					best[k] = t < best[k] ? t : best[k];
				}
			if (me == 0)
				printf("%-10s %8d %12.1f %12.1f %12.1f %10.2f %10.2f\n", colls[c],
				    c == 3 ? 0 : sizes[s], best[0] * 1e6, best[1] * 1e6, best[2] * 1e6,
				    best[0] / best[1], best[0] / best[2]);
		}
	}
	for (int k = 0; k < NCOMMS; k++)
		MPI_Comm_free(&comm[k]);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
