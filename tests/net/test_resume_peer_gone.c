/*
 * test_resume_peer_gone.c: a killed peer is not a broken leg (issue 14).
 *
 * Through a real qcg-proxy on loopback, two resumable streams (qcgnet_resume_stream.c) are
 * joined; one end runs in a child process that is SIGKILLed mid-stream. The proxy lives, sees
 * that leg end and marks the other leg (relay_hello.h, RELAY_PEER_GONE_MARK): the surviving
 * end must fail at once, with a log line saying its peer ended, and without asking its path
 * for another leg, although its resume_timeout is 30 s:
 *   1. the child is killed idle after a byte crossed (its socket is empty: its kernel closes
 *      with FIN), three times;
 *   1b. the same through two proxies: the child's leg on the far one, which the near one
 *      forwards to (the mark travels back as the end of the chained leg);
 *   2b. the far proxy of a chain is SIGKILLed: the near proxy lives but must give no mark (a
 *      proxy's end is not the peer's), so both ends ask for a new leg;
 *   2. the other way round: the proxy is SIGKILLed under two live ends in this process; no
 *      mark comes, so both ends ask their path for a new leg (a resume is still tried).
 * Both ends' legs ask for the mark in their hello (RELAY_HELLO_FLAG_PEER_GONE_MARK), as
 * qn_relay_leg's do. Case 1 failed in about one run of six beside `stress-ng --cpu 2` before
 * two fixes: the proxy gave no mark when epoll reported the killed leg's reset before a read
 * did (relay_session_leg_failed), and the stream read its leg in steps poll had not called for,
 * stepping over a mark that had just come (leg_readable).
 * Not covered: a peer killed under a stream in full flow (its kernel resets the leg with bytes
 * unread); and by design, when the proxy's buffer towards the surviving end is full at that
 * moment, the mark cannot be sent and that end resumes in vain until resume_timeout.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qcgnet_resume_stream.h"
#include "test_proxy_util.h"

#define RESUME_TIMEOUT_MS 30000 /* a resume tried in vain would take this long to fail */
#define FAIL_FAST_MS 5000       /* what "at once" must stay under, with load's margin */

static int failures;

/* Print the check's outcome with its figures; count a failure. */
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		int ok_ = (cond);                                                                  \
		printf("%s ", ok_ ? "ok  " : "FAIL");                                              \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		fflush(stdout);                                                                    \
		failures += !ok_;                                                                  \
	} while (0)

static atomic_int path_calls;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_log[512];

static int
no_path(void *arg, unsigned attempt, int timeout_ms, char *err, size_t errlen)
{
	(void)attempt, (void)timeout_ms;
	atomic_fetch_add(&path_calls, 1);
	if (arg != NULL)
		atomic_fetch_add((atomic_int *)arg, 1); /* this stream's own asks */
	snprintf(err, errlen, "this test gives no other proxy");
	return -1;
}

static void
keep_log(const char *line)
{
	pthread_mutex_lock(&log_lock);
	snprintf(last_log, sizeof(last_log), "%s", line);
	pthread_mutex_unlock(&log_lock);
	fprintf(stderr, "stream: %s\n", line);
}

/* A resumable stream over a leg to p that asks for the mark; asks (may be NULL) counts this
 * stream's calls for a new leg. */
static int
stream_counted(struct tp_proxy *p, const struct relay_id *id, atomic_int *asks)
{
	struct qrs_config cfg;
	uint8_t identity[QRS_IDENTITY_SIZE];
	char err[256];
	qrs_config_default(&cfg);
	cfg.resume_timeout_ms = RESUME_TIMEOUT_MS;
	cfg.log = keep_log;
	memcpy(identity, id->bytes, sizeof(identity));
	int leg = tp_leg_flags(p, id, RELAY_HELLO_FLAG_PEER_GONE_MARK); /* as qn_relay_leg's */
	int fd = qrs_start(leg, identity, &cfg, no_path, asks, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "qrs_start: %s\n", err);
		exit(1);
	}
	return fd;
}

static int
stream_on(struct tp_proxy *p, const struct relay_id *id)
{
	return stream_counted(p, id, NULL);
}

/* The child's end: write one byte, then sit idle; never read. */
static pid_t
peer_child(struct tp_proxy *p, const struct relay_id *id)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid > 0)
		return pid;
	qrs_after_fork_child(); /* the parent's streams are not the child's */
	int fd = stream_on(p, id);
	(void)tp_write_all(fd, "c", 1);
	for (;;)
		pause();
}

/* Case 1: kill the child's end after a byte crossed; the survivor must fail fast, not resume.
 * The child's leg goes to `far`, the survivor's to `near`; when they differ, near forwards the
 * relay to far (a chain: far marks near's leg, near steps over that mark, sees the end and
 * marks the survivor's leg). */
static void
killed_peer(struct tp_proxy *near, struct tp_proxy *far, const char *name)
{
	struct relay_id id;
	tp_random_id(&id);
	tp_expect(far, &id, 60);
	if (near != far) {
		char hex[RELAY_ID_HEX_LEN + 1];
		relay_id_format(id.bytes, hex);
		const char *reply = tp_control(near, "forward %s %s:%u 60", hex, far->host, far->port);
		CHECK(strcmp(reply, "ok") == 0, "%s: forward to the next proxy: %s", name, reply);
	}
	atomic_store(&path_calls, 0);
	pid_t child = peer_child(far, &id);
	int fd = stream_on(near, &id);
	char c = 0;
	CHECK(tp_read_all(fd, &c, 1) == 0 && c == 'c', "%s: a byte crossed the relay first", name);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	long ms = tp_wait_closed(fd, RESUME_TIMEOUT_MS + 10000, NULL);
	pthread_mutex_lock(&log_lock);
	char line[512];
	snprintf(line, sizeof(line), "%s", last_log);
	pthread_mutex_unlock(&log_lock);
	CHECK(ms >= 0 && ms < FAIL_FAST_MS,
	    "%s: the surviving end's connection failed %ld ms after the kill (resume_timeout %d "
	    "ms, bound %d ms)", name, ms, RESUME_TIMEOUT_MS, FAIL_FAST_MS);
	CHECK(atomic_load(&path_calls) == 0, "%s: no new leg was asked for (%d asks)", name,
	    atomic_load(&path_calls));
	CHECK(strstr(line, "the peer's end of the relay ended") != NULL,
	    "%s: the log says the peer ended: \"%s\"", name, line);
	close(fd);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	struct tp_proxy proxy;
	tp_proxy_start(&proxy, NULL);

	for (int i = 1; i <= 3; i++) {
		char name[64];
		snprintf(name, sizeof(name), "peer killed idle (FIN), run %d", i);
		killed_peer(&proxy, &proxy, name);
	}
	/* The same through two proxies (2 runs). */
	struct tp_proxy far;
	tp_proxy_start(&far, NULL);
	for (int i = 1; i <= 2; i++) {
		char name[64];
		snprintf(name, sizeof(name), "peer behind a second proxy killed idle, run %d", i);
		killed_peer(&proxy, &far, name);
	}
	/* 2b. The far proxy of a chain dies: the near one sees its leg end without a mark and
	 * must not call that the peer's end; the near stream asks for a new leg. */
	{
		struct relay_id cid;
		char hex[RELAY_ID_HEX_LEN + 1];
		tp_random_id(&cid);
		tp_expect(&far, &cid, 60);
		relay_id_format(cid.bytes, hex);
		const char *reply = tp_control(&proxy, "forward %s %s:%u 60", hex, far.host,
		    far.port);
		CHECK(strcmp(reply, "ok") == 0, "far proxy killed: forward: %s", reply);
		static atomic_int near_asks;
		int n_end = stream_counted(&proxy, &cid, &near_asks), f_end = stream_on(&far, &cid);
		uint8_t c = 'f';
		CHECK(tp_write_all(f_end, &c, 1) == 0 && tp_read_all(n_end, &c, 1) == 0 && c == 'f',
		    "far proxy killed: a byte crossed the chain first");
		kill(far.pid, SIGKILL);
		waitpid(far.pid, NULL, 0);
		far.pid = -1;
		long long t0 = tp_now_ms();
		while (atomic_load(&near_asks) < 1 && tp_now_ms() - t0 < FAIL_FAST_MS) {
			struct timespec t = { 0, 10 * 1000000L };
			nanosleep(&t, NULL);
		}
		CHECK(atomic_load(&near_asks) >= 1, "far proxy killed: the end on the living near "
		    "proxy asked for a new leg (%d asks in %lld ms)", atomic_load(&near_asks),
		    tp_now_ms() - t0);
		close(n_end);
		close(f_end);
	}
	tp_proxy_stop(&far, false);

	/* 3. The proxy dies under two live ends: no mark, so each asks for a new leg. */
	struct relay_id id;
	tp_random_id(&id);
	tp_expect(&proxy, &id, 60);
	atomic_store(&path_calls, 0);
	int a = stream_on(&proxy, &id), b = stream_on(&proxy, &id);
	uint8_t c = 'p';
	CHECK(tp_write_all(a, &c, 1) == 0 && tp_read_all(b, &c, 1) == 0 && c == 'p',
	    "proxy killed: a byte crossed the relay first");
	kill(proxy.pid, SIGKILL);
	waitpid(proxy.pid, NULL, 0);
	proxy.pid = -1;
	long long t0 = tp_now_ms();
	while (atomic_load(&path_calls) < 2 && tp_now_ms() - t0 < FAIL_FAST_MS) {
		struct timespec t = { 0, 10 * 1000000L };
		nanosleep(&t, NULL);
	}
	CHECK(atomic_load(&path_calls) >= 2,
	    "proxy killed: both ends asked their path for a new leg (%d asks in %lld ms)",
	    atomic_load(&path_calls), tp_now_ms() - t0);
	close(a);
	close(b);
	tp_proxy_stop(&proxy, false);
	return failures ? 1 : 0;
}
