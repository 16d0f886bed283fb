/*
 * launch_output.c: bounded, offset-addressed output buffers (launch_output.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_output.h"

#define OUTPUT_FIRST_ALLOC 4096

void
launch_output_init(struct launch_output *o, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->cap = cap;
}

void
launch_output_free(struct launch_output *o)
{
	free(o->data);
	memset(o, 0, sizeof(*o));
}

size_t
launch_output_space(const struct launch_output *o)
{
	return o->cap - o->len;
}

int
launch_output_append(struct launch_output *o, const uint8_t *buf, size_t n)
{
	if (n > launch_output_space(o))
		return -1;
	if (o->len + n > o->alloc) {
		size_t want = o->alloc ? o->alloc : OUTPUT_FIRST_ALLOC;
		while (want < o->len + n)
			want *= 2;
		if (want > o->cap)
			want = o->cap;
		uint8_t *p = realloc(o->data, want);
		if (p == NULL)
			return -1;
		o->data = p;
		o->alloc = want;
	}
	memcpy(o->data + o->len, buf, n);
	o->len += n;
	return 0;
}

int
launch_output_ack(struct launch_output *o, int64_t offset, const char *stream, char *err,
    size_t errlen)
{
	if (offset < o->base) {
		snprintf(err, errlen, "%s offset %" PRId64 " was read and dropped already (the buffer "
		    "starts at %" PRId64 ")", stream, offset, o->base);
		return -1;
	}
	if (offset > launch_output_end(o)) {
		snprintf(err, errlen, "%s offset %" PRId64 " is beyond the %" PRId64 " bytes written",
		    stream, offset, launch_output_end(o));
		return -1;
	}
	size_t drop = (size_t)(offset - o->base);
	memmove(o->data, o->data + drop, o->len - drop);
	o->len -= drop;
	o->base = offset;
	return 0;
}

int64_t
launch_output_end(const struct launch_output *o)
{
	return o->base + (int64_t)o->len;
}
