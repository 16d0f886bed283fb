/*
 * fuzz_gridmap.c: libFuzzer target for lib/gridmap (and the dn_line tokenizer under it). What
 * the parser accepts must be a usable map: non-empty DNs that look themselves up, and default
 * accounts that are valid login names; what it refuses must say where ("fuzz:LINE: ...").
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_INPUT_MAX (64 * 1024)

static void
require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_gridmap: broken promise: %s\n", what);
		abort();
	}
}

/* The promise of gridmap.c: what useradd would accept, so no path or option gets through. */
static bool
login_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= GRIDMAP_ACCOUNT_MAX || !(islower((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || strchr("_-.", *s)))
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[FUZZ_INPUT_MAX + 1];
	char err[512] = "";
	struct gridmap map;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	if (gridmap_parse(&map, text, "fuzz", err, sizeof(err)) != 0) {
		require(strncmp(err, "fuzz:", 5) == 0, "error starts with origin:line");
		require(map.entries == NULL && map.count == 0, "nothing half-loaded after an error");
		return 0;
	}
	for (size_t i = 0; i < map.count; i++) {
		const struct gridmap_entry *e = &map.entries[i];
		require(memchr(e->dn, '\0', sizeof(e->dn)) != NULL, "DN NUL-terminated");
		require(e->dn[0] != '\0', "DN not empty");
		require(login_name_ok(e->account), "default account is a valid login name");
		const char *found = gridmap_lookup(&map, e->dn);
		require(found != NULL, "every DN looks itself up");
		/* With duplicate DNs the first line wins; found must be some entry's account. */
		require(found >= map.entries[0].account &&
			found <= map.entries[map.count - 1].account,
		    "lookup returns an entry of the map");
	}
	gridmap_free(&map);
	return 0;
}
