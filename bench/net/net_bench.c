/*
 * net_bench.c: the MPI side of bench/net (issue 5): what one job measures between ranks whose
 * connections libqcgnet sets up with a given method. run_net_bench.sh starts it on the testbed
 * and picks the sites so that the broker's best method is the one wanted.
 *
 *   net_bench pingpong LAT_ITERS BIG_BYTES BIG_ITERS
 *       2 ranks; rank 0 speaks first, so it is the TCP BTL's initiator (the connect() the
 *       broker decides). Prints one line:
 *       "pingpong setup_us=.. rtt_us=.. lat_us=.. bw_mbit=.." where setup_us is the first
 *       1-byte round trip (connect() to established, the BTL's handshake, one round trip)
 *       minus the median steady round trip, lat_us half the median 1-byte round trip and
 *       bw_mbit the median of 2 x BIG_BYTES / round trip of BIG_BYTES ping-pongs.
 *   net_bench trunk SECONDS MSG_BYTES
 *       2P ranks, pairs (i, i+P); rank i < P connects first (one 1-byte round trip each,
 *       all pairs at once), then after a barrier every initiator streams MSG_BYTES messages
 *       (8 in flight) to its partner for SECONDS. Each receiver prints
 *       "trunk pair=i bytes=.. seconds=.. mbit=..".
 *   net_bench startup
 *       MPI_Init, MPI_Barrier, MPI_Finalize: what a job's start costs.
 *
 * No collective runs before the first message of a pair: a barrier would make both ranks
 * connect at once, and the BTL would then keep whichever connection won the race.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define ITERS_MAX 100000
#define BIG_MAX (256 << 20)
#define SECONDS_MAX 600
#define WINDOW 8          /* messages in flight per streaming pair */
#define TAG_DATA 1
#define TAG_STOP 2
/* Rank 0 waits this long after MPI_Init before its first send, so that rank 1 (whose fence
 * release crosses the WAN) is out of MPI_Init and the first round trip measures the set-up,
 * not rank 1's start. */
#define SETTLE_NS 300000000L

static long
arg_long(const char *s, const char *what, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "net_bench: %s '%s': expected an integer from %ld to %ld\n", what, s,
		    min, max);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return v;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One round trip of `bytes` from rank 0's side (peer echoes); returns its seconds. */
static double
round_trip(int me, char *buf, int bytes)
{
	double t0 = MPI_Wtime();
	if (me == 0) {
		MPI_Send(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
		MPI_Recv(buf, bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(buf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
	}
	return MPI_Wtime() - t0;
}

static void
pingpong(int me, int n, char **argv)
{
	long lat_iters = arg_long(argv[0], "LAT_ITERS", 1, ITERS_MAX);
	long big = arg_long(argv[1], "BIG_BYTES", 1, BIG_MAX);
	long big_iters = arg_long(argv[2], "BIG_ITERS", 1, ITERS_MAX);
	struct timespec settle = { 0, SETTLE_NS };
	double first, *lat = malloc(sizeof(double) * (size_t)lat_iters);
	double *bw = malloc(sizeof(double) * (size_t)big_iters);
	char *buf = malloc((size_t)big);

	if (n != 2) {
		if (me == 0)
			fprintf(stderr, "net_bench: pingpong needs exactly 2 ranks, not %d\n", n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (lat == NULL || bw == NULL || buf == NULL) {
		fprintf(stderr, "net_bench: out of memory for %ld-byte messages\n", big);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(buf, 0x5a, (size_t)big);
	if (me == 0)
		nanosleep(&settle, NULL);
	first = round_trip(me, buf, 1);
	for (long i = 0; i < lat_iters; i++)
		lat[i] = round_trip(me, buf, 1);
	round_trip(me, buf, (int)big); /* TCP window warm-up, not counted */
	for (long i = 0; i < big_iters; i++)
		bw[i] = 2.0 * (double)big * 8 / round_trip(me, buf, (int)big) / 1e6;
	if (me == 0) {
		double rtt = median(lat, (int)lat_iters);
		printf("pingpong setup_us=%.0f rtt_us=%.1f lat_us=%.1f bw_mbit=%.1f\n",
		    (first - rtt) * 1e6, rtt * 1e6, rtt / 2 * 1e6, median(bw, (int)big_iters));
	}
	free(lat);
	free(bw);
	free(buf);
}

/* The initiator's side of one streaming pair: MSG_BYTES messages, WINDOW in flight, until
 * `seconds` have passed; then a stop message carrying nothing. */
static void
stream_send(int peer, char *buf, long bytes, double seconds)
{
	MPI_Request req[WINDOW];
	double end = MPI_Wtime() + seconds;
	for (int i = 0; i < WINDOW; i++)
		MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req[i]);
	for (long i = 0; MPI_Wtime() < end; i++) {
		MPI_Wait(&req[i % WINDOW], MPI_STATUS_IGNORE);
		MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &req[i % WINDOW]);
	}
	MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
	MPI_Send(buf, 0, MPI_BYTE, peer, TAG_STOP, MPI_COMM_WORLD);
}

/* The receiver's side: count bytes until the stop message; print the pair's rate. */
static void
stream_recv(int pair, int peer, char *buf, long bytes)
{
	double t0 = MPI_Wtime(), total = 0;
	MPI_Status st;
	for (;;) {
		int got;
		MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		if (st.MPI_TAG == TAG_STOP)
			break;
		MPI_Get_count(&st, MPI_BYTE, &got);
		total += got;
	}
	double s = MPI_Wtime() - t0;
	printf("trunk pair=%d bytes=%.0f seconds=%.3f mbit=%.2f\n", pair, total, s,
	    total * 8 / s / 1e6);
	fflush(stdout);
}

static void
trunk(int me, int n, char **argv)
{
	double seconds = (double)arg_long(argv[0], "SECONDS", 1, SECONDS_MAX);
	long bytes = arg_long(argv[1], "MSG_BYTES", 1, BIG_MAX);
	int pairs = n / 2;
	char *buf = malloc((size_t)bytes);

	if (n < 2 || n % 2) {
		if (me == 0)
			fprintf(stderr, "net_bench: trunk needs an even number of ranks, not %d\n", n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (buf == NULL) {
		fprintf(stderr, "net_bench: out of memory for %ld-byte messages\n", bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(buf, 0x5a, (size_t)bytes);
	if (me < pairs) {
		MPI_Send(buf, 1, MPI_BYTE, me + pairs, TAG_DATA, MPI_COMM_WORLD);
		MPI_Recv(buf, 1, MPI_BYTE, me + pairs, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(buf, 1, MPI_BYTE, me - pairs, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(buf, 1, MPI_BYTE, me - pairs, TAG_DATA, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (me < pairs)
		stream_send(me + pairs, buf, bytes, seconds);
	else
		stream_recv(me - pairs, me - pairs, buf, bytes);
	free(buf);
}

int
main(int argc, char **argv)
{
	int me, n;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc == 5 && strcmp(argv[1], "pingpong") == 0) {
		pingpong(me, n, argv + 2);
	} else if (argc == 4 && strcmp(argv[1], "trunk") == 0) {
		trunk(me, n, argv + 2);
	} else if (argc == 2 && strcmp(argv[1], "startup") == 0) {
		MPI_Barrier(MPI_COMM_WORLD);
	} else {
		if (me == 0)
			fprintf(stderr, "usage: net_bench pingpong LAT_ITERS BIG_BYTES BIG_ITERS | "
			    "trunk SECONDS MSG_BYTES | startup\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Finalize();
	return 0;
}
