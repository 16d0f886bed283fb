/*
 * test_signing_policy.c: the Globus signing_policy parser (lib/signing_policy.c): the file
 * qcg-ca writes, blocks that do not grant CA:sign, \xHH patterns, and malformed files.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "signing_policy.h"

static struct signing_policy policy;
static char err[512];

/* Exactly what qcg-ca init writes. */
static void
qcg_ca_policy_allows_its_namespace_only(void)
{
	const char *text = "# Written by qcg-ca init: what the CA /O=Grid/OU=qcg-ompi/CN=qcg-ompi CA "
			   "may sign.\n"
			   "access_id_CA      X509         '/O=Grid/OU=qcg-ompi/CN=qcg-ompi CA'\n"
			   "pos_rights        globus        CA:sign\n"
			   "cond_subjects     globus       '\"/O=Grid/OU=qcg-ompi/*\"'\n";
	CHECK_INT_EQ(signing_policy_parse(&policy, text, "p", err, sizeof(err)), 0);
	CHECK_INT_EQ((int)policy.count, 1);
	CHECK(signing_policy_allows(&policy, "/O=Grid/OU=qcg-ompi/CN=host/gw-a"));
	CHECK(signing_policy_allows(&policy, "/O=Grid/OU=qcg-ompi/CN=Jane Doe"));
	CHECK(!signing_policy_allows(&policy, "/O=Elsewhere/CN=host/gw-a"));
	/* the escaped form of O="Grid/OU=qcg-ompi" (tls_name_to_dn) is not in the namespace */
	CHECK(!signing_policy_allows(&policy, "/O=Grid/OU\\=qcg-ompi/CN=Grid Admin"));
}

static void
several_patterns_and_hex_escapes(void)
{
	const char *text = "access_id_CA X509 '/C=PL/O=Grid/CN=CA'\n"
			   "pos_rights globus CA:sign\n"
			   "cond_subjects globus '\"/C=PL/O=Grid/*\" \"/O=Zo\\xC3\\xAB/*\"'\n";
	CHECK_INT_EQ(signing_policy_parse(&policy, text, "p", err, sizeof(err)), 0);
	CHECK_INT_EQ((int)policy.count, 2);
	CHECK(signing_policy_allows(&policy, "/C=PL/O=Grid/CN=x"));
	CHECK(signing_policy_allows(&policy, "/O=Zo\xc3\xab/CN=y"));
	CHECK(!signing_policy_allows(&policy, "/O=Zo/CN=y"));
}

/* A block without pos_rights CA:sign grants nothing, whatever its cond_subjects say. */
static void
block_without_ca_sign_grants_nothing(void)
{
	const char *text = "access_id_CA X509 '/O=Other/CN=CA'\n"
			   "pos_rights globus CA:other\n"
			   "cond_subjects globus '\"/*\"'\n";
	CHECK_INT_EQ(signing_policy_parse(&policy, text, "p", err, sizeof(err)), 0);
	CHECK_INT_EQ((int)policy.count, 0);
	CHECK(!signing_policy_allows(&policy, "/O=Grid/CN=x"));
}

static void
malformed_files_are_refused(void)
{
	CHECK_INT_EQ(signing_policy_parse(&policy, "access_id_CA X509 '/O=x\n", "p", err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "unterminated") != NULL);
	CHECK_INT_EQ(signing_policy_parse(&policy, "frobnicate a 'b'\n", "p", err, sizeof(err)),
	    -1);
	CHECK(strstr(err, "unknown keyword") != NULL);
	CHECK_INT_EQ(signing_policy_parse(&policy, "pos_rights globus\n", "p", err, sizeof(err)),
	    -1);
	CHECK_INT_EQ(signing_policy_parse(&policy,
	    "pos_rights globus CA:sign\ncond_subjects globus '\"\"'\n", "p", err, sizeof(err)), -1);
}

int
main(void)
{
	RUN(qcg_ca_policy_allows_its_namespace_only);
	RUN(several_patterns_and_hex_escapes);
	RUN(block_without_ca_sign_grants_nothing);
	RUN(malformed_files_are_refused);
	return check_exit();
}
