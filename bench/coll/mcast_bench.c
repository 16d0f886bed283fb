/*
 * mcast_bench.c: MPI_Bcast time from rank 0 by message size, for comparing the multicast
 * broadcast of mca_coll_qcg with another component's (the runner, mcast_run.sh, starts it once
 * per component and process count and prints the ratios).
 *
 * Each call is preceded by a barrier, so every rank enters the broadcast at about the same time
 * (the case the paper's "no root delay" option is made for). Time inside MPI_Bcast alone
 * flatters every algorithm: ranks leave a barrier one after the other, and a late one finds its
 * data already there. So the main figure is the time to complete: rank 0's time for
 * ITERATIONS rounds of (barrier, bcast, barrier) minus that of (barrier, barrier), per call:
 * the broadcast's share of a round that ends only when every rank has its data. The slowest
 * rank's mean time inside MPI_Bcast is printed too. Every result is checked.
 *
 * Usage: mcast_bench ITERATIONS BYTES...   (ITERATIONS 1..100000, BYTES 1..16 MiB)
 * Output per size: "mcast_bench: bytes B ranks P iterations N complete_us C slowest_us S".
 */
#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (16 << 20)

/* Rank 0's time per round of two barriers (the baseline of complete_us), in microseconds. */
static double
time_barriers(int iters)
{
	MPI_Barrier(MPI_COMM_WORLD);
	double t = MPI_Wtime();
	for (int i = 0; i < iters; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	return (MPI_Wtime() - t) / iters * 1e6;
}

/*
 * Times iters broadcasts of n bytes from rank 0, each between two barriers; returns this rank's
 * mean time inside MPI_Bcast and sets *round to its mean time per round (microseconds).
 */
static double
time_bcast(unsigned char *buf, int n, int iters, int me, double *round)
{
	double total = 0, start = 0;
	for (int i = -2; i < iters; i++) { /* two warm-up calls set up groups and connections */
		unsigned char want = (unsigned char)(i * 31 + 7);
		if (me == 0)
			memset(buf, want, (size_t)n);
		else
			buf[0] = buf[n - 1] = (unsigned char)~want;
		MPI_Barrier(MPI_COMM_WORLD);
		if (i == 0)
			start = MPI_Wtime();
		double t = MPI_Wtime();
		MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
		t = MPI_Wtime() - t;
		MPI_Barrier(MPI_COMM_WORLD);
		if (buf[0] != want || buf[n - 1] != want || buf[n / 2] != want) {
			fprintf(stderr, "mcast_bench: rank %d: wrong data after bcast %d of %d bytes\n",
			    me, i, n);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		if (i >= 0)
			total += t;
	}
	*round = (MPI_Wtime() - start) / iters * 1e6;
	return total / iters * 1e6;
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, np, iters = argc > 1 ? atoi(argv[1]) : 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc < 3 || iters < 1 || iters > 100000) {
		if (me == 0)
			fprintf(stderr, "usage: mcast_bench ITERATIONS(1..100000) BYTES...\n");
		MPI_Finalize();
		return 2;
	}
	unsigned char *buf = malloc(MAX_BYTES);
	for (int a = 2; a < argc; a++) {
		int n = atoi(argv[a]);
		if (n < 1 || n > MAX_BYTES) {
			if (me == 0)
				fprintf(stderr, "mcast_bench: BYTES must be 1..%d, got '%s'\n",
				    MAX_BYTES, argv[a]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		double round, base = time_barriers(iters), slowest;
		double mine = time_bcast(buf, n, iters, me, &round);
		MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (me == 0)
			printf("mcast_bench: bytes %d ranks %d iterations %d complete_us %.1f "
			    "slowest_us %.1f\n", n, np, iters, round - base, slowest);
	}
	free(buf);
	MPI_Finalize();
	return 0;
}
