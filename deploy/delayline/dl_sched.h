/*
 * dl_sched.h: the timing model of one direction of an emulated WAN link.
 *
 * A link is a transmitter of `rate` bits per second followed by a wire of constant one-way
 * `delay`. A frame arriving at `now` starts transmission when the transmitter is free, ends it
 * len*8/rate later, and is delivered `delay` after that. Frames therefore leave in the order they
 * arrived. The transmitter's queue holds at most `queue_limit` bytes; a frame that would exceed
 * it is dropped (tail drop, as a router would). An idle link never drops.
 *
 * Pure arithmetic on nanosecond timestamps: no I/O, so it is unit-tested without sockets.
 */
#ifndef QCG_DL_SCHED_H
#define QCG_DL_SCHED_H

#include <stdint.h>

#define DL_NSEC_PER_SEC 1000000000ULL
/* Bounds that keep every product below 2^64 (see dl_sched_admit). */
#define DL_DELAY_MAX_NS (60ULL * DL_NSEC_PER_SEC)  /* one minute */
#define DL_RATE_MAX_BPS (400ULL * 1000 * 1000 * 1000) /* 400 Gbit/s */
#define DL_QUEUE_MAX_BYTES (256ULL << 20)            /* 256 MiB */

struct dl_sched {
	uint64_t delay_ns;    /* constant one-way propagation delay */
	uint64_t rate_bps;    /* transmitter rate in bit/s; 0 = unlimited */
	uint64_t queue_limit; /* bytes the transmitter may hold waiting; used only with a rate */
	uint64_t tx_free_ns;  /* when the transmitter finishes the last admitted frame */
	uint64_t last_due_ns; /* delivery time of the last admitted frame (keeps order) */
};

/* Set up `s` for the given delay (ns), rate (bit/s, 0 = unlimited) and queue limit (bytes). */
void dl_sched_init(struct dl_sched *s, uint64_t delay_ns, uint64_t rate_bps, uint64_t queue_limit);

/*
 * Admit a frame of `len` bytes arriving at `now_ns`. On success returns 0 and stores in *due_ns
 * the time it must leave the delay line (never earlier than the previous frame's). Returns -1,
 * leaving the state unchanged, when the transmitter's queue would exceed its limit.
 */
int dl_sched_admit(struct dl_sched *s, uint64_t now_ns, uint32_t len, uint64_t *due_ns);

/* Bytes waiting for the transmitter at `now_ns` (0 without a rate). */
uint64_t dl_sched_backlog(const struct dl_sched *s, uint64_t now_ns);

#endif
