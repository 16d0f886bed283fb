/*
 * json_write.h: just enough JSON output for the command-line tools' --json modes: objects,
 * arrays, escaped strings and numbers, written straight to a FILE.
 */
#ifndef QCG_JSON_WRITE_H
#define QCG_JSON_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *out;
	int depth;
	bool need_comma[32]; /* per nesting level: has this container a member yet */
};

void json_begin(struct json_writer *w, FILE *out);
void json_object_open(struct json_writer *w, const char *key);  /* key NULL inside arrays */
void json_object_close(struct json_writer *w);
void json_array_open(struct json_writer *w, const char *key);
void json_array_close(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *value); /* NULL → null */
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_bool(struct json_writer *w, const char *key, bool value);
/* Finish with a newline. */
void json_end(struct json_writer *w);

#endif
