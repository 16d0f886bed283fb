/*
 * coll_clock.h: a clock common to all ranks of a job, for per-call latency of collectives.
 * Each rank reads its own monotonic clock and corrects it by its offset to rank 0, estimated
 * from ping-pongs with rank 0 (the sample of least round-trip time; links are assumed symmetric,
 * so the error is at most half that round trip).
 */
#ifndef COLL_CLOCK_H
#define COLL_CLOCK_H

#include <mpi.h>

/* This rank's monotonic clock, in seconds. */
double coll_clock_now(void);

/*
 * Collective over comm: estimates each rank's offset (its clock minus rank 0's, seconds) from
 * `pings` ping-pongs with rank 0 (1..1000). Returns this rank's offset (0 on rank 0); when
 * `err_max` is not NULL, every rank gets the largest error bound over ranks (half the best
 * round trip) there, and `off_max` the largest |offset|.
 */
double coll_clock_offsets(MPI_Comm comm, int pings, double *err_max, double *off_max);

/*
 * Collective over comm: whether every rank runs under one kernel (same boot id), so that their
 * monotonic clocks are one clock and every offset is exactly 0 (the testbed's namespaces).
 */
int coll_clock_shared(MPI_Comm comm);

/* Returns when this rank's clock reaches t (seconds, its own clock): sleeps until shortly
 * before, then yields the CPU until t, so that waiting ranks leave the cores to working ones. */
void coll_clock_wait_until(double t);

#endif
