/*
 * test_proxy_many.c: 1000 relays at once through one qcg-proxy all complete correctly.
 *
 * All 2000 legs connect and say hello first, and the test waits for the proxy to report 1000
 * active relays, so they really are concurrent. Then every leg sends its own 64 KiB stream and
 * half-closes, from one epoll loop; each receiver checks every byte against the stream its
 * partner must have sent (a crossed wire between two relays shows as a mismatch).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "test_proxy_util.h"

#define RELAYS 1000
#define LEGS (2 * RELAYS)
#define PAYLOAD (64 * 1024)

struct leg {
	int fd;
	int relay;      /* which relay */
	int side;       /* 0 or 1 */
	size_t sent, received;
	bool shut, eof, mismatch, failed;
};

/* Byte `off` of what side `side` of relay `relay` sends: distinct for every relay and side. */
static uint8_t
pattern(int relay, int side, size_t off)
{
	uint64_t x = ((uint64_t)relay << 33 | (uint64_t)side << 32 | off / 8) + 0x9e3779b97f4a7c15ull;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (uint8_t)(x >> (8 * (off % 8)));
}

static void
leg_send(struct leg *l)
{
	uint8_t buf[16384];

	while (l->sent < PAYLOAD) {
		size_t n = PAYLOAD - l->sent < sizeof(buf) ? PAYLOAD - l->sent : sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(l->relay, l->side, l->sent + i);
		ssize_t w = send(l->fd, buf, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno != EAGAIN)
				l->failed = true;
			return;
		}
		l->sent += (size_t)w;
	}
	if (!l->shut)
		l->shut = shutdown(l->fd, SHUT_WR) == 0;
}

static void
leg_receive(struct leg *l)
{
	uint8_t buf[16384];

	while (!l->eof) {
		ssize_t n = read(l->fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno != EAGAIN)
				l->failed = l->eof = true;
			return;
		}
		if (n == 0) {
			l->eof = true;
			return;
		}
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != pattern(l->relay, 1 - l->side, l->received + (size_t)i))
				l->mismatch = true;
		l->received += (size_t)n;
	}
}

/* Drive every leg until all have seen EOF; returns the number still open at the deadline. */
static int
run_all(struct leg *legs, int timeout_ms)
{
	struct epoll_event evs[256];
	int epfd = epoll_create1(0), open_legs = LEGS;
	long long deadline = tp_now_ms() + timeout_ms;

	for (int i = 0; i < LEGS; i++) {
		fcntl(legs[i].fd, F_SETFL, O_NONBLOCK);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = &legs[i] };
		epoll_ctl(epfd, EPOLL_CTL_ADD, legs[i].fd, &ev);
	}
	while (open_legs > 0 && tp_now_ms() < deadline) {
		int n = epoll_wait(epfd, evs, 256, 100);
		for (int i = 0; i < n; i++) {
			struct leg *l = evs[i].data.ptr;
			bool was_open = !l->eof;
			leg_send(l);
			leg_receive(l);
			if (was_open && l->eof)
				open_legs--;
		}
	}
	close(epfd);
	return open_legs;
}

static void
thousand_concurrent_relays_all_complete_correctly(void)
{
	static const char *const args[] = { "-s", "proxy.max_legs=2100", NULL };
	struct tp_proxy p;
	struct relay_id ids[RELAYS];
	struct leg *legs = calloc(LEGS, sizeof(*legs));

	long limit = tp_raise_nofile(LEGS * 4 + 1000); /* our legs, and the proxy's 3 per leg */
	if (limit < LEGS * 4 + 1000) {
		printf("SKIP: RLIMIT_NOFILE is %ld, need %d\n", limit, LEGS * 4 + 1000);
		exit(77);
	}
	tp_proxy_start(&p, args);
	for (int r = 0; r < RELAYS; r++) {
		tp_random_id(&ids[r]);
		tp_expect(&p, &ids[r], 120);
	}
	for (int i = 0; i < LEGS; i++) {
		legs[i].relay = i % RELAYS;
		legs[i].side = i / RELAYS; /* all first legs, then all second legs */
		legs[i].fd = tp_leg(&p, &ids[legs[i].relay]);
	}
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_active", RELAYS, TP_STATE_WAIT_MS), RELAYS);
	CHECK_INT_EQ(tp_stat(&p, "legs_open"), LEGS);

	long long start = tp_now_ms();
	CHECK_INT_EQ(run_all(legs, 60000), 0);
	printf("%d relays x 2 x %d bytes in %lld ms\n", RELAYS, PAYLOAD, tp_now_ms() - start);
	int wrong = 0;
	for (int i = 0; i < LEGS; i++) {
		if (legs[i].failed || legs[i].mismatch || legs[i].sent != PAYLOAD ||
		    legs[i].received != PAYLOAD) {
			if (wrong++ < 5)
				fprintf(stderr, "leg %d (relay %d side %d): sent %zu received %zu%s%s\n",
				    i, legs[i].relay, legs[i].side, legs[i].sent, legs[i].received,
				    legs[i].mismatch ? " MISMATCH" : "", legs[i].failed ? " FAILED" : "");
		}
		close(legs[i].fd);
	}
	CHECK_INT_EQ(wrong, 0);
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_completed", RELAYS, TP_STATE_WAIT_MS), RELAYS);
	CHECK_INT_EQ(tp_stat(&p, "relays_aborted"), 0);
	CHECK_INT_EQ(tp_stat(&p, "bytes_first_to_second"), (long long)RELAYS * PAYLOAD);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
	free(legs);
}

int
main(void)
{
	alarm(120); /* watchdog: a hung case fails the test; the proxy dies with it */
	RUN(thousand_concurrent_relays_all_complete_correctly);
	return check_exit();
}
