/*
 * dl_frame.h: frame buffers of the delay line and the FIFO each link direction keeps them in.
 *
 * Frames are held while they "travel the wire", so the pool must cover delay x throughput. It
 * grows on demand up to a hard limit and recycles buffers through a free list, so the memory
 * in use follows the traffic rather than the worst case.
 */
#ifndef QCG_DL_FRAME_H
#define QCG_DL_FRAME_H

#include <linux/virtio_net.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every frame starts with the kernel's virtio-net header (the sockets use PACKET_VNET_HDR): it
 * says whether the frame is a GSO super-frame (one TCP send of up to 64 KiB that the kernel
 * would otherwise have cut into MTU-sized frames) and where a checksum left to the hardware
 * goes. Carrying super-frames whole is what lets one thread carry a gigabit WAN: the cost of
 * the delay line is per frame, not per byte. The header goes back to the kernel unchanged.
 */
#define DL_VNET_HDR_LEN ((uint32_t)sizeof(struct virtio_net_hdr))
/* A 1500-byte MTU frame plus Ethernet and VLAN headers, with room to spare. */
#define DL_FRAME_SMALL (DL_VNET_HDR_LEN + 1536u)
/* A GSO super-frame: a 64 KiB IP packet plus link headers. */
#define DL_FRAME_LARGE (DL_VNET_HDR_LEN + 65536u + 512u)
#define DL_FRAME_MAX DL_FRAME_LARGE
/* The pool counts buffers in small-buffer units: a large one costs this many. */
#define DL_FRAME_LARGE_UNITS ((DL_FRAME_LARGE + DL_FRAME_SMALL - 1) / DL_FRAME_SMALL)

struct dl_frame {
	struct dl_frame *next;         /* next frame in the FIFO or the free list */
	uint64_t due_ns;               /* CLOCK_MONOTONIC time at which it must be sent */
	uint32_t len;                  /* bytes used in data: header and frame */
	uint32_t wire_len;             /* bytes it takes on a wire (dl_frame_wire_len) */
	uint32_t cap;                  /* DL_FRAME_SMALL or DL_FRAME_LARGE */
	unsigned char data[];
};

struct dl_pool {
	struct dl_frame *free_small;   /* recycled buffers of each size */
	struct dl_frame *free_large;
	size_t allocated;              /* units ever allocated (in use + free) */
	size_t limit;                  /* hard cap on `allocated`, in units */
};

struct dl_fifo {
	struct dl_frame *head;         /* oldest frame: the next to leave */
	struct dl_frame *tail;         /* newest frame */
	size_t count;                  /* frames queued */
};

/* `limit` in small-buffer units (--pool-frames). */
void dl_pool_init(struct dl_pool *p, size_t limit);
/*
 * A buffer holding at least `size` bytes (at most DL_FRAME_LARGE) from the pool, or NULL when
 * the limit is reached or memory is exhausted.
 */
struct dl_frame *dl_pool_get(struct dl_pool *p, uint32_t size);
void dl_pool_put(struct dl_pool *p, struct dl_frame *f);
/* Release every free buffer (the ones still queued belong to their FIFO). */
void dl_pool_destroy(struct dl_pool *p);

/*
 * Bytes the frame `data` (`len` bytes, header included) puts on a real wire: a super-frame
 * is its segments, each with its own copy of the link, IP and TCP or UDP headers. This is what
 * a rate-limited link is charged; a frame that cannot be parsed is charged its own length.
 */
uint32_t dl_frame_wire_len(const unsigned char *data, uint32_t len);

void dl_fifo_push(struct dl_fifo *q, struct dl_frame *f);
/* Remove and return the head, or NULL when empty. */
struct dl_frame *dl_fifo_pop(struct dl_fifo *q);

#endif
