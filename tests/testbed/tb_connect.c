/*
 * tb_connect.c: the initiator's side of one connection between two processes of a job, made the
 * way libqcgnet's connect() will make it, through the real helper of the node it runs on
 * (proto/helper_client.h). The testbed tests and examples/demo-grid.sh run it on one
 * node while tests/integration/helper_local waits on another; unlike helper_local's `connect`,
 * it also takes relay legs itself (the helper hands nothing over for a relay: the process
 * connects to the proxy and sends the relay hello).
 *
 *   tb_connect SOCKET JOB TOKEN ADDRESS PORT
 *
 * HELLO and RESOLVE ADDRESS:PORT on the helper at SOCKET, then by the broker's decision:
 *   reversal, traversal    take the socket the helper hands over;
 *   relay, relay chain     connect to the first proxy and send the 24-byte relay hello;
 *   direct, port range     connect to the target's address.
 * Then send "ping\n", expect a reply line (helper_local `wait` answers "echo:ping"), and REPORT
 * the outcome with its set-up time. Prints
 *   method=NAME via=PROXY|- setup_us=N got=REPLY
 *   reported ok|failed
 * and exits 0 when the reply came, 1 when the connection failed, 2 on bad usage.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "helper_client.h"
#include "model.h"

#define TB_IO_TIMEOUT_S 10   /* connect, send and receive on the data socket */
#define TB_HANDOFF_WAIT_MS 30000 /* a reversal/traversal set-up the helper carries out */
#define TB_REPLY_MAX 256

static long long
usec_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Bound every blocking call on fd (Linux applies SO_SNDTIMEO to connect() too). */
static void
set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = TB_IO_TIMEOUT_S };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A TCP connection to host:port (numeric port), or -1 with err. */
static int
connect_to(const char *host, const char *port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "%s:%s: %s", host, port, gai_strerror(rc));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM, 0);
	if (fd >= 0) {
		set_timeouts(fd);
		if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(err, errlen, "connect to %s:%s failed", host, port);
	return fd;
}

/* Connect to a proxy endpoint "HOST:PORT" or "[V6]:PORT" and send the relay hello. */
static int
relay_leg(const char *endpoint, const uint8_t relay_id[QCG_RELAY_ID_BYTES], char *err,
    size_t errlen)
{
	char host[QCG_ENDPOINT_MAX];
	const char *colon = strrchr(endpoint, ':');
	if (colon == NULL || colon == endpoint || (size_t)(colon - endpoint) >= sizeof(host)) {
		snprintf(err, errlen, "proxy endpoint '%.80s' is not HOST:PORT", endpoint);
		return -1;
	}
	const char *h = endpoint[0] == '[' ? endpoint + 1 : endpoint;
	size_t len = (size_t)(colon - h) - (endpoint[0] == '[' && colon[-1] == ']' ? 1 : 0);
	memcpy(host, h, len);
	host[len] = '\0';
	int fd = connect_to(host, colon + 1, err, errlen);
	uint8_t hello[24];
	helper_client_relay_hello(hello, relay_id);
	if (fd >= 0 && write(fd, hello, sizeof(hello)) != (ssize_t)sizeof(hello)) {
		snprintf(err, errlen, "sending the relay hello to %s failed", endpoint);
		close(fd);
		return -1;
	}
	return fd;
}

/* The data socket the decision leads to, or -1 with err. */
static int
connect_by_decision(struct helper_client *c, const struct decision *d, char *err,
    size_t errlen)
{
	struct helper_handoff h;
	char port[8];
	if (method_hands_off(d->method)) {
		int rc = helper_client_next_handoff(c, TB_HANDOFF_WAIT_MS, &h, NULL, err, errlen);
		if (rc == 1)
			snprintf(err, errlen, "no hand-off within %d ms", TB_HANDOFF_WAIT_MS);
		if (rc != 0)
			return -1;
		set_timeouts(h.fd);
		return h.fd;
	}
	if (d->proxy_count > 0)
		return relay_leg(d->proxy[0].endpoint, d->relay_id.bytes, err, errlen);
	snprintf(port, sizeof(port), "%u", d->target.port);
	return connect_to(d->target.address, port, err, errlen);
}

/* Send "ping\n" and read one reply line into reply; 0 when a reply came. */
static int
ping(int fd, char reply[TB_REPLY_MAX])
{
	size_t n = 0;
	reply[0] = '\0';
	if (write(fd, "ping\n", 5) != 5)
		return -1;
	while (n < TB_REPLY_MAX - 1 && read(fd, reply + n, 1) == 1 && reply[n] != '\n')
		n++;
	reply[n] = '\0';
	return n > 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct helper_client c;
	struct decision d;
	char err[512], reply[TB_REPLY_MAX];
	if (argc != 6) {
		fprintf(stderr, "usage: tb_connect SOCKET JOB TOKEN ADDRESS PORT\n");
		return 2;
	}
	char *end;
	long port = strtol(argv[5], &end, 10);
	if (*end != '\0' || port < 1 || port > 65535) {
		fprintf(stderr, "tb_connect: PORT must be 1-65535, got '%s'\n", argv[5]);
		return 2;
	}
	if (helper_client_open(&c, argv[1], argv[2], argv[3], err, sizeof(err)) != 0) {
		fprintf(stderr, "tb_connect: hello: %s\n", err);
		return 1;
	}
	long long start = usec_now();
	if (helper_client_resolve(&c, argv[4], (uint16_t)port, -1, &d, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "tb_connect: resolve %s:%ld: %s\n", argv[4], port, err);
		helper_client_close(&c);
		return 1;
	}
	int fd = connect_by_decision(&c, &d, err, sizeof(err));
	int ok = fd >= 0 && ping(fd, reply) == 0;
	long long setup = usec_now() - start;
	if (fd >= 0)
		close(fd);
	printf("method=%s via=%s setup_us=%lld got=%s\n",
	    connect_method_name((enum connect_method)d.method), d.proxy_count > 0 ? d.proxy[0].endpoint : "-",
	    setup, ok ? reply : "");
	if (fd < 0)
		fprintf(stderr, "tb_connect: %s\n", err);
	if (helper_client_report(&c, d.method, argv[4], (uint16_t)port, ok, (uint64_t)setup, NULL,
		err, sizeof(err)) != 0) {
		fprintf(stderr, "tb_connect: report: %s\n", err);
		ok = 0;
	} else
		printf("reported %s\n", ok ? "ok" : "failed");
	helper_client_close(&c);
	return ok ? 0 : 1;
}
