/*
 * qcgnet_connect.c: connect() towards a job peer. The helper resolves the target (helper ->
 * front-end -> broker); the method the broker chose is carried out (qcgnet_method.c); its
 * outcome is reported; a failed method is followed by a RESOLVE with after = that method, up
 * to QN_METHOD_TRIES rounds. The set-up socket then becomes the application's descriptor.
 *
 * What counts as a job peer: an IPv4 stream socket connecting to an address that is not
 * loopback (QCG_NET_LOOPBACK=1 lifts that for tests on one machine), and that the broker knows
 * as an access point of the job. "Not found" means not a job peer: the plain connect() runs,
 * as it would without the shim; so does any connect() when the helper cannot be reached or the
 * first RESOLVE fails remotely (degraded, said once per call on stderr).
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
#include <string.h>

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

/*
 * The method loop, with the control connection locked (a hand-off comes on it). Returns the
 * connected socket, -2 when the plain connect() should run instead, or -1 (errno set).
 */
static int
method_loop(struct helper_client *c, int fd, const char *to, uint16_t port, int *method)
{
	struct helper_decision d;
	char err[512];
	int code, after = -1;
	for (int round = 0; round < QN_METHOD_TRIES; round++) {
		long t0 = qn_now_us();
		if (helper_client_resolve(c, to, port, after, &d, &code, err, sizeof(err)) != 0) {
			if (code == 0)
				qn_ctl_drop(); /* no answer: the connection is unusable now */
			if (after < 0 && code != HELPER_ERR_NO_METHOD) {
				if (code != HELPER_ERR_NOT_FOUND)
					qn_log("connect to %s:%u: %s; plain connect", to, port, err);
				return -2;
			}
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
