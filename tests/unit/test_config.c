/*
 * test_config.c: lib/config_file: INI parsing, overrides, typed getters, and every error
 * naming where it happened (file:line, or the key).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config_file.h"


static struct config cfg; /* large (about 290 KiB): static, not on the stack */
static char err[512];

/* Write text (len bytes, so it may hold a NUL) to a fresh temporary file; returns its path. */
static const char *
write_temp(const char *text, size_t len)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/test_config.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		perror("test_config: temporary file");
		exit(99);
	}
	close(fd);
	return path;
}

/* Load text as a file named by its temporary path; the path is kept for error checks. */
static int
load_as_file(const char *text, size_t len, char *path_out, size_t path_len)
{
	const char *path = write_temp(text, len);
	snprintf(path_out, path_len, "%s", path);
	config_init(&cfg);
	err[0] = '\0';
	int rc = config_load_file(&cfg, path, err, sizeof(err));
	unlink(path);
	return rc;
}

static int
load_text(const char *text)
{
	config_init(&cfg);
	err[0] = '\0';
	return config_load_text(&cfg, text, "t.conf", err, sizeof(err));
}

/* True when err starts with prefix; prints err otherwise so a failure is readable. */
static bool
err_starts(const char *prefix)
{
	if (strncmp(err, prefix, strlen(prefix)) == 0)
		return true;
	fprintf(stderr, "  error was: '%s', want prefix '%s'\n", err, prefix);
	return false;
}

static void
sections_and_keys_are_addressed_as_section_dot_key(void)
{
	CHECK_INT_EQ(load_text("[broker]\nlisten = 127.0.0.1:8443\n\n[proxy]\n  workers=4  \n"
			       "listen = 0.0.0.0:9000"),
	    0);
	CHECK_STR_EQ(config_get(&cfg, "broker.listen", NULL), "127.0.0.1:8443");
	CHECK_STR_EQ(config_get(&cfg, "proxy.workers", NULL), "4");
	CHECK_STR_EQ(config_get(&cfg, "proxy.listen", NULL), "0.0.0.0:9000");
	CHECK(config_get(&cfg, "broker.workers", NULL) == NULL);
	CHECK_STR_EQ(config_get(&cfg, "broker.absent", "fallback"), "fallback");
	CHECK_INT_EQ(cfg.count, 3);
}

static void
hash_and_semicolon_lines_are_comments(void)
{
	CHECK_INT_EQ(load_text("# top comment\n; another\n[s]\n  # indented = comment\n"
			       "\t; k = v\nk = v\n"),
	    0);
	CHECK_INT_EQ(cfg.count, 1);
	CHECK_STR_EQ(config_get(&cfg, "s.k", NULL), "v");
}

static void
crlf_line_endings_are_trimmed(void)
{
	CHECK_INT_EQ(load_text("[s]\r\nk = v\r\n"), 0);
	CHECK_STR_EQ(config_get(&cfg, "s.k", NULL), "v");
}

static void
quotes_around_a_value_are_removed_once(void)
{
	CHECK_INT_EQ(load_text("[s]\na = \"/path with spaces/x\"\nb = 'single'\nc = \"\"\n"
			       "d = \"unbalanced\ne = \"'mixed\"'\nf = \"\"x\"\"\n"),
	    0);
	CHECK_STR_EQ(config_get(&cfg, "s.a", NULL), "/path with spaces/x");
	CHECK_STR_EQ(config_get(&cfg, "s.b", NULL), "single");
	CHECK_STR_EQ(config_get(&cfg, "s.c", NULL), "");
	CHECK_STR_EQ(config_get(&cfg, "s.d", NULL), "\"unbalanced");
	CHECK_STR_EQ(config_get(&cfg, "s.e", NULL), "\"'mixed\"'");
	CHECK_STR_EQ(config_get(&cfg, "s.f", NULL), "\"x\"");
}

static void
later_assignment_wins_without_a_second_entry(void)
{
	CHECK_INT_EQ(load_text("[s]\nk = first\n[t]\nk = other\n[s]\nk = second\n"), 0);
	CHECK_STR_EQ(config_get(&cfg, "s.k", NULL), "second");
	CHECK_STR_EQ(config_get(&cfg, "t.k", NULL), "other");
	CHECK_INT_EQ(cfg.count, 2);
}

static void
override_wins_over_the_file(void)
{
	CHECK_INT_EQ(load_text("[broker]\nlisten = 127.0.0.1:8443\n"), 0);
	CHECK_INT_EQ(config_apply_override(&cfg, "broker.listen=0.0.0.0:9443", err, sizeof(err)), 0);
	CHECK_STR_EQ(config_get(&cfg, "broker.listen", NULL), "0.0.0.0:9443");
	CHECK_INT_EQ(config_apply_override(&cfg, "broker.new=a=b", err, sizeof(err)), 0);
	CHECK_STR_EQ(config_get(&cfg, "broker.new", NULL), "a=b");
	CHECK_INT_EQ(cfg.count, 2);
}

static void
malformed_override_is_rejected_naming_it(void)
{
	config_init(&cfg);
	CHECK_INT_EQ(config_apply_override(&cfg, "no-equals-sign", err, sizeof(err)), -1);
	CHECK(strstr(err, "no-equals-sign") != NULL);
	CHECK_INT_EQ(config_apply_override(&cfg, "=value", err, sizeof(err)), -1);
	CHECK_INT_EQ(config_apply_override(&cfg, "nosection=value", err, sizeof(err)), -1);
	CHECK(strstr(err, "nosection") != NULL);
	CHECK_INT_EQ(cfg.count, 0);
}

static void
get_int_accepts_range_and_uses_fallback(void)
{
	long v = 0;
	CHECK_INT_EQ(load_text("[s]\nn = 42\nneg = -7\nlo = 1\nhi = 10\n"), 0);
	CHECK_INT_EQ(config_get_int(&cfg, "s.n", 0, 0, 100, &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 42);
	CHECK_INT_EQ(config_get_int(&cfg, "s.neg", 0, -10, 10, &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, -7);
	CHECK_INT_EQ(config_get_int(&cfg, "s.lo", 0, 1, 10, &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 1);
	CHECK_INT_EQ(config_get_int(&cfg, "s.hi", 0, 1, 10, &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 10);
	CHECK_INT_EQ(config_get_int(&cfg, "s.absent", 77, 0, 10, &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 77);
}

/* One bad value must fail, leave *out alone, and name the key and the value. */
static void
expect_int_error(const char *value)
{
	char line[128];
	long v = 12345;
	snprintf(line, sizeof(line), "s.n=%s", value);
	config_init(&cfg);
	CHECK_INT_EQ(config_apply_override(&cfg, line, err, sizeof(err)), 0);
	err[0] = '\0';
	CHECK_INT_EQ(config_get_int(&cfg, "s.n", 0, 1, 100, &v, err, sizeof(err)), -1);
	CHECK_INT_EQ(v, 12345);
	CHECK(strstr(err, "s.n") != NULL);
	CHECK(strstr(err, "[1, 100]") != NULL);
	if (value[0] != '\0')
		CHECK(strstr(err, value) != NULL);
}

static void
get_int_range_and_garbage_errors_name_the_key(void)
{
	expect_int_error("0");
	expect_int_error("101");
	expect_int_error("12abc");
	expect_int_error("abc");
	expect_int_error("");
	expect_int_error("1.5");
	expect_int_error("99999999999999999999999");
}

static void
get_bool_accepts_the_usual_spellings(void)
{
	static const char *const yes[] = { "yes", "true", "on", "1", "YES", "True" };
	static const char *const no[] = { "no", "false", "off", "0", "NO", "Off" };
	char line[64];
	bool b;

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		config_init(&cfg);
		snprintf(line, sizeof(line), "s.b=%s", yes[i]);
		CHECK_INT_EQ(config_apply_override(&cfg, line, err, sizeof(err)), 0);
		b = false;
		CHECK_INT_EQ(config_get_bool(&cfg, "s.b", false, &b, err, sizeof(err)), 0);
		CHECK(b == true);
		snprintf(line, sizeof(line), "s.b=%s", no[i]);
		CHECK_INT_EQ(config_apply_override(&cfg, line, err, sizeof(err)), 0);
		b = true;
		CHECK_INT_EQ(config_get_bool(&cfg, "s.b", true, &b, err, sizeof(err)), 0);
		CHECK(b == false);
	}
	config_init(&cfg);
	CHECK_INT_EQ(config_get_bool(&cfg, "s.absent", true, &b, err, sizeof(err)), 0);
	CHECK(b == true);
}

static void
get_bool_garbage_error_names_the_key(void)
{
	bool b = true;
	CHECK_INT_EQ(load_text("[tls]\ncrl_required = maybe\n"), 0);
	CHECK_INT_EQ(config_get_bool(&cfg, "tls.crl_required", false, &b, err, sizeof(err)), -1);
	CHECK(strstr(err, "tls.crl_required") != NULL);
	CHECK(strstr(err, "maybe") != NULL);
	CHECK(b == true);
}

static void
key_outside_section_is_an_error_with_line(void)
{
	CHECK_INT_EQ(load_text("# comment\n\nkey = value\n"), -1);
	CHECK(err_starts("t.conf:3: "));
	CHECK(strstr(err, "section") != NULL);
}

static void
line_without_equals_is_an_error_with_line(void)
{
	CHECK_INT_EQ(load_text("[s]\nk = v\njust words\n"), -1);
	CHECK(err_starts("t.conf:3: "));
	CHECK(strstr(err, "just words") != NULL);
}

static void
bad_section_headers_are_errors_with_line(void)
{
	static const char *const bad[] = { "[s]\n[unterminated\n", "[s]\n[]\n", "[s]\n[a]junk\n",
		"[s]\n[" "0123456789012345678901234567890123456789012345678901234567890123" "]\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT_EQ(load_text(bad[i]), -1);
		CHECK(err_starts("t.conf:2: "));
	}
}

static void
empty_key_and_dotted_key_are_errors_with_line(void)
{
	CHECK_INT_EQ(load_text("[s]\n = v\n"), -1);
	CHECK(err_starts("t.conf:2: "));
	CHECK_INT_EQ(load_text("[s]\na.b = v\n"), -1);
	CHECK(err_starts("t.conf:2: "));
}

static void
over_long_line_is_an_error_with_line(void)
{
	static char text[CONFIG_LINE_MAX + 64];
	int n = snprintf(text, sizeof(text), "[s]\nk = ");
	memset(text + n, 'x', CONFIG_LINE_MAX);
	text[n + CONFIG_LINE_MAX] = '\0';
	CHECK_INT_EQ(load_text(text), -1);
	CHECK(err_starts("t.conf:2: "));
	CHECK(strstr(err, "line longer") != NULL);

	/* The longest line that fits is accepted (CONFIG_LINE_MAX - 1 bytes). */
	text[CONFIG_LINE_MAX - 1 + 4] = '\0';
	memcpy(text + 4, "[longest]", 9);
	memset(text + 4 + 9, ' ', CONFIG_LINE_MAX - 1 - 9);
	CHECK_INT_EQ(load_text(text), 0);
}

static void
over_long_value_is_an_error_with_line(void)
{
	static char text[CONFIG_VALUE_MAX + 64];
	int n = snprintf(text, sizeof(text), "[s]\nk = ");
	memset(text + n, 'v', CONFIG_VALUE_MAX);
	text[n + CONFIG_VALUE_MAX] = '\0';
	CHECK_INT_EQ(load_text(text), -1);
	CHECK(err_starts("t.conf:2: "));
	CHECK(strstr(err, "s.k") != NULL);

	text[n + CONFIG_VALUE_MAX - 1] = '\0'; /* exactly the limit: accepted, not truncated */
	CHECK_INT_EQ(load_text(text), 0);
	CHECK_INT_EQ(strlen(config_get(&cfg, "s.k", "")), CONFIG_VALUE_MAX - 1);
}

static void
too_many_entries_is_an_error_with_line(void)
{
	static char text[CONFIG_ENTRIES_MAX * 16 + 64];
	size_t n = (size_t)snprintf(text, sizeof(text), "[s]\n");
	for (int i = 0; i <= CONFIG_ENTRIES_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "k%d = %d\n", i, i);
	CHECK_INT_EQ(load_text(text), -1);
	char want[64];
	snprintf(want, sizeof(want), "t.conf:%d: ", CONFIG_ENTRIES_MAX + 2);
	CHECK(err_starts(want));
	/* Reassigning existing keys does not use up entries. */
	CHECK_INT_EQ(load_text("[s]\nk=1\nk=2\nk=3\n"), 0);
	CHECK_INT_EQ(cfg.count, 1);
}

static void
file_is_loaded_and_errors_name_the_file_and_line(void)
{
	char path[64];
	static const char good[] = "[s]\nk = from-file\n";
	static const char bad[] = "[s]\nk = v\n\nbroken\n";

	CHECK_INT_EQ(load_as_file(good, sizeof(good) - 1, path, sizeof(path)), 0);
	CHECK_STR_EQ(config_get(&cfg, "s.k", NULL), "from-file");
	CHECK_INT_EQ(load_as_file(bad, sizeof(bad) - 1, path, sizeof(path)), -1);
	char want[96];
	snprintf(want, sizeof(want), "%s:4: ", path);
	CHECK(err_starts(want));
}

static void
nul_byte_in_file_is_rejected_naming_the_file(void)
{
	char path[64];
	static const char text[] = "[s]\nk = a\0b\n";
	CHECK_INT_EQ(load_as_file(text, sizeof(text) - 1, path, sizeof(path)), -1);
	CHECK(err_starts(path));
	CHECK(strstr(err, "NUL") != NULL);
}

/* Known bug: config_load_file reports "path: contains a NUL byte" without the line. */
static void
nul_byte_error_names_the_line(void)
{
	char path[64], want[96];
	static const char text[] = "[s]\nk = v\nk = a\0b\n";
	CHECK_INT_EQ(load_as_file(text, sizeof(text) - 1, path, sizeof(path)), -1);
	snprintf(want, sizeof(want), "%s:3: ", path);
	CHECK(err_starts(want));
}

static void
missing_file_is_an_error_naming_the_file(void)
{
	config_init(&cfg);
	CHECK_INT_EQ(config_load_file(&cfg, "/nonexistent/qcg/test.conf", err, sizeof(err)), -1);
	CHECK(err_starts("/nonexistent/qcg/test.conf: "));
	CHECK(strstr(err, "No such file") != NULL);
}

/* config_copy: a value that fits is copied; one a byte too long is a config error naming
 * the file, the line, the key and the bound, and the field is left as it was. */
static void
bounded_copy_reports_truncation_with_file_and_line(void)
{
	char field[8] = "old";

	config_init(&cfg);
	CHECK_INT_EQ(config_load_text(&cfg, "[s]\n\nfits = 1234567\nlong = 12345678\n", "t.conf",
	    err, sizeof(err)), 0);
	CHECK_INT_EQ(config_copy(&cfg, "s.fits", NULL, field, sizeof(field), err, sizeof(err)), 0);
	CHECK_STR_EQ(field, "1234567");
	strcpy(field, "old");
	CHECK_INT_EQ(config_copy(&cfg, "s.long", NULL, field, sizeof(field), err, sizeof(err)), -1);
	CHECK_STR_EQ(err, "t.conf:4: s.long: value longer than 7 bytes");
	CHECK_STR_EQ(field, "old");
	/* Absent: the fallback, or 1 and the field untouched. */
	CHECK_INT_EQ(config_copy(&cfg, "s.none", "dflt", field, sizeof(field), err, sizeof(err)),
	    0);
	CHECK_STR_EQ(field, "dflt");
	CHECK_INT_EQ(config_copy(&cfg, "s.none", NULL, field, sizeof(field), err, sizeof(err)), 1);
	CHECK_STR_EQ(field, "dflt");
	/* An override names itself instead of a line. */
	CHECK_INT_EQ(config_apply_override(&cfg, "s.fits=123456789", err, sizeof(err)), 0);
	CHECK_INT_EQ(config_copy(&cfg, "s.fits", NULL, field, sizeof(field), err, sizeof(err)), -1);
	CHECK_STR_EQ(err, "--set: s.fits: value longer than 7 bytes");
	/* Required: absent and empty are errors; a value is copied as by config_copy. */
	CHECK_INT_EQ(config_apply_override(&cfg, "s.empty=", err, sizeof(err)), 0);
	CHECK_INT_EQ(config_copy_required(&cfg, "s.empty", "x", field, sizeof(field), err,
	    sizeof(err)), -1);
	CHECK_STR_EQ(err, "--set: s.empty is required");
	CHECK_INT_EQ(config_copy_required(&cfg, "s.none", NULL, field, sizeof(field), err,
	    sizeof(err)), -1);
	CHECK_STR_EQ(err, "s.none is required");
	CHECK_INT_EQ(config_copy_required(&cfg, "s.none", "deflt", field, sizeof(field), err,
	    sizeof(err)), 0);
	CHECK_STR_EQ(field, "deflt");
	CHECK_INT_EQ(config_copy_required(&cfg, "s.fits", NULL, field, sizeof(field), err,
	    sizeof(err)), -1);
	CHECK_STR_EQ(err, "--set: s.fits: value longer than 7 bytes");
}

static void
config_error_names_where_each_value_came_from(void)
{
	char where[300];

	config_init(&cfg);
	CHECK_INT_EQ(config_load_text(&cfg, "[a]\nx = 1\n", "one.conf", err, sizeof(err)), 0);
	CHECK_INT_EQ(config_load_text(&cfg, "# two\n[b]\ny = 2\n", "two.conf", err, sizeof(err)),
	    0);
	config_where(&cfg, "a.x", where, sizeof(where));
	CHECK_STR_EQ(where, "one.conf:2");
	config_where(&cfg, "b.y", where, sizeof(where));
	CHECK_STR_EQ(where, "two.conf:3");
	config_where(&cfg, "b.none", where, sizeof(where));
	CHECK_STR_EQ(where, "");
	CHECK_INT_EQ(config_error(&cfg, "b.y", err, sizeof(err), "must be %s", "odd"), -1);
	CHECK_STR_EQ(err, "two.conf:3: b.y: must be odd");
	CHECK_INT_EQ(config_error(&cfg, "b.none", err, sizeof(err), "is required"), -1);
	CHECK_STR_EQ(err, "b.none: is required");
	/* A later file's value replaces the earlier one, and its place with it. */
	CHECK_INT_EQ(config_load_text(&cfg, "[a]\n\n\nx = 3\n", "three.conf", err, sizeof(err)),
	    0);
	config_where(&cfg, "a.x", where, sizeof(where));
	CHECK_STR_EQ(where, "three.conf:4");
}

/* config_place and config_locate_error: a validator's reason gets the place of the key it
 * names (what -n prints), an override the command line, a file's own error its value's line. */
static void
errors_about_a_key_get_its_file_and_line(void)
{
	const char *origin = NULL;
	int line = 0;
	CHECK_INT_EQ(load_text("[a]\nx = 1\n[b]\nworkers = many\nkey = /etc/k.pem\n"
	    "max-legs = 3\nmax = 4\n"), 0);
	CHECK_INT_EQ(config_place(&cfg, "b.workers", &origin, &line), 0);
	CHECK_STR_EQ(origin, "t.conf");
	CHECK_INT_EQ(line, 4);
	CHECK_INT_EQ(config_place(&cfg, "b.absent", &origin, &line), -1);

	snprintf(err, sizeof(err), "b.workers must be an integer in [1, 8], got 'many'");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "t.conf:4: b.workers must be an integer in [1, 8], got 'many'");
	/* b.max is not the key of "b.max-legs": the longer key is named */
	snprintf(err, sizeof(err), "b.max-legs must be at least 2");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "t.conf:6: b.max-legs must be at least 2");
	/* a key at the end of a sentence */
	snprintf(err, sizeof(err), "x needs b.max.");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "t.conf:7: x needs b.max.");
	/* a file's error names its path, which is a key's value */
	snprintf(err, sizeof(err), "/etc/k.pem: No such file or directory");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "t.conf:5: /etc/k.pem: No such file or directory");
	/* a place given already stays */
	snprintf(err, sizeof(err), "/etc/qcg/acl:3: unknown role");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "/etc/qcg/acl:3: unknown role");
	/* a missing key has no line: the file */
	snprintf(err, sizeof(err), "[tls] cert and key must be set");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "t.conf: [tls] cert and key must be set");
	/* an override names the command line */
	CHECK_INT_EQ(config_apply_override(&cfg, "b.workers=0", err, sizeof(err)), 0);
	snprintf(err, sizeof(err), "b.workers must be an integer in [1, 8], got '0'");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "command line (-s b.workers): b.workers must be an integer in [1, 8], "
	    "got '0'");
	/* config_error's own place ("--set:" for an override) stays too */
	snprintf(err, sizeof(err), "--set: b.workers: must be odd");
	config_locate_error(&cfg, "t.conf", err, sizeof(err));
	CHECK_STR_EQ(err, "--set: b.workers: must be odd");
}

int
main(void)
{
	RUN(sections_and_keys_are_addressed_as_section_dot_key);
	RUN(hash_and_semicolon_lines_are_comments);
	RUN(crlf_line_endings_are_trimmed);
	RUN(quotes_around_a_value_are_removed_once);
	RUN(later_assignment_wins_without_a_second_entry);
	RUN(override_wins_over_the_file);
	RUN(malformed_override_is_rejected_naming_it);
	RUN(get_int_accepts_range_and_uses_fallback);
	RUN(get_int_range_and_garbage_errors_name_the_key);
	RUN(get_bool_accepts_the_usual_spellings);
	RUN(get_bool_garbage_error_names_the_key);
	RUN(key_outside_section_is_an_error_with_line);
	RUN(line_without_equals_is_an_error_with_line);
	RUN(bad_section_headers_are_errors_with_line);
	RUN(empty_key_and_dotted_key_are_errors_with_line);
	RUN(over_long_line_is_an_error_with_line);
	RUN(over_long_value_is_an_error_with_line);
	RUN(too_many_entries_is_an_error_with_line);
	RUN(file_is_loaded_and_errors_name_the_file_and_line);
	RUN(nul_byte_in_file_is_rejected_naming_the_file);
	RUN(nul_byte_error_names_the_line);
	RUN(missing_file_is_an_error_naming_the_file);
	RUN(bounded_copy_reports_truncation_with_file_and_line);
	RUN(config_error_names_where_each_value_came_from);
	RUN(errors_about_a_key_get_its_file_and_line);
	return check_exit();
}
