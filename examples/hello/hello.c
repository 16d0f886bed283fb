/*
 * hello.c: every rank says where it runs and which topology colors the launcher gave it
 * (QCG_TOPOLOGY_COLORS, or its line of QCG_TOPOLOGY_FILE), then rank 0 checks that every
 * rank answered. Output: one line per rank, "hello from rank R of N on HOST colors S,C,N",
 * then "hello: all N ranks answered".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This rank's colors "site,cluster,node" from the launcher, or "unknown". */
static void
topology_colors(int rank, char *buf, size_t len)
{
	const char *env = getenv("QCG_TOPOLOGY_COLORS"), *file = getenv("QCG_TOPOLOGY_FILE");
	snprintf(buf, len, "unknown");
	if (env != NULL) {
		snprintf(buf, len, "%s", env);
		return;
	}
	FILE *f = file ? fopen(file, "r") : NULL;
	char line[256];
	int r, s, c, n;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d %d %d", &r, &s, &c, &n) == 4 && r == rank) {
			snprintf(buf, len, "%d,%d,%d", s, c, n);
			break;
		}
	if (f)
		fclose(f);
}

int
main(int argc, char **argv)
{
	int rank, size, len, one = 1, total = 0;
	char host[MPI_MAX_PROCESSOR_NAME], colors[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	topology_colors(rank, colors, sizeof(colors));
	printf("hello from rank %d of %d on %s colors %s\n", rank, size, host, colors);
	fflush(stdout);
	MPI_Reduce(&one, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("hello: all %d ranks answered\n", total);
	MPI_Finalize();
	return rank == 0 && total != size;
}
