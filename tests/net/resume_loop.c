/*
 * resume_loop.c: the MPI program of the testbed relay failover tests (issue 14). Every pair of
 * ranks keeps exchanging checked messages for a while, so a proxy killed at any moment takes
 * bytes in flight with it:
 *  1. round after round, every rank sends BYTES bytes to every other rank (MPI_Sendrecv around
 *     the ring at every distance); each message's bytes depend on (source, destination, round)
 *     and the receiver compares an FNV-1a checksum of what arrived with the one it computes;
 *  2. after the first round (every connection set up) rank 0 prints
 *     "resume_loop: connected, N ranks, job JOB" (JOB from QCG_JOB_ID): the test's cue;
 *  3. rank 0 decides after each round whether SECONDS have passed (MPI_Bcast), so all ranks
 *     stop after the same round; then MPI_Allreduce of the wrong counts, and rank 0 prints
 *     "resume_loop: N ranks, R rounds, W wrong".
 * Exit 0 when nothing was wrong, 1 otherwise (2 on bad arguments).
 *
 *   resume_loop SECONDS BYTES
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define RESUME_LOOP_MAX_SECONDS 600 /* a typo must not make a job that never ends */
#define RESUME_LOOP_MAX_BYTES (16 << 20)

/* Fill buf with the bytes of round r from src to dst. */
static void
fill(unsigned char *buf, long n, int src, int dst, long r)
{
	uint32_t x = 2166136261u ^ (uint32_t)(src * 65599 + dst * 257 + r * 7919);
	for (long i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		buf[i] = (unsigned char)(x >> 24);
	}
}

static uint32_t
checksum(const unsigned char *buf, long n)
{
	uint32_t h = 2166136261u;
	for (long i = 0; i < n; i++)
		h = (h ^ buf[i]) * 16777619u;
	return h;
}

static double
now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	int rank, size, go = 1;
	long wrong = 0, all_wrong = 0, rounds = 0;
	long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
	long bytes = argc > 2 ? strtol(argv[2], NULL, 10) : -1;

	if (seconds < 1 || seconds > RESUME_LOOP_MAX_SECONDS || bytes < 1 ||
	    bytes > RESUME_LOOP_MAX_BYTES) {
		fprintf(stderr, "usage: resume_loop SECONDS (1..%d) BYTES (1..%d)\n",
		    RESUME_LOOP_MAX_SECONDS, RESUME_LOOP_MAX_BYTES);
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes),
		      *want = malloc((size_t)bytes);
	if (out == NULL || in == NULL || want == NULL) {
		fprintf(stderr, "resume_loop: rank %d: out of memory for %ld bytes\n", rank, bytes);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	double start = now_s();
	while (go) {
		for (int k = 1; k < size; k++) {
			int dst = (rank + k) % size, src = (rank - k + size) % size;
			fill(out, bytes, rank, dst, rounds);
			MPI_Sendrecv(out, (int)bytes, MPI_BYTE, dst, 17, in, (int)bytes, MPI_BYTE, src,
			    17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			fill(want, bytes, src, rank, rounds);
			if (checksum(in, bytes) != checksum(want, bytes)) {
				fprintf(stderr, "resume_loop: round %ld: wrong bytes from rank %d to %d\n",
				    rounds, src, rank);
				wrong++;
			}
		}
		if (rounds++ == 0 && rank == 0) {
			const char *job = getenv("QCG_JOB_ID");
			printf("resume_loop: connected, %d ranks, job %s\n", size, job ? job : "-");
			fflush(stdout);
		}
		if (rank == 0)
			go = now_s() - start < (double)seconds;
		MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("resume_loop: %d ranks, %ld rounds, %ld wrong\n", size, rounds, all_wrong);
		fflush(stdout);
	}
	free(out);
	free(in);
	free(want);
	MPI_Finalize();
	return all_wrong == 0 ? 0 : 1;
}
