/*
 * test_proxy_refuse.c: qcg-proxy closes the legs it must not relay, at once or on time.
 *
 * Each case runs its own qcg-proxy on loopback. "At once" means well under the partner
 * timeout, which these cases set to 10 s so that a refusal cannot be mistaken for a timeout.
 * A leg of an unannounced id waits 200 ms for its announcement here (5 s by default) before it
 * is refused, which is still "at once" (tests/net/test_relay_unannounced.c tests the wait).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "test_proxy_util.h"

#define AT_ONCE_MS 1000 /* generous for a loaded machine, far below the 10 s partner timeout */

static const char *const long_timeouts[] = { "-s", "proxy.partner_timeout_ms=10000",
	"-s", "proxy.hello_timeout_ms=10000", "-s", "proxy.unknown_id_wait_ms=200", NULL };

static void
unknown_id_is_closed_at_once(void)
{
	struct tp_proxy p;
	struct relay_id id;

	tp_proxy_start(&p, long_timeouts);
	tp_random_id(&id); /* never announced */
	int fd = tp_leg(&p, &id);
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "ids_unknown", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_stat(&p, "legs_waiting"), 0);
	close(fd);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
bad_magic_is_closed_at_once(void)
{
	struct tp_proxy p;
	const char http[] = "GET / HTTP/1.0\r\n\r\n";

	tp_proxy_start(&p, long_timeouts);
	int fd = tp_connect(p.host, p.port);
	CHECK(fd >= 0 && tp_write_all(fd, http, sizeof(http) - 1) == 0);
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "hellos_rejected", 1, TP_STATE_WAIT_MS), 1);
	close(fd);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
bad_version_is_closed_at_once(void)
{
	struct tp_proxy p;
	struct relay_id id;
	uint8_t hello[RELAY_HELLO_SIZE];

	tp_proxy_start(&p, long_timeouts);
	tp_random_id(&id);
	tp_expect(&p, &id, 60); /* even a usable id does not excuse a bad hello */
	relay_hello_encode(hello, &id, 0);
	hello[4] = RELAY_HELLO_VERSION + 1;
	int fd = tp_connect(p.host, p.port);
	CHECK(fd >= 0 && tp_write_all(fd, hello, sizeof(hello)) == 0);
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "hellos_rejected", 1, TP_STATE_WAIT_MS), 1);
	close(fd);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
reused_id_is_closed_at_once(void)
{
	struct tp_proxy p;
	struct relay_id id;
	char byte = 'x';

	tp_proxy_start(&p, long_timeouts);
	tp_random_id(&id);
	tp_expect(&p, &id, 60);
	int a = tp_leg(&p, &id), b = tp_leg(&p, &id);
	/* The pair is joined: a byte goes through. */
	CHECK(tp_write_all(a, &byte, 1) == 0 && tp_read_all(b, &byte, 1) == 0 && byte == 'x');
	int third = tp_leg(&p, &id); /* while the relay runs */
	long ms = tp_wait_closed(third, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	close(third);
	close(a);
	close(b);
	CHECK_INT_EQ(tp_wait_stat(&p, "relays_active", 0, TP_STATE_WAIT_MS), 0);
	int fourth = tp_leg(&p, &id); /* after it ended */
	ms = tp_wait_closed(fourth, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	close(fourth);
	CHECK_INT_EQ(tp_wait_stat(&p, "ids_reused", 2, TP_STATE_WAIT_MS), 2);
	CHECK_INT_EQ(tp_stat(&p, "relays_joined"), 1);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
lonely_leg_times_out_and_late_partner_is_refused(void)
{
	static const char *const args[] = { "-s", "proxy.partner_timeout_ms=300", NULL };
	struct tp_proxy p;
	struct relay_id id;

	tp_proxy_start(&p, args);
	tp_random_id(&id);
	tp_expect(&p, &id, 60);
	int fd = tp_leg(&p, &id);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_waiting", 1, TP_STATE_WAIT_MS), 1);
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	/* Not before the timeout, and not much after it (timer granularity is 50 ms). */
	CHECK(ms >= 250 && ms < 300 + AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "timeouts_partner", 1, TP_STATE_WAIT_MS), 1);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	close(fd);
	int late = tp_leg(&p, &id);
	ms = tp_wait_closed(late, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	close(late);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
slow_hello_times_out(void)
{
	static const char *const args[] = { "-s", "proxy.hello_timeout_ms=300", NULL };
	struct tp_proxy p;
	struct relay_id id;
	uint8_t hello[RELAY_HELLO_SIZE];

	tp_proxy_start(&p, args);
	tp_random_id(&id);
	tp_expect(&p, &id, 60);
	relay_hello_encode(hello, &id, 0);
	int fd = tp_connect(p.host, p.port);
	CHECK(fd >= 0 && tp_write_all(fd, hello, 10) == 0); /* and then nothing: slowloris */
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 250 && ms < 300 + AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "timeouts_hello", 1, TP_STATE_WAIT_MS), 1);
	close(fd);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
legs_beyond_max_legs_are_refused(void)
{
	static const char *const args[] = { "-s", "proxy.max_legs=4", "-s",
		"proxy.hello_timeout_ms=10000", NULL };
	struct tp_proxy p;
	int fds[4];

	tp_proxy_start(&p, args);
	for (int i = 0; i < 4; i++)
		fds[i] = tp_connect(p.host, p.port); /* silent legs hold their slots */
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_open", 4, TP_STATE_WAIT_MS), 4);
	int extra = tp_connect(p.host, p.port);
	long ms = tp_wait_closed(extra, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_refused", 1, TP_STATE_WAIT_MS), 1);
	close(extra);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
	CHECK_INT_EQ(tp_wait_stat(&p, "legs_open", 0, TP_STATE_WAIT_MS), 0);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

static void
expired_announcement_is_unknown(void)
{
	struct tp_proxy p;
	struct relay_id id;

	tp_proxy_start(&p, long_timeouts);
	tp_random_id(&id);
	tp_expect(&p, &id, 1);
	usleep(1100 * 1000);
	int fd = tp_leg(&p, &id);
	long ms = tp_wait_closed(fd, TP_STATE_WAIT_MS, NULL);
	CHECK(ms >= 0 && ms < AT_ONCE_MS);
	CHECK_INT_EQ(tp_wait_stat(&p, "ids_unknown", 1, TP_STATE_WAIT_MS), 1);
	close(fd);
	CHECK_INT_EQ(tp_proxy_stop(&p, false), 0);
}

int
main(void)
{
	alarm(60); /* watchdog: a hung case fails the test; the proxies die with it */
	RUN(unknown_id_is_closed_at_once);
	RUN(bad_magic_is_closed_at_once);
	RUN(bad_version_is_closed_at_once);
	RUN(reused_id_is_closed_at_once);
	RUN(lonely_leg_times_out_and_late_partner_is_refused);
	RUN(slow_hello_times_out);
	RUN(legs_beyond_max_legs_are_refused);
	RUN(expired_announcement_is_unknown);
	return check_exit();
}
