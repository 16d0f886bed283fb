/*
 * resume_probe.c: a plain-sockets program for the relay failover test (issue 14), run under
 * LD_PRELOAD=libqcgnet.so. It knows nothing of relays: the library must keep its byte stream
 * whole while the proxies under it die.
 *
 *   resume_probe listen ADDRESS BYTES SEED GATE-PREFIX PARTS
 *       listen on ADDRESS (any port; prints "listening PORT"), accept one connection, read
 *       BYTES bytes and compare each with the generator's stream for SEED; then answer
 *       "ok BYTES" and print "received BYTES". After part i of PARTS equal parts (but the
 *       last) it prints "paused i" and reads nothing until the file GATE-PREFIX.i exists (at
 *       most 10 minutes): the sender's bytes pile up in the relay, so that a proxy killed
 *       then takes bytes in flight with it. A wrong byte prints "mismatch at OFFSET" and a
 *       short stream "short at OFFSET: REASON"; both exit 1.
 *   resume_probe send ADDRESS PORT BYTES SEED PARTS
 *       connect, and send the generator's BYTES bytes, printing "part i" after each of PARTS
 *       equal parts; then read the answer and print it, and how long the end of the stream
 *       took to come after it ("eof after MS ms": the receiver closes and exits).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256u << 10)
#define GATE_WAIT_S 600

/* The byte stream for a seed: xorshift64*, 8 bytes per step. */
struct gen {
	uint64_t x;
	uint8_t buf[8];
	unsigned used;
};

static void
gen_init(struct gen *g, uint64_t seed)
{
	g->x = seed * 2654435761u + 88172645463325252ull;
	g->used = 8;
}

static uint8_t
gen_byte(struct gen *g)
{
	if (g->used == 8) {
		g->x ^= g->x >> 12;
		g->x ^= g->x << 25;
		g->x ^= g->x >> 27;
		uint64_t v = g->x * 2685821657736338717ull;
		memcpy(g->buf, &v, 8);
		g->used = 0;
	}
	return g->buf[g->used++];
}

static int
die(const char *what)
{
	fprintf(stderr, "resume_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static int
make_addr(const char *host, const char *port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

static int gate(const char *path);

static int
cmd_listen(const char *addr, uint64_t bytes, uint64_t seed, const char *gates, unsigned parts)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	if (make_addr(addr, "0", &sin) != 0)
		return die("bad address");
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(lfd, 4) != 0 || getsockname(lfd, (struct sockaddr *)&sin, &len) != 0)
		return die("bind/listen");
	printf("listening %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	int fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return die("accept");
	static uint8_t buf[CHUNK];
	struct gen g;
	gen_init(&g, seed);
	uint64_t got = 0;
	unsigned part = 1;
	while (got < bytes) {
		uint64_t end = part >= parts ? bytes : bytes / parts * part;
		if (got == end && part < parts) {
			char path[4096];
			snprintf(path, sizeof(path), "%s.%u", gates, part);
			printf("paused %u\n", part);
			if (gate(path) != 0)
				return die(path);
			part++;
			continue;
		}
		size_t want = end - got < sizeof(buf) ? (size_t)(end - got) : sizeof(buf);
		ssize_t n = read(fd, buf, want);
		if (n <= 0) {
			printf("short at %llu: %s\n", (unsigned long long)got,
			    n == 0 ? "end of stream" : strerror(errno));
			return 1;
		}
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != gen_byte(&g)) {
				printf("mismatch at %llu\n", (unsigned long long)(got + (uint64_t)i));
				return 1;
			}
		got += (uint64_t)n;
	}
	char line[64];
	int l = snprintf(line, sizeof(line), "ok %llu\n", (unsigned long long)got);
	if (write(fd, line, (size_t)l) != l)
		return die("answer");
	printf("received %llu\n", (unsigned long long)got);
	close(fd);
	return 0;
}

/* Wait for the file path to exist, bounded. */
static int
gate(const char *path)
{
	struct stat st;
	struct timespec t = { 0, 50 * 1000000L };
	for (int i = 0; i < GATE_WAIT_S * 20; i++) {
		if (stat(path, &st) == 0)
			return 0;
		nanosleep(&t, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}

static int
cmd_send(const char *addr, const char *port, uint64_t bytes, uint64_t seed, unsigned parts)
{
	struct sockaddr_in to;
	if (make_addr(addr, port, &to) != 0)
		return die("bad address");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) != 0)
		return die("connect");
	static uint8_t buf[CHUNK];
	struct gen g;
	gen_init(&g, seed);
	uint64_t sent = 0;
	for (unsigned part = 1; part <= parts; part++) {
		uint64_t end = part == parts ? bytes : bytes / parts * part;
		while (sent < end) {
			size_t n = end - sent < sizeof(buf) ? (size_t)(end - sent) : sizeof(buf);
			for (size_t i = 0; i < n; i++)
				buf[i] = gen_byte(&g);
			for (size_t off = 0; off < n;) {
				ssize_t w = write(fd, buf + off, n - off);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					return die("write");
				off += (size_t)w;
			}
			sent += n;
		}
		printf("part %u\n", part);
	}
	char line[64] = "";
	size_t have = 0;
	while (have < sizeof(line) - 1 && (have == 0 || line[have - 1] != '\n')) {
		ssize_t n = read(fd, line + have, sizeof(line) - 1 - have);
		if (n <= 0)
			return die("reading the answer");
		have += (size_t)n;
	}
	line[have] = '\0';
	printf("answer %s", line);
	/* The receiver closes and exits: its end must look like an end, not a broken leg that
	 * the library would try to resume for resume_timeout. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (read(fd, line, sizeof(line)) > 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("eof after %ld ms\n", (long)((t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000));
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 7 && strcmp(argv[1], "listen") == 0 && atoi(argv[6]) >= 1)
		return cmd_listen(argv[2], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
		    argv[5], (unsigned)atoi(argv[6]));
	if (argc == 7 && strcmp(argv[1], "send") == 0 && atoi(argv[6]) >= 1)
		return cmd_send(argv[2], argv[3], strtoull(argv[4], NULL, 10),
		    strtoull(argv[5], NULL, 10), (unsigned)atoi(argv[6]));
	fprintf(stderr, "usage: resume_probe listen ADDRESS BYTES SEED GATE-PREFIX PARTS | send "
	    "ADDRESS PORT BYTES SEED PARTS\n");
	return 2;
}
