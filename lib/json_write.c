/*
 * json_write.c: minimal JSON writer (RFC 8259 string escaping).
 */
#include "config.h"

#include <inttypes.h>

#include "json_write.h"

#define JSON_DEPTH_MAX ((int)(sizeof(((struct json_writer *)0)->need_comma) / sizeof(bool)))

void
json_begin(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->need_comma[0] = false;
}

static void
json_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* Separator and key for the next member of the current container. */
static void
json_member(struct json_writer *w, const char *key)
{
	if (w->need_comma[w->depth])
		fputc(',', w->out);
	w->need_comma[w->depth] = true;
	if (key) {
		json_escaped(w->out, key);
		fputc(':', w->out);
	}
}

static void
json_open(struct json_writer *w, const char *key, char bracket)
{
	json_member(w, key);
	fputc(bracket, w->out);
	if (w->depth + 1 < JSON_DEPTH_MAX)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void
json_close(struct json_writer *w, char bracket)
{
	fputc(bracket, w->out);
	if (w->depth > 0)
		w->depth--;
}

void json_object_open(struct json_writer *w, const char *key) { json_open(w, key, '{'); }
void json_object_close(struct json_writer *w) { json_close(w, '}'); }
void json_array_open(struct json_writer *w, const char *key) { json_open(w, key, '['); }
void json_array_close(struct json_writer *w) { json_close(w, ']'); }

void
json_string(struct json_writer *w, const char *key, const char *value)
{
	json_member(w, key);
	if (value)
		json_escaped(w->out, value);
	else
		fputs("null", w->out);
}

void
json_int(struct json_writer *w, const char *key, int64_t value)
{
	json_member(w, key);
	fprintf(w->out, "%" PRId64, value);
}

void
json_bool(struct json_writer *w, const char *key, bool value)
{
	json_member(w, key);
	fputs(value ? "true" : "false", w->out);
}

void
json_end(struct json_writer *w)
{
	fputc('\n', w->out);
}
