/*
 * test_proxy_util.h: what the qcg-proxy integration tests share: starting a real qcg-proxy on
 * loopback (the built binary, under $top_builddir), talking to its control socket, and legs.
 *
 * A started proxy dies with the test (PR_SET_PDEATHSIG), so a test killed by its watchdog
 * (alarm) leaves no process behind; tp_proxy_stop also removes its temporary directory.
 */
#ifndef QCG_TEST_PROXY_UTIL_H
#define QCG_TEST_PROXY_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "relay_hello.h"

/* How long a test waits for a state that must come (a statistic, a close): generous, since it
 * costs time only when the test fails, and a loaded machine may take seconds. */
#define TP_STATE_WAIT_MS 30000

struct tp_proxy {
	pid_t pid;
	char dir[32];       /* temporary directory: control socket, ready file, log */
	char host[128];
	uint16_t port;
	char control[64];   /* control socket path */
	char log[64];       /* the proxy's stderr */
};

/* Start qcg-proxy on 127.0.0.1:<free port> with 2 threads and the given extra arguments
 * (NULL-terminated). Exits 77 (skip) if the binary is missing, 1 if it does not come up. */
void tp_proxy_start(struct tp_proxy *p, const char *const *extra_args);

/* SIGTERM, wait (SIGKILL after 5 s), print its log on failure, remove its directory.
 * Returns 0 when it exited 0. */
int tp_proxy_stop(struct tp_proxy *p, bool print_log);

/* Send one control line, return the reply line (without newline) in a static buffer. */
const char *tp_control(struct tp_proxy *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One statistics counter by name (relay_stats_format's names); -1 if absent. */
long long tp_stat(struct tp_proxy *p, const char *name);

/* Poll the counter until it equals want or timeout_ms pass; returns its last value. */
long long tp_wait_stat(struct tp_proxy *p, const char *name, long long want, int timeout_ms);

/* A fresh random relay id. */
void tp_random_id(struct relay_id *id);

/* Announce id on proxy p for ttl_s; exits 1 if the proxy says anything but "ok". */
void tp_expect(struct tp_proxy *p, const struct relay_id *id, unsigned ttl_s);

/* Connect a blocking TCP socket to host:port, whose reads and writes fail after 10 s without
 * progress; -1 on failure. */
int tp_connect(const char *host, uint16_t port);

/* Connect to the proxy and send the hello for id; returns the socket (exits 1 on failure). */
int tp_leg(struct tp_proxy *p, const struct relay_id *id);
/* The same with hello flags (RELAY_HELLO_FLAG_*), as a resumable stream's leg sends them. */
int tp_leg_flags(struct tp_proxy *p, const struct relay_id *id, uint8_t flags);

/* Write or read exactly len bytes on a blocking socket (a write waits for room on a
 * non-blocking one too); 0, or -1 (read: EOF counts as -1). */
int tp_write_all(int fd, const void *buf, size_t len);
int tp_read_all(int fd, void *buf, size_t len);

/* Wait until the peer closes fd (EOF or reset). Returns the milliseconds it took, or -1 when
 * still open after timeout_ms. Payload bytes read meanwhile are counted in *extra if given. */
long tp_wait_closed(int fd, int timeout_ms, size_t *extra);

/* Milliseconds on CLOCK_MONOTONIC. */
long long tp_now_ms(void);

/* Raise RLIMIT_NOFILE to at least want (up to the hard limit; as root beyond it). Returns the
 * new soft limit. */
long tp_raise_nofile(long want);

#endif
