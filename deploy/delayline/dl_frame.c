/*
 * dl_frame.c: frame pool and FIFO of the delay line (see dl_frame.h).
 */
#include "config.h"

#include <stdlib.h>

#include "dl_frame.h"

void
dl_pool_init(struct dl_pool *p, size_t limit)
{
	p->free = NULL;
	p->allocated = 0;
	p->limit = limit;
}

struct dl_frame *
dl_pool_get(struct dl_pool *p)
{
	struct dl_frame *f = p->free;

	if (f != NULL) {
		p->free = f->next;
		return f;
	}
	if (p->allocated >= p->limit)
		return NULL;
	f = malloc(sizeof(*f));
	if (f == NULL)
		return NULL;
	p->allocated++;
	return f;
}

void
dl_pool_put(struct dl_pool *p, struct dl_frame *f)
{
	f->next = p->free;
	p->free = f;
}

void
dl_pool_destroy(struct dl_pool *p)
{
	while (p->free != NULL) {
		struct dl_frame *f = p->free;

		p->free = f->next;
		free(f);
		p->allocated--;
	}
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
