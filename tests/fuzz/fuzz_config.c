/*
 * fuzz_config.c: libFuzzer target for lib/config_file. The input is parsed as a configuration
 * file, then every line of it is also tried as a command-line override; whatever is accepted
 * must obey the limits config_file.h promises, and every accepted key must read back.
 * A broken promise aborts, which the fuzzer (or the replay test) reports.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_INPUT_MAX (64 * 1024) /* longer inputs only repeat what shorter ones reach */

static struct config cfg; /* about 290 KiB: static */

static void
require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_config: broken promise: %s\n", what);
		abort();
	}
}

/* What every configuration, however it was filled, must satisfy. */
static void
check_invariants(void)
{
	char err[256];
	long n;
	bool b;

	require(cfg.count <= CONFIG_ENTRIES_MAX, "count within CONFIG_ENTRIES_MAX");
	for (size_t i = 0; i < cfg.count; i++) {
		const struct config_entry *e = &cfg.entries[i];
		require(memchr(e->key, '\0', sizeof(e->key)) != NULL, "key NUL-terminated");
		require(memchr(e->value, '\0', sizeof(e->value)) != NULL, "value NUL-terminated");
		require(strchr(e->key, '.') != NULL, "key has a section");
		/* Keys are unique: config_get finds this very entry. */
		require(config_get(&cfg, e->key, NULL) == e->value, "key unique and found");
		err[0] = '\0';
		if (config_get_int(&cfg, e->key, 0, -1000, 1000, &n, err, sizeof(err)) == 0)
			require(n >= -1000 && n <= 1000, "integer within its range");
		else
			require(strstr(err, e->key) != NULL, "integer error names the key");
		(void)config_get_bool(&cfg, e->key, false, &b, err, sizeof(err));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[FUZZ_INPUT_MAX + 1];
	char err[512];

	if (size > FUZZ_INPUT_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* a NUL inside ends the text, as it would a C string */

	config_init(&cfg);
	err[0] = '\0';
	if (config_load_text(&cfg, text, "fuzz", err, sizeof(err)) != 0)
		require(strncmp(err, "fuzz:", 5) == 0, "parse error starts with origin:line");
	check_invariants();

	/* Each line as an override, on top of whatever the file set. */
	for (char *line = text, *next; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		err[0] = '\0';
		if (config_apply_override(&cfg, line, err, sizeof(err)) == 0) {
			const char *eq = strchr(line, '=');
			char key[CONFIG_KEY_MAX];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - line), line);
			require(strcmp(config_get(&cfg, key, ""), eq + 1) == 0, "override reads back");
		} else {
			require(err[0] != '\0', "override error has a reason");
		}
	}
	check_invariants();
	return 0;
}
