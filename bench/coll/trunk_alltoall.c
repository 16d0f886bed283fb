/*
 * trunk_alltoall BYTES ROUNDS: the workload of GridMPI's trunking experiment (issue 20,
 * bench/coll/trunk.sh). Every rank sends BYTES to every other rank with MPI_Alltoall, ROUNDS
 * timed rounds after one untimed round at full size (which also makes every connection, so
 * the broker's relay choices are done before the clock runs; JOB is QCG_JOB_ID, for
 * `qcg-query connections`). Each block carries a pattern
 * of (sender, receiver, round) that the receiver checks. Rank 0 prints
 *   trunk_alltoall: N ranks, BYTES bytes per pair, ROUNDS rounds, W wrong, job JOB
 *   trunk_alltoall: seconds S1 S2 ... median M
 * where a round's time is the slowest rank's (barrier, then the call). Exits 1 when any block
 * was wrong.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRUNK_MAX_BYTES (64L << 20) /* per pair: a typo must not ask for all the memory */
#define TRUNK_MAX_ROUNDS 1000

static long
parse_arg(const char *s, long min, long max, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "trunk_alltoall: %s '%s': want %ld to %ld\n", what, s, min, max);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return v;
}

/* The 64-bit word at index i of the block from rank src to rank dst in round r. */
static uint64_t
pattern(int src, int dst, int r, size_t i)
{
	return ((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ ((uint64_t)r << 24) ^ i;
}

static void
fill(uint64_t *send, int me, int n, size_t words, int r)
{
	for (int dst = 0; dst < n; dst++)
		for (size_t i = 0; i < words; i++)
			send[(size_t)dst * words + i] = pattern(me, dst, r, i);
}

/* The blocks received in round r that differ from what their sender should have sent. */
static long
check(const uint64_t *recv, int me, int n, size_t words, int r)
{
	long wrong = 0;

	for (int src = 0; src < n; src++)
		for (size_t i = 0; i < words; i++)
			if (recv[(size_t)src * words + i] != pattern(src, me, r, i)) {
				wrong++;
				break;
			}
	return wrong;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	int me, n;
	long bytes, rounds, wrong = 0, all_wrong = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc != 3) {
		if (me == 0)
			fprintf(stderr, "usage: trunk_alltoall BYTES ROUNDS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	bytes = parse_arg(argv[1], 8, TRUNK_MAX_BYTES, "BYTES");
	rounds = parse_arg(argv[2], 1, TRUNK_MAX_ROUNDS, "ROUNDS");
	size_t words = (size_t)bytes / sizeof(uint64_t);
	uint64_t *send = malloc((size_t)n * words * sizeof(uint64_t));
	uint64_t *recv = malloc((size_t)n * words * sizeof(uint64_t));
	double *secs = malloc((size_t)rounds * sizeof(double));
	if (send == NULL || recv == NULL || secs == NULL) {
		fprintf(stderr, "trunk_alltoall: rank %d: out of memory for %ld bytes x %d\n", me,
		    bytes, n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int r = 0; r <= rounds; r++) { /* round 0: untimed */
		double t, mine;

		fill(send, me, n, words, r);
		memset(recv, 0, (size_t)n * words * sizeof(uint64_t));
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		MPI_Alltoall(send, (int)words, MPI_UINT64_T, recv, (int)words, MPI_UINT64_T,
		    MPI_COMM_WORLD);
		mine = MPI_Wtime() - t;
		wrong += check(recv, me, n, words, r);
		if (r > 0)
			MPI_Reduce(&mine, &secs[r - 1], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	}
	MPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (me == 0) {
		const char *job = getenv("QCG_JOB_ID");

		printf("trunk_alltoall: %d ranks, %ld bytes per pair, %ld rounds, %ld wrong, job %s\n",
		    n, (long)(words * sizeof(uint64_t)), rounds, all_wrong, job ? job : "-");
		printf("trunk_alltoall: seconds");
		for (long r = 0; r < rounds; r++)
			printf(" %.3f", secs[r]);
		qsort(secs, (size_t)rounds, sizeof(double), cmp_double);
		printf(" median %.3f\n", rounds % 2 ? secs[rounds / 2] :
		    (secs[rounds / 2 - 1] + secs[rounds / 2]) / 2);
		fflush(stdout);
	}
	free(send);
	free(recv);
	free(secs);
	MPI_Finalize();
	return all_wrong == 0 ? 0 : 1;
}
