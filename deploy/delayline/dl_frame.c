/*
 * dl_frame.c: frame pool and FIFO of the delay line (see dl_frame.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dl_frame.h"

void
dl_pool_init(struct dl_pool *p, size_t limit)
{
	p->free_small = p->free_large = NULL;
	p->allocated = 0;
	p->limit = limit;
}

struct dl_frame *
dl_pool_get(struct dl_pool *p, uint32_t size)
{
	int large = size > DL_FRAME_SMALL;
	struct dl_frame **free_list = large ? &p->free_large : &p->free_small;
	size_t units = large ? DL_FRAME_LARGE_UNITS : 1;
	uint32_t cap = large ? DL_FRAME_LARGE : DL_FRAME_SMALL;
	struct dl_frame *f = *free_list;

	if (size > DL_FRAME_LARGE)
		return NULL;
	if (f != NULL) {
		*free_list = f->next;
		return f;
	}
	if (p->allocated + units > p->limit)
		return NULL;
	f = malloc(sizeof(*f) + cap);
	if (f == NULL)
		return NULL;
	f->cap = cap;
	p->allocated += units;
	return f;
}

void
dl_pool_put(struct dl_pool *p, struct dl_frame *f)
{
	struct dl_frame **free_list = f->cap == DL_FRAME_LARGE ? &p->free_large : &p->free_small;

	f->next = *free_list;
	*free_list = f;
}

static void
dl_pool_free_list(struct dl_pool *p, struct dl_frame **free_list)
{
	while (*free_list != NULL) {
		struct dl_frame *f = *free_list;

		*free_list = f->next;
		p->allocated -= f->cap == DL_FRAME_LARGE ? DL_FRAME_LARGE_UNITS : 1;
		free(f);
	}
}

void
dl_pool_destroy(struct dl_pool *p)
{
	dl_pool_free_list(p, &p->free_small);
	dl_pool_free_list(p, &p->free_large);
}

/* Length of the link, IP and transport headers of `frame` (no virtio header), or 0. */
static uint32_t
dl_frame_headers_len(const unsigned char *frame, uint32_t len, int udp)
{
	uint32_t off = 14, ip_len, l4_len;
	unsigned ethertype;

	if (len < off)
		return 0;
	ethertype = (unsigned)frame[12] << 8 | frame[13];
	while ((ethertype == 0x8100 || ethertype == 0x88a8) && len >= off + 4) {
		ethertype = (unsigned)frame[off + 2] << 8 | frame[off + 3];
		off += 4;
	}
	if (ethertype == 0x0800 && len >= off + 20)
		ip_len = (uint32_t)(frame[off] & 0x0f) * 4;
	else if (ethertype == 0x86dd && len >= off + 40)
		ip_len = 40;
	else
		return 0;
	off += ip_len;
	if (udp)
		l4_len = 8;
	else if (len >= off + 13)
		l4_len = (uint32_t)(frame[off + 12] >> 4) * 4;
	else
		return 0;
	return off + l4_len <= len ? off + l4_len : 0;
}

uint32_t
dl_frame_wire_len(const unsigned char *data, uint32_t len)
{
	struct virtio_net_hdr vh;
	uint32_t frame_len, headers, payload, segs;
	uint8_t gso;

	if (len < DL_VNET_HDR_LEN)
		return len;
	memcpy(&vh, data, sizeof(vh));
	frame_len = len - DL_VNET_HDR_LEN;
	gso = vh.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	/* A packet socket writes the legacy virtio header: in the host's byte order. */
	if (gso == VIRTIO_NET_HDR_GSO_NONE || vh.gso_size == 0)
		return frame_len;
	headers = dl_frame_headers_len(data + DL_VNET_HDR_LEN, frame_len,
	    gso == VIRTIO_NET_HDR_GSO_UDP);
	if (headers == 0 || headers >= frame_len)
		return frame_len;
	payload = frame_len - headers;
	segs = (payload + vh.gso_size - 1) / vh.gso_size;
	return frame_len + (segs - 1) * headers;
}

void
dl_fifo_push(struct dl_fifo *q, struct dl_frame *f)
{
	f->next = NULL;
	if (q->tail != NULL)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	q->count++;
}

struct dl_frame *
dl_fifo_pop(struct dl_fifo *q)
{
	struct dl_frame *f = q->head;

	if (f == NULL)
		return NULL;
	q->head = f->next;
	if (q->head == NULL)
		q->tail = NULL;
	q->count--;
	return f;
}
