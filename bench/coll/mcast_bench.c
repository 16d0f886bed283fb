/*
 * mcast_bench.c: how long MPI_Bcast from rank 0 takes to reach each rank, by message size, for
 * comparing the multicast broadcast of mca_coll_qcg with other components (the runner,
 * mcast_run.sh, starts it once per component and process count and prints the ratios).
 *
 * Time inside MPI_Bcast flatters every algorithm (ranks leave the preceding barrier one after
 * the other, and a late one finds its data already there), and subtracting a barrier's time is
 * lost in the noise of an oversubscribed machine. So each sample is timed at the root: barrier;
 * the root notes the time, broadcasts; one receiver r, and only r, answers with a zero-byte
 * message as soon as its MPI_Bcast returns; the root notes when the answer lands. Receivers take
 * turns (r = 1, 2, ..., P-1, 1, ...). Per receiver the median of its samples counts (outliers of
 * a shared machine do not); the line reports the slowest receiver's median ("complete": when the
 * last one has the data, plus one zero-byte message) and the mean over receivers. Every result
 * is checked: a wrong byte aborts the run.
 *
 * Usage: mcast_bench ITERATIONS BYTES...   (ITERATIONS 1..100000 samples per size; BYTES
 *        1..16 MiB)
 * Output per size: "mcast_bench: bytes B ranks P iterations N complete_us C mean_us M".
 */
#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (16 << 20)

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One sample for receiver r: the root's time from the start of the bcast to r's answer. */
static double
sample(unsigned char *buf, int n, int r, int i, int me)
{
	unsigned char want = (unsigned char)(i * 31 + 7);
	double t = 0;
	if (me == 0)
		memset(buf, want, (size_t)n);
	else
		buf[0] = buf[n - 1] = (unsigned char)~want;
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 0)
		t = MPI_Wtime();
	MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (me == r)
		MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
	if (me == 0) {
		MPI_Recv(NULL, 0, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		t = MPI_Wtime() - t;
	}
	if (buf[0] != want || buf[n - 1] != want || buf[n / 2] != want) {
		fprintf(stderr, "mcast_bench: rank %d: wrong data after bcast %d of %d bytes\n", me,
		    i, n);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	return t * 1e6;
}

/* Root only: the slowest receiver's median into *slowest, the mean of the medians returned. */
static double
summarize(double *t, int per, int np, double *slowest)
{
	double sum = 0;
	*slowest = 0;
	for (int r = 1; r < np; r++) {
		double *s = t + (size_t)(r - 1) * per;
		qsort(s, (size_t)per, sizeof(*s), cmp_double);
		double med = s[per / 2];
		sum += med;
		if (med > *slowest)
			*slowest = med;
	}
	return sum / (np - 1);
}

static void
run_size(unsigned char *buf, int n, int iters, int me, int np)
{
	int per = (iters + np - 2) / (np - 1); /* samples per receiver, at least 1 */
	double *t = calloc((size_t)per * (size_t)(np - 1), sizeof(*t));
	for (int w = 0; w < 2; w++) /* warm-up: groups, connections */
		(void)sample(buf, n, 1 + w % (np - 1), -1 - w, me);
	for (int i = 0; i < per * (np - 1); i++) {
		int r = 1 + i % (np - 1);
		double v = sample(buf, n, r, i, me);
		if (me == 0)
			t[(size_t)(r - 1) * per + (size_t)(i / (np - 1))] = v;
	}
	if (me == 0) {
		double slowest, mean = summarize(t, per, np, &slowest);
		printf("mcast_bench: bytes %d ranks %d iterations %d complete_us %.1f mean_us %.1f\n",
		    n, np, per * (np - 1), slowest, mean);
		fflush(stdout);
	}
	free(t);
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, np, iters = argc > 1 ? atoi(argv[1]) : 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc < 3 || iters < 1 || iters > 100000 || np < 2) {
		if (me == 0)
			fprintf(stderr, "usage: mcast_bench ITERATIONS(1..100000) BYTES... "
			    "(2 or more ranks)\n");
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
		run_size(buf, n, iters, me, np);
	}
	free(buf);
	MPI_Finalize();
	return 0;
}
