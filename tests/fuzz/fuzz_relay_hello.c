/*
 * fuzz_relay_hello.c: libFuzzer target for the hello a relay leg sends a qcg-proxy first
 * (proto/relay_hello.c), the first bytes any TCP client of a proxy controls.
 * Besides not crashing, it checks the header's promises and aborts when one is broken:
 * a prefix of the input is either still incomplete or refused for the same reason as the whole
 * (a proxy decides as the bytes arrive, so the verdict must not depend on how they were split);
 * an accepted hello re-encodes to exactly the bytes that were sent; every status has a name.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relay_hello.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct relay_hello hello;
	enum relay_hello_status whole = relay_hello_parse(data, size, &hello);

	if (strcmp(relay_hello_status_name(whole), "unknown status") == 0)
		abort();
	if (whole == RELAY_HELLO_OK) {
		uint8_t again[RELAY_HELLO_SIZE];
		if (size < RELAY_HELLO_SIZE)
			abort();
		relay_hello_encode(again, &hello.id, hello.flags);
		if (memcmp(again, data, RELAY_HELLO_SIZE) != 0 ||
		    hello.version != RELAY_HELLO_VERSION ||
		    (hello.flags & ~RELAY_HELLO_FLAGS_KNOWN) != 0)
			abort();
	} else if (whole == RELAY_HELLO_INCOMPLETE && size >= RELAY_HELLO_SIZE) {
		abort();
	}
	for (size_t len = 0; len < size && len <= RELAY_HELLO_SIZE; len++) {
		struct relay_hello part;
		enum relay_hello_status st = relay_hello_parse(data, len, &part);
		/* Once refused, more bytes cannot make it acceptable or change the reason. */
		if (st != RELAY_HELLO_INCOMPLETE && st != whole)
			abort();
	}
	return 0;
}
