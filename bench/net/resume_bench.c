/*
 * resume_bench.c: the resumable relayed stream (issue 14) against today's plain relay, side
 * by side in one run, on loopback through real qcg-proxy processes.
 *
 *   resume_bench [-1] [-b] [-e|-p] [ROUNDS]  (from the build directory: it starts
 *                                         services/proxy/qcg-proxy)
 *
 * Per round, in turn on the same proxy: the plain relay, then the resumable stream with the
 * defaults, and variants of it that trade CPU or memory for speed (KINDS below: the I/O
 * thread spinning SPIN_US before it sleeps; also larger socketpair buffers):
 *   latency    half the median 1-byte round trip of LAT_TRIPS ping-pongs;
 *   bandwidth  BW_BYTES one way in 64 KiB writes, until the reader's 1-byte answer;
 *   cost       context switches and CPU time of both ends per round trip and per MiB
 *              (getrusage; the applications and their I/O threads, not the proxy).
 * Each measurement has a pair of its own. Its far end runs in a child process, as the other
 * rank of a job does, with its own I/O thread; -1 keeps both ends in this process instead,
 * one I/O thread serving both (how runs 1-7 of bench/net/README.md were made). -e (-p): every
 * application read, at both ends and for every kind, waits in epoll (poll, Open MPI's default
 * event loop) on a non-blocking end; without either, reads block. The resumable stream's reads
 * take frames off the leg on the application's thread in all three (qcgnet_resume_recv.c),
 * which "resumable,socketpair-reads" turns off.
 * Then the failover, both ends in this process: a 1-byte ping-pong runs through the resumable stream while the proxy
 * carrying it is SIGKILLed (a fresh id already announced on a standby); "kill to first byte"
 * is the time from kill() to the first round trip that completes afterwards, i.e. until bytes
 * flow again end to end. Medians over rounds are printed with the ratios; run under
 * `flock /tmp/qcg-heavy.lock` (bench/net/README.md).
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qcgnet_resume_stream.h"
#include "test_proxy_util.h"

#define LAT_TRIPS 20000
#define BW_BYTES (512ull << 20)
#define KILLS 5
#define ROUNDS_MAX 20
#define SPIN_US 50
#define APP_SOCKBUF (1 << 20)

/* What is measured: kind 0 the plain relay, the others resumable streams so configured. */
static const struct {
	const char *name;
	int spin_us, app_sockbuf, app_read;
} KINDS[] = {
	{ "plain", 0, 0, 1 },
	{ "resumable", 0, 0, 1 },
	{ "resumable,socketpair-reads", 0, 0, 0 },
	{ "resumable+spin", SPIN_US, 0, 1 },
	{ "resumable+spin+buf", SPIN_US, APP_SOCKBUF, 1 },
};
#define NKINDS ((int)(sizeof(KINDS) / sizeof(KINDS[0])))

static struct {
	pthread_mutex_t lock;
	struct tp_proxy proxy[2];
	int active;
	struct relay_id id;
} path = { .lock = PTHREAD_MUTEX_INITIALIZER };

static long long
now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int
leg_now(void *arg, unsigned attempt, int timeout_ms, char *err, size_t errlen)
{
	(void)arg, (void)attempt, (void)timeout_ms;
	uint8_t hello[RELAY_HELLO_SIZE];
	pthread_mutex_lock(&path.lock);
	struct tp_proxy *p = &path.proxy[path.active];
	int fd = tp_connect(p->host, p->port);
	relay_hello_encode(hello, &path.id, RELAY_HELLO_FLAG_PEER_GONE_MARK); /* as qn_relay_leg */
	pthread_mutex_unlock(&path.lock);
	if (fd < 0 || tp_write_all(fd, hello, sizeof(hello)) != 0) {
		snprintf(err, errlen, "proxy: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void
announce(int on)
{
	struct relay_id id;
	tp_random_id(&id);
	tp_expect(&path.proxy[on], &id, 300);
	pthread_mutex_lock(&path.lock);
	path.id = id;
	path.active = on;
	pthread_mutex_unlock(&path.lock);
}

/* The two legs of a joined pair through the active proxy, and the id they joined by. */
static void
legs(int *la, int *lb, uint8_t identity[QRS_IDENTITY_SIZE])
{
	char err[256];
	announce(path.active);
	memcpy(identity, path.id.bytes, QRS_IDENTITY_SIZE);
	*la = leg_now(NULL, 0, 0, err, sizeof(err)), *lb = leg_now(NULL, 0, 0, err, sizeof(err));
	if (*la < 0 || *lb < 0) {
		fprintf(stderr, "legs: %s\n", err);
		exit(1);
	}
}

/* One end of a measurement: the leg itself for the plain relay, else a stream over it. */
static int
end_start(int kind, int leg, const uint8_t identity[QRS_IDENTITY_SIZE])
{
	if (kind == 0)
		return leg;
	char err[256];
	struct qrs_config cfg;
	qrs_config_default(&cfg);
	cfg.spin_us = KINDS[kind].spin_us;
	cfg.app_sockbuf = KINDS[kind].app_sockbuf;
	cfg.app_read = KINDS[kind].app_read;
	int fd = qrs_start(leg, identity, &cfg, leg_now, NULL, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "qrs_start: %s\n", err);
		exit(1);
	}
	return fd;
}

/* A joined pair, both ends in this process (the failover's). */
static void
pair(int kind, int *a, int *b)
{
	uint8_t identity[QRS_IDENTITY_SIZE];
	int la, lb;
	legs(&la, &lb, identity);
	*a = end_start(kind, la, identity);
	*b = end_start(kind, lb, identity);
}

static int
cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;
	return a < b ? -1 : a > b;
}

static double
median(long long *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return n % 2 ? (double)v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double
median_d(double *v, int n)
{
	long long tmp[ROUNDS_MAX];
	for (int i = 0; i < n; i++)
		tmp[i] = (long long)(v[i] * 1000.0);
	return median(tmp, n) / 1000.0;
}

/* -e, -p: the applications' I/O as an event loop makes it (non-blocking ends, reads after
 * epoll_wait, or after poll as Open MPI's libevent does by default); otherwise blocking
 * calls. ep_of[fd]: the end's epoll set. */
static int evloop; /* 'e' or 'p', or 0 */
static int ep_of[4096];

static void
io_setup(int fd)
{
	if (evloop == 'p' && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
		perror("poll loop set-up");
		exit(1);
	}
	if (evloop != 'e')
		return;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || fd >= (int)(sizeof(ep_of) / sizeof(ep_of[0])) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
		perror("event loop set-up");
		exit(1);
	}
	ep_of[fd] = ep;
}

static void
io_close(int fd)
{
	if (evloop == 'e' && ep_of[fd] > 0) {
		close(ep_of[fd]);
		ep_of[fd] = 0;
	}
	close(fd);
}

/* One read: what is there, after waiting for it. */
static ssize_t
io_read(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n;
		struct epoll_event ev;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (errno == EAGAIN && (evloop == 'e' ? epoll_wait(ep_of[fd], &ev, 1, -1) :
			poll(&p, 1, -1)) < 0 && errno != EINTR)
			return -1;
	}
}

static int
io_read_all(int fd, void *buf, size_t len)
{
	for (char *b = buf; len > 0;) {
		ssize_t n = io_read(fd, b, len);
		if (n <= 0)
			return -1;
		b += n, len -= (size_t)n;
	}
	return 0;
}

static int
io_write_all(int fd, const void *buf, size_t len)
{
	for (const char *b = buf; len > 0;) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			poll(&p, 1, -1);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n, len -= (size_t)n;
	}
	return 0;
}

struct echo {
	int fd;
	long trips;
};

static void *
echo_main(void *arg)
{
	struct echo *e = arg;
	char c;
	for (long i = 0; i < e->trips; i++)
		if (io_read_all(e->fd, &c, 1) != 0 || io_write_all(e->fd, &c, 1) != 0)
			break;
	return NULL;
}

/* The far end of a measurement: its work on its end, then read to the near end's close. */
struct far {
	void *(*work)(void *);
	void *arg;
	int fd;
	pid_t pid;        /* its process; 0: a thread of this one */
	pthread_t thread;
};

static void *
far_main(void *arg)
{
	struct far *f = arg;
	char buf[4096];
	f->work(f->arg);
	while (io_read(f->fd, buf, sizeof(buf)) > 0)
		;
	io_close(f->fd);
	return NULL;
}

static int one_process; /* -1: both ends here */
static int bound;       /* -b: near end on CPU 0, far end on CPU 1, as ranks bound to cores */

static void
bind_to(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("sched_setaffinity");
		exit(1);
	}
}

/*
 * A fresh pair of `kind`: returns the near end, and starts `work` on the far end, whose
 * descriptor is stored at *far_fd first (work's argument holds it). In a child process the far
 * end's stream has its own I/O thread, as the other rank's has.
 */
static int
far_start(int kind, struct far *f, int *far_fd)
{
	uint8_t identity[QRS_IDENTITY_SIZE];
	int la, lb;
	legs(&la, &lb, identity);
	if (one_process) {
		*far_fd = f->fd = end_start(kind, lb, identity);
		io_setup(f->fd);
		f->pid = 0;
		pthread_create(&f->thread, NULL, far_main, f);
		int near = end_start(kind, la, identity);
		io_setup(near);
		return near;
	}
	fflush(stdout);
	f->pid = fork();
	if (f->pid < 0) {
		perror("fork");
		exit(1);
	}
	if (f->pid == 0) {
		close(la);
		if (bound)
			bind_to(1);
		qrs_after_fork_child(); /* the parent's I/O thread is not here */
		*far_fd = f->fd = end_start(kind, lb, identity);
		io_setup(f->fd);
		far_main(f);
		qrs_flush_at_exit(2000); /* the FIN, before the leg goes with this process */
		_exit(0);
	}
	close(lb);
	int near = end_start(kind, la, identity);
	io_setup(near);
	return near;
}

/* Close the near end and wait for the far one to see it. */
static void
far_end(int near, struct far *f)
{
	io_close(near);
	if (f->pid > 0)
		waitpid(f->pid, NULL, 0);
	else
		pthread_join(f->thread, NULL);
}

/* What both ends (this process and its reaped children: the applications and their I/O
 * threads; not the proxy) spent since the last call: context switches and CPU time. On a loaded machine these vary less than time
 * does, and they count the hand-offs the resumable stream adds. */
struct cost {
	double switches; /* voluntary and involuntary */
	double cpu_us;   /* user + system */
};

static struct cost
cost_since(void)
{
	static struct rusage last;
	struct rusage now, children;
	getrusage(RUSAGE_SELF, &now);
	getrusage(RUSAGE_CHILDREN, &children); /* the far ends reaped so far */
	now.ru_nvcsw += children.ru_nvcsw, now.ru_nivcsw += children.ru_nivcsw;
	timeradd(&now.ru_utime, &children.ru_utime, &now.ru_utime);
	timeradd(&now.ru_stime, &children.ru_stime, &now.ru_stime);
	struct cost c = {
		(double)(now.ru_nvcsw - last.ru_nvcsw + now.ru_nivcsw - last.ru_nivcsw),
		(now.ru_utime.tv_sec - last.ru_utime.tv_sec + now.ru_stime.tv_sec -
		    last.ru_stime.tv_sec) * 1e6 + (now.ru_utime.tv_usec - last.ru_utime.tv_usec +
		    now.ru_stime.tv_usec - last.ru_stime.tv_usec),
	};
	last = now;
	return c;
}

static struct cost lat_cost, bw_cost; /* of the last latency_us and bandwidth_mbs */

/* Of the bytes this process's streams took from their applications since the last call, the
 * share sent on the application's own thread (qrs_app_send) rather than via the socketpair
 * and the I/O thread; -1 when none were taken. */
static double io_rounds; /* the I/O thread's rounds (this process's) since the last call */
static double read_share; /* the same for the bytes delivered: read on the application's
                           * thread (qrs_app_recv) rather than through the socketpair */
static double
direct_share_since(void)
{
	static struct qrs_totals last;
	struct qrs_totals now;
	qrs_get_totals(&now);
	double direct = (double)(now.bytes_direct - last.bytes_direct),
	    queued = (double)(now.bytes_queued - last.bytes_queued),
	    rd = (double)(now.bytes_read_direct - last.bytes_read_direct),
	    rq = (double)(now.bytes_read_queued - last.bytes_read_queued);
	io_rounds = (double)(now.io_rounds - last.io_rounds);
	last = now;
	read_share = rd + rq > 0 ? rd / (rd + rq) : -1;
	return direct + queued > 0 ? direct / (direct + queued) : -1;
}
static double lat_direct, lat_read, lat_rounds; /* of the last latency_us */

/* Half the median round trip of a fresh pair of `kind`, in microseconds. */
static double
latency_us(int kind)
{
	static long long rtt[LAT_TRIPS];
	struct echo e = { -1, LAT_TRIPS };
	struct far f = { .work = echo_main, .arg = &e };
	char c = 'x';
	cost_since();
	direct_share_since();
	int a = far_start(kind, &f, &e.fd);
	for (int i = 0; i < LAT_TRIPS; i++) {
		long long t0 = now_ns();
		if (io_write_all(a, &c, 1) != 0 || io_read_all(a, &c, 1) != 0) {
			fprintf(stderr, "ping-pong broke at %d\n", i);
			exit(1);
		}
		rtt[i] = now_ns() - t0;
	}
	lat_direct = direct_share_since();
	lat_read = read_share;
	lat_rounds = io_rounds / LAT_TRIPS;
	far_end(a, &f);
	lat_cost = cost_since();
	return median(rtt, LAT_TRIPS) / 2000.0;
}

struct sink {
	int fd;
	unsigned long long bytes;
};

/* Read s->bytes, then answer with one byte: the writer's clock stops there. */
static void *
sink_main(void *arg)
{
	struct sink *s = arg;
	static char buf[1 << 16];
	for (unsigned long long got = 0; got < s->bytes;) {
		ssize_t n = io_read(s->fd, buf, sizeof(buf));
		if (n <= 0) {
			fprintf(stderr, "sink ended at %llu\n", got);
			exit(1);
		}
		got += (unsigned long long)n;
	}
	if (io_write_all(s->fd, "k", 1) != 0) {
		fprintf(stderr, "sink answer: %s\n", strerror(errno));
		exit(1);
	}
	return NULL;
}

/* MB/s (10^6) of BW_BYTES through a fresh pair of `kind`. */
static double
bandwidth_mbs(int kind)
{
	static char buf[1 << 16];
	struct sink s = { -1, BW_BYTES };
	struct far f = { .work = sink_main, .arg = &s };
	char c;
	memset(buf, 0x5a, sizeof(buf));
	cost_since();
	int a = far_start(kind, &f, &s.fd);
	long long t0 = now_ns();
	for (unsigned long long sent = 0; sent < BW_BYTES; sent += sizeof(buf))
		if (io_write_all(a, buf, sizeof(buf)) != 0) {
			fprintf(stderr, "bandwidth write: %s\n", strerror(errno));
			exit(1);
		}
	if (io_read_all(a, &c, 1) != 0) {
		fprintf(stderr, "bandwidth: no answer from the reader\n");
		exit(1);
	}
	double mbs = BW_BYTES / ((now_ns() - t0) / 1000.0);
	far_end(a, &f);
	bw_cost = cost_since();
	return mbs;
}

/* Kill the active proxy under a running ping-pong; ms until a round trip completes again. */
static double
kill_to_first_byte_ms(int a, int b)
{
	struct echo e = { b, 1L << 40 };
	pthread_t t;
	char c = 'k';
	pthread_create(&t, NULL, echo_main, &e);
	pthread_detach(t);
	for (int i = 0; i < 1000; i++) /* running */
		if (tp_write_all(a, &c, 1) != 0 || tp_read_all(a, &c, 1) != 0)
			exit(1);
	int dying = path.active;
	announce(1 - dying);
	long long t0 = now_ns();
	kill(path.proxy[dying].pid, SIGKILL);
	waitpid(path.proxy[dying].pid, NULL, 0);
	path.proxy[dying].pid = -1;
	/* the round trip in flight at the kill may complete from buffers; the next must cross */
	long long last = t0;
	for (int i = 0; i < 3; i++) {
		if (tp_write_all(a, &c, 1) != 0 || tp_read_all(a, &c, 1) != 0) {
			fprintf(stderr, "ping-pong did not survive the kill\n");
			exit(1);
		}
		last = now_ns();
	}
	tp_proxy_stop(&path.proxy[dying], false);
	tp_proxy_start(&path.proxy[dying], NULL);
	return (last - t0) / 1e6;
}

int
main(int argc, char **argv)
{
	int arg = 1;
	for (; arg < argc && argv[arg][0] == '-'; arg++)
		if (strcmp(argv[arg], "-1") == 0)
			one_process = 1;
		else if (strcmp(argv[arg], "-b") == 0)
			bound = 1;
		else if (strcmp(argv[arg], "-e") == 0 || strcmp(argv[arg], "-p") == 0)
			evloop = argv[arg][1];
		else
			break;
	int rounds = arg < argc ? atoi(argv[arg]) : 5;
	if (rounds < 1 || rounds > ROUNDS_MAX || arg + 1 < argc) {
		fprintf(stderr, "usage: resume_bench [-1] [-b] [-e|-p] [ROUNDS 1..%d]\n", ROUNDS_MAX);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	tp_proxy_start(&path.proxy[0], NULL);
	tp_proxy_start(&path.proxy[1], NULL);
	if (bound)
		bind_to(0); /* after the proxies: they stay unbound */
	double lat[NKINDS][ROUNDS_MAX], bw[NKINDS][ROUNDS_MAX], kill_ms[KILLS];
	printf("# far ends %s\n", one_process ? "in this process (-1): one I/O thread serves "
	    "both" : "in child processes, each with its own I/O thread");
	printf("# applications read %s\n", evloop == 'e' ? "after epoll_wait, non-blocking (-e)" :
	    evloop == 'p' ? "after poll, non-blocking (-p)" : "with blocking calls");
	printf("# round kind latency_us bandwidth_MBps switches_per_round_trip "
	    "cpu_us_per_round_trip switches_per_MiB cpu_us_per_MiB latency_direct_share "
	    "latency_read_share io_rounds_per_round_trip\n");
	for (int r = 0; r < rounds; r++)
		for (int kind = 0; kind < NKINDS; kind++) {
			if (getenv("RB_ONLY") != NULL && atoi(getenv("RB_ONLY")) != kind)
				continue;
			lat[kind][r] = latency_us(kind);
			bw[kind][r] = bandwidth_mbs(kind);
			printf("%d %s %.2f %.0f %.2f %.1f %.1f %.0f %.2f %.2f %.2f\n", r,
			    KINDS[kind].name,
			    lat[kind][r], bw[kind][r], lat_cost.switches / LAT_TRIPS,
			    lat_cost.cpu_us / LAT_TRIPS, bw_cost.switches / (BW_BYTES >> 20),
			    bw_cost.cpu_us / (BW_BYTES >> 20), lat_direct, lat_read, lat_rounds);
			fflush(stdout);
		}
	int a, b;
	pair(1, &a, &b);
	for (int k = 0; k < KILLS; k++) {
		kill_ms[k] = kill_to_first_byte_ms(a, b);
		printf("kill %d: first round trip again after %.1f ms\n", k + 1, kill_ms[k]);
	}
	double lp = median_d(lat[0], rounds), bp = median_d(bw[0], rounds);
	for (int kind = 1; kind < NKINDS; kind++) {
		double lr = median_d(lat[kind], rounds), br = median_d(bw[kind], rounds);
		printf("median over %d rounds: latency plain %.2f us, %s %.2f us (+%.2f us "
		    "one-way)\n", rounds, lp, KINDS[kind].name, lr, lr - lp);
		printf("median over %d rounds: bandwidth plain %.0f MB/s, %s %.0f MB/s (ratio "
		    "%.2f)\n", rounds, bp, KINDS[kind].name, br, br / bp);
	}
	printf("kill to first byte: median %.1f ms over %d kills\n", median_d(kill_ms, KILLS),
	    KILLS);
	tp_proxy_stop(&path.proxy[0], false);
	tp_proxy_stop(&path.proxy[1], false);
	return 0;
}
