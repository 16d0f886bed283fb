/*
 * test_reservations.c: slots are reserved within capacity, on requested nodes and per-node
 * shares, lapse unless committed, belong to the DN that reserved them, launches follow their
 * reservation, and a committed one with a wall time is released with its launches once that
 * has passed since the commit. The clock is passed in, so nothing sleeps.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "reservations.h"

#define JANE "/O=Grid/CN=Jane"
#define ANN "/O=Grid/CN=Ann"

static struct resv_table *
table(void)
{
	static const struct fe_node nodes[] = {
		{ .name = "n1", .slots = 4 }, { .name = "n2", .slots = 4 }, { .name = "n3", .slots = 2 },
	};
	return resv_table_new(nodes, 3, 4, 8);
}

static enum resv_status
reserve(struct resv_table *t, double now, const char *dn, int slots, const char *const *nodes,
    size_t n, int per_node, long timeout, struct resv_grant *g, char *err)
{
	struct resv_request r = { dn, "acct", "job", slots, nodes, n, per_node, timeout, 0, NULL };
	return resv_reserve(t, now, &r, g, err, 256);
}

static void
reserve_fills_nodes_in_order_within_capacity(void)
{
	struct resv_table *t = table();
	struct resv_grant g;
	char err[256];
	CHECK_INT_EQ(reserve(t, 0, JANE, 6, NULL, 0, 0, 10, &g, err), RESV_OK);
	CHECK_INT_EQ(g.slot_count, 2);
	CHECK_STR_EQ(g.slot[0].node, "n1");
	CHECK_INT_EQ(g.slot[0].count, 4);
	CHECK_INT_EQ(g.slot[1].count, 2);
	CHECK_INT_EQ(strlen(g.id), 32);
	/* 10 slots in all: the 4 left are busy, not impossible; more than 10 never fit */
	CHECK_INT_EQ(reserve(t, 0, JANE, 5, NULL, 0, 0, 10, &g, err), RESV_BUSY);
	CHECK(strstr(err, "not enough free slots: 5 requested, 4 free") != NULL);
	CHECK(strstr(err, "held by other reservations") != NULL);
	CHECK_INT_EQ(reserve(t, 0, JANE, 11, NULL, 0, 0, 10, &g, err), RESV_NO_CAPACITY);
	CHECK(strstr(err, "never enough, even with nothing reserved") != NULL);
	CHECK_INT_EQ(resv_free_slots(t, 0, "n2"), 2);
	resv_table_free(t);
}

static void
requested_nodes_and_per_node_shares_are_honoured(void)
{
	struct resv_table *t = table();
	struct resv_grant g;
	char err[256];
	const char *const want[] = { "n3", "n2" };
	CHECK_INT_EQ(reserve(t, 0, JANE, 4, want, 2, 2, 10, &g, err), RESV_OK);
	CHECK_INT_EQ(g.slot_count, 2);
	CHECK_INT_EQ(resv_free_slots(t, 0, "n1"), 4);
	CHECK_INT_EQ(resv_free_slots(t, 0, "n2"), 2);
	CHECK_INT_EQ(resv_free_slots(t, 0, "n3"), 0);
	/* three per node: n1 can, n2 (2 free) cannot take a full share, n3 is full */
	CHECK_INT_EQ(reserve(t, 0, JANE, 6, NULL, 0, 3, 10, &g, err), RESV_BUSY);
	/* counted in nodes that can take a share, and said so (not "5 free": 3 + 2 slots) */
	CHECK(strstr(err, "not enough free slots: 6 requested as 3 per node (processesPerNode), "
	    "so on 2 nodes; 1 of the cluster's 3 nodes has 3 free") != NULL);
	CHECK_INT_EQ(reserve(t, 0, JANE, 3, NULL, 0, 3, 10, &g, err), RESV_OK);
	CHECK_STR_EQ(g.slot[0].node, "n1");
	/* three per node on n3 (2 slots) can never be: impossible, not busy */
	const char *const small[] = { "n3" };
	CHECK_INT_EQ(reserve(t, 0, JANE, 3, small, 1, 3, 10, &g, err), RESV_NO_CAPACITY);
	const char *const bad[] = { "n1", "n9" };
	CHECK_INT_EQ(reserve(t, 0, JANE, 1, bad, 2, 0, 10, &g, err), RESV_BAD_REQUEST);
	CHECK(strstr(err, "unknown node 'n9'") != NULL);
	const char *const twice[] = { "n1", "n1" };
	CHECK_INT_EQ(reserve(t, 0, JANE, 1, twice, 2, 0, 10, &g, err), RESV_BAD_REQUEST);
	CHECK_INT_EQ(reserve(t, 0, JANE, 0, NULL, 0, 0, 10, &g, err), RESV_BAD_REQUEST);
	resv_table_free(t);
}

static void
uncommitted_reservation_lapses_and_frees_its_slots(void)
{
	struct resv_table *t = table();
	struct resv_grant g, g2;
	char err[256];
	CHECK_INT_EQ(reserve(t, 100, JANE, 10, NULL, 0, 0, 5, &g, err), RESV_OK);
	CHECK_INT_EQ(reserve(t, 104.9, ANN, 1, NULL, 0, 0, 5, &g2, err), RESV_BUSY);
	CHECK_INT_EQ(reserve(t, 105, ANN, 10, NULL, 0, 0, 5, &g2, err), RESV_OK);
	CHECK_INT_EQ(resv_commit(t, 105, g.id, JANE, err, sizeof(err)), RESV_NOT_FOUND);
	CHECK(strstr(err, "expired before it was committed") != NULL);
	/* committed: no deadline any more */
	CHECK_INT_EQ(resv_commit(t, 106, g2.id, ANN, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_expire(t, 1e9), 0);
	CHECK_INT_EQ(resv_free_slots(t, 1e9, "n1"), 0);
	resv_table_free(t);
}

static void
reservations_belong_to_their_dn(void)
{
	struct resv_table *t = table();
	struct resv_grant g;
	struct resv_launch_info info[4];
	size_t n;
	char err[256];
	CHECK_INT_EQ(reserve(t, 0, JANE, 1, NULL, 0, 0, 10, &g, err), RESV_OK);
	CHECK_INT_EQ(resv_commit(t, 0, g.id, ANN, err, sizeof(err)), RESV_DENIED);
	CHECK_INT_EQ(resv_release(t, 0, g.id, ANN, info, 4, &n, err, sizeof(err)), RESV_DENIED);
	CHECK_INT_EQ(resv_release(t, 0, g.id, JANE, info, 4, &n, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_release(t, 0, g.id, JANE, info, 4, &n, err, sizeof(err)), RESV_NOT_FOUND);
	CHECK_INT_EQ(resv_commit(t, 0, "nonsense", JANE, err, sizeof(err)), RESV_NOT_FOUND);
	resv_table_free(t);
}

static void
launches_need_a_committed_reservation_on_the_node_and_go_with_release(void)
{
	struct resv_table *t = table();
	struct resv_grant g;
	struct resv_launch_info info, found, released[8];
	char err[256], id[RESV_ID_LEN], id2[RESV_ID_LEN];
	size_t n;
	CHECK_INT_EQ(reserve(t, 0, JANE, 2, NULL, 0, 0, 10, &g, err), RESV_OK);
	CHECK_INT_EQ(resv_launch_check(t, 0, g.id, JANE, "n1", &info, err, sizeof(err)), RESV_STATE);
	CHECK(strstr(err, "not committed") != NULL);
	resv_commit(t, 0, g.id, JANE, err, sizeof(err));
	CHECK_INT_EQ(resv_launch_check(t, 0, g.id, JANE, "n2", &info, err, sizeof(err)), RESV_STATE);
	CHECK(strstr(err, "holds no slots on node 'n2'") != NULL);
	CHECK_INT_EQ(resv_launch_check(t, 0, g.id, ANN, "n1", &info, err, sizeof(err)), RESV_DENIED);
	CHECK_INT_EQ(resv_launch_check(t, 0, g.id, JANE, "n1", &info, err, sizeof(err)), RESV_OK);
	CHECK_STR_EQ(info.account, "acct");
	snprintf(info.helper_launch_id, sizeof(info.helper_launch_id), "h-1");
	CHECK_INT_EQ(resv_launch_add(t, &info, id, err, sizeof(err)), RESV_OK);
	snprintf(info.helper_launch_id, sizeof(info.helper_launch_id), "h-2");
	CHECK_INT_EQ(resv_launch_add(t, &info, id2, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_launch_find(t, id, JANE, &found, err, sizeof(err)), RESV_OK);
	CHECK_STR_EQ(found.helper_launch_id, "h-1");
	CHECK_STR_EQ(found.node, "n1");
	CHECK_INT_EQ(resv_launch_find(t, id, ANN, &found, err, sizeof(err)), RESV_DENIED);
	CHECK_INT_EQ(resv_release(t, 0, g.id, JANE, released, 8, &n, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(n, 2);
	CHECK_INT_EQ(resv_launch_find(t, id, JANE, &found, err, sizeof(err)), RESV_NOT_FOUND);
	/* a launch that finishes starting after its reservation went is refused: kill it */
	CHECK_INT_EQ(resv_launch_add(t, &info, id, err, sizeof(err)), RESV_NOT_FOUND);
	resv_table_free(t);
}

static void
tables_are_bounded(void)
{
	struct resv_table *t = table(); /* 4 reservations, 8 launches */
	struct resv_grant g;
	char err[256];
	for (int i = 0; i < 4; i++)
		CHECK_INT_EQ(reserve(t, 0, JANE, 1, NULL, 0, 0, 10, &g, err), RESV_OK);
	CHECK_INT_EQ(reserve(t, 0, JANE, 1, NULL, 0, 0, 10, &g, err), RESV_FULL);
	CHECK(strstr(err, "4 reservations are live") != NULL);
	resv_table_free(t);
}

static void
walltime_releases_a_committed_reservation_and_its_launches(void)
{
	struct resv_table *t = table();
	struct resv_grant g, other;
	struct resv_launch_info info, killed[8];
	char err[256], id[RESV_ID_LEN], launch[RESV_ID_LEN];
	size_t n;
	struct resv_request r = { JANE, "acct", "job", 2, NULL, 0, 0, 10, 60, NULL };
	CHECK_INT_EQ(resv_reserve(t, 100, &r, &g, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(reserve(t, 100, JANE, 1, NULL, 0, 0, 10, &other, err), RESV_OK); /* no wall time */
	/* the wall time counts from the commit, not from the reservation */
	CHECK_INT_EQ(resv_commit(t, 105, g.id, JANE, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_commit(t, 105, other.id, JANE, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_launch_check(t, 106, g.id, JANE, "n1", &info, err, sizeof(err)), RESV_OK);
	snprintf(info.helper_launch_id, sizeof(info.helper_launch_id), "h-1");
	CHECK_INT_EQ(resv_launch_add(t, &info, launch, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_reap_due(t, 164.9, id, killed, 8, &n), 0);
	CHECK_INT_EQ(resv_free_slots(t, 164.9, "n1"), 1);
	CHECK_INT_EQ(resv_reap_due(t, 165, id, killed, 8, &n), 1);
	CHECK_STR_EQ(id, g.id);
	CHECK_INT_EQ(n, 1);
	CHECK_STR_EQ(killed[0].helper_launch_id, "h-1");
	CHECK_INT_EQ(resv_free_slots(t, 165, "n1"), 3); /* only the one without wall time holds */
	CHECK_INT_EQ(resv_reap_due(t, 1e9, id, killed, 8, &n), 0);
	/* the user hears why it is gone */
	CHECK_INT_EQ(resv_release(t, 166, g.id, JANE, killed, 8, &n, err, sizeof(err)),
	    RESV_NOT_FOUND);
	CHECK(strstr(err, "reached its wall time (60 s)") != NULL);
	CHECK_INT_EQ(resv_launch_find(t, launch, JANE, &info, err, sizeof(err)), RESV_NOT_FOUND);
	/* a wall time out of range is refused */
	r.walltime = RESV_WALLTIME_MAX + 1;
	CHECK_INT_EQ(resv_reserve(t, 100, &r, &g, err, sizeof(err)), RESV_BAD_REQUEST);
	CHECK(strstr(err, "wall time must be") != NULL);
	r.walltime = -1;
	CHECK_INT_EQ(resv_reserve(t, 100, &r, &g, err, sizeof(err)), RESV_BAD_REQUEST);
	resv_table_free(t);
}

static void
job_end_releases_its_reservations_after_a_grace(void)
{
	struct resv_table *t = table();
	struct resv_grant committed, pending, other;
	struct resv_launch_info killed[8];
	char err[256], id[RESV_ID_LEN];
	size_t n;
	CHECK_INT_EQ(reserve(t, 0, JANE, 2, NULL, 0, 0, 10, &committed, err), RESV_OK);
	CHECK_INT_EQ(reserve(t, 0, JANE, 1, NULL, 0, 0, 10, &pending, err), RESV_OK);
	struct resv_request r = { JANE, "acct", "another-job", 1, NULL, 0, 0, 10, 0, NULL };
	CHECK_INT_EQ(resv_reserve(t, 0, &r, &other, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_commit(t, 1, committed.id, JANE, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_commit(t, 1, other.id, JANE, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(resv_end_job(t, 2, "job", 30), 2);
	/* the uncommitted one went at once, the committed one holds through the grace */
	CHECK_INT_EQ(resv_commit(t, 2, pending.id, JANE, err, sizeof(err)), RESV_NOT_FOUND);
	CHECK(strstr(err, "its job job ended") != NULL);
	CHECK_INT_EQ(resv_reap_due(t, 31.9, id, killed, 8, &n), 0);
	CHECK_INT_EQ(resv_reap_due(t, 32, id, killed, 8, &n), 1);
	CHECK_STR_EQ(id, committed.id);
	CHECK_INT_EQ(resv_reap_due(t, 1e9, id, killed, 8, &n), 0); /* another job's stays */
	CHECK_INT_EQ(resv_release(t, 40, committed.id, JANE, killed, 8, &n, err, sizeof(err)),
	    RESV_NOT_FOUND);
	CHECK(strstr(err, "released by the front-end: its job job ended") != NULL);
	CHECK_INT_EQ(resv_release(t, 40, other.id, JANE, killed, 8, &n, err, sizeof(err)), RESV_OK);
	resv_table_free(t);
}

static void
nodes_whose_helper_is_gone_are_never_granted(void)
{
	struct resv_table *t = table();
	static struct helper_probe_result helpers; /* large for the stack */
	struct resv_grant g;
	char err[256];
	helpers.down[0] = true;
	snprintf(helpers.why[0], sizeof(helpers.why[0]), "its helper at x: Connection refused");
	/* any nodes: n1 is passed over, n2 and n3 take the slots */
	struct resv_request r = { JANE, "acct", "job", 6, NULL, 0, 0, 10, 0, &helpers };
	CHECK_INT_EQ(resv_reserve(t, 0, &r, &g, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(g.slot_count, 2);
	CHECK_STR_EQ(g.slot[0].node, "n2");
	CHECK_STR_EQ(g.slot[1].node, "n3");
	CHECK_INT_EQ(resv_free_slots(t, 0, "n1"), 4);
	/* more than the others hold: busy (n2 and n3 are), naming the node left out */
	r.slots = 1;
	CHECK_INT_EQ(resv_reserve(t, 0, &r, &g, err, sizeof(err)), RESV_BUSY);
	CHECK(strstr(err, "left out, their helper is gone: n1") != NULL);
	/* more than n2 and n3 have at all: impossible while n1's helper is gone */
	r.slots = 7;
	CHECK_INT_EQ(resv_reserve(t, 0, &r, &g, err, sizeof(err)), RESV_NO_CAPACITY);
	/* asked for by name: refused with the node and the reason */
	const char *const want[] = { "n1" };
	r.nodes = want;
	r.node_count = 1;
	CHECK_INT_EQ(resv_reserve(t, 0, &r, &g, err, sizeof(err)), RESV_NO_CAPACITY);
	CHECK_STR_EQ(err, "node n1 cannot be granted: its helper at x: Connection refused");
	resv_table_free(t);
}

/* A batch system's placement is held exactly; one that would not fit the table is refused
 * as it should be; a revoked reservation names its cause to later calls. */
static void
placed_reservations_hold_the_given_slots_and_revocation_names_its_cause(void)
{
	struct resv_table *t = table();
	struct resv_grant g, g2;
	struct resv_launch_info l[8];
	size_t n;
	char err[256];
	struct resv_request r = { JANE, "acct", "job", 3, NULL, 0, 0, 10, 0, NULL };
	const struct resv_slot placed[] = { { "n3", 2 }, { "n1", 1 } };
	CHECK_INT_EQ(resv_reserve_placed(t, 0, &r, placed, 2, &g, err, sizeof(err)), RESV_OK);
	CHECK_INT_EQ(g.slot_count, 2);
	CHECK_INT_EQ(resv_free_slots(t, 0, "n3"), 0);
	CHECK_INT_EQ(resv_free_slots(t, 0, "n1"), 3);
	CHECK(resv_is_live(t, 0, g.id));
	/* n3 is full now: the table says busy rather than double-booking it */
	const struct resv_slot again[] = { { "n3", 1 } };
	r.slots = 1;
	CHECK_INT_EQ(resv_reserve_placed(t, 0, &r, again, 1, &g2, err, sizeof(err)), RESV_BUSY);
	const struct resv_slot unknown[] = { { "n9", 1 } };
	CHECK_INT_EQ(resv_reserve_placed(t, 0, &r, unknown, 1, &g2, err, sizeof(err)),
	    RESV_BAD_REQUEST);
	CHECK(strstr(err, "n9") != NULL);
	const struct resv_slot too_many[] = { { "n3", 3 } };
	CHECK_INT_EQ(resv_reserve_placed(t, 0, &r, too_many, 1, &g2, err, sizeof(err)),
	    RESV_BAD_REQUEST);
	CHECK_INT_EQ(resv_revoke(t, 1, g.id, "node n3 of Slurm job 4 is drain", l, 8, &n), RESV_OK);
	CHECK(!resv_is_live(t, 1, g.id));
	CHECK_INT_EQ(resv_free_slots(t, 1, "n3"), 2);
	CHECK_INT_EQ(resv_commit(t, 1, g.id, JANE, err, sizeof(err)), RESV_NOT_FOUND);
	CHECK(strstr(err, "was revoked: node n3 of Slurm job 4 is drain") != NULL);
	CHECK_INT_EQ(resv_revoke(t, 1, g.id, "again", l, 8, &n), RESV_NOT_FOUND);
	resv_table_free(t);
}

int
main(void)
{
	RUN(reserve_fills_nodes_in_order_within_capacity);
	RUN(requested_nodes_and_per_node_shares_are_honoured);
	RUN(uncommitted_reservation_lapses_and_frees_its_slots);
	RUN(reservations_belong_to_their_dn);
	RUN(launches_need_a_committed_reservation_on_the_node_and_go_with_release);
	RUN(tables_are_bounded);
	RUN(walltime_releases_a_committed_reservation_and_its_launches);
	RUN(job_end_releases_its_reservations_after_a_grace);
	RUN(nodes_whose_helper_is_gone_are_never_granted);
	RUN(placed_reservations_hold_the_given_slots_and_revocation_names_its_cause);
	return check_exit();
}
