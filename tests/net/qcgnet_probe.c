/*
 * qcgnet_probe.c: a plain-sockets program (no MPI, nothing of qcg linked in) that the tests run
 * under LD_PRELOAD=libqcgnet.so, so that what it sees is what Open MPI would see.
 *
 *   qcgnet_probe listen ADDR PORT COUNT MODE
 *       bind ADDR:PORT (PORT 0: any), listen, print "listening PORT" (getsockname), then COUNT
 *       times: wait for the listener to be readable (MODE block: no wait, accept blocks; poll;
 *       epoll; select), accept, print "accepted peer=A:P getpeername=A:P", read a line and
 *       answer "echo:<line>", close.
 *   qcgnet_probe connect ADDR PORT [nonblock]
 *       connect (non-blocking: O_NONBLOCK first, then poll for POLLOUT and read SO_ERROR),
 *       send "ping\n", print "connect=0|EINPROGRESS getpeername=A:P got=<reply>".
 *   qcgnet_probe connect-fail ADDR PORT
 *       connect and print "failed errno=NAME" when it fails (exit 0), "connected" (exit 1).
 *   qcgnet_probe bind-explicit ADDR PORT
 *       bind to an explicit port as Open MPI's TCP BTL does, listen, print "listening PORT".
 *   qcgnet_probe local
 *       sockets that are not the job's: a unix socketpair, UDP over loopback, and TCP on
 *       127.0.0.1 (listen, connect, accept). Prints "local ok tcp-peer=A:P" when each behaves.
 *
 * Exit 0 when everything asked for worked; 1 with the reason on stderr otherwise.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROBE_WAIT_MS 30000

static int
die(const char *what)
{
	fprintf(stderr, "qcgnet_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static const char *
addr_text(const struct sockaddr_in *a, char *buf, size_t len)
{
	char ip[INET_ADDRSTRLEN] = "?";
	inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
	return buf;
}

static int
make_addr(const char *ip, const char *port, struct sockaddr_in *out)
{
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	out->sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, ip, &out->sin_addr) == 1 ? 0 : -1;
}

/* Read one line (up to 255 bytes) into buf; -1 on EOF or error before the newline. */
static int
read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	while (n < cap - 1) {
		ssize_t r = read(fd, buf + n, 1);
		if (r <= 0)
			return -1;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return 0;
}

/* Wait until lfd is readable by MODE's mechanism. */
static int
wait_readable(int lfd, const char *mode)
{
	if (strcmp(mode, "block") == 0)
		return 0;
	if (strcmp(mode, "poll") == 0) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		return poll(&p, 1, PROBE_WAIT_MS) == 1 ? 0 : -1;
	}
	if (strcmp(mode, "select") == 0) {
		fd_set r;
		struct timeval tv = { PROBE_WAIT_MS / 1000, 0 };
		FD_ZERO(&r);
		FD_SET(lfd, &r);
		return select(lfd + 1, &r, NULL, NULL, &tv) == 1 ? 0 : -1;
	}
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd }, got;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev) != 0)
		return -1;
	int n = epoll_wait(ep, &got, 1, PROBE_WAIT_MS);
	close(ep);
	return n == 1 ? 0 : -1;
}

static int
serve_one(int lfd, const char *mode)
{
	struct sockaddr_in from, peer;
	socklen_t len = sizeof(from), plen = sizeof(peer);
	char a[64], b[64], line[256], reply[300];
	if (wait_readable(lfd, mode) != 0)
		return die("waiting for the listener to be readable");
	int fd = accept(lfd, (struct sockaddr *)&from, &len);
	if (fd < 0)
		return die("accept");
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) != 0)
		return die("getpeername");
	printf("accepted peer=%s getpeername=%s\n", addr_text(&from, a, sizeof(a)),
	    addr_text(&peer, b, sizeof(b)));
	fflush(stdout);
	if (read_line(fd, line, sizeof(line)) != 0)
		return die("reading the client's line");
	int n = snprintf(reply, sizeof(reply), "echo:%s", line);
	if (write(fd, reply, (size_t)n) != n)
		return die("write");
	close(fd);
	return 0;
}

static int
print_listening(int lfd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	if (getsockname(lfd, (struct sockaddr *)&sin, &len) != 0)
		return die("getsockname");
	printf("listening %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	return 0;
}

static int
cmd_listen(char **argv)
{
	struct sockaddr_in sin;
	if (make_addr(argv[0], argv[1], &sin) != 0)
		return die("bad address");
	int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(lfd, 16) != 0)
		return die("bind/listen");
	if (print_listening(lfd) != 0)
		return 1;
	for (int i = 0; i < atoi(argv[2]); i++)
		if (serve_one(lfd, argv[3]) != 0)
			return 1;
	close(lfd);
	return 0;
}

/* Non-blocking connect as Open MPI does it: 0 or EINPROGRESS, then POLLOUT and SO_ERROR. */
static int
connect_nonblocking(int fd, const struct sockaddr_in *to, const char **how)
{
	int err = 0;
	socklen_t len = sizeof(err);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to)) == 0) {
		*how = "0";
	} else if (errno == EINPROGRESS) {
		*how = "EINPROGRESS";
	} else {
		return -1;
	}
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, PROBE_WAIT_MS) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
		errno = err ? err : ETIMEDOUT;
		return -1;
	}
	if (!(fcntl(fd, F_GETFL) & O_NONBLOCK)) {
		errno = EINVAL;
		fprintf(stderr, "qcgnet_probe: O_NONBLOCK was lost\n");
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

static int
cmd_connect(int argc, char **argv)
{
	struct sockaddr_in to, peer;
	socklen_t plen = sizeof(peer);
	char a[64], line[256];
	const char *how = "0";
	if (make_addr(argv[0], argv[1], &to) != 0)
		return die("bad address");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int rc = argc > 2 && strcmp(argv[2], "nonblock") == 0 ?
	    connect_nonblocking(fd, &to, &how) : connect(fd, (struct sockaddr *)&to, sizeof(to));
	if (fd < 0 || rc != 0)
		return die("connect");
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) != 0)
		return die("getpeername");
	if (write(fd, "ping\n", 5) != 5 || read_line(fd, line, sizeof(line)) != 0)
		return die("exchanging ping");
	line[strcspn(line, "\n")] = '\0';
	printf("connect=%s getpeername=%s got=%s\n", how, addr_text(&peer, a, sizeof(a)), line);
	close(fd);
	return 0;
}

static int
cmd_connect_fail(char **argv)
{
	struct sockaddr_in to;
	if (make_addr(argv[0], argv[1], &to) != 0)
		return die("bad address");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) == 0) {
		printf("connected\n");
		return 1;
	}
	printf("failed errno=%s\n", errno == ECONNREFUSED ? "ECONNREFUSED" :
	    errno == ETIMEDOUT ? "ETIMEDOUT" : strerror(errno));
	return 0;
}

static int
cmd_bind_explicit(char **argv)
{
	struct sockaddr_in sin;
	if (make_addr(argv[0], argv[1], &sin) != 0)
		return die("bad address");
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(lfd, 4) != 0)
		return die("bind/listen");
	return print_listening(lfd);
}

/* Sockets that are not the job's behave exactly as without the shim. */
static int
cmd_local(void)
{
	int sv[2];
	char buf[8], a[64];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || write(sv[0], "u", 1) != 1 ||
	    read(sv[1], buf, 1) != 1)
		return die("unix socketpair");
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(lo);
	int u1 = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
	if (bind(u1, (struct sockaddr *)&lo, sizeof(lo)) != 0 ||
	    getsockname(u1, (struct sockaddr *)&lo, &len) != 0 ||
	    connect(u2, (struct sockaddr *)&lo, sizeof(lo)) != 0 || write(u2, "d", 1) != 1 ||
	    read(u1, buf, 1) != 1)
		return die("UDP over loopback");
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	lo.sin_port = 0;
	len = sizeof(lo);
	if (bind(l, (struct sockaddr *)&lo, sizeof(lo)) != 0 || listen(l, 4) != 0 ||
	    getsockname(l, (struct sockaddr *)&lo, &len) != 0 ||
	    connect(c, (struct sockaddr *)&lo, sizeof(lo)) != 0)
		return die("TCP on 127.0.0.1");
	struct sockaddr_in from, mine;
	socklen_t flen = sizeof(from), mlen = sizeof(mine);
	int s = accept(l, (struct sockaddr *)&from, &flen);
	if (s < 0 || getsockname(c, (struct sockaddr *)&mine, &mlen) != 0 ||
	    from.sin_port != mine.sin_port)
		return die("accept on 127.0.0.1 (the peer must be the real client)");
	printf("local ok tcp-peer=%s\n", addr_text(&from, a, sizeof(a)));
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 6 && strcmp(argv[1], "listen") == 0)
		return cmd_listen(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "connect") == 0)
		return cmd_connect(argc - 2, argv + 2);
	if (argc >= 4 && strcmp(argv[1], "connect-fail") == 0)
		return cmd_connect_fail(argv + 2);
	if (argc >= 4 && strcmp(argv[1], "bind-explicit") == 0)
		return cmd_bind_explicit(argv + 2);
	if (argc >= 2 && strcmp(argv[1], "local") == 0)
		return cmd_local();
	fprintf(stderr, "usage: qcgnet_probe listen ADDR PORT COUNT block|poll|epoll|select | "
			"connect ADDR PORT [nonblock] | connect-fail ADDR PORT | "
			"bind-explicit ADDR PORT | local\n");
	return 2;
}
