/*
 * relay_worker.h: one data-plane thread: its epoll loop, its listener, its legs and relays.
 *
 * Threading model: every worker has its own SO_REUSEPORT listener on the relay port, so the
 * kernel spreads incoming legs over the workers and no acceptor thread sits on the path of a
 * new leg. A worker reads a leg's hello, then asks the shared relay table what to do: a first
 * leg's socket is parked in the table (and leaves the worker's epoll), and whichever worker
 * reads the second hello takes it out and owns both sockets of the relay from then on. After
 * the join, a relay never touches shared state except its relaxed statistics counters.
 */
#ifndef QCG_RELAY_WORKER_H
#define QCG_RELAY_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "relay.h"
#include "relay_table.h"

/* Per-worker counters; relaxed atomics so relay_stats can read them from another thread. */
struct relay_counters {
	_Atomic uint64_t legs_accepted, legs_refused;
	_Atomic uint64_t relays_joined, relays_forwarded, relays_completed, relays_aborted;
	_Atomic uint64_t bytes[2]; /* [0] first -> second, [1] second -> first */
	_Atomic uint64_t hellos_rejected, ids_unknown, ids_late, ids_reused;
	_Atomic uint64_t timeouts_hello, timeouts_partner, forwards_failed;
};

/* What all workers share. */
struct relay_shared {
	struct relay_config cfg;
	struct relay_table *table;
	_Atomic long legs_open;     /* checked against cfg.max_legs at accept */
	_Atomic long relays_active;
	_Atomic long legs_unannounced; /* legs in the workers' unannounced lists (relay_leg.c) */
	_Atomic bool stopping;
};

/* What an epoll event points at. */
enum relay_tag_kind {
	TAG_LISTENER,
	TAG_WAKE,
	TAG_HELLO_IN,  /* a leg sending its hello */
	TAG_HELLO_OUT, /* our own leg to a next hop: connecting, then sending the hello */
	TAG_SESSION,   /* one socket of a joined relay */
};

struct relay_tag {
	enum relay_tag_kind kind;
	int side;    /* TAG_SESSION: which socket of the session */
	void *owner; /* the handshake or joined relay, NULL for the listener and wake */
};

struct relay_handshake;
struct relay_joined;
struct relay_unannounced;

struct relay_worker {
	struct relay_shared *shared;
	int index;
	pthread_t thread;
	int epfd;
	int wake_fd;            /* eventfd: relay_stop wakes the loop through it */
	int listen_fd;
	bool listener_paused;   /* out of descriptors: accepting stops until the next tick */
	struct relay_tag listen_tag, wake_tag;
	struct relay_counters counters;
	struct relay_handshake *hs_head, *hs_tail; /* FIFO, oldest (first to time out) first */
	struct relay_unannounced *un_head, *un_tail; /* legs whose id is not announced yet, FIFO
	                                              * (all wait the same time: deadline order) */
	struct relay_joined *joined;   /* every live relay of this worker */
	struct relay_joined *ready;    /* relays that spent their budget with bytes left */
	struct relay_joined *dead;     /* closed during this batch, freed after it */
	unsigned log_budget;           /* refusal log lines left in this tick */
	unsigned log_suppressed;
};

/* Set up a worker around an already listening socket, which it owns from then on (even on
 * failure, when it is closed); 0, or -1 with errno. */
int relay_worker_init(struct relay_worker *w, struct relay_shared *shared, int index,
    int listen_fd);

/* The thread body: loops until shared->stopping, then closes everything it owns. */
void *relay_worker_run(void *arg);

/* Make the worker's loop notice shared->stopping now. */
void relay_worker_wake(struct relay_worker *w);

/* Free what relay_worker_init allocated (after the thread has ended, or if it never ran). */
void relay_worker_destroy(struct relay_worker *w);

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t relay_now_ms(void);

/* Close a leg's socket and give its slot back to the max_legs budget. */
void relay_worker_close_leg(struct relay_worker *w, int fd);

/* Log why a leg was refused, at most a few lines per tick so a flood cannot flood the log. */
void relay_worker_log_refusal(struct relay_worker *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define RELAY_COUNT(w, field, n) \
	atomic_fetch_add_explicit(&(w)->counters.field, (uint64_t)(n), memory_order_relaxed)

/* relay_leg.c: legs before they are joined (hello in, hello out to a next hop). */
void relay_leg_accepted(struct relay_worker *w, int fd, uint64_t now_ms);
/* Whether the leg on fd asked for the peer-gone mark in its hello (relay_hello.h); kept by fd
 * from its hello (or dial) to its join. */
bool relay_leg_wants_mark(int fd);
/* Whether the leg on fd leads to another proxy (its hello was chained, or we dialed it). */
bool relay_leg_is_hop(int fd);
void relay_leg_event(struct relay_worker *w, struct relay_tag *tag, uint32_t events,
    uint64_t now_ms);
void relay_leg_expire(struct relay_worker *w, uint64_t now_ms);
/* Claim the unannounced legs again (after a wake: an announcement came) and refuse those
 * whose wait is over. */
void relay_leg_recheck_unannounced(struct relay_worker *w, uint64_t now_ms);
void relay_leg_close_all(struct relay_worker *w);

/* relay_join.c: joined relays. */
void relay_join(struct relay_worker *w, int fd_first, int fd_second, const struct relay_id *id,
    bool forwarded);
void relay_join_event(struct relay_worker *w, struct relay_tag *tag, uint32_t events);
void relay_join_run_ready(struct relay_worker *w);
void relay_join_free_dead(struct relay_worker *w);
void relay_join_close_all(struct relay_worker *w);

#endif
