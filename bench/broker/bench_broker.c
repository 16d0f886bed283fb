/*
 * bench_broker.c: bench-broker, the broker benchmark of issue 2: N concurrent clients call
 * Resolve over mutual TLS for a fixed time and the latency of every call is kept.
 *
 *   bench-broker --broker URL --cert C --key K --ca-dir D --clients N --seconds S
 *       [--job J --from-cluster C --from-node N --to-address A --to-port P]
 *       [--expect METHOD] [--new-connection | --replay]
 *
 * Each client is a thread with its own gSOAP context. With keep-alive (the default) it reuses
 * that context for every call, so TLS is negotiated once per client; the benchmark counts the
 * TCP connections each context opens (by wrapping gSOAP's connect callback) and flags a run in
 * which keep-alive did not hold. --new-connection turns keep-alive off: one TCP connection and
 * one TLS handshake (full or resumed, both counted) per call, as a contrast. --replay keeps
 * gSOAP for the warm-up call only and then sends its recorded bytes again for every call
 * (replay.h): the same requests to the broker, at a fraction of the client's CPU time.
 *
 * Every client makes one warm-up call (which opens its connection) before a common start
 * barrier; then all loop Resolve until a common deadline. The output is a few lines for people
 * and one "RESULT key=value ..." line for scripts. Exit status: 0 clean run, 1 the run was
 * flagged (errors, wrong answers, reconnections under keep-alive, sample limit), 2 bad
 * arguments, 3 the warm-up failed (nothing was measured).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/ssl.h>

#include "soapH.h"
#include "model.h"
#include "soap_client.h"
#include "replay.h"

#define BENCH_MAX_CLIENTS 1024
#define BENCH_MAX_SECONDS 3600
#define BENCH_SAMPLES_INITIAL 4096
#define BENCH_SAMPLES_MAX (16u * 1024 * 1024) /* per client: 128 MiB of latencies at most */
#define BENCH_ERROR_TEXT 512

struct bench_options {
	const char *url;
	struct tls_settings tls;
	int clients;
	int seconds;
	const char *job, *from_cluster, *from_node, *to_address;
	unsigned short to_port;
	int expect;          /* enum connect_method every answer must carry, or -1 */
	bool new_connection; /* keep-alive off: one connection per call */
	bool replay;         /* calls after the warm-up replay its bytes (replay.h) */
};

struct bench;

/* One client thread: its own soap context, counters and latency samples. */
struct bench_client {
	pthread_t thread;
	struct bench *bench;
	struct soap *soap;
	struct replay *replay; /* with --replay */
	SOAP_SOCKET (*tcp_connect)(struct soap *, const char *, const char *, int); /* gSOAP's */
	uint64_t *latency_ns;  /* one per successful call, in completion order */
	size_t count, capacity;
	uint64_t errors;       /* faults, transport failures */
	uint64_t wrong;        /* answers whose method was not the expected one */
	uint64_t connects;     /* TCP connections opened (each one a TLS handshake) */
	uint64_t resumed;      /* of those, handshakes that resumed a TLS session */
	bool warmup_failed;
	bool sample_limit;     /* stopped early: the sample buffer hit its limit */
	struct timespec finished;
	char first_error[BENCH_ERROR_TEXT];
};

struct bench {
	struct bench_options opt;
	pthread_barrier_t barrier; /* used twice: "all warmed up", then "go" */
	struct timespec start, deadline;
	bool abort_run;            /* set before "go" when a warm-up failed */
	struct bench_client *clients;
};

static uint64_t
ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static bool
ts_before(const struct timespec *a, const struct timespec *b)
{
	return ts_ns(a) < ts_ns(b);
}

/* gSOAP calls soap->fopen only when it must open a connection; the TLS handshake happens inside,
 * so after it returns soap->ssl tells whether the session was resumed. */
static SOAP_SOCKET
counting_connect(struct soap *soap, const char *endpoint, const char *host, int port)
{
	struct bench_client *c = soap->user;
	SOAP_SOCKET fd = c->tcp_connect(soap, endpoint, host, port);

	if (soap_valid_socket(fd)) {
		c->connects++;
		if (soap->ssl != NULL && SSL_session_reused(soap->ssl))
			c->resumed++;
	}
	return fd;
}

static int
client_setup(struct bench_client *c, char *err, size_t errlen)
{
	const struct bench_options *o = &c->bench->opt;
	/* Timeouts bound a stuck call; the response limit is far above a Decision's size. */
	struct soap_client_settings settings = { 10, 30, 1024 * 1024 };

	c->soap = soap_client_new(&o->tls, &settings, err, errlen);
	if (c->soap == NULL)
		return -1;
	if (o->new_connection) {
		soap_clr_omode(c->soap, SOAP_IO_KEEPALIVE);
		soap_clr_imode(c->soap, SOAP_IO_KEEPALIVE);
	}
	c->soap->user = c;
	c->tcp_connect = c->soap->fopen;
	c->soap->fopen = counting_connect;
	if (o->replay && (c->replay = calloc(1, sizeof(*c->replay))) == NULL) {
		snprintf(err, errlen, "out of memory for the replay buffers");
		return -1;
	}
	c->capacity = BENCH_SAMPLES_INITIAL;
	c->latency_ns = malloc(c->capacity * sizeof(*c->latency_ns));
	if (c->latency_ns == NULL) {
		snprintf(err, errlen, "out of memory for latency samples");
		return -1;
	}
	return 0;
}

/* Keep the first failure's text (prefix + detail): one is enough to say what went wrong. */
static void
note_error(struct bench_client *c, const char *prefix, const char *detail)
{
	if (c->first_error[0] == '\0')
		snprintf(c->first_error, sizeof(c->first_error), "%s%s", prefix, detail);
}

/* One Resolve call; 0 when it succeeded with an acceptable answer. */
static int
client_call(struct bench_client *c)
{
	const struct bench_options *o = &c->bench->opt;
	struct _qb__Resolve req = { .job = (char *)o->job, .fromCluster = (char *)o->from_cluster,
		.fromNode = (char *)o->from_node, .toAddress = (char *)o->to_address,
		.toPort = o->to_port };
	struct _qb__ResolveResponse resp = { 0 };
	char text[BENCH_ERROR_TEXT];
	int status = 0;

	if (soap_call___qb__Resolve(c->soap, o->url, NULL, &req, &resp) != SOAP_OK) {
		soap_client_error(c->soap, text, sizeof(text));
		note_error(c, "", text);
		c->errors++;
		status = -1;
	} else if (resp.decision == NULL) {
		note_error(c, "response without a decision", "");
		c->errors++;
		status = -1;
	} else if (o->expect >= 0 && (int)resp.decision->method != o->expect) {
		note_error(c, "answer was method ",
		    connect_method_name((enum connect_method)resp.decision->method));
		c->wrong++;
		status = -1;
	}
	soap_client_reset(c->soap); /* free the response before the next call */
	return status;
}

/* One Resolve replayed from the warm-up's bytes (--replay); 0 when the answer was right. */
static int
client_replay(struct bench_client *c)
{
	const struct bench_options *o = &c->bench->opt;
	const char *expect = o->expect >= 0 ?
	    connect_method_name((enum connect_method)o->expect) : NULL;
	char text[BENCH_ERROR_TEXT];

	if (replay_call(c->replay, c->soap, expect, 10000, text, sizeof(text)) != 0) {
		note_error(c, "", text);
		c->errors++;
		return -1;
	}
	return 0;
}

static int
client_record(struct bench_client *c, uint64_t ns)
{
	if (c->count == c->capacity) {
		if (c->capacity >= BENCH_SAMPLES_MAX) {
			c->sample_limit = true;
			return -1;
		}
		uint64_t *grown = realloc(c->latency_ns, 2 * c->capacity * sizeof(*grown));
		if (grown == NULL) {
			c->sample_limit = true;
			return -1;
		}
		c->latency_ns = grown;
		c->capacity *= 2;
	}
	c->latency_ns[c->count++] = ns;
	return 0;
}

static void
client_loop(struct bench_client *c)
{
	struct timespec t0, t1;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (!ts_before(&t0, &c->bench->deadline))
			break;
		int rc = c->replay != NULL ? client_replay(c) : client_call(c);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (rc == 0 && client_record(c, ts_ns(&t1) - ts_ns(&t0)) != 0)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &c->finished);
}

static void *
client_main(void *arg)
{
	struct bench_client *c = arg;
	struct bench *b = c->bench;

	/* The warm-up call opens the connection (keep-alive) and is not measured; with --replay
	 * its bytes are what every later call sends. */
	if (c->replay != NULL)
		replay_record_start(c->replay, c->soap);
	c->warmup_failed = client_call(c) != 0;
	if (c->replay != NULL && replay_record_stop(c->replay, c->soap) != 0) {
		note_error(c, "replay: the warm-up request was not recorded whole", "");
		c->warmup_failed = true;
	}
	c->errors = c->wrong = 0;
	pthread_barrier_wait(&b->barrier);
	pthread_barrier_wait(&b->barrier);
	if (!b->abort_run)
		client_loop(c);
	return NULL;
}

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values, in microseconds. */
static double
percentile_us(const uint64_t *sorted, size_t n, double p)
{
	if (n == 0)
		return 0;
	size_t rank = (size_t)((p / 100.0) * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (double)sorted[rank - 1] / 1000.0;
}

struct bench_totals {
	uint64_t requests, errors, wrong, connects, resumed;
	uint64_t fewest, most; /* requests of the least and the most served client: a broker
				  that serves some clients while others wait shows it here, not in
				  the percentiles of the calls that completed */
	bool sample_limit;
	double seconds;
	uint64_t *all; /* every latency, sorted */
};

static int
bench_merge(struct bench *b, struct bench_totals *t)
{
	struct timespec last = b->start;

	memset(t, 0, sizeof(*t));
	t->fewest = UINT64_MAX;
	for (int i = 0; i < b->opt.clients; i++) {
		const struct bench_client *c = &b->clients[i];
		t->requests += c->count;
		if (c->count < t->fewest)
			t->fewest = c->count;
		if (c->count > t->most)
			t->most = c->count;
		t->errors += c->errors;
		t->wrong += c->wrong;
		t->connects += c->connects;
		t->resumed += c->resumed;
		t->sample_limit |= c->sample_limit;
		if (ts_before(&last, &c->finished))
			last = c->finished;
	}
	t->seconds = (double)(ts_ns(&last) - ts_ns(&b->start)) / 1e9;
	t->all = malloc((t->requests ? t->requests : 1) * sizeof(*t->all));
	if (t->all == NULL)
		return -1;
	size_t at = 0;
	for (int i = 0; i < b->opt.clients; i++) {
		memcpy(t->all + at, b->clients[i].latency_ns, b->clients[i].count * sizeof(*t->all));
		at += b->clients[i].count;
	}
	qsort(t->all, t->requests, sizeof(*t->all), compare_u64);
	return 0;
}

/* Print the results; returns true when the run is flagged. */
static bool
bench_report(const struct bench *b, const struct bench_totals *t)
{
	const struct bench_options *o = &b->opt;
	/* Keep-alive: one connection per client, opened by the warm-up call (not counted in the
	 * run's requests, but counted in connects). */
	uint64_t expected_connects = o->new_connection ? t->requests + t->errors + t->wrong +
	    (uint64_t)o->clients : (uint64_t)o->clients;
	bool reconnected = !o->new_connection && t->connects > expected_connects;
	bool flagged = t->errors || t->wrong || reconnected || t->sample_limit || t->requests == 0;
	double rate = t->seconds > 0 ? (double)t->requests / t->seconds : 0;
	double p50 = percentile_us(t->all, t->requests, 50), p90 = percentile_us(t->all, t->requests, 90);
	double p99 = percentile_us(t->all, t->requests, 99);
	double max = t->requests ? (double)t->all[t->requests - 1] / 1000.0 : 0;
	const char *mode = o->new_connection ? "new-connection" : o->replay ? "keep-alive-replay" :
	    "keep-alive";

	printf("bench-broker: %d clients, %s, %.3f s\n", o->clients, mode, t->seconds);
	printf("  requests %llu (%.1f/s), errors %llu, wrong answers %llu\n",
	    (unsigned long long)t->requests, rate, (unsigned long long)t->errors,
	    (unsigned long long)t->wrong);
	printf("  latency us: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n", p50, p90, p99, max);
	printf("  requests per client: fewest %llu, most %llu\n", (unsigned long long)t->fewest,
	    (unsigned long long)t->most);
	printf("  connections %llu (TLS handshakes: %llu full, %llu resumed)\n",
	    (unsigned long long)t->connects, (unsigned long long)(t->connects - t->resumed),
	    (unsigned long long)t->resumed);
	if (reconnected)
		printf("  FLAGGED: keep-alive did not hold: %llu connections for %d clients\n",
		    (unsigned long long)t->connects, o->clients);
	if (t->errors || t->wrong)
		printf("  FLAGGED: %llu failed calls\n", (unsigned long long)(t->errors + t->wrong));
	if (t->sample_limit)
		printf("  FLAGGED: a client stopped early at its sample limit (%u)\n", BENCH_SAMPLES_MAX);
	if (t->requests == 0)
		printf("  FLAGGED: no call succeeded\n");
	for (int i = 0; i < o->clients; i++)
		if (b->clients[i].first_error[0]) {
			printf("  first error (client %d): %s\n", i, b->clients[i].first_error);
			break;
		}
	printf("RESULT clients=%d mode=%s seconds=%.3f requests=%llu req_per_s=%.1f p50_us=%.1f "
	       "p90_us=%.1f p99_us=%.1f max_us=%.1f fewest=%llu most=%llu errors=%llu "
	       "connections=%llu resumed=%llu flagged=%d\n",
	    o->clients, mode, t->seconds, (unsigned long long)t->requests, rate, p50, p90, p99, max,
	    (unsigned long long)t->fewest, (unsigned long long)t->most,
	    (unsigned long long)(t->errors + t->wrong), (unsigned long long)t->connects,
	    (unsigned long long)t->resumed, flagged);
	return flagged;
}

/* Start the clients, let them warm up, start the clock, wait for them. Returns 0, or 3 when a
 * warm-up call failed (then nothing is measured). */
static int
bench_run(struct bench *b)
{
	int n = b->opt.clients;
	char err[BENCH_ERROR_TEXT];

	for (int i = 0; i < n; i++) {
		b->clients[i].bench = b;
		if (client_setup(&b->clients[i], err, sizeof(err)) != 0) {
			fprintf(stderr, "bench-broker: client %d: %s\n", i, err);
			return 3;
		}
	}
	if (pthread_barrier_init(&b->barrier, NULL, (unsigned)n + 1) != 0) {
		fprintf(stderr, "bench-broker: cannot create the start barrier\n");
		return 3;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&b->clients[i].thread, NULL, client_main, &b->clients[i]) != 0) {
			/* The barrier counts on every thread; without one of them nobody can start. */
			fprintf(stderr, "bench-broker: cannot start client thread %d\n", i);
			exit(3);
		}
	pthread_barrier_wait(&b->barrier); /* every client has made its warm-up call */
	for (int i = 0; i < n; i++)
		if (b->clients[i].warmup_failed) {
			fprintf(stderr, "bench-broker: client %d: warm-up call failed: %s\n", i,
			    b->clients[i].first_error);
			b->abort_run = true;
			break;
		}
	clock_gettime(CLOCK_MONOTONIC, &b->start);
	b->deadline = b->start;
	b->deadline.tv_sec += b->opt.seconds;
	pthread_barrier_wait(&b->barrier); /* go */
	for (int i = 0; i < n; i++)
		pthread_join(b->clients[i].thread, NULL);
	pthread_barrier_destroy(&b->barrier);
	return b->abort_run ? 3 : 0;
}

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: bench-broker --broker URL --cert C --key K --ca-dir D --clients N --seconds S\n"
	    "         [--job J --from-cluster C --from-node N --to-address A --to-port P]\n"
	    "         [--expect METHOD] [--new-connection | --replay]\n"
	    "  N clients (threads, 1..%d) call Resolve for S seconds (1..%d); the caller's\n"
	    "  certificate must be the front-end of the from-cluster. Defaults: job bench-job,\n"
	    "  from site-b/b1, to 10.1.0.11:5000. --expect makes any other method an error.\n"
	    "  --new-connection: no keep-alive, one TLS handshake per call.\n"
	    "  --replay: after the warm-up call, send its recorded bytes again for each call.\n",
	    BENCH_MAX_CLIENTS, BENCH_MAX_SECONDS);
}

static long
int_arg(const char *name, const char *s, long min, long max)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "bench-broker: --%s must be an integer in [%ld, %ld], got '%s'\n", name,
		    min, max, s);
		exit(2);
	}
	return v;
}

static void
path_arg(char *dst, const char *name, const char *s)
{
	if (strlen(s) >= PATH_MAX) {
		fprintf(stderr, "bench-broker: --%s: path longer than %d bytes\n", name, PATH_MAX - 1);
		exit(2);
	}
	strcpy(dst, s);
}

static void
parse_arguments(int argc, char **argv, struct bench_options *o)
{
	static const struct option options[] = {
		{ "broker", required_argument, NULL, 'b' }, { "cert", required_argument, NULL, 'c' },
		{ "key", required_argument, NULL, 'k' }, { "ca-dir", required_argument, NULL, 'd' },
		{ "clients", required_argument, NULL, 'n' }, { "seconds", required_argument, NULL, 's' },
		{ "job", required_argument, NULL, 'j' }, { "from-cluster", required_argument, NULL, 'f' },
		{ "from-node", required_argument, NULL, 'F' }, { "to-address", required_argument, NULL, 't' },
		{ "to-port", required_argument, NULL, 'p' }, { "expect", required_argument, NULL, 'e' },
		{ "new-connection", no_argument, NULL, 'N' }, { "replay", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum connect_method m;
	int opt;

	*o = (struct bench_options){ .job = "bench-job", .from_cluster = "site-b", .from_node = "b1",
		.to_address = "10.1.0.11", .to_port = 5000, .expect = -1,
		.tls = { .crl_required = true } };
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'b': o->url = optarg; break;
		case 'c': path_arg(o->tls.cert_file, "cert", optarg); break;
		case 'k': path_arg(o->tls.key_file, "key", optarg); break;
		case 'd': path_arg(o->tls.ca_dir, "ca-dir", optarg); break;
		case 'n': o->clients = (int)int_arg("clients", optarg, 1, BENCH_MAX_CLIENTS); break;
		case 's': o->seconds = (int)int_arg("seconds", optarg, 1, BENCH_MAX_SECONDS); break;
		case 'j': o->job = optarg; break;
		case 'f': o->from_cluster = optarg; break;
		case 'F': o->from_node = optarg; break;
		case 't': o->to_address = optarg; break;
		case 'p': o->to_port = (unsigned short)int_arg("to-port", optarg, 1, 65535); break;
		case 'e':
			if (connect_method_parse(optarg, &m) != 0) {
				fprintf(stderr, "bench-broker: --expect: unknown method '%s'\n", optarg);
				exit(2);
			}
			o->expect = (int)m;
			break;
		case 'N': o->new_connection = true; break;
		case 'R': o->replay = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind != argc || !o->url || !o->tls.cert_file[0] || !o->tls.key_file[0] ||
	    !o->tls.ca_dir[0] || !o->clients || !o->seconds) {
		fprintf(stderr, "bench-broker: --broker, --cert, --key, --ca-dir, --clients and "
				"--seconds are required\n");
		usage(stderr);
		exit(2);
	}
	if (o->replay && o->new_connection) {
		fprintf(stderr, "bench-broker: --replay needs keep-alive, not --new-connection\n");
		exit(2);
	}
}

int
main(int argc, char **argv)
{
	static struct bench bench;
	struct bench_totals totals;

	parse_arguments(argc, argv, &bench.opt);
	signal(SIGPIPE, SIG_IGN); /* a connection the broker closed must be an error, not death */
	tls_global_init();
	bench.clients = calloc((size_t)bench.opt.clients, sizeof(*bench.clients));
	if (bench.clients == NULL) {
		fprintf(stderr, "bench-broker: out of memory\n");
		return 3;
	}
	int rc = bench_run(&bench);
	if (rc == 0) {
		if (bench_merge(&bench, &totals) != 0) {
			fprintf(stderr, "bench-broker: out of memory merging latencies\n");
			return 3;
		}
		rc = bench_report(&bench, &totals) ? 1 : 0;
		free(totals.all);
	}
	for (int i = 0; i < bench.opt.clients; i++) {
		soap_client_free(bench.clients[i].soap);
		free(bench.clients[i].replay);
		free(bench.clients[i].latency_ns);
	}
	free(bench.clients);
	return rc;
}
