/*
 * launch_output.h: the bounded buffer that holds one output stream (stdout or stderr) of a
 * launched process, addressed by absolute offsets since the process started.
 *
 * The buffer keeps the window [base, base + len). A reader asking for offset o acknowledges
 * everything before o, which is dropped. When len reaches cap the helper stops reading the
 * pipe, so the process blocks in write(2) until a reader catches up: output is never lost and
 * memory stays bounded. Pure: no I/O, no locks (the launch table locks).
 */
#ifndef QCG_LAUNCH_OUTPUT_H
#define QCG_LAUNCH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

struct launch_output {
	uint8_t *data;   /* grows on demand up to cap */
	size_t alloc;    /* bytes allocated */
	size_t len;      /* bytes held */
	size_t cap;      /* most bytes held at once */
	int64_t base;    /* absolute offset of data[0] */
};

void launch_output_init(struct launch_output *o, size_t cap);
void launch_output_free(struct launch_output *o);
/* Bytes that may still be appended. */
size_t launch_output_space(const struct launch_output *o);
/* Append n bytes (n <= space); -1 when memory runs out. */
int launch_output_append(struct launch_output *o, const uint8_t *buf, size_t n);
/* Drop everything before offset. -1 with err when offset was dropped already or lies beyond
 * what was written. */
int launch_output_ack(struct launch_output *o, int64_t offset, const char *stream, char *err,
    size_t errlen);
/* Offset one past the last byte written. */
int64_t launch_output_end(const struct launch_output *o);

#endif
