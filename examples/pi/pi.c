/*
 * pi.c: pi by the midpoint rule on 4/(1+x^2) over [0,1], the intervals dealt round-robin to
 * the ranks and summed with MPI_Reduce. Output from rank 0: "pi is approximately P, error E"
 * and exit 1 if the error exceeds 1e-9.
 *
 *   pi [INTERVALS]   (default 10000000)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	int rank, size;
	long n = argc > 1 ? atol(argv[1]) : 10000000L;
	double sum = 0.0, pi = 0.0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (n <= 0)
		n = 10000000L;
	double h = 1.0 / (double)n;
	for (long i = rank; i < n; i += size) {
		double x = h * ((double)i + 0.5);
		sum += 4.0 / (1.0 + x * x);
	}
	sum *= h;
	MPI_Reduce(&sum, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	double error = fabs(pi - M_PI);
	if (rank == 0)
		printf("pi is approximately %.16f, error %.3e (%d ranks, %ld intervals)\n", pi,
		    error, size, n);
	MPI_Finalize();
	return rank == 0 && error > 1e-9;
}
