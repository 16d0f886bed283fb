/*
 * init_time.c: each rank prints, right after MPI_Init returns, "init RANK HOST SECONDS" with
 * the wall clock (CLOCK_REALTIME, which every testbed namespace shares), then finalizes. The
 * launch benchmark takes the latest of these against the time it started the launcher.
 */
#include "config.h"

#include <mpi.h>
#include <stdio.h>
#include <time.h>

int
main(int argc, char **argv)
{
	struct timespec ts;
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, len;
	MPI_Init(&argc, &argv);
	clock_gettime(CLOCK_REALTIME, &ts);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Get_processor_name(host, &len);
	printf("init %d %s %lld.%09ld\n", rank, host, (long long)ts.tv_sec, ts.tv_nsec);
	fflush(stdout);
	/* No barrier: ranks spinning in one would take the CPU from those still in MPI_Init
	 * (24 ranks share 2 cores here). MPI_Finalize's fence waits without spinning. */
	MPI_Finalize();
	return 0;
}
