/*
 * test_relay_unannounced.c: a relay leg that reaches qcg-proxy before the proxy has learnt its
 * relay id waits for the announcement instead of being refused, in every arrival order.
 *
 * Why: the broker answers the initiator's Resolve, and tells the target's helper (through its
 * front-end) and the proxy (its own long poll) on separate paths. On the testbed a target
 * helper's leg came first, was closed as "unknown relay id", and was never retried; the
 * initiator's leg waited for the partner timeout and was closed with the application's first
 * bytes unread, a reset (examples.test: "btl_tcp recv failed: Connection reset by peer" on
 * c2, then a hang). Each case runs its own qcg-proxy on loopback; announcements go through its
 * control socket, which is what the broker link calls too (relay_expect, relay_forward).
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "test_proxy_util.h"

#define LATE_MS 300      /* how late the announcement comes: far above a loopback round trip */
#define STRESS_RELAYS 24 /* relays whose announcement races both legs at once */
#define STRESS_BYTES (128 * 1024)

/* id as hex, for control lines. */
static const char *
hex_of(const struct relay_id *id)
{
	static char hex[RELAY_ID_HEX_LEN + 1];
	relay_id_format(id->bytes, hex);
	return hex;
}

/* Bytes a -> b and b -> a, small enough for the socket buffers (no writer thread needed). */
static void
exchange(int a, int b, uint8_t salt)
{
	uint8_t out[4096], in[4096];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + salt);
	CHECK(tp_write_all(a, out, sizeof(out)) == 0 && tp_read_all(b, in, sizeof(in)) == 0 &&
	    memcmp(in, out, sizeof(in)) == 0);
	out[0] ^= 0xff;
	CHECK(tp_write_all(b, out, sizeof(out)) == 0 && tp_read_all(a, in, sizeof(in)) == 0 &&
	    memcmp(in, out, sizeof(in)) == 0);
}

/* The target's leg first, then the announcement, then the initiator's: the old refusal. */
static void
leg_before_announcement_is_kept_and_joined(void)
{
	struct tp_proxy p;
	struct relay_id id;

	tp_proxy_start(&p, NULL); /* the default wait */
	tp_random_id(&id);
	int early = tp_leg(&p, &id);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_unannounced", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_wait_closed(early, LATE_MS, NULL), -1); /* not refused meanwhile */
	tp_expect(&p, &id, 60);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_waiting", 1, TP_STATE_WAIT_MS), 1);
	int late = tp_leg(&p, &id);
	exchange(early, late, 1);
	CHECK_INT_EQ(tp_stat(&p, "ids_late"), 1);
	CHECK_INT_EQ(tp_stat(&p, "ids_unknown"), 0);
	CHECK_INT_EQ(tp_stat(&p, "legs_unannounced"), 0);
	close(early);
	close(late);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

/* Both legs first (each may sit on another worker), then the announcement. */
static void
both_legs_before_announcement_are_joined(void)
{
	struct tp_proxy p;
	struct relay_id id;

	tp_proxy_start(&p, NULL);
	tp_random_id(&id);
	int a = tp_leg(&p, &id), b = tp_leg(&p, &id);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_unannounced", 2, TP_STATE_WAIT_MS), 2);
	usleep(LATE_MS * 1000);
	long long t0 = tp_now_ms();
	tp_expect(&p, &id, 60);
	exchange(a, b, 2);
	CHECK(tp_now_ms() - t0 < 1000); /* woken by the announcement, not a slow poll */
	CHECK_INT_EQ(tp_stat(&p, "ids_late"), 2);
	CHECK_INT_EQ(tp_stat(&p, "relays_joined"), 1);
	close(a);
	close(b);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

/* An id nobody announces is still refused: after the wait, not before it. */
static void
never_announced_leg_is_refused_after_the_wait(void)
{
	static const char *const wait_500[] = { "-s", "proxy.unknown_id_wait_ms=500", NULL };
	struct tp_proxy p;
	struct relay_id id;

	tp_proxy_start(&p, wait_500);
	tp_random_id(&id);
	int fd = tp_leg(&p, &id);
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 400 && ms < 2000);
	CHECK_INT_EQ(tp_wait_stat(&p, "ids_unknown", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_stat(&p, "legs_unannounced"), 0);
	/* the proxy counts the leg closed after close(): we may see the close first */
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	close(fd);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

/* A chain whose far proxy learns the id after the near proxy's dial arrived there. */
static void
forwarded_leg_waits_for_the_next_hop_announcement(void)
{
	struct tp_proxy a, b;
	struct relay_id id;

	tp_proxy_start(&b, NULL);
	tp_proxy_start(&a, NULL);
	tp_random_id(&id);
	CHECK_STR_EQ(tp_control(&a, "forward %s %s:%u 60", hex_of(&id), b.host, b.port), "ok");
	int near = tp_leg(&a, &id);
	CHECK_INT_EQ(tp_wait_stat(&b, "legs_unannounced", 1, TP_STATE_WAIT_MS), 1);
	usleep(LATE_MS * 1000);
	tp_expect(&b, &id, 60);
	int far = tp_leg(&b, &id);
	exchange(near, far, 3);
	CHECK_INT_EQ(tp_stat(&b, "ids_late"), 1);
	close(near);
	close(far);
	CHECK_INT_EQ(tp_proxy_stop(&a, false), 0);
	CHECK_INT_EQ(tp_proxy_stop(&b, false), 0);
}

/* One relay of the stress case: both legs connect at the same moment, each sends a stream
 * and checks every byte of the other's. */
struct stress_relay {
	struct tp_proxy *p;
	struct relay_id id;
	int side;          /* 0 or 1 */
	pthread_barrier_t *go;
	int ok;
};

static void *
stress_leg(void *arg)
{
	struct stress_relay *r = arg;
	uint8_t *out = malloc(STRESS_BYTES), *in = malloc(STRESS_BYTES);
	pthread_barrier_wait(r->go);
	if (out == NULL || in == NULL) {
		free(out);
		free(in);
		return NULL; /* r->ok stays 0 */
	}
	int fd = tp_leg(r->p, &r->id);
	for (size_t i = 0; i < STRESS_BYTES; i++)
		out[i] = (uint8_t)(i * 31 + r->id.bytes[0] + r->side);
	/* Both sides write everything before reading: 128 KiB fits in the proxy's 256 KiB pipe
	 * of that direction, so neither writer can block on the other's reading. */
	r->ok = tp_write_all(fd, out, STRESS_BYTES) == 0 && shutdown(fd, SHUT_WR) == 0 &&
	    tp_read_all(fd, in, STRESS_BYTES) == 0;
	for (size_t i = 0; r->ok && i < STRESS_BYTES; i++)
		r->ok = in[i] == (uint8_t)(i * 31 + r->id.bytes[0] + (1 - r->side));
	close(fd);
	free(out);
	free(in);
	return NULL;
}

/* Many relays at once, both legs of each connecting together while the announcements go out
 * from another thread in the middle of them: every relay carries every byte both ways. */
static void
many_relays_racing_their_announcements_carry_every_byte(void)
{
	struct tp_proxy p;
	static struct stress_relay legs[STRESS_RELAYS][2];
	pthread_t t[STRESS_RELAYS][2];
	pthread_barrier_t go;

	tp_proxy_start(&p, NULL);
	pthread_barrier_init(&go, NULL, 2 * STRESS_RELAYS + 1);
	for (int i = 0; i < STRESS_RELAYS; i++) {
		struct relay_id id;
		tp_random_id(&id);
		if (i % 3 == 0)
			tp_expect(&p, &id, 60); /* a third announced before, as usual */
		for (int s = 0; s < 2; s++) {
			legs[i][s] = (struct stress_relay){ &p, id, s, &go, 0 };
			CHECK_INT_EQ(pthread_create(&t[i][s], NULL, stress_leg, &legs[i][s]), 0);
		}
	}
	pthread_barrier_wait(&go);
	for (int i = 0; i < STRESS_RELAYS; i++) {
		if (i % 3 != 0)
			tp_expect(&p, &legs[i][0].id, 60);
		if (i % 4 == 0)
			usleep(20 * 1000);
	}
	int ok = 0;
	for (int i = 0; i < STRESS_RELAYS; i++)
		for (int s = 0; s < 2; s++) {
			pthread_join(t[i][s], NULL);
			ok += legs[i][s].ok;
		}
	CHECK_INT_EQ(ok, 2 * STRESS_RELAYS);
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_completed", STRESS_RELAYS, TP_STATE_WAIT_MS),
	    STRESS_RELAYS);
	CHECK_INT_EQ(tp_stat(&p, "ids_unknown"), 0);
	pthread_barrier_destroy(&go);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

int
main(void)
{
	alarm(90); /* watchdog: a hung case fails the test; the proxies die with it */
	RUN(leg_before_announcement_is_kept_and_joined);
	RUN(both_legs_before_announcement_are_joined);
	RUN(never_announced_leg_is_refused_after_the_wait);
	RUN(forwarded_leg_waits_for_the_next_hop_announcement);
	RUN(many_relays_racing_their_announcements_carry_every_byte);
	return check_exit();
}
