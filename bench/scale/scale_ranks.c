/*
 * scale_ranks.c: the simulated ranks of one node for bench/scale (issue 15). Each rank is a
 * thread with its own connection to the node's qcg-helper, speaking the helper protocol as
 * libqcgnet.so does, with no MPI:
 *
 *   scale-ranks SOCKET JOB TOKEN ADDRESS NRANKS all|ring PEERS-FILE
 *
 * 1. every rank (at once) opens a listener on ADDRESS (port 0) and REGISTERs it; it prints
 *    "listener ADDRESS:PORT" per rank, then "registered";
 * 2. it waits (polling every millisecond, for up to 10 minutes) for PEERS-FILE, the job's
 *    listeners, "ADDRESS:PORT" a line: the driver renames it into place once every node has
 *    registered, and that is the start of the storm;
 * 3. every rank connects to every other listener (all) or to the next one in the list (ring):
 *    RESOLVE, a real TCP connect for direct and port range, REPORT;
 * 4. it prints "connects N failed F slowest_rank_ms X node_storm_ms Y resolve_us R
 *    connect_us C report_us P" (the last three: the mean per connect of each step, waits
 *    included), and keeps its listeners until PEERS-FILE.done exists (other nodes may still
 *    be connecting).
 * Only direct and port range are carried out (bench/scale runs open clusters); any other
 * method counts as failed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper_client.h"
#include "model.h"

#define RANKS_MAX 1024
#define PEERS_MAX 65536

struct peer {
	char address[QCG_ADDR_MAX];
	uint16_t port;
};

struct rank {
	pthread_t thread;
	struct helper_client c;
	int listen_fd;
	uint16_t port;
	size_t self;             /* its index in the peer list */
	long connects, failed;
	double ms;               /* its whole storm */
	double resolve_ms, connect_ms, report_ms; /* its storm's time in each step */
};

static const char *address, *mode;
static struct peer *peers;
static size_t npeers;

static double
now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One connect the way libqcgnet does it: RESOLVE, carry out, REPORT. 0 when it connected. */
static int
connect_one(struct rank *r, const struct peer *p)
{
	struct decision d;
	char err[512];
	int code, ok = 0;
	double t0 = now_ms(), t1, t2;
	if (helper_client_resolve(&r->c, p->address, p->port, -1, &d, &code, err,
	    sizeof(err)) != 0) {
		fprintf(stderr, "resolve %s:%u: %s\n", p->address, p->port, err);
		return -1;
	}
	t1 = now_ms();
	r->resolve_ms += t1 - t0;
	if (d.method == METHOD_DIRECT || d.method == METHOD_PORT_RANGE) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(d.target.port) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ok = fd >= 0 && inet_pton(AF_INET, d.target.address, &sin.sin_addr) == 1 &&
		    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
		if (!ok)
			fprintf(stderr, "connect %s:%u (method %d): %s\n", d.target.address, d.target.port,
			    d.method, strerror(errno));
		if (fd >= 0)
			close(fd);
	} else {
		fprintf(stderr, "%s:%u: method %d is not carried out here\n", p->address, p->port,
		    d.method);
	}
	t2 = now_ms();
	r->connect_ms += t2 - t1;
	if (helper_client_report(&r->c, d.method, p->address, p->port, ok,
	    (uint64_t)((t2 - t0) * 1000), &code, err, sizeof(err)) != 0)
		fprintf(stderr, "report %s:%u: %s\n", p->address, p->port, err);
	r->report_ms += now_ms() - t2;
	return ok ? 0 : -1;
}

static void
storm(struct rank *r)
{
	double t0 = now_ms();
	for (size_t k = 1; k < npeers; k++) {
		if (strcmp(mode, "ring") == 0 && k > 1)
			break;
		const struct peer *p = &peers[(r->self + k) % npeers];
		r->connects++;
		if (connect_one(r, p) != 0)
			r->failed++;
	}
	r->ms = now_ms() - t0;
}

/* Drain the listeners' queues so that no connect waits on a full backlog. It sleeps in
 * epoll_wait, as a rank's event loop does: polling every listener each millisecond cost 128
 * accept calls a millisecond per node at P = 1024, a load of the harness that grew with P. */
static void *
acceptor(void *arg)
{
	int ep = (int)(intptr_t)arg;
	struct epoll_event ev[64];
	for (;;) {
		int n = epoll_wait(ep, ev, 64, -1);
		for (int i = 0; i < n; i++) {
			int fd;
			while ((fd = accept(ev[i].data.fd, NULL, NULL)) >= 0)
				close(fd);
		}
	}
	return NULL;
}

static int
open_rank(struct rank *r, const char *sock, const char *job, const char *token, size_t i)
{
	char err[512], name[64];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int code;
	if (helper_client_open(&r->c, sock, job, token, err, sizeof(err)) != 0) {
		fprintf(stderr, "rank %zu: %s\n", i, err);
		return -1;
	}
	r->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (r->listen_fd < 0 || inet_pton(AF_INET, address, &sin.sin_addr) != 1 ||
	    bind(r->listen_fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(r->listen_fd, 4096) != 0 ||
	    getsockname(r->listen_fd, (struct sockaddr *)&sin, &len) != 0) {
		fprintf(stderr, "rank %zu: listener on %s: %s\n", i, address, strerror(errno));
		return -1;
	}
	r->port = ntohs(sin.sin_port);
	snprintf(name, sizeof(name), "rank-%zu", i);
	if (helper_client_register(&r->c, address, r->port, name, &code, err, sizeof(err)) != 0) {
		fprintf(stderr, "rank %zu: register: %s\n", i, err);
		return -1;
	}
	return 0;
}

/* The ranks' threads live from registration to the end, as processes of a job do: the storm
 * measures connection set-up, not the creation and teardown of 1024 threads. */
static struct {
	const char *sock, *job, *token;
	struct rank *ranks;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t opened, stormed; /* ranks that registered (or failed to), that ended their storm */
	bool go;                /* the peers are known: storm */
	bool ended;             /* every node is done: the threads may go */
} job = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

/* Wait until *count reaches want (with job.lock held). */
static void
wait_count(const size_t *count, size_t want)
{
	while (*count < want)
		pthread_cond_wait(&job.changed, &job.lock);
}

static void
count_up(size_t *count)
{
	pthread_mutex_lock(&job.lock);
	(*count)++;
	pthread_cond_broadcast(&job.changed);
	pthread_mutex_unlock(&job.lock);
}

static void *
rank_thread(void *arg)
{
	size_t i = (size_t)arg;
	struct rank *r = &job.ranks[i];
	if (open_rank(r, job.sock, job.job, job.token, i) != 0)
		r->port = 0;
	count_up(&job.opened);
	pthread_mutex_lock(&job.lock);
	while (!job.go)
		pthread_cond_wait(&job.changed, &job.lock);
	pthread_mutex_unlock(&job.lock);
	if (r->port != 0)
		storm(r);
	count_up(&job.stormed);
	/* A thread's exit unmaps its stack: not while other nodes' ranks still connect. */
	pthread_mutex_lock(&job.lock);
	while (!job.ended)
		pthread_cond_wait(&job.changed, &job.lock);
	pthread_mutex_unlock(&job.lock);
	return NULL;
}

int
main(int argc, char **argv)
{
	char line[128];
	pthread_t acc;
	if (argc != 8 || atoi(argv[5]) < 1 || atoi(argv[5]) > RANKS_MAX ||
	    (strcmp(argv[6], "all") != 0 && strcmp(argv[6], "ring") != 0)) {
		fprintf(stderr, "usage: scale-ranks SOCKET JOB TOKEN ADDRESS NRANKS(1-%d) all|ring PEERS-FILE\n",
		    RANKS_MAX);
		return 2;
	}
	address = argv[4];
	mode = argv[6];
	size_t n = (size_t)atoi(argv[5]);
	struct rank *ranks = calloc(n, sizeof(*ranks));
	peers = calloc(PEERS_MAX, sizeof(*peers));
	if (ranks == NULL || peers == NULL)
		return 1;
	/* the ranks register together, as Open MPI's processes do in MPI_Init */
	job.sock = argv[1];
	job.job = argv[2];
	job.token = argv[3];
	job.ranks = ranks;
	for (size_t i = 0; i < n; i++)
		if (pthread_create(&ranks[i].thread, NULL, rank_thread, (void *)i) != 0) {
			fprintf(stderr, "rank %zu: no thread\n", i);
			return 1;
		}
	pthread_mutex_lock(&job.lock);
	wait_count(&job.opened, n);
	pthread_mutex_unlock(&job.lock);
	for (size_t i = 0; i < n; i++) {
		if (ranks[i].port == 0)
			return 1;
		printf("listener %s:%u\n", address, ranks[i].port);
	}
	int ep = epoll_create1(EPOLL_CLOEXEC);
	for (size_t i = 0; i < n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = ranks[i].listen_fd };
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ranks[i].listen_fd, &ev) != 0) {
			perror("epoll");
			return 1;
		}
	}
	printf("registered\n");
	fflush(stdout);
	pthread_create(&acc, NULL, acceptor, (void *)(intptr_t)ep);
	FILE *in = NULL;
	for (int waited = 0; in == NULL && waited < 600000; waited++) {
		if ((in = fopen(argv[7], "r")) == NULL)
			usleep(1000);
	}
	if (in == NULL) {
		fprintf(stderr, "%s did not come within 10 minutes\n", argv[7]);
		return 1;
	}
	while (fgets(line, sizeof(line), in) != NULL && npeers < PEERS_MAX) {
		char *colon = strrchr(line, ':');
		if (colon == NULL || (size_t)(colon - line) >= QCG_ADDR_MAX)
			continue;
		struct peer *p = &peers[npeers];
		memcpy(p->address, line, (size_t)(colon - line));
		p->address[colon - line] = '\0';
		p->port = (uint16_t)atoi(colon + 1);
		for (size_t i = 0; i < n; i++)
			if (ranks[i].port == p->port && strcmp(p->address, address) == 0)
				ranks[i].self = npeers;
		npeers++;
	}
	fclose(in);
	pthread_mutex_lock(&job.lock);
	double t0 = now_ms();
	job.go = true;
	pthread_cond_broadcast(&job.changed);
	wait_count(&job.stormed, n);
	double node_ms = now_ms() - t0;
	pthread_mutex_unlock(&job.lock);
	long connects = 0, failed = 0;
	double slowest = 0, resolve_ms = 0, connect_ms = 0, report_ms = 0;
	for (size_t i = 0; i < n; i++) {
		connects += ranks[i].connects;
		failed += ranks[i].failed;
		resolve_ms += ranks[i].resolve_ms;
		connect_ms += ranks[i].connect_ms;
		report_ms += ranks[i].report_ms;
		if (ranks[i].ms > slowest)
			slowest = ranks[i].ms;
	}
	double per = connects > 0 ? 1000.0 / (double)connects : 0;
	printf("connects %ld failed %ld slowest_rank_ms %.1f node_storm_ms %.1f resolve_us %.1f "
	       "connect_us %.1f report_us %.1f\n", connects, failed, slowest, node_ms,
	    resolve_ms * per, connect_ms * per, report_ms * per);
	fflush(stdout);
	/* Our listeners stay until every node is done (PEERS-FILE.done): other nodes may still
	 * connect to them. */
	char done[1024];
	snprintf(done, sizeof(done), "%s.done", argv[7]);
	for (int waited = 0; access(done, F_OK) != 0 && waited < 600000; waited++)
		usleep(1000);
	pthread_mutex_lock(&job.lock);
	job.ended = true;
	pthread_cond_broadcast(&job.changed);
	pthread_mutex_unlock(&job.lock);
	for (size_t i = 0; i < n; i++)
		pthread_join(ranks[i].thread, NULL);
	return failed ? 1 : 0;
}
