/*
 * mpi_hosts.c: the Open MPI test's program. Every rank prints its hostname and the hostname its
 * left neighbour sent it around a ring, so the output shows both that ranks run on distinct
 * hosts and that messages crossed between them.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NAME_MAX_LEN 256

int
main(int argc, char **argv)
{
	char mine[NAME_MAX_LEN] = "", left[NAME_MAX_LEN] = "";
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	gethostname(mine, sizeof(mine) - 1);
	MPI_Sendrecv(mine, NAME_MAX_LEN, MPI_CHAR, (rank + 1) % size, 0, left, NAME_MAX_LEN,
	    MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d of %d on %s, left neighbour on %s\n", rank, size, mine, left);
	MPI_Finalize();
	return 0;
}
