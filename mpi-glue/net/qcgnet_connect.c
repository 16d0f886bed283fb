/*
 * qcgnet_connect.c: connect() towards a job peer. The helper resolves the target (helper ->
 * front-end -> broker); the method the broker chose is carried out (qcgnet_method.c); its
 * outcome is reported; a failed method is followed by a RESOLVE with after = that method, up
 * to QN_METHOD_TRIES rounds. The set-up socket then becomes the application's descriptor.
 *
 * What counts as a job peer: an IPv4 stream socket connecting to an address that is not
 * loopback (QCG_NET_LOOPBACK=1 lifts that for tests on one machine), and that the broker knows
 * as an access point of the job. "Not found" means not a job peer: the plain connect() runs,
 * as it would without the shim; so does any connect() when the helper cannot be reached at all
 * (no agent on this host: the shim stands aside). A RESOLVE that fails on the way (the helper,
 * front-end or broker failing) is asked again, bounded; then connect() fails, naming the cause.
 *
 * Non-blocking sockets: the set-up finishes before connect() returns, and it returns 0.
 * Open MPI takes 0 as "connected" on both of its paths (btl_tcp_endpoint.c,
 * mca_btl_tcp_endpoint_start_connect: send the connect ack at once; oob_tcp_connection.c,
 * mca_oob_tcp_peer_try_connect: connected = true), and neither has added an event for the
 * socket before connect(), so replacing the socket under the descriptor (dup3) leaves no stale
 * poll/epoll registration behind. A caller that polls for POLLOUT afterwards sees the socket
 * writable at once with SO_ERROR 0. The cost is that connect() blocks for the set-up (a
 * broker round trip, longer for reversal or a relay).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "qcgnet.h"

static int
job_candidate(int fd, const struct sockaddr *addr, socklen_t len)
{
	int type = 0;
	socklen_t tlen = sizeof(type);
	if (addr == NULL || addr->sa_family != AF_INET || len < sizeof(struct sockaddr_in))
		return 0;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	uint32_t a = ntohl(sin->sin_addr.s_addr);
	if (a == INADDR_ANY || (a >> 24 == 127 && !qn_cfg.loopback) || sin->sin_port == 0)
		return 0;
	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && type == SOCK_STREAM;
}

/* After a failed method the descriptor may hold a half-failed socket; errno for the caller. */
static int
give_up(int code, const char *to, uint16_t port, const char *err)
{
	qn_log("connect to %s:%u failed: %s", to, port, err);
	errno = code == HELPER_ERR_NO_METHOD ? ECONNREFUSED : ETIMEDOUT;
	return -1;
}

/* Whether a failed RESOLVE may succeed if asked again: no answer from the helper (code 0), or
 * the front-end, broker or helper failing or busy. A refusal or "no method" is final. */
static int
resolve_transient(int code)
{
	return code == 0 || code == HELPER_ERR_REMOTE || code == HELPER_ERR_TIMEOUT ||
	    code == HELPER_ERR_LIMIT || code == HELPER_ERR_INTERNAL;
}

/* Sleep `ms` milliseconds, resuming after signals. */
static void
sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/*
 * RESOLVE with `after`, asked again while it fails transiently, for up to resolve_wait_ms from
 * the first try (backing off from 100 ms to 2 s). A plain connect() is no fallback: from a NAT
 * or firewalled site it reaches nothing, or comes from the gateway's address, which Open MPI
 * drops, and the job hung in silence until its wall time. Returns 0 with d filled, or -1 with
 * code and err saying why (for how long, when it gave up retrying).
 */
static int
resolve_bounded(struct helper_client **c, const char *to, uint16_t port, int after,
    struct decision *d, int *code, char *err, size_t errlen)
{
	long start = qn_now_us(), backoff_ms = 100;
	int tries = 0;

	for (;;) {
		tries++;
		if (*c != NULL &&
		    helper_client_resolve(*c, to, port, after, d, code, err, errlen) == 0)
			return 0;
		if (*c == NULL)
			*code = 0; /* the control connection could not be reopened: err says why */
		else if (*code == 0)
			qn_ctl_drop(); /* no answer: the connection is unusable now */
		long waited_ms = (qn_now_us() - start) / 1000;
		if (!resolve_transient(*code) || waited_ms >= qn_cfg.resolve_wait_ms) {
			if (tries > 1) {
				size_t n = strlen(err);
				snprintf(err + n, errlen - n, " (asked %d times over %ld ms)", tries,
				    waited_ms);
			}
			return -1;
		}
		if (tries == 1)
			qn_log("connect to %s:%u: %s; asking again for up to %d ms", to, port, err,
			    qn_cfg.resolve_wait_ms);
		sleep_ms(backoff_ms);
		backoff_ms = backoff_ms * 2 > 2000 ? 2000 : backoff_ms * 2;
		*c = qn_ctl_get(err, errlen);
	}
}

/*
 * The method loop, with the control connection locked (a hand-off comes on it). Returns the
 * connected socket, -2 when the plain connect() should run instead (the target is no job
 * peer), or -1 (errno set).
 */
static int
method_loop(struct helper_client *c, int fd, const char *to, uint16_t port, int *method)
{
	struct decision d;
	char err[512];
	int code, after = -1;
	for (int round = 0; round < QN_METHOD_TRIES; round++) {
		long t0 = qn_now_us();
		if (resolve_bounded(&c, to, port, after, &d, &code, err, sizeof(err)) != 0) {
			if (after < 0 && code == HELPER_ERR_NOT_FOUND)
				return -2;
			return give_up(code, to, port, err);
		}
		int s = qn_method_run(c, fd, &d, err, sizeof(err));
		long usec = qn_now_us() - t0;
		char rerr[256];
		if (helper_client_report(c, d.method, to, port, s >= 0, (uint64_t)usec, NULL, rerr,
			sizeof(rerr)) != 0)
			qn_debug("report on %s:%u not taken: %s", to, port, rerr);
		if (s >= 0) {
			qn_debug("connect to %s:%u: %s in %ld us", to, port,
			    connect_method_name(d.method), usec);
			*method = d.method;
			return s;
		}
		qn_log("connect to %s:%u: %s failed (%s); trying the next method", to, port,
		    connect_method_name(d.method), err);
		after = d.method;
	}
	return give_up(HELPER_ERR_NO_METHOD, to, port, "every method failed");
}

int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	char to[INET_ADDRSTRLEN], err[512];
	int method = -1;
	if (!qn_active || !job_candidate(fd, addr, len))
		return QN_REAL(connect)(fd, addr, len);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	uint16_t port = ntohs(sin->sin_port);
	inet_ntop(AF_INET, &sin->sin_addr, to, sizeof(to));

	qn_ctl_lock();
	struct helper_client *c = qn_ctl_get(err, sizeof(err));
	int s = c ? method_loop(c, fd, to, port, &method) : -2;
	qn_ctl_unlock();
	if (s == -2) {
		if (c == NULL)
			qn_debug("connect to %s:%u without the helper: %s", to, port, err);
		return QN_REAL(connect)(fd, addr, len);
	}
	if (s < 0)
		return -1;
	/* Direct and port range connected the application's own socket: its peer is real. */
	if (qn_fdtab_install(fd, s, s == fd ? NULL : sin) != 0)
		return -1;
	return 0;
}
