/*
 * allpairs.c: the MPI test program of issue 5. Every rank exchanges messages with every other
 * rank, in both directions, at sizes from 1 B to 4 MiB (powers of 4); every message carries a
 * pattern derived from (source, destination, size) and the receiver checks a checksum of what
 * arrived against the one it computes. Then MPI_Allreduce (the sum of all ranks' failure
 * counts, checked against MPI_Reduce + MPI_Bcast of the same) and MPI_Barrier.
 *
 * Output: one line per failing pair and size ("FAIL pair 3->5 size 65536: ..."), each rank's
 * peers' host names on request (-v), and from rank 0 "allpairs: N ranks, P ordered pairs x S
 * sizes, F failures". Exit status 0 only when nothing failed.
 *
 * ALLPAIRS_PAUSE=PATH (tests of what survives a lost service): once every exchange is done, so
 * every connection of the job is set up, rank 0 creates PATH.ready and waits (at most
 * ALLPAIRS_PAUSE_MAX seconds) until PATH exists; the collectives then run on those connections.
 */
#include "config.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ALLPAIRS_MAX_SIZE (4 << 20)
#define ALLPAIRS_TAG 17
#define ALLPAIRS_PAUSE_MAX 300 /* seconds rank 0 waits for the pause file */

/* The byte at offset i of the message from src to dst of size bytes. */
static unsigned char
pattern(int src, int dst, size_t size, size_t i)
{
	uint64_t x = (uint64_t)src * 1000003u + (uint64_t)dst * 10007u + size * 31u + i;
	x ^= x >> 13;
	x *= 0x9E3779B97F4A7C15ull;
	return (unsigned char)(x >> 56);
}

static void
fill(unsigned char *buf, int src, int dst, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = pattern(src, dst, size, i);
}

/* FNV-1a over the buffer. */
static uint64_t
checksum(const unsigned char *buf, size_t size)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < size; i++) {
		h ^= buf[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* One round at one size: send to rank+shift, receive from rank-shift. Returns failures. */
static int
exchange(int rank, int n, int shift, size_t size, unsigned char *out, unsigned char *in,
    unsigned char *want)
{
	int to = (rank + shift) % n, from = (rank - shift + n) % n, count;
	MPI_Status st;
	fill(out, rank, to, size);
	memset(in, 0, size);
	int rc = MPI_Sendrecv(out, (int)size, MPI_BYTE, to, ALLPAIRS_TAG, in, (int)size, MPI_BYTE,
	    from, ALLPAIRS_TAG, MPI_COMM_WORLD, &st);
	if (rc != MPI_SUCCESS) {
		printf("FAIL pair %d->%d size %zu: MPI_Sendrecv returned %d\n", from, rank, size, rc);
		return 1;
	}
	MPI_Get_count(&st, MPI_BYTE, &count);
	fill(want, from, rank, size);
	if ((size_t)count != size || checksum(in, size) != checksum(want, size)) {
		printf("FAIL pair %d->%d size %zu: got %d bytes, checksum %016llx, want %016llx\n",
		    from, rank, size, count, (unsigned long long)checksum(in, size),
		    (unsigned long long)checksum(want, size));
		return 1;
	}
	return 0;
}

/* Rank 0: say the exchanges are over (PATH.ready), then wait for PATH; 0, or 1 on timeout. */
static int
pause_at(const char *path)
{
	char ready[4096];
	snprintf(ready, sizeof(ready), "%s.ready", path);
	FILE *f = fopen(ready, "w");
	if (f == NULL) {
		printf("FAIL rank 0: cannot create %s\n", ready);
		return 1;
	}
	fclose(f);
	for (int i = 0; i < ALLPAIRS_PAUSE_MAX * 10; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		usleep(100000);
	}
	printf("FAIL rank 0: %s did not appear within %d s\n", path, ALLPAIRS_PAUSE_MAX);
	return 1;
}

int
main(int argc, char **argv)
{
	int rank, n, failures = 0, sizes = 0, total = 0, check = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	unsigned char *out = malloc(ALLPAIRS_MAX_SIZE), *in = malloc(ALLPAIRS_MAX_SIZE);
	unsigned char *want = malloc(ALLPAIRS_MAX_SIZE);
	if (out == NULL || in == NULL || want == NULL) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		char host[MPI_MAX_PROCESSOR_NAME];
		int len;
		MPI_Get_processor_name(host, &len);
		printf("rank %d on %s\n", rank, host);
	}
	for (size_t size = 1; size <= ALLPAIRS_MAX_SIZE; size *= 4, sizes++)
		for (int shift = 1; shift < n; shift++)
			failures += exchange(rank, n, shift, size, out, in, want);
	const char *pause = getenv("ALLPAIRS_PAUSE");
	if (pause != NULL && pause[0] != '\0') {
		MPI_Barrier(MPI_COMM_WORLD); /* every rank's exchanges are over */
		if (rank == 0)
			failures += pause_at(pause);
	}
	/* Collectives over every connection the exchanges opened. */
	MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Reduce(&failures, &check, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Bcast(&check, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (check != total) {
		printf("FAIL rank %d: MPI_Allreduce said %d failures, Reduce+Bcast %d\n", rank, total,
		    check);
		total++;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("allpairs: %d ranks, %d ordered pairs x %d sizes, %d failures\n", n, n * (n - 1),
		    sizes, total);
	free(out);
	free(in);
	free(want);
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
