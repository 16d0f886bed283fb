/*
 * helper_net.c: rendezvous listener, connect-with-hello and simultaneous open (helper_net.h).
 */
#define _GNU_SOURCE /* accept4 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper_net.h"
#include "monotonic_ms.h"
#include "net_socket.h"
#include "relay_hello.h"

#define RETRY_PAUSE_MS 50 /* between traversal attempts */

int
helper_net_split_endpoint(const char *endpoint, char host[QCG_ADDR_MAX], uint16_t *port,
    char *err, size_t errlen)
{
	const char *colon = strrchr(endpoint, ':');
	char *end;
	long p = colon ? strtol(colon + 1, &end, 10) : -1;
	if (colon == NULL || colon == endpoint || *end != '\0' || colon[1] == '\0' || p <= 0 ||
	    p > 65535 || (size_t)(colon - endpoint) >= QCG_ADDR_MAX) {
		snprintf(err, errlen, "endpoint '%.80s' is not host:port", endpoint);
		return -1;
	}
	memcpy(host, endpoint, (size_t)(colon - endpoint));
	host[colon - endpoint] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* An IPv4 address for host (a numeric address or a name). */
static int
resolve4(const char *host, uint16_t port, struct sockaddr_in *out, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
	int rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	memcpy(out, res->ai_addr, sizeof(*out));
	out->sin_port = htons(port);
	freeaddrinfo(res);
	return 0;
}

static int
reusable_socket(char *err, size_t errlen)
{
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	return fd;
}

int
helper_net_listen(const char *address, uint16_t port, uint16_t *bound, char *err, size_t errlen)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	if (resolve4(address, port, &sin, err, errlen) != 0)
		return -1;
	int fd = reusable_socket(err, errlen);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		snprintf(err, errlen, "rendezvous listener on %s:%u: %s", address, port,
		    strerror(errno));
		close(fd);
		return -1;
	}
	*bound = ntohs(sin.sin_port);
	return fd;
}

int
helper_net_listen_range(const char *address, uint16_t min, uint16_t max, uint16_t *bound,
    char *err, size_t errlen)
{
	struct sockaddr_in sin;
	int one = 1;
	if (min == 0)
		return helper_net_listen(address, 0, bound, err, errlen);
	if (resolve4(address, min, &sin, err, errlen) != 0)
		return -1;
	for (unsigned p = min; p <= max; p++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			snprintf(err, errlen, "socket: %s", strerror(errno));
			return -1;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sin.sin_port = htons((uint16_t)p);
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 && listen(fd, 8) == 0) {
			*bound = (uint16_t)p;
			return fd;
		}
		int saved = errno;
		close(fd);
		if (saved != EADDRINUSE) {
			snprintf(err, errlen, "rendezvous listener on %s:%u: %s", address, p,
			    strerror(saved));
			return -1;
		}
	}
	snprintf(err, errlen, "rendezvous listener on %s: no free port in %u-%u "
	    "(helper.rendezvous_ports)", address, min, max);
	return -1;
}

/* Read exactly n bytes before the deadline. */
static int
read_full(int fd, uint8_t *buf, size_t n, long deadline)
{
	size_t got = 0;
	while (got < n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (poll(&pfd, 1, monotonic_left_ms(deadline)) <= 0)
			return -1;
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int
hello_matches(int fd, const uint8_t id[QCG_RELAY_ID_BYTES], long deadline)
{
	uint8_t buf[RELAY_HELLO_SIZE];
	struct relay_hello hello;
	if (read_full(fd, buf, sizeof(buf), deadline) != 0)
		return 0;
	return relay_hello_parse(buf, sizeof(buf), &hello) == RELAY_HELLO_OK &&
	    memcmp(hello.id.bytes, id, QCG_RELAY_ID_BYTES) == 0;
}

static int
send_hello(int fd, const uint8_t id[QCG_RELAY_ID_BYTES], uint8_t flags)
{
	uint8_t buf[RELAY_HELLO_SIZE];
	struct relay_id rid;
	memcpy(rid.bytes, id, sizeof(rid.bytes));
	relay_hello_encode(buf, &rid, flags);
	return send(fd, buf, sizeof(buf), MSG_NOSIGNAL) == (ssize_t)sizeof(buf) ? 0 : -1;
}

int
helper_net_accept_hello(int lfd, const uint8_t id[QCG_RELAY_ID_BYTES], int timeout_ms, char *err,
    size_t errlen)
{
	long deadline = monotonic_ms() + timeout_ms;
	int strangers = 0;
	for (;;) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		int rc = poll(&pfd, 1, monotonic_left_ms(deadline));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			break;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (hello_matches(fd, id, deadline)) {
			net_set_nodelay(fd);
			return fd;
		}
		close(fd); /* not ours: a scanner, a late duplicate, another id */
		strangers++;
	}
	snprintf(err, errlen, "the target side did not connect with the right id within %d ms "
		 "(%d other connections refused)", timeout_ms, strangers);
	return -1;
}

/* Connect fd to sin before the deadline; TCP_NODELAY on once connected (hellos are small). */
static int
connect_by(int fd, const struct sockaddr_in *sin, long deadline)
{
	if (net_connect_timed(fd, (const struct sockaddr *)sin, sizeof(*sin),
	    monotonic_left_ms(deadline), NULL) != 0)
		return -1;
	net_set_nodelay(fd);
	return 0;
}

int
helper_net_connect_hello(const char *host, uint16_t port, const uint8_t id[QCG_RELAY_ID_BYTES],
    uint8_t hello_flags, int timeout_ms, char *err, size_t errlen)
{
	struct sockaddr_in sin;
	if (resolve4(host, port, &sin, err, errlen) != 0)
		return -1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect_by(fd, &sin, monotonic_ms() + timeout_ms) != 0 ||
	    send_hello(fd, id, hello_flags) != 0) {
		snprintf(err, errlen, "connect to %s:%u: %s", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * A simultaneous open leaves a false round-trip sample behind: each side's SYN is answered as a
 * SYN-ACK when the peer's SYN arrives, and the kernel times the ACK of that SYN-ACK from when it
 * was sent, although the peer's SYN-ACK answers the first SYN. The two sides' samples add up to
 * one real round trip (measured on the testbed: 1.9 + 8.3 ms over a 10.2 ms path). BBR takes
 * the kernel's minimum RTT (a 5-minute window) as its path delay and caps what is in flight at
 * about twice bandwidth x that delay: traversal ran at 0.2-0.4x direct (bench/net). CUBIC keeps
 * its own delay minimum from samples taken after the handshake, so the socket changes to it.
 * Only BBR is replaced: another algorithm an administrator chose is left alone. Best effort.
 */
static void
avoid_bbr(int fd)
{
	char cc[16] = "";
	socklen_t len = sizeof(cc);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &len) == 0 &&
	    strncmp(cc, "bbr", sizeof(cc)) == 0)
		setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "cubic", sizeof("cubic") - 1);
}

/* One attempt of the simultaneous open; the socket on success, -1 to retry. */
static int
simultaneous_attempt(const struct sockaddr_in *local, const struct sockaddr_in *remote,
    long deadline, char *err, size_t errlen)
{
	int fd = reusable_socket(err, errlen);
	if (fd < 0)
		return -1;
	char text[INET_ADDRSTRLEN];
	if (bind(fd, (const struct sockaddr *)local, sizeof(*local)) != 0) {
		inet_ntop(AF_INET, &local->sin_addr, text, sizeof(text));
		snprintf(err, errlen, "bind %s:%u: %s", text, ntohs(local->sin_port),
		    strerror(errno));
		close(fd);
		return -1;
	}
	/* A SYN lost to a not-yet-open NAT is resent. */
	long attempt_deadline = monotonic_ms() + 500;
	if (attempt_deadline > deadline)
		attempt_deadline = deadline;
	if (connect_by(fd, remote, attempt_deadline) == 0) {
		avoid_bbr(fd);
		return fd;
	}
	inet_ntop(AF_INET, &remote->sin_addr, text, sizeof(text));
	snprintf(err, errlen, "connect to %s:%u: %s", text, ntohs(remote->sin_port),
	    strerror(errno));
	close(fd);
	return -1;
}

int
helper_net_simultaneous_open(const char *local_address, const char *remote_host, uint16_t port,
    const uint8_t id[QCG_RELAY_ID_BYTES], int timeout_ms, char *err, size_t errlen)
{
	struct sockaddr_in local, remote;
	long deadline = monotonic_ms() + timeout_ms;
	int attempts = 0;
	if (resolve4(local_address, port, &local, err, errlen) != 0 ||
	    resolve4(remote_host, port, &remote, err, errlen) != 0)
		return -1;
	while (monotonic_ms() < deadline) {
		attempts++;
		int fd = simultaneous_attempt(&local, &remote, deadline, err, errlen);
		if (fd >= 0) {
			if (send_hello(fd, id, 0) == 0 && hello_matches(fd, id, deadline))
				return fd;
			snprintf(err, errlen, "traversal to %s:%u connected but the peer's hello did not "
				 "carry our id", remote_host, port);
			close(fd);
			return -1;
		}
		struct timespec pause = { 0, RETRY_PAUSE_MS * 1000000L };
		nanosleep(&pause, NULL);
	}
	size_t n = strlen(err);
	snprintf(err + n, errlen - n, " (traversal gave up after %d attempts in %d ms)", attempts,
	    timeout_ms);
	return -1;
}
