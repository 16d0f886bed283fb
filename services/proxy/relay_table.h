/*
 * relay_table.h: which relay ids this proxy will serve, and the legs waiting for a partner.
 *
 * An id lives through these states:
 *
 *   (absent) --expect--> EXPECTED --first leg--> WAITING --second leg--> USED --ttl--> (absent)
 *   (absent) --forward-> FORWARD  --the leg----> USED (the proxy dials the next hop itself)
 *   EXPECTED/FORWARD --ttl--> (absent)        WAITING --partner timeout--> USED
 *
 * A leg whose id is absent is refused ("unknown"), one whose id is USED is refused ("reused").
 * USED entries are tombstones kept for a while only so that the refusal names the right reason
 * and so that --accept-any-id (tests and benchmarks) cannot join a third leg to a finished
 * relay; once they expire the id is simply unknown, which is refused just the same.
 *
 * A WAITING entry owns its leg's socket (parked_fd): the worker thread that read the first
 * hello gives the socket up here, and whichever worker reads the second hello takes it back
 * out, so both legs of a relay end up in the same worker's epoll even when SO_REUSEPORT put
 * them on different threads. This table is the only state worker threads share, and they touch
 * it once per hello, never per byte; one mutex is enough.
 *
 * Every function takes `now_ms`, a CLOCK_MONOTONIC time in milliseconds, so the state machine
 * can be tested without sleeping.
 */
#ifndef QCG_RELAY_TABLE_H
#define QCG_RELAY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "relay_hello.h"

struct relay_table;

/* Limits and timeouts of a table. */
struct relay_table_limits {
	size_t max_ids;              /* hard cap on entries in any state */
	uint64_t partner_timeout_ms; /* how long a first leg waits for its partner */
	uint64_t used_ttl_ms;        /* how long a used id is remembered as used */
	bool accept_any_id;          /* INSECURE, tests only: an absent id counts as expected */
};

/* Results of the table's operations. Negative values are errors. */
enum relay_table_result {
	RELAY_TABLE_OK = 0,
	RELAY_TABLE_FULL = -1,   /* max_ids entries exist already */
	RELAY_TABLE_IN_USE = -2, /* the id already has a leg, or was used */
	RELAY_TABLE_NOMEM = -3,
};

/* What to do with a leg whose hello named an id. */
enum relay_claim {
	RELAY_CLAIM_PARKED,  /* first leg: the table now owns its socket */
	RELAY_CLAIM_JOIN,    /* second leg: join it with the returned partner socket */
	RELAY_CLAIM_FORWARD, /* connect to the returned next hop and join with that */
	RELAY_CLAIM_UNKNOWN, /* nobody announced this id: close the leg */
	RELAY_CLAIM_REUSED,  /* this id was used already: close the leg */
	RELAY_CLAIM_FULL,    /* accept-any mode only: no room to remember the id */
};

/* The answer to a claim that is not a refusal. */
struct relay_claim_result {
	int partner_fd;                   /* RELAY_CLAIM_JOIN: the parked first leg */
	struct sockaddr_storage next_hop; /* RELAY_CLAIM_FORWARD: where to connect */
	socklen_t next_hop_len;
};

/* Create an empty table; NULL when out of memory. */
struct relay_table *relay_table_create(const struct relay_table_limits *limits);
/* Close every parked socket and free the table. */
void relay_table_destroy(struct relay_table *table);

/* Announce that two legs with `id` may meet here within ttl_ms. Refreshes a pending
 * announcement; RELAY_TABLE_IN_USE when a leg already arrived or the id was used. */
enum relay_table_result relay_table_expect(struct relay_table *table, const struct relay_id *id,
    uint64_t ttl_ms, uint64_t now_ms);

/* Announce that the one leg with `id` that arrives within ttl_ms is to be forwarded to
 * `next_hop`. Same errors as relay_table_expect. */
enum relay_table_result relay_table_forward(struct relay_table *table, const struct relay_id *id,
    const struct sockaddr *next_hop, socklen_t next_hop_len, uint64_t ttl_ms, uint64_t now_ms);

/* Decide what happens to a leg whose socket `fd` presented `id`. On RELAY_CLAIM_PARKED the
 * table owns fd; in every other case the caller still does. */
enum relay_claim relay_table_claim(struct relay_table *table, const struct relay_id *id, int fd,
    uint64_t now_ms, struct relay_claim_result *result);

/* Remove what has expired. Parked legs whose partner did not come in time are handed back in
 * fds (at most max_fds per call; call again while it returns max_fds) for the caller to close.
 * Returns the number of sockets written to fds. */
size_t relay_table_expire(struct relay_table *table, uint64_t now_ms, int *fds, size_t max_fds);

/* Entries in each state, for statistics. */
struct relay_table_counts {
	size_t expected, forward, waiting, used;
};
void relay_table_count(struct relay_table *table, struct relay_table_counts *out);

/* A short description of a result or claim, for logs and replies. */
const char *relay_table_result_name(enum relay_table_result result);
const char *relay_claim_name(enum relay_claim claim);

#endif
