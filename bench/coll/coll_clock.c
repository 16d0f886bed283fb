/*
 * coll_clock.c: clock offsets to rank 0 by ping-pong, and waiting for a common start time
 * (see coll_clock.h). Used by coll_bench to time each collective call from one start time
 * shared by all ranks to the moment the last rank leaves the call.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "coll_clock.h"

/* How long before the start a sleeping rank wakes and starts yielding: covers the kernel's
 * timer slack and wake-up latency on a loaded machine, so that at the start every rank is
 * already runnable rather than waiting to be woken. */
#define WAKE_EARLY_S 2e-3
/* How often a rank waiting for its turn in the offset estimation looks for it: it sleeps in
 * between, leaving the cores to the two ranks whose ping-pong is being timed. */
#define TURN_POLL_S 50e-6
#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define BOOT_ID_LEN 64

double
coll_clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rank 0's side with one peer: returns the peer's offset from the ping-pong of least round
 * trip, and that round trip in *best_rtt. */
static double
offset_of_peer(MPI_Comm comm, int peer, int pings, double *best_rtt)
{
	double offset = 0, peer_time;
	*best_rtt = INFINITY;
	for (int i = 0; i < pings; i++) {
		double t_send = coll_clock_now();
		MPI_Send(NULL, 0, MPI_BYTE, peer, 0, comm);
		MPI_Recv(&peer_time, 1, MPI_DOUBLE, peer, 0, comm, MPI_STATUS_IGNORE);
		double t_recv = coll_clock_now();
		if (t_recv - t_send < *best_rtt) {
			*best_rtt = t_recv - t_send;
			/* the peer read its clock half a round trip after t_send */
			offset = peer_time - (t_send + t_recv) / 2;
		}
	}
	return offset;
}

static void
sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* Receives the empty message that starts our turn, sleeping between looks (see TURN_POLL_S). */
static void
await_turn(MPI_Comm comm)
{
	MPI_Request req;
	int done = 0;
	MPI_Irecv(NULL, 0, MPI_BYTE, 0, 0, comm, &req);
	for (MPI_Test(&req, &done, MPI_STATUS_IGNORE); !done;
	    MPI_Test(&req, &done, MPI_STATUS_IGNORE))
		sleep_s(TURN_POLL_S);
}

int
coll_clock_shared(MPI_Comm comm)
{
	char mine[BOOT_ID_LEN] = "", root[BOOT_ID_LEN];
	FILE *f = fopen(BOOT_ID_PATH, "r");
	if (f != NULL) {
		if (fgets(mine, sizeof(mine), f) == NULL)
			mine[0] = '\0';
		fclose(f);
	}
	memcpy(root, mine, sizeof(root));
	MPI_Bcast(root, BOOT_ID_LEN, MPI_CHAR, 0, comm);
	int same = mine[0] != '\0' && strcmp(mine, root) == 0, all;
	MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm);
	return all;
}

double
coll_clock_offsets(MPI_Comm comm, int pings, double *err_max, double *off_max)
{
	int me, n;
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	pings = pings < 1 ? 1 : pings > 1000 ? 1000 : pings;
	double mine = 0, err = 0, worst = 0;
	if (me == 0) {
		for (int peer = 1; peer < n; peer++) {
			double rtt, off = offset_of_peer(comm, peer, pings, &rtt);
			MPI_Send(&off, 1, MPI_DOUBLE, peer, 1, comm);
			err = fmax(err, rtt / 2);
			worst = fmax(worst, fabs(off));
		}
	} else {
		for (int i = 0; i < pings; i++) {
			if (i == 0)
				await_turn(comm);
			else
				MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
			double t = coll_clock_now();
			MPI_Send(&t, 1, MPI_DOUBLE, 0, 0, comm);
		}
		MPI_Recv(&mine, 1, MPI_DOUBLE, 0, 1, comm, MPI_STATUS_IGNORE);
	}
	double both[2] = { err, worst };
	MPI_Bcast(both, 2, MPI_DOUBLE, 0, comm);
	if (err_max != NULL)
		*err_max = both[0];
	if (off_max != NULL)
		*off_max = both[1];
	return mine;
}

void
coll_clock_wait_until(double t)
{
	double wake = t - WAKE_EARLY_S;
	if (coll_clock_now() < wake) {
		struct timespec ts;
		ts.tv_sec = (time_t)wake;
		ts.tv_nsec = (long)((wake - (double)ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (coll_clock_now() < t)
		sched_yield();
}
