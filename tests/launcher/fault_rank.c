/*
 * fault_rank.c: the MPI program of the fault tests (faults_setup.test, faults_running.test).
 * A job that is set up, then runs long enough for a service to be killed under it, then needs
 * new connections:
 *  1. MPI_Barrier, then rank 0 prints "fault_rank: set up, N ranks" (the test waits for it);
 *  2. every rank sleeps SECONDS (argv[1], default 5): the window for the fault;
 *  3. every pair of ranks exchanges its rank numbers (MPI_Sendrecv around the ring at every
 *     distance), so the TCP BTL opens the connections the barrier did not need, each asked of
 *     the broker through the rank's helper and front-end; then MPI_Barrier, and rank 0 prints
 *     "fault_rank: all N ranks exchanged, W wrong".
 * Exit 0 when every rank got every other rank's number, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FAULT_RANK_MAX_SLEEP 600 /* seconds: a typo must not make a job that never ends */

int
main(int argc, char **argv)
{
	int rank, size, wrong = 0, all_wrong = 0;
	long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : 5;

	if (seconds < 0 || seconds > FAULT_RANK_MAX_SLEEP) {
		fprintf(stderr, "fault_rank: SECONDS must be 0..%d, got '%s'\n", FAULT_RANK_MAX_SLEEP,
		    argv[1]);
		return 2;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf("fault_rank: set up, %d ranks\n", size);
		fflush(stdout);
	}
	sleep((unsigned)seconds);

	/* Pairwise, every pair once each way: MPI_Alltoall of one int may take the Bruck algorithm,
	 * which talks to log2(N) peers only, over the barrier's connections. */
	for (int k = 1; k < size; k++) {
		int to = (rank + k) % size, from = (rank - k + size) % size, got = -1;
		MPI_Sendrecv(&rank, 1, MPI_INT, to, 0, &got, 1, MPI_INT, from, 0, MPI_COMM_WORLD,
		    MPI_STATUS_IGNORE);
		wrong += got != from;
	}
	MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf("fault_rank: all %d ranks exchanged, %d wrong\n", size, all_wrong);
		fflush(stdout);
	}
	MPI_Finalize();
	return all_wrong != 0;
}
