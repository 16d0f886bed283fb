/*
 * test_json_write.c: lib/json_write, the --json output of the command-line tools: strings
 * escaped per RFC 8259, commas exactly between members, nesting, null for a NULL string.
 * Output goes to a memory stream and is compared byte for byte.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_write.h"

static struct json_writer w;
static char *buf;
static size_t buflen;
static FILE *out;

static void
start(void)
{
	out = open_memstream(&buf, &buflen);
	if (out == NULL) {
		perror("test_json_write: open_memstream");
		exit(99);
	}
	json_begin(&w, out);
}

/* Finish the stream and compare what was written with want; frees the buffer. */
static void
expect_output(const char *want)
{
	fclose(out);
	CHECK_STR_EQ(buf, want);
	free(buf);
	buf = NULL;
}

static void
string_escapes_quote_backslash_and_newline(void)
{
	start();
	json_string(&w, NULL, "say \"hi\"\\path\nnext");
	expect_output("\"say \\\"hi\\\"\\\\path\\nnext\"");
}

static void
string_escapes_every_control_character_as_unicode(void)
{
	start();
	json_string(&w, NULL, "\x01\t\r\x1f\x7f end");
	expect_output("\"\\u0001\\u0009\\u000d\\u001f\x7f end\"");

	char all[32];
	for (int i = 1; i < 32; i++)
		all[i - 1] = (char)i;
	all[31] = '\0';
	start();
	json_string(&w, NULL, all);
	fclose(out);
	/* No raw control byte may remain in the output. */
	int raw = 0;
	for (size_t i = 0; i < buflen; i++)
		raw += (unsigned char)buf[i] < 0x20;
	CHECK_INT_EQ(raw, 0);
	CHECK(strstr(buf, "\\u001e") != NULL);
	free(buf);
}

static void
utf8_passes_through_unchanged(void)
{
	start();
	json_string(&w, NULL, "Zo\xc3\xab \xe2\x82\xac");
	expect_output("\"Zo\xc3\xab \xe2\x82\xac\"");
}

static void
keys_are_escaped_like_values(void)
{
	start();
	json_object_open(&w, NULL);
	json_string(&w, "a\"b\n", "v");
	json_object_close(&w);
	expect_output("{\"a\\\"b\\n\":\"v\"}");
}

static void
null_string_is_written_as_null(void)
{
	start();
	json_object_open(&w, NULL);
	json_string(&w, "dn", NULL);
	json_string(&w, "empty", "");
	json_object_close(&w);
	expect_output("{\"dn\":null,\"empty\":\"\"}");
}

static void
commas_go_between_members_only(void)
{
	start();
	json_object_open(&w, NULL);
	json_string(&w, "a", "x");
	json_int(&w, "b", -42);
	json_bool(&w, "c", true);
	json_bool(&w, "d", false);
	json_object_close(&w);
	json_end(&w);
	expect_output("{\"a\":\"x\",\"b\":-42,\"c\":true,\"d\":false}\n");
}

static void
empty_containers_have_no_commas(void)
{
	start();
	json_array_open(&w, NULL);
	json_object_open(&w, NULL);
	json_object_close(&w);
	json_array_open(&w, NULL);
	json_array_close(&w);
	json_object_open(&w, NULL);
	json_object_close(&w);
	json_array_close(&w);
	expect_output("[{},[],{}]");
}

static void
nesting_restores_the_outer_containers_commas(void)
{
	start();
	json_object_open(&w, NULL);
	json_string(&w, "job", "j1");
	json_array_open(&w, "clusters");
	json_object_open(&w, NULL);
	json_string(&w, "name", "a");
	json_array_open(&w, "nodes");
	json_string(&w, NULL, "n1");
	json_string(&w, NULL, "n2");
	json_array_close(&w);
	json_object_close(&w);
	json_object_open(&w, NULL);
	json_string(&w, "name", "b");
	json_object_close(&w);
	json_array_close(&w);
	json_int(&w, "ranks", 8);
	json_object_close(&w);
	json_end(&w);
	expect_output("{\"job\":\"j1\",\"clusters\":[{\"name\":\"a\",\"nodes\":[\"n1\",\"n2\"]},"
		      "{\"name\":\"b\"}],\"ranks\":8}\n");
}

static void
int64_extremes_are_exact(void)
{
	start();
	json_array_open(&w, NULL);
	json_int(&w, NULL, INT64_MAX);
	json_int(&w, NULL, INT64_MIN);
	json_int(&w, NULL, 0);
	json_array_close(&w);
	expect_output("[9223372036854775807,-9223372036854775808,0]");
}

/* depth nested arrays, each holding 1, the next array, then 2: "[1,[1,...,2],2]". */
static void
expect_nested(int depth)
{
	size_t cap = (size_t)depth * 8 + 8, n = 0;
	char *want = malloc(cap);
	if (want == NULL)
		exit(99);
	for (int i = 0; i < depth; i++) {
		json_array_open(&w, NULL);
		json_int(&w, NULL, 1);
		n += (size_t)snprintf(want + n, cap - n, i ? ",[1" : "[1");
	}
	for (int i = 0; i < depth; i++) {
		json_int(&w, NULL, 2);
		json_array_close(&w);
		n += (size_t)snprintf(want + n, cap - n, ",2]");
	}
	expect_output(want);
	free(want);
}

static void
thirty_one_nested_containers_keep_their_commas(void)
{
	start();
	expect_nested(31);
}

/* depth nested arrays whose first member is the next array, then 2: "[[[...],2],2]". */
static void
expect_nested_first(int depth)
{
	size_t cap = (size_t)depth * 8 + 8, n = 0;
	char *want = malloc(cap);
	if (want == NULL)
		exit(99);
	for (int i = 0; i < depth; i++) {
		json_array_open(&w, NULL);
		n += (size_t)snprintf(want + n, cap - n, "[");
	}
	for (int i = 0; i < depth; i++) {
		if (i > 0)
			json_int(&w, NULL, 2);
		json_array_close(&w);
		n += (size_t)snprintf(want + n, cap - n, i ? ",2]" : "]");
	}
	expect_output(want);
	free(want);
}

/* The writer tracks 32 levels; deeper, its depth is off but the commas must stay right. */
static void
nesting_deeper_than_tracked_still_writes_valid_json(void)
{
	start();
	expect_nested(40);
	start();
	expect_nested_first(40);
	start();
	expect_nested_first(31);
}

int
main(void)
{
	RUN(string_escapes_quote_backslash_and_newline);
	RUN(string_escapes_every_control_character_as_unicode);
	RUN(utf8_passes_through_unchanged);
	RUN(keys_are_escaped_like_values);
	RUN(null_string_is_written_as_null);
	RUN(commas_go_between_members_only);
	RUN(empty_containers_have_no_commas);
	RUN(nesting_restores_the_outer_containers_commas);
	RUN(int64_extremes_are_exact);
	RUN(thirty_one_nested_containers_keep_their_commas);
	RUN(nesting_deeper_than_tracked_still_writes_valid_json);
	return check_exit();
}
