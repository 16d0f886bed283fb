/*
 * fuzz_privsep_proto.c: libFuzzer target for the launcher's request decoder
 * (privsep_proto.h), which the root launcher runs on every packet of the unprivileged half.
 * Besides not crashing, it checks the header's promises and aborts when one is broken:
 *  - a refusal always comes with a reason;
 *  - a decoded LAUNCH has 1..LAUNCH_ARGS_MAX arguments and 0..LAUNCH_ENV_MAX environment
 *    entries, every one a NUL-terminated string inside the packet, NULL after the last,
 *    and encodes back to the same strings and length;
 *  - a decoded SIGNAL has a signal in 1..NSIG-1 and a terminated, non-empty id.
 * Corpus: services/helper/corpus_privsep_proto/, replayed by make check (tests/fuzz/replay.c).
 * Build for fuzzing (B a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I$B -Ilib -Iservices/helper \
 *     services/helper/fuzz_privsep_proto.c services/helper/privsep_proto.c -o /tmp/fuzz_privsep_proto
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "privsep_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_inside(const char *s, const uint8_t *data, size_t size)
{
	if (s == NULL || (const uint8_t *)s < data || (const uint8_t *)s >= data + size ||
	    memchr(s, '\0', (size_t)(data + size - (const uint8_t *)s)) == NULL)
		abort();
}

static void
check_launch(const struct privsep_request *r, const uint8_t *data, size_t size)
{
	uint8_t *again;
	size_t len;
	char err[256];
	if (r->argc < 1 || r->argc > LAUNCH_ARGS_MAX || r->envc < 0 || r->envc > LAUNCH_ENV_MAX ||
	    r->argv[r->argc] != NULL || r->env[r->envc] != NULL)
		abort();
	check_inside(r->workdir, data, size);
	for (int i = 0; i < r->argc; i++)
		check_inside(r->argv[i], data, size);
	for (int i = 0; i < r->envc; i++)
		check_inside(r->env[i], data, size);
	if (privsep_launch_encode(r->id, r->uid, r->workdir, r->argv, r->argc, r->env, r->envc,
		&again, &len, err, sizeof(err)) != 0)
		abort();
	size_t fixed = sizeof(struct privsep_launch_msg);
	if (len != size || memcmp(again + fixed, data + fixed, len - fixed) != 0)
		abort();
	free(again);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct privsep_request r;
	char err[256];
	/* the launcher receives into an aligned buffer: so does the target */
	uint8_t *copy = malloc(size ? size : 1);
	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	err[0] = '\0';
	if (privsep_request_decode(copy, size, &r, err, sizeof(err)) != 0) {
		if (err[0] == '\0' || r.argv != NULL || r.env != NULL)
			abort();
		free(copy);
		return 0;
	}
	switch (r.type) {
	case PRIVSEP_LAUNCH:
		check_launch(&r, copy, size);
		break;
	case PRIVSEP_SIGNAL:
		if (r.sig < 1 || r.sig >= NSIG || r.id[0] == '\0' ||
		    memchr(r.id, '\0', sizeof(r.id)) == NULL)
			abort();
		break;
	case PRIVSEP_REAP:
	case PRIVSEP_STOP:
		break;
	default:
		abort();
	}
	privsep_request_free(&r);
	free(copy);
	return 0;
}
