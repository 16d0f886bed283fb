/*
 * test_gridmap_acl.c: lib/gridmap and lib/acl (and the dn_line tokenizer under both): what maps
 * a user's DN to an account and a service's DN to its roles. Every malformed line must be an
 * error naming origin:line, because a skipped line silently locks someone out or lets them in.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl.h"
#include "check.h"
#include "dn_line.h"
#include "gridmap.h"


#define JANE "/O=Grid/OU=qcg-ompi/CN=Jane Doe"
#define JOHN "/O=Grid/OU=qcg-ompi/CN=John Roe"
#define GW_A "/O=Grid/OU=qcg-ompi/CN=host/gw-a"

static char err[512];

/* True when err starts with prefix; prints err otherwise so a failure is readable. */
static bool
err_starts(const char *prefix)
{
	if (strncmp(err, prefix, strlen(prefix)) == 0)
		return true;
	fprintf(stderr, "  error was: '%s', want prefix '%s'\n", err, prefix);
	return false;
}

/* ---- grid-mapfile ---- */

static void
gridmap_simple_lines_map_dn_to_account(void)
{
	struct gridmap map;
	CHECK_INT_EQ(gridmap_parse(&map, "\"" JANE "\" jane\n\"" JOHN "\"\tjroe\n", "gm", err,
			 sizeof(err)),
	    0);
	CHECK_INT_EQ(map.count, 2);
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), "jane");
	CHECK_STR_EQ(gridmap_lookup(&map, JOHN), "jroe");
	gridmap_free(&map);
	CHECK(map.entries == NULL && map.count == 0);
}

static void
gridmap_first_of_several_accounts_is_the_default(void)
{
	struct gridmap map;
	CHECK_INT_EQ(gridmap_parse(&map, "\"" JOHN "\" jroe,jroe2,shared_1\n", "gm", err,
			 sizeof(err)),
	    0);
	CHECK_STR_EQ(gridmap_lookup(&map, JOHN), "jroe");
	gridmap_free(&map);
}

static void
gridmap_escaped_quote_and_backslash_in_dn_are_unescaped(void)
{
	struct gridmap map;
	const char *text = "\"/O=Grid/CN=Jane \\\"JD\\\" Doe\" jane\n"
			   "\"/O=Grid/CN=back\\\\slash\" bs\n"
			   "\"/O=Grid/CN=other\\escape\" oe\n"
			   "\"/O=Grid/CN=hash#inside\" hi\n";
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), 0);
	CHECK_STR_EQ(gridmap_lookup(&map, "/O=Grid/CN=Jane \"JD\" Doe"), "jane");
	CHECK_STR_EQ(gridmap_lookup(&map, "/O=Grid/CN=back\\slash"), "bs");
	CHECK_STR_EQ(gridmap_lookup(&map, "/O=Grid/CN=other\\escape"), "oe");
	CHECK_STR_EQ(gridmap_lookup(&map, "/O=Grid/CN=hash#inside"), "hi");
	CHECK(gridmap_lookup(&map, "/O=Grid/CN=Jane \\\"JD\\\" Doe") == NULL);
	gridmap_free(&map);
}

static void
gridmap_comments_and_blank_lines_are_ignored(void)
{
	struct gridmap map;
	const char *text = "# grid-mapfile\n\n   \n\t# indented comment\n"
			   "\"" JANE "\" jane   # trailing comment\n\n";
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), 0);
	CHECK_INT_EQ(map.count, 1);
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), "jane");
	gridmap_free(&map);

	CHECK_INT_EQ(gridmap_parse(&map, "", "gm", err, sizeof(err)), 0);
	CHECK_INT_EQ(map.count, 0);
	CHECK(gridmap_lookup(&map, JANE) == NULL);
	gridmap_free(&map);
}

static void
gridmap_crlf_line_endings_are_accepted(void)
{
	struct gridmap map;
	CHECK_INT_EQ(gridmap_parse(&map, "# dos\r\n\"" JANE "\" jane\r\n\"" JOHN "\" jroe\r\n",
			 "gm", err, sizeof(err)),
	    0);
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), "jane");
	CHECK_STR_EQ(gridmap_lookup(&map, JOHN), "jroe");
	gridmap_free(&map);
}

static void
gridmap_lookup_is_exact_match_only(void)
{
	struct gridmap map;
	CHECK_INT_EQ(gridmap_parse(&map, "\"" JANE "\" jane\n", "gm", err, sizeof(err)), 0);
	CHECK(gridmap_lookup(&map, "/O=Grid/OU=qcg-ompi/CN=Jane") == NULL);     /* prefix */
	CHECK(gridmap_lookup(&map, JANE "/CN=12345") == NULL);                  /* proxy DN */
	CHECK(gridmap_lookup(&map, "/O=Grid/OU=qcg-ompi/CN=jane doe") == NULL); /* case */
	CHECK(gridmap_lookup(&map, "/o=grid/ou=qcg-ompi/cn=Jane Doe") == NULL); /* case */
	CHECK(gridmap_lookup(&map, JANE " ") == NULL);                          /* trailing */
	CHECK(gridmap_lookup(&map, "") == NULL);
	CHECK(gridmap_lookup(&map, "*") == NULL); /* no globbing in the grid-mapfile */
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), "jane");
	gridmap_free(&map);
}

static void
gridmap_many_entries_all_found(void)
{
	enum { N = 1000 };
	static char text[N * 64];
	char dn[64], account[32];
	size_t n = 0;
	struct gridmap map;

	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\"/O=Grid/CN=user %d\" u%d\n", i,
		    i);
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), 0);
	CHECK_INT_EQ(map.count, N);
	int found = 0;
	for (int i = 0; i < N; i++) {
		snprintf(dn, sizeof(dn), "/O=Grid/CN=user %d", i);
		snprintf(account, sizeof(account), "u%d", i);
		const char *got = gridmap_lookup(&map, dn);
		found += got != NULL && strcmp(got, account) == 0;
	}
	CHECK_INT_EQ(found, N);
	gridmap_free(&map);
}

/* Parse a grid-mapfile whose third line is bad; it must fail with "gm:3: " and a reason. */
static void
expect_gridmap_error(const char *bad_line, const char *reason_part)
{
	char text[8192];
	struct gridmap map;
	snprintf(text, sizeof(text), "# header\n\"" JANE "\" jane\n%s\n\"" JOHN "\" jroe\n",
	    bad_line);
	err[0] = '\0';
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), -1);
	CHECK(err_starts("gm:3: "));
	if (strstr(err, reason_part) == NULL) {
		fprintf(stderr, "  error '%s' lacks '%s' (line '%.60s')\n", err, reason_part,
		    bad_line);
		CHECK(strstr(err, reason_part) != NULL);
	}
	CHECK(map.entries == NULL && map.count == 0); /* nothing half-loaded */
	gridmap_free(&map);                           /* in case it wrongly loaded */
}

/* A grid-mapfile line whose quoted DN is dn_len bytes of "/CN=xxx...", mapped to jane. */
static void
line_with_dn_of_length(char *line, size_t line_len, size_t dn_len)
{
	char dn[QCG_DN_MAX + 16];
	memset(dn, 'x', dn_len);
	memcpy(dn, "/CN=", 4);
	dn[dn_len] = '\0';
	snprintf(line, line_len, "\"%s\" jane", dn);
}

static void
gridmap_malformed_lines_are_rejected_with_origin_and_line(void)
{
	char long_dn[QCG_DN_MAX + 32];
	line_with_dn_of_length(long_dn, sizeof(long_dn), QCG_DN_MAX);

	expect_gridmap_error(JANE " jane", "double-quoted");
	expect_gridmap_error("'" JANE "' jane", "double-quoted");
	expect_gridmap_error("\"" JANE " jane", "unterminated");
	expect_gridmap_error("\"" JANE "\"", "account");
	expect_gridmap_error("\"" JANE "\"   ", "account");
	expect_gridmap_error("\"" JANE "\" # only a comment", "account");
	expect_gridmap_error("\"\" jane", "empty DN");
	expect_gridmap_error(long_dn, "too long");
	expect_gridmap_error("\"" JANE "\" ../x", "login name");
	expect_gridmap_error("\"" JANE "\" -rf", "login name");
	expect_gridmap_error("\"" JANE "\" /etc/passwd", "login name");
	expect_gridmap_error("\"" JANE "\" Jane", "login name");
	expect_gridmap_error("\"" JANE "\" 1jane", "login name");
	expect_gridmap_error("\"" JANE "\" jane;rm", "login name");
	expect_gridmap_error("\"" JANE "\" ,jane", "login name");
	expect_gridmap_error("\"" JANE "\" aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "login name"); /* 33 */
	expect_gridmap_error("\"" JANE "\" jane jroe", "after the account");
	expect_gridmap_error("\"" JANE "\" jane \"x\"", "after the account");
}

static void
gridmap_longest_dn_and_account_name_are_accepted(void)
{
	struct gridmap map;
	char line[QCG_DN_MAX + 32];
	line_with_dn_of_length(line, sizeof(line), QCG_DN_MAX - 1);
	CHECK_INT_EQ(gridmap_parse(&map, line, "gm", err, sizeof(err)), 0);
	CHECK_INT_EQ(map.count, 1);
	CHECK_INT_EQ(strlen(map.entries[0].dn), QCG_DN_MAX - 1);
	gridmap_free(&map);

	const char *longest = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; /* 32 = GRIDMAP_ACCOUNT_MAX - 1 */
	char text[128];
	snprintf(text, sizeof(text), "\"%s\" %s\n", JANE, longest);
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), 0);
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), longest);
	gridmap_free(&map);
}

/* Issue 17: one over-long line stopped the broker from starting. No valid entry is that long,
 * so the line is ignored (and logged) and the users on the other lines keep their mapping. */
static void
gridmap_over_long_line_is_skipped_and_the_rest_loads(void)
{
	static char text[2 * DN_LINE_MAX + 256];
	struct gridmap map;
	int n = snprintf(text, sizeof(text), "# ok\n\"");
	memset(text + n, 'c', DN_LINE_MAX);
	n += DN_LINE_MAX;
	snprintf(text + n, sizeof(text) - (size_t)n, "\" x\n\"" JANE "\" jane\n");
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), 0);
	CHECK_INT_EQ(map.count, 1);
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), "jane");
	gridmap_free(&map);
}

/* Issue 17: qcg-ca grid-mapfile-line used to write UTF-8 as openssl's "\xC3\xAB"; Globus reads
 * that as the byte, and so do we, so such a line maps the UTF-8 DN the services see. An escaped
 * '=' ("\=", how tls_name_to_dn writes '=' inside a value) is kept as written. */
static void
gridmap_hex_escapes_are_bytes_and_other_escapes_stay(void)
{
	struct gridmap map;
	const char *text = "\"/O=Grid/CN=Zo\\xC3\\xAB\" zoe\n"
			   "\"/O=Grid\\=x/CN=Eq\" eq\n"
			   "\"/O=Grid/CN=nul\\x00\" bad\n";
	CHECK_INT_EQ(gridmap_parse(&map, text, "gm", err, sizeof(err)), -1); /* \x00: no NUL */
	CHECK(strstr(err, "gm:3: ") != NULL);
	CHECK_INT_EQ(gridmap_parse(&map, "\"/O=Grid/CN=Zo\\xC3\\xAB\" zoe\n\"/O=Grid\\=x/CN=Eq\" eq\n",
	    "gm", err, sizeof(err)), 0);
	CHECK_STR_EQ(gridmap_lookup(&map, "/O=Grid/CN=Zo\xc3\xab"), "zoe");
	CHECK_STR_EQ(gridmap_lookup(&map, "/O=Grid\\=x/CN=Eq"), "eq");
	CHECK(gridmap_lookup(&map, "/O=Grid=x/CN=Eq") == NULL);
	gridmap_free(&map);
}

/* Issue 17: ACL patterns match the escaped DN literally: a '=' hidden in a value ("\=") is not
 * the admin's RDN boundary, and a backslash in a pattern is no fnmatch escape. */
static void
acl_escaped_dn_does_not_match_the_admin_pattern(void)
{
	struct acl acl;
	CHECK_INT_EQ(acl_parse(&acl, "admin \"/O=Grid/OU=qcg-ompi/CN=Grid Admin\"\n"
				     "frontend \"/O=Grid\\=x/CN=host/gw-*\"\n", "acl", err, sizeof(err)), 0);
	CHECK(acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=Grid Admin", ACL_ROLE_ADMIN));
	CHECK(!acl_allows(&acl, "/O=Grid/OU\\=qcg-ompi/CN=Grid Admin", ACL_ROLE_ADMIN));
	CHECK(acl_allows(&acl, "/O=Grid\\=x/CN=host/gw-a", ACL_ROLE_FRONTEND));
	CHECK(!acl_allows(&acl, "/O=Grid=x/CN=host/gw-a", ACL_ROLE_FRONTEND));
	acl_free(&acl);
}

/* Known bug: only the first account is validated, so "jane,../x" or "jane,-rf" load. */
static void
gridmap_every_account_in_the_list_is_validated(void)
{
	expect_gridmap_error("\"" JANE "\" jane,../x", "login name");
	expect_gridmap_error("\"" JANE "\" jane,-rf", "login name");
	expect_gridmap_error("\"" JANE "\" jane,", "login name");
}

static char *
write_temp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_gridmap_acl.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		perror("test_gridmap_acl: temporary file");
		exit(99);
	}
	close(fd);
	return path;
}

static void
gridmap_and_acl_load_files_and_name_them_in_errors(void)
{
	struct gridmap map;
	struct acl acl;
	char want[96];
	char *path = write_temp("\"" JANE "\" jane\nbroken\n");

	CHECK_INT_EQ(gridmap_load(&map, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: ", path);
	CHECK(err_starts(want));
	CHECK_INT_EQ(acl_load(&acl, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:1: ", path);
	CHECK(err_starts(want));
	unlink(path);

	path = write_temp("\"" JANE "\" jane\n");
	CHECK_INT_EQ(gridmap_load(&map, path, err, sizeof(err)), 0);
	CHECK_STR_EQ(gridmap_lookup(&map, JANE), "jane");
	gridmap_free(&map);
	unlink(path);

	CHECK_INT_EQ(gridmap_load(&map, "/nonexistent/grid-mapfile", err, sizeof(err)), -1);
	CHECK(err_starts("/nonexistent/grid-mapfile: "));
	CHECK_INT_EQ(acl_load(&acl, "/nonexistent/acl", err, sizeof(err)), -1);
	CHECK(err_starts("/nonexistent/acl: "));
}

/* ---- ACL ---- */

static void
acl_role_names_parse_and_unknown_is_minus_one(void)
{
	CHECK_INT_EQ(acl_role_parse("frontend"), ACL_ROLE_FRONTEND);
	CHECK_INT_EQ(acl_role_parse("proxy"), ACL_ROLE_PROXY);
	CHECK_INT_EQ(acl_role_parse("helper"), ACL_ROLE_HELPER);
	CHECK_INT_EQ(acl_role_parse("broker"), ACL_ROLE_BROKER);
	CHECK_INT_EQ(acl_role_parse("admin"), ACL_ROLE_ADMIN);
	CHECK_INT_EQ(acl_role_parse("Admin"), -1);
	CHECK_INT_EQ(acl_role_parse("user"), -1);
	CHECK_INT_EQ(acl_role_parse(""), -1);
}

static void
acl_each_line_grants_its_role_to_matching_dns(void)
{
	struct acl acl;
	const char *text = "# role DN pattern\n"
			   "frontend \"" GW_A "\"\n"
			   "proxy\t\"/O=Grid/OU=qcg-ompi/CN=host/proxy-1\"  # the relay\n"
			   "admin \"/O=Grid/OU=qcg-ompi/CN=Grid Admin\"\n";
	CHECK_INT_EQ(acl_parse(&acl, text, "acl", err, sizeof(err)), 0);
	CHECK_INT_EQ(acl.count, 3);
	CHECK_INT_EQ(acl_roles(&acl, GW_A), ACL_ROLE_FRONTEND);
	CHECK(acl_allows(&acl, GW_A, ACL_ROLE_FRONTEND));
	CHECK(!acl_allows(&acl, GW_A, ACL_ROLE_PROXY));
	CHECK(!acl_allows(&acl, GW_A, ACL_ROLE_ADMIN));
	CHECK(acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/proxy-1", ACL_ROLE_PROXY));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/proxy-1", ACL_ROLE_FRONTEND));
	CHECK(acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=Grid Admin", ACL_ROLE_ADMIN));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=Grid Admin", ACL_ROLE_HELPER));
	CHECK_INT_EQ(acl_roles(&acl, JANE), 0);
	CHECK(!acl_allows(&acl, JANE, ACL_ROLE_ADMIN));
	acl_free(&acl);
	CHECK(acl.rules == NULL && acl.count == 0);
	acl_free(&acl); /* in case it wrongly loaded */
}

static void
acl_one_line_may_grant_several_roles(void)
{
	struct acl acl;
	CHECK_INT_EQ(acl_parse(&acl, "frontend,proxy \"" GW_A "\"\n", "acl", err, sizeof(err)), 0);
	CHECK_INT_EQ(acl_roles(&acl, GW_A), ACL_ROLE_FRONTEND | ACL_ROLE_PROXY);
	CHECK(acl_allows(&acl, GW_A, ACL_ROLE_FRONTEND));
	CHECK(acl_allows(&acl, GW_A, ACL_ROLE_PROXY));
	CHECK(!acl_allows(&acl, GW_A, ACL_ROLE_HELPER));
	acl_free(&acl);
}

static void
acl_roles_of_all_matching_lines_add_up(void)
{
	struct acl acl;
	const char *text = "helper \"/O=Grid/OU=qcg-ompi/CN=host/*\"\n"
			   "frontend \"/O=Grid/OU=qcg-ompi/CN=host/gw-*\"\n"
			   "admin \"" GW_A "\"\n";
	CHECK_INT_EQ(acl_parse(&acl, text, "acl", err, sizeof(err)), 0);
	CHECK_INT_EQ(acl_roles(&acl, GW_A), ACL_ROLE_HELPER | ACL_ROLE_FRONTEND | ACL_ROLE_ADMIN);
	CHECK_INT_EQ(acl_roles(&acl, "/O=Grid/OU=qcg-ompi/CN=host/gw-b"),
	    ACL_ROLE_HELPER | ACL_ROLE_FRONTEND);
	CHECK_INT_EQ(acl_roles(&acl, "/O=Grid/OU=qcg-ompi/CN=host/node1"), ACL_ROLE_HELPER);
	acl_free(&acl);
}

static void
acl_glob_matches_the_whole_dn_only(void)
{
	struct acl acl;
	const char *text = "frontend \"/O=Grid/OU=qcg-ompi/CN=host/gw-*\"\n"
			   "proxy \"/O=Grid/OU=qcg-ompi/CN=host/proxy-?\"\n"
			   "broker \"/O=Grid/OU=qcg-ompi/CN=host/broker\"\n";
	CHECK_INT_EQ(acl_parse(&acl, text, "acl", err, sizeof(err)), 0);
	CHECK(acl_allows(&acl, GW_A, ACL_ROLE_FRONTEND));
	CHECK(acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/gw-", ACL_ROLE_FRONTEND));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/gw", ACL_ROLE_FRONTEND));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=other/CN=host/gw-a", ACL_ROLE_FRONTEND));
	CHECK(!acl_allows(&acl, "/X=1/O=Grid/OU=qcg-ompi/CN=host/gw-a", ACL_ROLE_FRONTEND));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/GW-a", ACL_ROLE_FRONTEND));
	CHECK(acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/proxy-1", ACL_ROLE_PROXY));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/proxy-12", ACL_ROLE_PROXY));
	/* No glob: neither a prefix nor an extension of the DN matches. */
	CHECK(acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/broker", ACL_ROLE_BROKER));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/broker2", ACL_ROLE_BROKER));
	CHECK(!acl_allows(&acl, "/O=Grid/OU=qcg-ompi/CN=host/broke", ACL_ROLE_BROKER));
	acl_free(&acl);

	CHECK_INT_EQ(acl_parse(&acl, "admin \"*\"\n", "acl", err, sizeof(err)), 0);
	CHECK(acl_allows(&acl, JANE, ACL_ROLE_ADMIN));
	CHECK(acl_allows(&acl, GW_A, ACL_ROLE_ADMIN));
	acl_free(&acl);
}

static void
acl_empty_acl_allows_nothing(void)
{
	struct acl acl;
	CHECK_INT_EQ(acl_parse(&acl, "# nobody\n\n", "acl", err, sizeof(err)), 0);
	CHECK_INT_EQ(acl.count, 0);
	CHECK_INT_EQ(acl_roles(&acl, GW_A), 0);
	CHECK(!acl_allows(&acl, GW_A, ACL_ROLE_FRONTEND));
	acl_free(&acl);
}

static void
expect_acl_error(const char *bad_line, const char *reason_part)
{
	char text[1024];
	struct acl acl;
	snprintf(text, sizeof(text), "\r\nfrontend \"" GW_A "\"\r\n%s\nadmin \"*\"\n", bad_line);
	err[0] = '\0';
	CHECK_INT_EQ(acl_parse(&acl, text, "acl", err, sizeof(err)), -1);
	CHECK(err_starts("acl:3: "));
	if (strstr(err, reason_part) == NULL) {
		fprintf(stderr, "  error '%s' lacks '%s' (line '%s')\n", err, reason_part, bad_line);
		CHECK(strstr(err, reason_part) != NULL);
	}
	CHECK(acl.rules == NULL && acl.count == 0);
	acl_free(&acl); /* in case it wrongly loaded */
}

static void
acl_malformed_lines_are_rejected_with_origin_and_line(void)
{
	expect_acl_error("user \"" JANE "\"", "unknown role");
	expect_acl_error("frontend,root \"" GW_A "\"", "unknown role");
	expect_acl_error("Frontend \"" GW_A "\"", "unknown role");
	expect_acl_error("frontend", "double-quoted");
	expect_acl_error("frontend " GW_A, "double-quoted");
	expect_acl_error("\"" GW_A "\" frontend", "unknown role");
	expect_acl_error("frontend \"" GW_A, "unterminated");
	expect_acl_error("frontend \"\"", "empty DN");
	expect_acl_error("frontend \"" GW_A "\" proxy", "after the DN pattern");
	expect_acl_error("frontend, proxy \"" GW_A "\"", "double-quoted");
}

/* Known bug: a role list of only commas is accepted as a rule that grants nothing. */
static void
acl_role_list_without_a_role_is_rejected(void)
{
	expect_acl_error(", \"" GW_A "\"", "role");
}

int
main(void)
{
	RUN(gridmap_simple_lines_map_dn_to_account);
	RUN(gridmap_first_of_several_accounts_is_the_default);
	RUN(gridmap_escaped_quote_and_backslash_in_dn_are_unescaped);
	RUN(gridmap_comments_and_blank_lines_are_ignored);
	RUN(gridmap_crlf_line_endings_are_accepted);
	RUN(gridmap_lookup_is_exact_match_only);
	RUN(gridmap_many_entries_all_found);
	RUN(gridmap_malformed_lines_are_rejected_with_origin_and_line);
	RUN(gridmap_longest_dn_and_account_name_are_accepted);
	RUN(gridmap_over_long_line_is_skipped_and_the_rest_loads);
	RUN(gridmap_hex_escapes_are_bytes_and_other_escapes_stay);
	RUN(acl_escaped_dn_does_not_match_the_admin_pattern);
	RUN(gridmap_every_account_in_the_list_is_validated);
	RUN(gridmap_and_acl_load_files_and_name_them_in_errors);
	RUN(acl_role_names_parse_and_unknown_is_minus_one);
	RUN(acl_each_line_grants_its_role_to_matching_dns);
	RUN(acl_one_line_may_grant_several_roles);
	RUN(acl_roles_of_all_matching_lines_add_up);
	RUN(acl_glob_matches_the_whole_dn_only);
	RUN(acl_empty_acl_allows_nothing);
	RUN(acl_malformed_lines_are_rejected_with_origin_and_line);
	RUN(acl_role_list_without_a_role_is_rejected);
	return check_exit();
}
