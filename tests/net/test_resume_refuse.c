/*
 * test_resume_refuse.c: what the resumable stream's I/O thread (mpi-glue/net/
 * qcgnet_resume_stream.c) does with a leg that lies. The "leg" is one end of a socketpair and
 * this test plays the far end by hand, frame by frame; no proxy is needed. Every lie fails
 * the stream (the application's end is closed, the failure counted) and delivers nothing
 * after it: garbage, a frame before RESUME, a RESUME claiming bytes never sent, data beyond
 * what was received (a gap), an ack of bytes never sent. An honest far end gets its bytes.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "qcgnet_resume_frame.h"
#include "qcgnet_resume_stream.h"

#define WAIT_MS 30000 /* a state that must come; generous for a loaded machine */

static const uint8_t identity[QRS_IDENTITY_SIZE] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4,
	5, 6 };

static int
no_path(void *arg, unsigned attempt, int timeout_ms, char *err, size_t errlen)
{
	(void)arg, (void)attempt, (void)timeout_ms;
	snprintf(err, errlen, "no path in this test");
	return -1;
}

/* A stream whose leg is *far's peer; returns the application's end. */
static int
start(int *far)
{
	int sv[2];
	char err[256];
	struct qrs_config cfg;
	qrs_config_default(&cfg);
	cfg.resume_timeout_ms = 200; /* a leg closed by the far end is not what is tested here */
	CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	int app = qrs_start(sv[0], identity, &cfg, no_path, NULL, err, sizeof(err));
	CHECK(app >= 0);
	*far = sv[1];
	return app;
}

static void
send_frame(int fd, enum qrf_type type, uint16_t len, uint32_t seq, uint32_t ack,
    const void *payload)
{
	uint8_t b[QRF_HEADER_SIZE + 64]; /* one send: a refused frame's payload may not follow */
	qrf_encode(b, type, len, seq, ack);
	if (len > 0)
		memcpy(b + QRF_HEADER_SIZE, payload, len);
	CHECK(send(fd, b, QRF_HEADER_SIZE + len, MSG_NOSIGNAL) == (ssize_t)(QRF_HEADER_SIZE + len));
}

/* Read the stream's own RESUME off the far end: it comes first on every leg. */
static void
take_their_resume(int far)
{
	uint8_t b[QRF_HEADER_SIZE + QRF_RESUME_PAYLOAD];
	struct qrf_header h;
	size_t got = 0;
	struct pollfd p = { .fd = far, .events = POLLIN };
	while (got < sizeof(b) && poll(&p, 1, WAIT_MS) == 1) {
		ssize_t n = recv(far, b + got, sizeof(b) - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	CHECK(got == sizeof(b));
	CHECK(qrf_parse(b, got, &h) == QRF_OK && h.type == QRF_RESUME && h.ack == 0);
	CHECK(memcmp(b + QRF_HEADER_SIZE, identity, sizeof(identity)) == 0);
}

/* The application's end reaches EOF within WAIT_MS, having read exactly `want` bytes. */
static void
app_ends_after(int app, const char *want)
{
	char buf[256];
	size_t got = 0;
	struct pollfd p = { .fd = app, .events = POLLIN };
	for (;;) {
		if (poll(&p, 1, WAIT_MS) != 1) {
			CHECK(!"the application's end was not closed");
			return;
		}
		ssize_t n = recv(app, buf + got, sizeof(buf) - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	CHECK(got == strlen(want) && memcmp(buf, want, got) == 0);
}

static uint64_t
failed_count(void)
{
	struct qrs_totals t;
	qrs_get_totals(&t);
	return t.streams_failed;
}

/* Run one lie: `lie` is sent by the far end after an honest RESUME and "hi" (or instead of
 * the RESUME when honest_resume is 0); the stream must fail having delivered `before`. */
static void
lie_fails_the_stream(int honest_resume, void (*lie)(int far), const char *before)
{
	int far, app = start(&far);
	uint64_t failed = failed_count();
	take_their_resume(far);
	if (honest_resume) {
		send_frame(far, QRF_RESUME, QRF_RESUME_PAYLOAD, 0, 0, identity);
		send_frame(far, QRF_DATA, 2, 0, 0, "hi");
	}
	lie(far);
	app_ends_after(app, before);
	CHECK_INT_EQ(failed_count() - failed, 1);
	close(app);
	close(far);
}

static void
garbage(int far)
{
	CHECK(send(far, "GET / HTTP/1.1\r\n\r\n", 18, MSG_NOSIGNAL) == 18);
}

static void
data_before_resume(int far)
{
	send_frame(far, QRF_DATA, 3, 0, 0, "abc");
}

static void
resume_of_bytes_never_sent(int far)
{
	send_frame(far, QRF_RESUME, QRF_RESUME_PAYLOAD, 0, 1000, identity); /* we sent 0 */
}

static void
forged_identity(int far)
{
	uint8_t other[QRS_IDENTITY_SIZE] = { 0 };
	send_frame(far, QRF_RESUME, QRF_RESUME_PAYLOAD, 0, 0, other);
}

static void
data_with_a_gap(int far)
{
	send_frame(far, QRF_DATA, 3, 5, 0, "xyz"); /* 2 received, this starts at 5 */
}

static void
ack_of_bytes_never_sent(int far)
{
	send_frame(far, QRF_ACK, 0, 0, 7, NULL);
}

static void
oversized_resume(int far)
{
	uint8_t b[QRF_HEADER_SIZE];
	qrf_encode(b, QRF_RESUME, 0, 0, 0);
	b[3] = 200; /* a RESUME of 200 bytes */
	CHECK(send(far, b, sizeof(b), MSG_NOSIGNAL) == (ssize_t)sizeof(b));
}

static void
garbage_is_refused(void) { lie_fails_the_stream(0, garbage, ""); }
static void
data_before_resume_is_refused(void) { lie_fails_the_stream(0, data_before_resume, ""); }
static void
resume_claiming_unsent_bytes_is_refused(void) { lie_fails_the_stream(0, resume_of_bytes_never_sent, ""); }
static void
resume_of_another_stream_is_refused(void) { lie_fails_the_stream(0, forged_identity, ""); }
static void
oversized_resume_is_refused(void) { lie_fails_the_stream(0, oversized_resume, ""); }
static void
gap_is_refused_after_the_honest_bytes(void) { lie_fails_the_stream(1, data_with_a_gap, "hi"); }
static void
ack_of_unsent_bytes_is_refused(void) { lie_fails_the_stream(1, ack_of_bytes_never_sent, "hi"); }

/* The honest far end: a replay overlapping what was delivered is trimmed, FIN ends it. */
static void
honest_replay_is_delivered_once(void)
{
	int far, app = start(&far);
	uint64_t failed = failed_count();
	take_their_resume(far);
	send_frame(far, QRF_RESUME, QRF_RESUME_PAYLOAD, 0, 0, identity);
	send_frame(far, QRF_DATA, 5, 0, 0, "hello");
	send_frame(far, QRF_DATA, 8, 2, 0, "llo worl"); /* 3 bytes again, then 5 new */
	send_frame(far, QRF_DATA, 1, 10, 0, "d");
	send_frame(far, QRF_FIN, 0, 11, 0, NULL);
	app_ends_after(app, "hello world");
	CHECK_INT_EQ(failed_count() - failed, 0);
	close(app);
	close(far);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	alarm(120);
	RUN(garbage_is_refused);
	RUN(data_before_resume_is_refused);
	RUN(resume_claiming_unsent_bytes_is_refused);
	RUN(resume_of_another_stream_is_refused);
	RUN(oversized_resume_is_refused);
	RUN(gap_is_refused_after_the_honest_bytes);
	RUN(ack_of_unsent_bytes_is_refused);
	RUN(honest_replay_is_delivered_once);
	return check_exit();
}
