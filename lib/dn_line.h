/*
 * dn_line.h: the one tokenizer behind the grid-mapfile and the service ACL, whose lines both name
 * a distinguished name in double quotes:
 *
 *   "/O=Grid/OU=qcg-ompi/CN=Jane Doe" jane           (grid-mapfile: DN, then accounts)
 *   frontend "/O=Grid/OU=qcg-ompi/CN=host/gw-*"       (ACL: role, then DN pattern)
 *
 * Inside quotes, \" and \\ stand for themselves, \xHH for the byte HH (as openssl and Globus tools
 * print UTF-8), and any other backslash is kept as written (so "\=" reaches the DN as the escape
 * tls_name_to_dn writes for '=' in a value). A line longer than DN_LINE_MAX is logged and
 * ignored: it cannot hold a valid entry, and refusing the file would lock everyone out.
 */
#ifndef QCG_DN_LINE_H
#define QCG_DN_LINE_H

#include <stddef.h>

#define DN_FILE_MAX (4 * 1024 * 1024) /* a grid-mapfile or ACL larger than this is refused */
#define DN_LINE_MAX 4096

/* Parse a quoted string at *p into out (outlen bytes); advance *p past the closing quote.
 * Returns 0, or -1 with a reason in err. */
int dn_line_quoted(const char **p, char *out, size_t outlen, const char **err);
/* Parse a bare word (up to whitespace) at *p; same contract. */
int dn_line_word(const char **p, char *out, size_t outlen, const char **err);
/* Whether s starts with "\xHH" (two hex digits, either case); then *byte is that byte. */
int dn_line_hex_escape(const char *s, char *byte);
/* Skip spaces and tabs. */
void dn_line_skip_space(const char **p);
/* Call fn for every line of text that is neither blank nor a '#' comment, with leading space
 * skipped. fn returns 0, or -1 with a reason in *why; then err gets "origin:line: reason". */
typedef int (*dn_line_fn)(const char *line, void *ctx, const char **why);
int dn_line_each(const char *text, const char *origin, dn_line_fn fn, void *ctx, char *err,
    size_t errlen);
/* Read a whole file (at most DN_FILE_MAX) into a NUL-terminated malloc'ed buffer. */
char *dn_line_read_file(const char *path, char *err, size_t errlen);

#endif
