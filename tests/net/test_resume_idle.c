/*
 * test_resume_idle.c: a resumable stream that moves nothing costs its process no CPU
 * (mpi-glue/net/qcgnet_resume_stream.c, issue 14). The I/O thread may spin after traffic to
 * cut latency, but a job whose stream is idle must not pay for it on a shared node: not an
 * open stream with no traffic, not one configured to spin, and not one whose application has
 * closed its end while the peer keeps its own open (before the I/O thread waited on epoll, a
 * closed application end reported POLLHUP in every round and the thread ran flat out until
 * the peer closed too). The "leg" is one end of a socketpair; this test plays the far end.
 *
 * CPU is the process's user + system time over IDLE_MS of wall time, after the state under
 * test is reached (waited for, bounded). A spinning thread takes most of IDLE_MS even on a
 * loaded machine; an idle one wakes once a second.
 */
#include "config.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "qcgnet_resume_frame.h"
#include "qcgnet_resume_stream.h"

#define WAIT_MS 30000     /* a state that must come; generous for a loaded machine */
#define IDLE_MS 500       /* the window over which CPU is measured */
#define IDLE_CPU_MAX_MS 50 /* an idle stream's process may use this much of it, at most */

static const uint8_t identity[QRS_IDENTITY_SIZE] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
	13, 14, 15, 16 };

static int
no_path(void *arg, unsigned attempt, int timeout_ms, char *err, size_t errlen)
{
	(void)arg, (void)attempt, (void)timeout_ms;
	snprintf(err, errlen, "no path in this test");
	return -1;
}

static long
cpu_ms(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000L +
	    (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000L;
}

/* CPU ms the process uses over IDLE_MS of wall time in which this thread sleeps. */
static long
cpu_over_idle_window(void)
{
	long before = cpu_ms();
	struct timespec t = { IDLE_MS / 1000, (IDLE_MS % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0)
		;
	return cpu_ms() - before;
}

/* Read one frame header (and a RESUME's payload) off the far end, within WAIT_MS. */
static int
read_frame(int far, struct qrf_header *h)
{
	uint8_t b[QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD];
	size_t got = 0, want = QRF_HEADER_SIZE;
	struct pollfd p = { .fd = far, .events = POLLIN };
	while (got < want && poll(&p, 1, WAIT_MS) == 1) {
		ssize_t n = recv(far, b + got, want - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
		if (got == QRF_HEADER_SIZE) {
			if (qrf_parse(b, got, h) != QRF_OK || h->length > QRF_RESUME_PAYLOAD)
				return -1; /* the stream sends this test no payload but a RESUME's */
			want += h->length;
		}
	}
	return got == want ? 0 : -1;
}

/* A stream (spinning spin_us after traffic) whose far end has answered its RESUME and sent
 * one byte, which the application has read: the stream carried traffic and is idle now. */
static int
start_and_use(int spin_us, int *far)
{
	int sv[2];
	char err[256], c = 0;
	struct qrs_config cfg;
	struct qrf_header h;
	uint8_t b[2 * QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD + 1]; /* RESUME, DATA "x" */
	qrs_config_default(&cfg);
	cfg.spin_us = spin_us;
	CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	int app = qrs_start(sv[0], identity, &cfg, no_path, NULL, err, sizeof(err));
	CHECK(app >= 0);
	*far = sv[1];
	CHECK(read_frame(*far, &h) == 0 && h.type == QRF_RESUME);
	qrf_encode(b, QRF_RESUME, QRF_RESUME_PAYLOAD, 0, 0);
	memcpy(b + QRF_HEADER_SIZE, identity, QRF_RESUME_PAYLOAD);
	qrf_encode(b + QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD, QRF_DATA, 1, 0, 0);
	b[sizeof(b) - 1] = 'x';
	CHECK(send(*far, b, sizeof(b), MSG_NOSIGNAL) == (ssize_t)sizeof(b));
	struct pollfd p = { .fd = app, .events = POLLIN };
	CHECK(poll(&p, 1, WAIT_MS) == 1 && recv(app, &c, 1, 0) == 1 && c == 'x');
	return app;
}

/* The far end's application closes too: it sends its FIN (having sent 1 byte, received none),
 * and the stream, done both ways, closes its leg. Each test ends so, leaving no stream behind
 * that could cost the next one CPU. */
static void
far_ends(int far)
{
	uint8_t fin[QRF_HEADER_SIZE], b[QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD];
	qrf_encode(fin, QRF_FIN, 0, 1, 0);
	CHECK(send(far, fin, sizeof(fin), MSG_NOSIGNAL) == (ssize_t)sizeof(fin));
	struct pollfd p = { .fd = far, .events = POLLIN };
	ssize_t n = 1;
	while (n > 0 && poll(&p, 1, WAIT_MS) == 1)
		n = recv(far, b, sizeof(b), 0); /* its ACK and FIN, then the end of the leg */
	CHECK(n == 0);
	close(far);
}

static void
open_idle_stream_costs_nothing(void)
{
	int far, app = start_and_use(0, &far);
	long used = cpu_over_idle_window();
	printf("open, idle: %ld ms CPU in %d ms\n", used, IDLE_MS);
	CHECK(used <= IDLE_CPU_MAX_MS);
	close(app);
	far_ends(far);
}

static void
spinning_stream_stops_spinning_when_idle(void)
{
	int far, app = start_and_use(50, &far); /* 50 us, as bench/net/resume_bench's spin */
	long used = cpu_over_idle_window();
	printf("spin 50 us, idle: %ld ms CPU in %d ms\n", used, IDLE_MS);
	CHECK(used <= IDLE_CPU_MAX_MS);
	close(app);
	far_ends(far);
}

static void
closed_application_end_costs_nothing(void)
{
	int far, app = start_and_use(0, &far);
	struct qrf_header h;
	close(app);
	/* The stream saw the close when its FIN comes (an ACK of the byte may come first); the
	 * far end sends no FIN of its own: its application still has the connection open. */
	int fin = 0;
	for (int i = 0; i < 4 && !fin; i++)
		fin = read_frame(far, &h) == 0 && h.type == QRF_FIN;
	CHECK(fin);
	long used = cpu_over_idle_window();
	printf("application closed, peer open: %ld ms CPU in %d ms\n", used, IDLE_MS);
	CHECK(used <= IDLE_CPU_MAX_MS);
	far_ends(far);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	alarm(120);
	RUN(open_idle_stream_costs_nothing);
	RUN(spinning_stream_stops_spinning_when_idle);
	RUN(closed_application_end_costs_nothing);
	return check_exit();
}
