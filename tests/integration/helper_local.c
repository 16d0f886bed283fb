/*
 * helper_local.c: a test program that plays an MPI process on qcg-helper's local API, through
 * the same client library libqcgnet uses (services/helper/helper_client.h):
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
 *     raw-after-hello HEX        HELLO, then send raw bytes and print the helper's answer
 *
 * Exit 0, or 1 with the helper's refusal on stderr.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
		if (helper_client_next_handoff(c, 30000, &h, NULL, err, sizeof(err)) != 0)
			return fail("handoff", err);
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
	struct helper_decision d;
	struct helper_handoff h;
	if (argc < 2)
		return fail("resolve", "needs ADDRESS PORT");
	if (helper_client_resolve(c, argv[0], (uint16_t)atoi(argv[1]), argc > 2 ? atoi(argv[2]) : -1,
		&d, NULL, err, sizeof(err)) != 0)
		return fail("resolve", err);
	printf("method=%d target=%s:%u proxies=%d handoff=%d\n", d.method, d.target_address,
	    d.target_port, d.proxy_count, d.handoff_follows);
	fflush(stdout);
	if (!d.handoff_follows)
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
	} else if (strcmp(op, "raw-after-hello") == 0) {
		rc = op_raw(&c, n, a);
	} else {
		rc = fail(op, "unknown operation");
	}
	helper_client_close(&c);
	return rc;
}
