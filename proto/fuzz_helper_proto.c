/*
 * fuzz_helper_proto.c: libFuzzer target for the local API's parser (helper_proto.h). Besides not
 * crashing, it checks the header's promises and aborts when one is broken:
 *  - OK consumes between a header and HELPER_MSG_MAX bytes, never more than it was given;
 *  - every string field is NUL-terminated within its array;
 *  - a parsed message encodes back to exactly the bytes it was parsed from;
 *  - INVALID always comes with a reason; a prefix of a valid message is never INVALID.
 * Corpus: proto/corpus_helper_proto/, replayed by make check (tests/fuzz/replay.c).
 * Build for fuzzing (B a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I$B -Ilib -Iproto \
 *     proto/fuzz_helper_proto.c proto/helper_proto.c -o /tmp/fuzz_helper_proto
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helper_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_terminated(const char *s, size_t cap)
{
	if (memchr(s, '\0', cap) == NULL)
		abort();
}

static void
check_message(const struct helper_msg *m, const uint8_t *data, size_t used)
{
	uint8_t again[HELPER_MSG_MAX];
	char err[256];

	check_terminated(m->job, sizeof(m->job));
	check_terminated(m->token, sizeof(m->token));
	check_terminated(m->address, sizeof(m->address));
	check_terminated(m->process, sizeof(m->process));
	check_terminated(m->message, sizeof(m->message));
	check_terminated(m->proxy[0], sizeof(m->proxy[0]));
	check_terminated(m->proxy[1], sizeof(m->proxy[1]));
	long n = helper_msg_encode(m, again, sizeof(again), err, sizeof(err));
	if (n < 0 || (size_t)n != used || memcmp(again, data, used) != 0)
		abort();
	/* every proper prefix of a valid message must read as incomplete */
	for (size_t i = 0; i < used; i += 1 + used / 16) {
		struct helper_msg part;
		size_t u;
		if (helper_msg_parse(data, i, &part, &u, err, sizeof(err)) != HELPER_PARSE_INCOMPLETE)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct helper_msg m;
	char err[256];
	size_t used = 0, off = 0;

	/* parse back to back, as the daemon does with a stream */
	while (off < size) {
		err[0] = '\0';
		enum helper_parse_status st = helper_msg_parse(data + off, size - off, &m, &used, err,
		    sizeof(err));
		if (st == HELPER_PARSE_INVALID) {
			if (err[0] == '\0')
				abort();
			break;
		}
		if (st == HELPER_PARSE_INCOMPLETE)
			break;
		if (used < HELPER_HEADER_SIZE || used > HELPER_MSG_MAX || used > size - off)
			abort();
		check_message(&m, data + off, used);
		off += used;
	}
	return 0;
}
