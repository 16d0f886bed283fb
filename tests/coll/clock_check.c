/*
 * clock_check.c: bench/coll's common clock (coll_clock.c) on one host, where every rank reads
 * the same monotonic clock and so every true offset is 0: the ping-pong estimate must land
 * within its own error bound (half the best round trip) of 0 on every rank, one kernel must be
 * recognised, and waiting for a start must return at or after it, not long after.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "coll_clock.h"

#define WAIT_AHEAD_S 0.02 /* start time of the wait check, from now */
#define WAIT_SLOP_S 0.5   /* a wait returning this late means it slept past its time */

static int failures;

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "clock_check: FAIL: " __VA_ARGS__);                        \
		}                                                                                  \
	} while (0)

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	double err, off_max;
	double off = coll_clock_offsets(MPI_COMM_WORLD, 8, &err, &off_max);
	EXPECT(fabs(off) <= err + 1e-6, "rank %d: offset %.1f us on one host, bound %.1f us\n", me,
	    off * 1e6, err * 1e6);
	EXPECT(off_max <= err + 1e-6, "largest |offset| %.1f us past the bound %.1f us\n",
	    off_max * 1e6, err * 1e6);
	EXPECT(me != 0 || off == 0, "rank 0's offset to itself is %g s\n", off);
	EXPECT(coll_clock_shared(MPI_COMM_WORLD) == 1, "rank %d: one host not seen as one kernel\n",
	    me);
	double start = coll_clock_now() + WAIT_AHEAD_S;
	coll_clock_wait_until(start);
	double now = coll_clock_now();
	EXPECT(now >= start && now < start + WAIT_SLOP_S, "rank %d: wait returned %.1f us after "
	    "the start\n", me, (now - start) * 1e6);
	int total;
	MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (me == 0)
		printf("clock_check: largest |offset| %.1f us within %.1f us, %d failures\n",
		    off_max * 1e6, err * 1e6, total);
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
