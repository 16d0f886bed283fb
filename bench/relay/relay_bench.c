/*
 * relay_bench.c: what one qcg-proxy adds to a TCP connection on loopback, measured against a
 * direct connection in the same run.
 *
 *   latency:   one-byte ping-pong, many round trips; median and p99 of the round-trip time;
 *              the proxy's added one-way latency is (median via proxy - median direct) / 2
 *   bandwidth: one bulk stream, sender thread to receiver; the ratio via proxy / direct
 *
 * Direct and proxied runs alternate (--repeat times) and the median of each is reported, so a
 * passing disturbance on this shared machine hits both sides alike. The proxy must run with
 * --accept-any-id (bench/relay/run.sh starts one so); the bench presents a fresh random id per
 * connection.
 *
 * With --proxy-pid the CPU time each side spends per GB moved is reported too: on a small
 * machine the endpoints and the proxy share the cores, and that, more than the proxy's own
 * cost, can set the bandwidth through it.
 *
 * usage: relay_bench --proxy HOST:PORT [--proxy-pid PID] [--rounds N] [--bulk-mib N]
 *                    [--repeat N]
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relay_hello.h"

#define BENCH_WARMUP_ROUNDS 1000
#define BENCH_CHUNK (256 * 1024)
#define BENCH_MAX_REPEAT 21

struct bench_opts {
	struct sockaddr_in proxy;
	long rounds;      /* timed round trips per latency run */
	long bulk_mib;    /* MiB per bandwidth run */
	int repeat;       /* runs of each kind */
	int proxy_pid;    /* 0 = unknown: no proxy CPU figure */
};

/* CPU seconds used by a bulk run, per GB moved. */
struct bulk_cpu {
	double self;  /* this process: sender and receiver */
	double proxy; /* the proxy process (0 without --proxy-pid) */
};

/* A connected pair: fd[0] is the client's end, fd[1] the far end. */
struct pair {
	int fd[2];
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
die(const char *what)
{
	fprintf(stderr, "relay_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;

	while (len > 0) {
		ssize_t n = write(fd, b, len);
		if (n <= 0)
			die("write");
		b += n;
		len -= (size_t)n;
	}
}

static int
connect_to(const struct sockaddr_in *addr)
{
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) < 0)
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* A direct loopback connection. */
static struct pair
pair_direct(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	struct pair p;
	int one = 1;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len) < 0)
		die("listen");
	p.fd[0] = connect_to(&sin);
	p.fd[1] = accept(lfd, NULL, NULL);
	if (p.fd[1] < 0)
		die("accept");
	setsockopt(p.fd[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(lfd);
	return p;
}

/* Two legs through the proxy with a fresh id; returns once a byte has crossed both ways. */
static struct pair
pair_proxied(const struct bench_opts *o)
{
	struct relay_id id;
	uint8_t hello[RELAY_HELLO_SIZE];
	struct pair p;
	char c = 'j';

	if (getrandom(id.bytes, sizeof(id.bytes), 0) != sizeof(id.bytes))
		die("getrandom");
	relay_hello_encode(hello, &id, 0);
	for (int i = 0; i < 2; i++) {
		p.fd[i] = connect_to(&o->proxy);
		write_all(p.fd[i], hello, sizeof(hello));
	}
	write_all(p.fd[0], &c, 1);
	if (read(p.fd[1], &c, 1) != 1)
		die("proxy did not join the legs (is it running with --accept-any-id?)");
	write_all(p.fd[1], &c, 1);
	if (read(p.fd[0], &c, 1) != 1)
		die("proxy join");
	return p;
}

static void *
echo_thread(void *arg)
{
	int fd = *(int *)arg;
	char c;

	while (read(fd, &c, 1) == 1)
		if (write(fd, &c, 1) != 1)
			break;
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Ping-pong over p; writes the median and p99 round trip in microseconds. */
static void
run_latency(struct pair p, long rounds, double *median_us, double *p99_us)
{
	pthread_t echo;
	double *rtt = malloc((size_t)rounds * sizeof(*rtt));
	char c = 'p';

	if (rtt == NULL)
		die("malloc");
	pthread_create(&echo, NULL, echo_thread, &p.fd[1]);
	for (long i = -BENCH_WARMUP_ROUNDS; i < rounds; i++) {
		double t0 = now_s();
		if (write(p.fd[0], &c, 1) != 1 || read(p.fd[0], &c, 1) != 1)
			die("ping-pong");
		if (i >= 0)
			rtt[i] = (now_s() - t0) * 1e6;
	}
	shutdown(p.fd[0], SHUT_WR);
	pthread_join(echo, NULL);
	qsort(rtt, (size_t)rounds, sizeof(*rtt), cmp_double);
	*median_us = rtt[rounds / 2];
	*p99_us = rtt[(size_t)((double)rounds * 0.99)];
	free(rtt);
	close(p.fd[0]);
	close(p.fd[1]);
}

struct bulk_sender {
	int fd;
	long long bytes;
};

static void *
bulk_send_thread(void *arg)
{
	struct bulk_sender *s = arg;
	char *buf = calloc(1, BENCH_CHUNK);

	for (long long sent = 0; buf != NULL && sent < s->bytes; sent += BENCH_CHUNK)
		write_all(s->fd, buf, BENCH_CHUNK);
	shutdown(s->fd, SHUT_WR);
	free(buf);
	return NULL;
}

static double
cpu_self_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* utime + stime of another process from /proc/PID/stat (fields 14 and 15), 0 if unknown. */
static double
cpu_of_pid(int pid)
{
	char path[64], line[1024];
	unsigned long long ut, st;

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	char *ok = fgets(line, sizeof(line), f);
	fclose(f);
	char *after_comm = ok ? strrchr(line, ')') : NULL; /* the name may hold spaces */
	if (after_comm == NULL ||
	    sscanf(after_comm + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
		&st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Stream bulk_mib MiB from fd[0] to fd[1]; returns MB/s (10^6 bytes) as the receiver saw, and
 * the CPU time spent per GB in *cpu. */
static double
run_bandwidth(struct pair p, long bulk_mib, int proxy_pid, struct bulk_cpu *cpu)
{
	struct bulk_sender s = { p.fd[0], (long long)bulk_mib << 20 };
	pthread_t th;
	char *buf = malloc(BENCH_CHUNK);
	long long got = 0;
	ssize_t n;

	if (buf == NULL)
		die("malloc");
	double self0 = cpu_self_s(), proxy0 = cpu_of_pid(proxy_pid);
	double t0 = now_s();
	pthread_create(&th, NULL, bulk_send_thread, &s);
	while ((n = read(p.fd[1], buf, BENCH_CHUNK)) > 0)
		got += n;
	double secs = now_s() - t0;
	pthread_join(th, NULL);
	cpu->self = (cpu_self_s() - self0) / ((double)s.bytes / 1e9);
	cpu->proxy = (cpu_of_pid(proxy_pid) - proxy0) / ((double)s.bytes / 1e9);
	free(buf);
	close(p.fd[0]);
	close(p.fd[1]);
	if (got != s.bytes) {
		fprintf(stderr, "relay_bench: bulk run received %lld of %lld bytes\n", got, s.bytes);
		exit(1);
	}
	return (double)got / secs / 1e6;
}

static double
median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void
parse_opts(int argc, char **argv, struct bench_opts *o)
{
	static const struct option opts[] = { { "proxy", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' }, { "bulk-mib", required_argument, NULL, 'b' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "proxy-pid", required_argument, NULL, 'i' }, { NULL, 0, NULL, 0 } };
	const char *proxy = NULL;
	int c;

	o->rounds = 20000;
	o->bulk_mib = 1024;
	o->repeat = 5;
	o->proxy_pid = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': proxy = optarg; break;
		case 'r': o->rounds = atol(optarg); break;
		case 'b': o->bulk_mib = atol(optarg); break;
		case 'n': o->repeat = atoi(optarg); break;
		case 'i': o->proxy_pid = atoi(optarg); break;
		default: exit(2);
		}
	}
	const char *colon = proxy ? strrchr(proxy, ':') : NULL;
	if (colon == NULL || o->rounds < 100 || o->rounds > 10000000 || o->bulk_mib < 1 ||
	    o->bulk_mib > 65536 || o->repeat < 1 || o->repeat > BENCH_MAX_REPEAT) {
		fprintf(stderr, "usage: relay_bench --proxy IPV4:PORT [--proxy-pid PID] "
		    "[--rounds 100..10000000] [--bulk-mib 1..65536] [--repeat 1..%d]\n",
		    BENCH_MAX_REPEAT);
		exit(2);
	}
	char host[64];
	snprintf(host, sizeof(host), "%.*s", (int)(colon - proxy), proxy);
	o->proxy.sin_family = AF_INET;
	o->proxy.sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host,
	    &o->proxy.sin_addr) != 1) {
		fprintf(stderr, "relay_bench: --proxy wants a numeric IPv4 address, got '%s'\n", host);
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	struct bench_opts o;
	double med[2][BENCH_MAX_REPEAT], p99[2][BENCH_MAX_REPEAT], bw[2][BENCH_MAX_REPEAT];
	double cpu_self[2][BENCH_MAX_REPEAT], cpu_proxy[BENCH_MAX_REPEAT];
	struct bulk_cpu cpu;

	parse_opts(argc, argv, &o);
	for (int r = 0; r < o.repeat; r++) {
		run_latency(pair_direct(), o.rounds, &med[0][r], &p99[0][r]);
		run_latency(pair_proxied(&o), o.rounds, &med[1][r], &p99[1][r]);
		bw[0][r] = run_bandwidth(pair_direct(), o.bulk_mib, 0, &cpu);
		cpu_self[0][r] = cpu.self;
		bw[1][r] = run_bandwidth(pair_proxied(&o), o.bulk_mib, o.proxy_pid, &cpu);
		cpu_self[1][r] = cpu.self;
		cpu_proxy[r] = cpu.proxy;
	}
	double m0 = median_of(med[0], o.repeat), m1 = median_of(med[1], o.repeat);
	double q0 = median_of(p99[0], o.repeat), q1 = median_of(p99[1], o.repeat);
	double b0 = median_of(bw[0], o.repeat), b1 = median_of(bw[1], o.repeat);

	printf("qcg-proxy relay benchmark (loopback; %ld round trips and %ld MiB per run; "
	    "median of %d runs)\n\n", o.rounds, o.bulk_mib, o.repeat);
	printf("%-26s %12s %14s %16s\n", "", "direct", "via qcg-proxy", "proxy adds");
	printf("%-26s %12.1f %14.1f %+13.1f us\n", "round trip, median (us)", m0, m1, m1 - m0);
	printf("%-26s %12.1f %14.1f %+13.1f us\n", "round trip, p99 (us)", q0, q1, q1 - q0);
	printf("%-26s %12s %14s %+13.1f us\n", "one-way, median", "", "", (m1 - m0) / 2);
	printf("%-26s %12.0f %14.0f %14.2f x\n", "bandwidth (MB/s)", b0, b1, b1 / b0);
	printf("%-26s %12.2f %14.2f\n", "endpoints' CPU s per GB", median_of(cpu_self[0], o.repeat),
	    median_of(cpu_self[1], o.repeat));
	if (o.proxy_pid > 0)
		printf("%-26s %12s %14.2f\n", "proxy's CPU s per GB", "",
		    median_of(cpu_proxy, o.repeat));
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	printf("(%ld cores: the endpoints and the proxy share them)\n", cores);
	printf("\nanchor: GridMPI's relay adds +25 us one-way; aim <= 10 us and >= 0.90 x\n");
	return 0;
}
