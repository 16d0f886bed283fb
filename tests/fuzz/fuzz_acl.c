/*
 * fuzz_acl.c: libFuzzer target for lib/acl (and the dn_line tokenizer under it). Accepted rules
 * must grant only known roles and at least one; evaluation must agree with itself (acl_allows
 * is acl_roles restricted to one role); refusals must say where ("fuzz:LINE: ...").
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_INPUT_MAX (64 * 1024)
#define ALL_ROLES                                                                                  \
	(ACL_ROLE_FRONTEND | ACL_ROLE_PROXY | ACL_ROLE_HELPER | ACL_ROLE_BROKER | ACL_ROLE_ADMIN)

static void
require(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_acl: broken promise: %s\n", what);
		abort();
	}
}

/* acl_allows must be acl_roles seen through one role bit. */
static void
check_evaluation(const struct acl *acl, const char *dn)
{
	unsigned roles = acl_roles(acl, dn);
	require((roles & ~(unsigned)ALL_ROLES) == 0, "only known roles granted");
	for (unsigned bit = 1; bit <= ACL_ROLE_ADMIN; bit <<= 1)
		require(acl_allows(acl, dn, (enum acl_role)bit) == ((roles & bit) != 0),
		    "acl_allows agrees with acl_roles");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[FUZZ_INPUT_MAX + 1];
	char err[512] = "";
	struct acl acl;

	if (size > FUZZ_INPUT_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	if (acl_parse(&acl, text, "fuzz", err, sizeof(err)) != 0) {
		require(strncmp(err, "fuzz:", 5) == 0, "error starts with origin:line");
		require(acl.rules == NULL && acl.count == 0, "nothing half-loaded after an error");
		return 0;
	}
	for (size_t i = 0; i < acl.count; i++) {
		const struct acl_rule *r = &acl.rules[i];
		require(memchr(r->pattern, '\0', sizeof(r->pattern)) != NULL, "pattern terminated");
		require(r->pattern[0] != '\0', "pattern not empty");
		require((r->roles & ~(unsigned)ALL_ROLES) == 0, "rule has only known roles");
		require(r->roles != 0, "rule grants at least one role");
		/* Patterns as DNs: a pattern without glob characters must match itself. */
		check_evaluation(&acl, r->pattern);
		if (strpbrk(r->pattern, "*?[\\") == NULL)
			require((acl_roles(&acl, r->pattern) & r->roles) == r->roles,
			    "a literal pattern grants its roles to that DN");
	}
	check_evaluation(&acl, "/O=Grid/OU=qcg-ompi/CN=host/gw-a");
	acl_free(&acl);
	return 0;
}
