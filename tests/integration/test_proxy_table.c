/*
 * test_proxy_table.c: the relay id table's state machine (services/proxy/relay_table.c),
 * driven with made-up times and pipe descriptors standing in for legs; no proxy, no sleeping.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "relay_table.h"

#define PARTNER_MS 30000
#define USED_MS 60000

static struct relay_table *
new_table(size_t max_ids, bool accept_any)
{
	struct relay_table_limits limits = { .max_ids = max_ids, .partner_timeout_ms = PARTNER_MS,
		.used_ttl_ms = USED_MS, .accept_any_id = accept_any };

	return relay_table_create(&limits);
}

static struct relay_id
id_of(uint8_t n)
{
	struct relay_id id;

	memset(id.bytes, 0xa5, sizeof(id.bytes));
	id.bytes[15] = n;
	return id;
}

/* A descriptor to park: the read end of a fresh pipe (the table may close it). */
static int
fake_leg(void)
{
	int p[2];

	if (pipe(p) < 0)
		return -1;
	close(p[1]);
	return p[0];
}

static void
unannounced_id_is_unknown(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_id id = id_of(1);

	CHECK_INT_EQ(relay_table_claim(t, &id, 99, 1000, &r), RELAY_CLAIM_UNKNOWN);
	relay_table_destroy(t);
}

static void
two_legs_of_an_expected_id_are_joined_then_the_id_is_used(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_table_counts c;
	struct relay_id id = id_of(2);
	int first = fake_leg();

	CHECK_INT_EQ(relay_table_expect(t, &id, 10000, 1000), RELAY_TABLE_OK);
	CHECK_INT_EQ(relay_table_claim(t, &id, first, 1001, &r), RELAY_CLAIM_PARKED);
	relay_table_count(t, &c);
	CHECK_INT_EQ(c.waiting, 1);
	CHECK_INT_EQ(relay_table_claim(t, &id, 77, 1002, &r), RELAY_CLAIM_JOIN);
	CHECK_INT_EQ(r.partner_fd, first);
	CHECK_INT_EQ(relay_table_claim(t, &id, 78, 1003, &r), RELAY_CLAIM_REUSED);
	/* A used id cannot be announced again while it is remembered. */
	CHECK_INT_EQ(relay_table_expect(t, &id, 10000, 1004), RELAY_TABLE_IN_USE);
	relay_table_count(t, &c);
	CHECK_INT_EQ(c.waiting, 0);
	CHECK_INT_EQ(c.used, 1);
	close(first);
	relay_table_destroy(t);
}

static void
announcement_expires_after_its_ttl(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_id id = id_of(3);

	CHECK_INT_EQ(relay_table_expect(t, &id, 500, 1000), RELAY_TABLE_OK);
	CHECK_INT_EQ(relay_table_claim(t, &id, 5, 1500, &r), RELAY_CLAIM_UNKNOWN);
	relay_table_destroy(t);
}

static void
repeated_announcement_refreshes_the_ttl(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_id id = id_of(4);
	int leg = fake_leg();

	CHECK_INT_EQ(relay_table_expect(t, &id, 500, 1000), RELAY_TABLE_OK);
	CHECK_INT_EQ(relay_table_expect(t, &id, 500, 1400), RELAY_TABLE_OK);
	CHECK_INT_EQ(relay_table_claim(t, &id, leg, 1800, &r), RELAY_CLAIM_PARKED);
	relay_table_destroy(t); /* closes the parked leg */
}

static void
lonely_leg_is_handed_back_at_its_deadline_and_the_id_retired(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_id id = id_of(5);
	int fds[4], leg = fake_leg();

	CHECK_INT_EQ(relay_table_expect(t, &id, 100000, 1000), RELAY_TABLE_OK);
	CHECK_INT_EQ(relay_table_claim(t, &id, leg, 1000, &r), RELAY_CLAIM_PARKED);
	CHECK_INT_EQ(relay_table_expire(t, 1000 + PARTNER_MS - 1, fds, 4), 0);
	CHECK_INT_EQ(relay_table_expire(t, 1000 + PARTNER_MS, fds, 4), 1);
	CHECK_INT_EQ(fds[0], leg);
	close(leg);
	/* The late partner is refused, not parked for another round. */
	CHECK_INT_EQ(relay_table_claim(t, &id, 6, 1000 + PARTNER_MS + 1, &r), RELAY_CLAIM_REUSED);
	relay_table_destroy(t);
}

static void
expire_hands_back_lonely_legs_oldest_first_in_batches(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	int legs[5], fds[2];

	for (int i = 0; i < 5; i++) {
		struct relay_id id = id_of((uint8_t)(10 + i));
		legs[i] = fake_leg();
		relay_table_expect(t, &id, 100000, 0);
		CHECK_INT_EQ(relay_table_claim(t, &id, legs[i], (uint64_t)i * 10, &r),
		    RELAY_CLAIM_PARKED);
	}
	/* At PARTNER_MS + 25 the legs parked at 0, 10 and 20 are due, the others are not. */
	CHECK_INT_EQ(relay_table_expire(t, PARTNER_MS + 25, fds, 2), 2);
	CHECK(fds[0] == legs[0] && fds[1] == legs[1]);
	CHECK_INT_EQ(relay_table_expire(t, PARTNER_MS + 25, fds, 2), 1);
	CHECK(fds[0] == legs[2]);
	for (int i = 0; i < 3; i++)
		close(legs[i]);
	relay_table_destroy(t); /* closes legs[3] and legs[4] */
}

static void
forward_claim_returns_the_next_hop_once(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_id id = id_of(6);
	struct sockaddr_in hop = { .sin_family = AF_INET, .sin_port = htons(7301) };

	inet_pton(AF_INET, "192.0.2.7", &hop.sin_addr);
	CHECK_INT_EQ(relay_table_forward(t, &id, (struct sockaddr *)&hop, sizeof(hop), 1000, 0),
	    RELAY_TABLE_OK);
	/* An id announced for forwarding cannot also be expected here. */
	CHECK_INT_EQ(relay_table_expect(t, &id, 1000, 1), RELAY_TABLE_IN_USE);
	CHECK_INT_EQ(relay_table_claim(t, &id, 5, 2, &r), RELAY_CLAIM_FORWARD);
	CHECK_INT_EQ(r.next_hop_len, sizeof(hop));
	CHECK(memcmp(&r.next_hop, &hop, sizeof(hop)) == 0);
	CHECK_INT_EQ(relay_table_claim(t, &id, 6, 3, &r), RELAY_CLAIM_REUSED);
	relay_table_destroy(t);
}

static void
table_refuses_announcements_beyond_max_ids_until_some_expire(void)
{
	struct relay_table *t = new_table(3, false);

	for (uint8_t i = 0; i < 3; i++) {
		struct relay_id id = id_of(20 + i);
		CHECK_INT_EQ(relay_table_expect(t, &id, 100, 0), RELAY_TABLE_OK);
	}
	struct relay_id extra = id_of(30);
	CHECK_INT_EQ(relay_table_expect(t, &extra, 100, 50), RELAY_TABLE_FULL);
	CHECK_INT_EQ(relay_table_expect(t, &extra, 100, 100), RELAY_TABLE_OK); /* others expired */
	relay_table_destroy(t);
}

static void
accept_any_joins_unannounced_pairs_but_not_a_third_leg(void)
{
	struct relay_table *t = new_table(16, true);
	struct relay_claim_result r;
	struct relay_id id = id_of(40);
	int leg = fake_leg();

	CHECK_INT_EQ(relay_table_claim(t, &id, leg, 0, &r), RELAY_CLAIM_PARKED);
	CHECK_INT_EQ(relay_table_claim(t, &id, 8, 1, &r), RELAY_CLAIM_JOIN);
	CHECK_INT_EQ(r.partner_fd, leg);
	CHECK_INT_EQ(relay_table_claim(t, &id, 9, 2, &r), RELAY_CLAIM_REUSED);
	close(leg);
	relay_table_destroy(t);
}

static void
used_ids_are_forgotten_after_their_ttl(void)
{
	struct relay_table *t = new_table(16, false);
	struct relay_claim_result r;
	struct relay_table_counts c;
	struct relay_id id = id_of(50);
	int fds[1], leg = fake_leg();

	relay_table_expect(t, &id, 1000, 0);
	relay_table_claim(t, &id, leg, 0, &r);
	CHECK_INT_EQ(relay_table_claim(t, &id, 3, 1, &r), RELAY_CLAIM_JOIN);
	close(leg);
	relay_table_expire(t, 1 + USED_MS, fds, 1); /* the periodic sweep */
	relay_table_count(t, &c);
	CHECK_INT_EQ(c.used, 0);
	CHECK_INT_EQ(relay_table_claim(t, &id, 4, 2 + USED_MS, &r), RELAY_CLAIM_UNKNOWN);
	relay_table_destroy(t);
}

int
main(void)
{
	RUN(unannounced_id_is_unknown);
	RUN(two_legs_of_an_expected_id_are_joined_then_the_id_is_used);
	RUN(announcement_expires_after_its_ttl);
	RUN(repeated_announcement_refreshes_the_ttl);
	RUN(lonely_leg_is_handed_back_at_its_deadline_and_the_id_retired);
	RUN(expire_hands_back_lonely_legs_oldest_first_in_batches);
	RUN(forward_claim_returns_the_next_hop_once);
	RUN(table_refuses_announcements_beyond_max_ids_until_some_expire);
	RUN(accept_any_joins_unannounced_pairs_but_not_a_third_leg);
	RUN(used_ids_are_forgotten_after_their_ttl);
	return check_exit();
}
