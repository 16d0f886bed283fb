/*
 * dl_line.h: the delay line engine. Every port is a pair of interfaces; each of its two
 * directions reads frames from one interface, holds them in a FIFO until the timing model
 * (dl_sched) says they are due, and writes them to the other interface.
 *
 * One thread serves all ports: epoll wakes it for arriving frames, one timerfd armed at the
 * earliest due time wakes it to send, and timer slack is set to 1 ns so that it wakes on time.
 */
#ifndef QCG_DL_LINE_H
#define QCG_DL_LINE_H

#include <stdint.h>
#include <stdio.h>

#include "dl_conf.h"
#include "dl_frame.h"
#include "dl_sched.h"

/* Frames one direction reads per wakeup, so that a flood on one port cannot starve the rest. */
#define DL_RECV_BATCH 256
/* How soon a send the kernel refused for lack of buffer is retried. */
#define DL_RETRY_NS 50000ULL

struct dl_stats {
	uint64_t rx_frames, rx_bytes;   /* frames read; bytes as on a wire (dl_frame_wire_len) */
	uint64_t rx_super;              /* of them GSO super-frames (several segments each) */
	uint64_t tx_frames, tx_bytes;   /* frames written after their delay; wire bytes */
	uint64_t drop_queue;            /* tail drops: the transmitter's queue was full */
	uint64_t drop_pool;             /* no frame buffer left */
	uint64_t drop_oversize;         /* longer than DL_FRAME_MAX */
	uint64_t drop_vnet;             /* super-frames the kernel could not describe */
	uint64_t drop_send;             /* the kernel rejected the frame */
	uint64_t late_sum_ns, late_max_ns; /* how late frames left beyond their due time */
};

struct dl_dir {
	char name[2 * IF_NAMESIZE + 4]; /* "in>out", for logs */
	int in_fd, out_fd;              /* packet sockets: read from, write to */
	struct dl_sched sched;          /* timing of this direction */
	struct dl_fifo fifo;            /* frames on the wire, oldest first */
	uint64_t retry_ns;              /* nonzero: the head send was refused, retry then */
	struct dl_stats st;
};

struct dl_line {
	struct dl_dir dirs[2 * DL_PORTS_MAX];
	size_t ndirs;
	int port_fds[2 * DL_PORTS_MAX]; /* the sockets, to close */
	size_t nfds;
	struct dl_pool pool;
	int epfd;                       /* epoll over sockets, timer, signals */
	int timerfd;                    /* armed at the earliest due time */
	uint64_t armed_ns;              /* what timerfd is armed for; 0 = disarmed */
};

/* Open every port of `c`. Returns 0, or -1 with the reason in err (nothing left open). */
int dl_line_open(struct dl_line *l, const struct dl_conf *c, char *err, size_t errlen);
/* Register an extra descriptor (signals, statistics timer) with the line's epoll. */
int dl_line_watch(struct dl_line *l, int fd, void *tag);
/*
 * Wait for events and serve them until one arrives for a descriptor registered with
 * dl_line_watch; returns its tag (or NULL on a fatal error, errno set).
 */
void *dl_line_run(struct dl_line *l);
/* Print one line of statistics per direction. */
void dl_line_print_stats(const struct dl_line *l, FILE *out);
void dl_line_close(struct dl_line *l);

uint64_t dl_now_ns(void);

#endif
