/*
 * dl_frame.h: frame buffers of the delay line and the FIFO each link direction keeps them in.
 *
 * Frames are held while they "travel the wire", so the pool must cover delay x throughput. It
 * grows on demand up to a hard limit and recycles buffers through a free list, so the memory
 * in use follows the traffic rather than the worst case.
 */
#ifndef QCG_DL_FRAME_H
#define QCG_DL_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* Largest frame carried: a 1500-byte MTU plus Ethernet and VLAN headers, with room to spare. */
#define DL_FRAME_MAX 1536

struct dl_frame {
	struct dl_frame *next;         /* next frame in the FIFO or the free list */
	uint64_t due_ns;               /* CLOCK_MONOTONIC time at which it must be sent */
	uint32_t len;                  /* bytes used in data */
	unsigned char data[DL_FRAME_MAX];
};

struct dl_pool {
	struct dl_frame *free;         /* recycled buffers */
	size_t allocated;              /* buffers ever allocated (in use + free) */
	size_t limit;                  /* hard cap on `allocated` */
};

struct dl_fifo {
	struct dl_frame *head;         /* oldest frame: the next to leave */
	struct dl_frame *tail;         /* newest frame */
	size_t count;                  /* frames queued */
};

void dl_pool_init(struct dl_pool *p, size_t limit);
/* A buffer from the pool, or NULL when `limit` buffers are all in use or memory is exhausted. */
struct dl_frame *dl_pool_get(struct dl_pool *p);
void dl_pool_put(struct dl_pool *p, struct dl_frame *f);
/* Release every free buffer (the ones still queued belong to their FIFO). */
void dl_pool_destroy(struct dl_pool *p);

void dl_fifo_push(struct dl_fifo *q, struct dl_frame *f);
/* Remove and return the head, or NULL when empty. */
struct dl_frame *dl_fifo_pop(struct dl_fifo *q);

#endif
