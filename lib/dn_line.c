/*
 * dn_line.c: tokenizer shared by the grid-mapfile and ACL parsers.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex_digit.h"
#include "dn_line.h"
#include "log.h"

int
dn_line_hex_escape(const char *s, char *byte)
{
	if (s[0] != '\\' || s[1] != 'x' || hex_digit_value(s[2]) < 0 || hex_digit_value(s[3]) < 0)
		return 0;
	*byte = (char)(hex_digit_value(s[2]) * 16 + hex_digit_value(s[3]));
	return 1;
}

void
dn_line_skip_space(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

int
dn_line_quoted(const char **p, char *out, size_t outlen, const char **err)
{
	const char *s = *p;
	size_t n = 0;

	if (*s != '"') {
		*err = "expected a double-quoted DN";
		return -1;
	}
	for (s++; *s != '"'; s++) {
		if (*s == '\0' || *s == '\n') {
			*err = "unterminated quoted DN";
			return -1;
		}
		char c = *s;
		if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
			c = *++s;
		else if (dn_line_hex_escape(s, &c)) {
			/* "\xC3\xAB": how openssl -nameopt compat and Globus tools print a UTF-8
			 * byte; Globus's grid-mapfile reader takes it as that byte too. */
			s += 3;
			if (c == '\0') {
				*err = "\\x00 (a NUL) in a quoted DN";
				return -1;
			}
		}
		if (n + 1 >= outlen) {
			*err = "DN too long";
			return -1;
		}
		out[n++] = c;
	}
	if (n == 0) {
		*err = "empty DN";
		return -1;
	}
	out[n] = '\0';
	*p = s + 1;
	return 0;
}

int
dn_line_word(const char **p, char *out, size_t outlen, const char **err)
{
	const char *s = *p;
	size_t n = 0;

	while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') {
		if (n + 1 >= outlen) {
			*err = "word too long";
			return -1;
		}
		out[n++] = *s++;
	}
	if (n == 0) {
		*err = "expected a word";
		return -1;
	}
	out[n] = '\0';
	*p = s;
	return 0;
}

char *
dn_line_read_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *text = malloc(DN_FILE_MAX + 1);
	size_t n = text ? fread(text, 1, DN_FILE_MAX + 1, f) : 0;
	int bad = text == NULL || ferror(f) || n > DN_FILE_MAX || memchr(text, '\0', n) != NULL;
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: unreadable, larger than %d bytes, or binary", path,
		    DN_FILE_MAX);
		free(text);
		return NULL;
	}
	text[n] = '\0';
	return text;
}

int
dn_line_each(const char *text, const char *origin, dn_line_fn fn, void *ctx, char *err,
    size_t errlen)
{
	int lineno = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[DN_LINE_MAX];
		const char *why = NULL;

		lineno++;
		if (n >= sizeof(line)) {
			/* No DN or account list is that long, so the line maps no one; refusing the
			 * whole file for it would lock every user out (and stop the service). */
			log_warn("%s:%d: line longer than %d bytes, ignored", origin, lineno,
			    DN_LINE_MAX - 1);
			p += n + (nl ? 1 : 0);
			continue;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[n - 1] = '\0';
		p += n + (nl ? 1 : 0);
		const char *s = line;
		dn_line_skip_space(&s);
		if (*s == '\0' || *s == '#')
			continue;
		if (fn(s, ctx, &why) != 0) {
			snprintf(err, errlen, "%s:%d: %s", origin, lineno, why);
			return -1;
		}
	}
	return 0;
}
