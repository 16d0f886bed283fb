/*
 * helper_local.c: a test program that plays an MPI process on qcg-helper's local API, through
 * the same client library libqcgnet uses (proto/helper_client.h):
 *
 *   helper_local SOCKET JOB TOKEN OP ARGS...
 *     hello                      connect and HELLO only; prints "ok"
 *     wait PORT COUNT            WAIT_INBOUND on PORT, print "waiting", then for each of COUNT
 *                                hand-offs print "handoff method=M peer=A:P inode=I", read a
 *                                line from the socket, answer "echo:<line>", and keep the
 *                                socket until the peer closes it
 *     register ADDRESS PORT      REGISTER; prints "ok"
 *     resolve ADDRESS PORT [AFTER]  RESOLVE; prints the decision; when a hand-off follows,
 *                                sends "ping\n" on the socket and prints what comes back
 *     report METHOD ADDRESS PORT ok|failed USEC
 *     connect ADDRESS PORT       what libqcgnet's connect() will do: RESOLVE, then take the
 *                                hand-off (sending "ping\n", expecting the echo) or connect
 *                                straight to the target; REPORT the outcome with its set-up
 *                                time on the same connection; prints "reported method=M ok|failed"
 *     raw-after-hello HEX        HELLO, then send raw bytes and print the helper's answer
 *     resume RELAY-ID            RESUME of that relay (32 hex digits, issue 14); prints the new
 *                                relay's "method=M proxy=HOST:PORT" (a refusal: exit 1)
 *
 * Exit 0, or 1 with the helper's refusal on stderr.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helper_client.h"

static int
fail(const char *what, const char *err)
{
	fprintf(stderr, "helper_local: %s: %s\n", what, err);
	return 1;
}

/* Answer one line with "echo:<line>", then hold the socket until the peer closes it. */
static void
echo_once(int fd)
{
	char line[256];
	size_t n = 0;
	while (n < sizeof(line) - 1 && read(fd, line + n, 1) == 1 && line[n++] != '\n')
		;
	line[n] = '\0';
	char reply[300];
	int len = snprintf(reply, sizeof(reply), "echo:%s", line);
	if (write(fd, reply, (size_t)len) != len)
		perror("helper_local: write");
	char sink[64];
	while (read(fd, sink, sizeof(sink)) > 0)
		;
}

static int
op_wait(struct helper_client *c, int argc, char **argv)
{
	char err[512];
	struct helper_handoff h;
	if (argc < 2)
		return fail("wait", "needs PORT COUNT");
	if (helper_client_wait_inbound(c, (uint16_t)atoi(argv[0]), NULL, err, sizeof(err)) != 0)
		return fail("wait", err);
	printf("waiting\n");
	fflush(stdout);
	for (int i = 0; i < atoi(argv[1]); i++) {
		int rc = helper_client_next_handoff(c, 30000, &h, NULL, err, sizeof(err));
		if (rc != 0)
			return fail("handoff", rc > 0 ? "none within 30 s" : err);
		struct stat st;
		fstat(h.fd, &st);
		printf("handoff method=%d peer=%s:%u inode=%lu\n", h.method, h.peer_address,
		    h.peer_port, (unsigned long)st.st_ino);
		fflush(stdout);
		echo_once(h.fd);
		close(h.fd);
	}
	return 0;
}

static int
op_resolve(struct helper_client *c, int argc, char **argv)
{
	char err[512];
	struct decision d;
	struct helper_handoff h;
	if (argc < 2)
		return fail("resolve", "needs ADDRESS PORT");
	int code = 0;
	if (helper_client_resolve(c, argv[0], (uint16_t)atoi(argv[1]), argc > 2 ? atoi(argv[2]) : -1,
		&d, &code, err, sizeof(err)) != 0) {
		fprintf(stderr, "helper_local: resolve: error code %d\n", code);
		return fail("resolve", err);
	}
	printf("method=%d target=%s:%u proxies=%d handoff=%d\n", d.method, d.target.address,
	    d.target.port, (int)d.proxy_count, method_hands_off(d.method));
	fflush(stdout);
	if (!method_hands_off(d.method))
		return 0;
	if (helper_client_next_handoff(c, 30000, &h, NULL, err, sizeof(err)) != 0)
		return fail("handoff", err);
	char buf[256];
	if (write(h.fd, "ping\n", 5) != 5)
		return fail("handoff", "write failed");
	ssize_t n = read(h.fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("handoff peer=%s:%u got=%s", h.peer_address, h.peer_port, buf);
	close(h.fd);
	return 0;
}

static long long
usec_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Connect the way the decision says; returns a connected fd or -1. */
static int
connect_by_decision(struct helper_client *c, const struct decision *d, char *err,
    size_t errlen)
{
	struct helper_handoff h;
	if (method_hands_off(d->method)) {
		if (helper_client_next_handoff(c, 30000, &h, NULL, err, errlen) != 0)
			return -1;
		return h.fd;
	}
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(d->target.port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || inet_pton(AF_INET, d->target.address, &sin.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0) {
		snprintf(err, errlen, "connect to %s:%u failed", d->target.address, d->target.port);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
op_connect(struct helper_client *c, int argc, char **argv)
{
	char err[512], buf[64];
	struct decision d;
	if (argc < 2)
		return fail("connect", "needs ADDRESS PORT");
	long long start = usec_now();
	uint16_t port = (uint16_t)atoi(argv[1]);
	if (helper_client_resolve(c, argv[0], port, -1, &d, NULL, err, sizeof(err)) != 0)
		return fail("resolve", err);
	int fd = connect_by_decision(c, &d, err, sizeof(err));
	int ok = fd >= 0 && write(fd, "ping\n", 5) == 5 && read(fd, buf, sizeof(buf)) > 0;
	if (fd >= 0)
		close(fd);
	if (helper_client_report(c, d.method, argv[0], port, ok,
		(uint64_t)(usec_now() - start), NULL, err, sizeof(err)) != 0)
		return fail("report", err);
	printf("reported method=%d %s\n", d.method, ok ? "ok" : "failed");
	return ok ? 0 : 1;
}

static int
op_raw(struct helper_client *c, int argc, char **argv)
{
	char err[512];
	uint8_t bytes[4096];
	size_t n = 0;
	struct helper_msg m;
	int fd;
	if (argc < 1)
		return fail("raw-after-hello", "needs HEX");
	for (const char *p = argv[0]; p[0] && p[1] && n < sizeof(bytes); p += 2) {
		unsigned v;
		sscanf(p, "%2x", &v);
		bytes[n++] = (uint8_t)v;
	}
	if (write(c->fd, bytes, n) != (ssize_t)n)
		return fail("raw", "write failed");
	if (helper_wire_read(c->fd, &c->reader, &m, &fd, 15000, 15000, err, sizeof(err)) != 0)
		return fail("raw", err);
	printf("%s %s\n", helper_msg_type_name(m.type), m.message);
	return 0;
}

static int
op_resume(struct helper_client *c, int argc, char **argv)
{
	char err[512];
	uint8_t id[QCG_RELAY_ID_BYTES];
	struct decision d;
	if (argc < 1 || strlen(argv[0]) != 2 * QCG_RELAY_ID_BYTES)
		return fail("resume", "needs a RELAY-ID of 32 hex digits");
	for (size_t i = 0; i < QCG_RELAY_ID_BYTES; i++) {
		unsigned v;
		if (sscanf(argv[0] + 2 * i, "%2x", &v) != 1)
			return fail("resume", "RELAY-ID is not hex");
		id[i] = (uint8_t)v;
	}
	if (helper_client_resume(c, id, &d, NULL, err, sizeof(err)) != 0)
		return fail("resume", err);
	printf("method=%d proxy=%s\n", d.method, d.proxy_count ? d.proxy[0].endpoint : "-");
	return 0;
}

int
main(int argc, char **argv)
{
	struct helper_client c;
	char err[512];
	if (argc < 5) {
		fprintf(stderr, "usage: helper_local SOCKET JOB TOKEN OP ARGS...\n");
		return 2;
	}
	if (helper_client_open(&c, argv[1], argv[2], argv[3], err, sizeof(err)) != 0)
		return fail("hello", err);
	const char *op = argv[4];
	int n = argc - 5, rc;
	char **a = argv + 5;
	if (strcmp(op, "hello") == 0) {
		printf("ok\n");
		rc = 0;
	} else if (strcmp(op, "wait") == 0) {
		rc = op_wait(&c, n, a);
	} else if (strcmp(op, "register") == 0) {
		rc = n < 2 ? fail("register", "needs ADDRESS PORT") :
		    helper_client_register(&c, a[0], (uint16_t)atoi(a[1]), NULL, NULL, err,
			sizeof(err)) != 0 ? fail("register", err) : (printf("ok\n"), 0);
	} else if (strcmp(op, "resolve") == 0) {
		rc = op_resolve(&c, n, a);
	} else if (strcmp(op, "report") == 0) {
		rc = n < 5 ? fail("report", "needs METHOD ADDRESS PORT ok|failed USEC") :
		    helper_client_report(&c, atoi(a[0]), a[1], (uint16_t)atoi(a[2]),
			strcmp(a[3], "ok") == 0, strtoull(a[4], NULL, 10), NULL, err,
			sizeof(err)) != 0 ? fail("report", err) : (printf("ok\n"), 0);
	} else if (strcmp(op, "connect") == 0) {
		rc = op_connect(&c, n, a);
	} else if (strcmp(op, "raw-after-hello") == 0) {
		rc = op_raw(&c, n, a);
	} else if (strcmp(op, "resume") == 0) {
		rc = op_resume(&c, n, a);
	} else {
		rc = fail(op, "unknown operation");
	}
	helper_client_close(&c);
	return rc;
}
