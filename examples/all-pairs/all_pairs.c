/*
 * all_pairs.c: every rank exchanges a message with every other rank (so every pair of
 * processes, across every pair of sites, opens a connection), and checks what it received
 * against a checksum its peer computed. Output: "all-pairs: N ranks, N*(N-1) messages of B
 * bytes, 0 errors" from rank 0; exit 1 if any rank saw an error.
 *
 *   all-pairs [BYTES]   (default 65536)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Fill buf with bytes only this (from, to) pair produces. */
static void
fill(unsigned char *buf, int n, int from, int to)
{
	uint32_t x = 2166136261u ^ (uint32_t)(from * 65599 + to);
	for (int i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		buf[i] = (unsigned char)(x >> 24);
	}
}

/* FNV-1a over buf. */
static uint32_t
checksum(const unsigned char *buf, int n)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = (h ^ buf[i]) * 16777619u;
	return h;
}

int
main(int argc, char **argv)
{
	int rank, size, bytes = argc > 1 ? atoi(argv[1]) : 65536, errors = 0, all = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (bytes <= 0 || bytes > (64 << 20))
		bytes = 65536;
	unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
	for (int step = 1; step < size; step++) {
		int to = (rank + step) % size, from = (rank - step + size) % size;
		uint32_t sent_sum, peer_sum;
		fill(out, bytes, rank, to);
		sent_sum = checksum(out, bytes);
		MPI_Sendrecv(out, bytes, MPI_BYTE, to, 1, in, bytes, MPI_BYTE, from, 1,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&sent_sum, 1, MPI_UINT32_T, to, 2, &peer_sum, 1, MPI_UINT32_T, from, 2,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (checksum(in, bytes) != peer_sum) {
			fprintf(stderr, "all-pairs: rank %d: data from rank %d is corrupt\n", rank,
			    from);
			errors++;
		}
	}
	MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("all-pairs: %d ranks, %d messages of %d bytes, %d errors\n", size,
		    size * (size - 1), bytes, all);
	free(out);
	free(in);
	MPI_Finalize();
	return rank == 0 && all != 0;
}
