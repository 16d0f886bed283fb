/*
 * mcast_check.c: MPI_Bcast, as the multicast broadcast runs it, compared byte for byte (gaps of
 * derived datatypes included) with what the root sent: every root, sizes 0, 1 byte, a few ints,
 * several fragments with a short last one, and 1 MiB, contiguous and vector (int, gap, int)
 * datatypes, on MPI_COMM_WORLD and a dup, each several times in a row (so that sequence numbers
 * move and late datagrams of one call meet the next). Prints one line per mismatch and a
 * summary; exits non-zero if any rank saw a mismatch.
 *
 * Usage: mcast_check [REPEAT]   (default 3 calls per case)
 */
#include "config.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAP_FILL 0x5a /* bytes in the gaps of a vector must keep this value */

static int failures, checks;

/* The byte the root puts at position i of call (root, size, rep). */
static unsigned char
pattern(int root, int n, int rep, size_t i)
{
	return (unsigned char)((i * 131u + (size_t)root * 17u + (size_t)n * 7u + (size_t)rep) % 251u);
}

/* One broadcast of count elements of type (bytes of data per element: esize, extent ext). */
static void
one_case(MPI_Comm comm, const char *cname, MPI_Datatype type, const char *tname, int count,
    size_t esize, size_t ext, int root, int rep)
{
	int me;
	MPI_Comm_rank(comm, &me);
	size_t span = (size_t)count * ext + 8;
	unsigned char *buf = malloc(span);
	memset(buf, GAP_FILL, span);
	/* Data bytes: the first esize/2 and ... of each element per the type: fill only where the
	 * type has data (for the vector, ints 0 and 2 of each 3-int extent). */
	for (int e = 0; e < count; e++)
		for (size_t b = 0; b < esize; b++) {
			size_t off = ext == esize ? b : (b < 4 ? b : b + 4);
			size_t pos = (size_t)e * ext + off;
			buf[pos] = me == root ? pattern(root, count, rep, (size_t)e * esize + b) : 0;
		}
	MPI_Bcast(buf, count, type, root, comm);
	int bad = 0;
	for (int e = 0; e < count && !bad; e++)
		for (size_t b = 0; b < ext && !bad; b++) {
			int data = ext == esize || b < 4 || (b >= 8 && b < 12);
			size_t db = b < 4 ? b : b - (ext == esize ? 0 : 4);
			unsigned char want = data ? pattern(root, count, rep, (size_t)e * esize + db) :
			    GAP_FILL;
			if (buf[(size_t)e * ext + b] != want)
				bad = 1, printf("mcast_check: MISMATCH rank %d %s %s count %d root %d "
				    "rep %d: element %d byte %zu is %u, want %u\n", me, cname, tname,
				    count, root, rep, e, b, buf[(size_t)e * ext + b], want);
		}
	for (size_t b = (size_t)count * ext; b < span && !bad; b++)
		if (buf[b] != GAP_FILL)
			bad = 1, printf("mcast_check: MISMATCH rank %d %s %s count %d root %d: wrote "
			    "past the buffer\n", me, cname, tname, count, root);
	failures += bad;
	checks++;
	free(buf);
}

static void
all_cases(MPI_Comm comm, const char *cname, MPI_Datatype vec, int repeat)
{
	int n;
	MPI_Comm_size(comm, &n);
	/* bytes: 0, 1, 7 ints, 3 fragments and a bit at 1400-byte fragments, 1 MiB */
	const int bytes[] = { 0, 1, 28, 3 * 1400 + 12, 1 << 20 };
	for (size_t s = 0; s < sizeof(bytes) / sizeof(bytes[0]); s++)
		for (int root = 0; root < n; root++)
			for (int rep = 0; rep < repeat; rep++) {
				one_case(comm, cname, MPI_BYTE, "byte", bytes[s], 1, 1, root, rep);
				if (bytes[s] % 8 == 0 || bytes[s] == 28)
					one_case(comm, cname, vec, "vector", bytes[s] / 8, 8, 12,
					    root, rep);
			}
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int repeat = argc > 1 ? atoi(argv[1]) : 3, me, n, total[2];
	if (repeat < 1 || repeat > 100) {
		fprintf(stderr, "mcast_check: REPEAT must be 1..100, got '%s'\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Datatype vec; /* int, 4-byte gap, int: 8 data bytes in a 12-byte extent */
	MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
	MPI_Datatype vecr;
	MPI_Type_create_resized(vec, 0, 12, &vecr);
	MPI_Type_commit(&vecr);
	all_cases(MPI_COMM_WORLD, "world", vecr, repeat);
	MPI_Comm dup;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	all_cases(dup, "dup", vecr, repeat);
	MPI_Comm_free(&dup);
	int mine[2] = { checks, failures };
	MPI_Reduce(mine, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (me == 0)
		printf("mcast_check: %d checks on %d ranks, %d failures\n", total[0], n, total[1]);
	MPI_Type_free(&vec);
	MPI_Type_free(&vecr);
	MPI_Finalize();
	return failures != 0;
}
