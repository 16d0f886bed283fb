/*
 * test_proxy_chain.c: a relay through two qcg-proxies (A forwards the id to B), in both
 * arrival orders, and the failures of the next hop.
 *
 *   leg a --> proxy A --(A dials B, hello with the same id)--> proxy B <-- leg b
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "test_proxy_util.h"

#define CHAIN_BYTES (4 * 1024 * 1024)

static void
forward(struct tp_proxy *from, const struct relay_id *id, const char *host, unsigned port)
{
	char hex[RELAY_ID_HEX_LEN + 1];

	relay_id_format(id->bytes, hex);
	const char *reply = tp_control(from, "forward %s %s:%u 60", hex, host, port);
	CHECK_STR_EQ(reply, "ok");
}

/* Send CHAIN_BYTES from `from` to `to` (then half-close) and check what arrives. */
static void
send_and_check(int from, int to, uint8_t salt)
{
	static uint8_t out[CHAIN_BYTES], in[CHAIN_BYTES];

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 131 + salt + (i >> 12));
	/* Small enough to sit in the socket buffers and pipes while we read. */
	pid_t pid = fork();
	if (pid == 0)
		_exit(tp_write_all(from, out, sizeof(out)) == 0 && shutdown(from, SHUT_WR) == 0 ?
		    0 : 1);
	CHECK(tp_read_all(to, in, sizeof(in)) == 0);
	CHECK(memcmp(in, out, sizeof(in)) == 0);
	char extra;
	CHECK_INT_EQ(read(to, &extra, 1), 0); /* the half-close came through both proxies */
	int status = 1;
	waitpid(pid, &status, 0);
	CHECK_INT_EQ(status, 0);
}

static void
chain_relays_both_ways(bool near_leg_first)
{
	struct tp_proxy a, b;
	struct relay_id id;
	int leg_a, leg_b;

	tp_proxy_start(&b, NULL);
	tp_proxy_start(&a, NULL);
	tp_random_id(&id);
	tp_expect(&b, &id, 60);    /* the far proxy expects the id like any relay ... */
	forward(&a, &id, b.host, b.port); /* ... and the near one is told where to take it */
	if (near_leg_first) {
		leg_a = tp_leg(&a, &id);
		/* A's dial parks at B */
		CHECK_INT_EQ(tp_wait_stat(&b, "legs_waiting", 1, TP_STATE_WAIT_MS), 1);
		leg_b = tp_leg(&b, &id);
	} else {
		leg_b = tp_leg(&b, &id);
		CHECK_INT_EQ(tp_wait_stat(&b, "legs_waiting", 1, TP_STATE_WAIT_MS), 1);
		leg_a = tp_leg(&a, &id);
	}
	send_and_check(leg_a, leg_b, 1);
	send_and_check(leg_b, leg_a, 2);
	CHECK_INT_EQ(tp_wait_stat(&a, "relays_completed", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_wait_stat(&b, "relays_completed", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_stat(&a, "relays_forwarded"), 1);
	CHECK_INT_EQ(tp_stat(&b, "relays_forwarded"), 0);
	CHECK_INT_EQ(tp_stat(&a, "bytes_first_to_second"), CHAIN_BYTES);
	CHECK_INT_EQ(tp_stat(&b, "bytes_second_to_first"), CHAIN_BYTES);
	close(leg_a);
	close(leg_b);
	CHECK_INT_EQ(tp_proxy_stop(&a, false), 0);
	CHECK_INT_EQ(tp_proxy_stop(&b, false), 0);
}

static void
chain_works_when_the_near_leg_comes_first(void)
{
	chain_relays_both_ways(true);
}

static void
chain_works_when_the_far_leg_comes_first(void)
{
	chain_relays_both_ways(false);
}

static void
unreachable_next_hop_closes_the_leg(void)
{
	struct tp_proxy a;
	struct relay_id id;
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);

	/* A bound but not listening socket: its port refuses connections and stays ours. */
	int hole = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(bind(hole, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	CHECK(getsockname(hole, (struct sockaddr *)&sin, &len) == 0);
	tp_proxy_start(&a, NULL);
	tp_random_id(&id);
	forward(&a, &id, "127.0.0.1", ntohs(sin.sin_port));
	int leg = tp_leg(&a, &id);
	long ms = tp_wait_closed(leg, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < 1000);
	CHECK_INT_EQ(tp_wait_stat(&a, "forwards_failed", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_wait_stat(&a, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	close(leg);
	close(hole);
	CHECK_INT_EQ(tp_proxy_stop(&a, false), 0);
}

static void
next_hop_that_does_not_expect_the_id_ends_the_relay(void)
{
	struct tp_proxy a, b;
	struct relay_id id;

	/* B refuses the unannounced id after 200 ms (by default it waits 5 s for a late one) */
	static const char *const short_wait[] = { "-s", "proxy.unknown_id_wait_ms=200", NULL };
	tp_proxy_start(&b, short_wait);
	tp_proxy_start(&a, NULL);
	tp_random_id(&id); /* B was never told */
	forward(&a, &id, b.host, b.port);
	int leg = tp_leg(&a, &id);
	long ms = tp_wait_closed(leg, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < 1000);
	CHECK_INT_EQ(tp_wait_stat(&b, "ids_unknown", 1, TP_STATE_WAIT_MS), 1);
	/* B's close reached the leg as EOF; A keeps the other way open (half-close semantics)
	 * until the leg closes too. */
	close(leg);
	CHECK_INT_EQ(tp_wait_stat(&a, "relays_active", 0, TP_STATE_WAIT_MS), 0);
	CHECK_INT_EQ(tp_wait_stat(&a, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	CHECK_INT_EQ(tp_proxy_stop(&a, false), 0);
	CHECK_INT_EQ(tp_proxy_stop(&b, false), 0);
}

static void
forward_to_a_malformed_endpoint_is_refused(void)
{
	struct tp_proxy a;
	struct relay_id id;
	char hex[RELAY_ID_HEX_LEN + 1];

	tp_proxy_start(&a, NULL);
	tp_random_id(&id);
	relay_id_format(id.bytes, hex);
	CHECK(strncmp(tp_control(&a, "forward %s 127.0.0.1 60", hex), "error ", 6) == 0);
	CHECK(strncmp(tp_control(&a, "forward %s 127.0.0.1:99999 60", hex), "error ", 6) == 0);
	CHECK(strncmp(tp_control(&a, "forward %s 127.0.0.1:1 0", hex), "error ", 6) == 0);
	CHECK_INT_EQ(tp_stat(&a, "ids_expected"), 0);
	CHECK_INT_EQ(tp_proxy_stop(&a, false), 0);
}

int
main(void)
{
	alarm(60); /* watchdog: a hung case fails the test; the proxies die with it */
	RUN(chain_works_when_the_near_leg_comes_first);
	RUN(chain_works_when_the_far_leg_comes_first);
	RUN(unreachable_next_hop_closes_the_leg);
	RUN(next_hop_that_does_not_expect_the_id_ends_the_relay);
	RUN(forward_to_a_malformed_endpoint_is_refused);
	return check_exit();
}
