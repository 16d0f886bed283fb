/*
 * fuzz_signing_policy.c: libFuzzer target for lib/signing_policy (the Globus signing_policy
 * files of the trusted CA directory, which anyone who can write there, or a CA bundle copied
 * from elsewhere, controls). Accepted files must give at most SIGNING_POLICY_PATTERNS_MAX
 * non-empty, terminated patterns; a pattern without glob characters must allow exactly that
 * subject; refusals must say where ("fuzz: ...").
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signing_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_signing_policy: broken promise: %s\n", what);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[SIGNING_POLICY_FILE_MAX + 1];
	static struct signing_policy policy; /* 64 KiB: not on the stack */
	char err[512] = "";

	if (size > SIGNING_POLICY_FILE_MAX) /* the loader refuses larger files before parsing */
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	if (signing_policy_parse(&policy, text, "fuzz", err, sizeof(err)) != 0) {
		require(strncmp(err, "fuzz: ", 6) == 0, "error starts with the origin");
		require(memchr(err, '\0', sizeof(err)) != NULL, "error terminated");
		return 0;
	}
	require(policy.count <= SIGNING_POLICY_PATTERNS_MAX, "at most PATTERNS_MAX patterns");
	for (size_t i = 0; i < policy.count; i++) {
		const char *pattern = policy.patterns[i];
		require(memchr(pattern, '\0', SIGNING_POLICY_PATTERN_MAX) != NULL,
		    "pattern terminated");
		require(pattern[0] != '\0', "pattern not empty");
		/* Patterns as subjects: a pattern without glob characters must allow itself. */
		if (strpbrk(pattern, "*?[") == NULL)
			require(signing_policy_allows(&policy, pattern), "a literal pattern allows itself");
	}
	/* Evaluation of an ordinary subject must terminate whatever the patterns are. */
	(void)signing_policy_allows(&policy, "/O=Grid/OU=qcg-ompi/CN=host/gw-a");
	if (policy.count == 0)
		require(!signing_policy_allows(&policy, "/O=Grid/OU=qcg-ompi/CN=host/gw-a"),
		    "a policy without patterns allows nothing");
	return 0;
}
