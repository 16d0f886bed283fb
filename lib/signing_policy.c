/*
 * signing_policy.c: parsing and evaluation of Globus signing_policy files (see the header).
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "dn_line.h"
#include "signing_policy.h"

/* Copy a pattern of n bytes, turning "\xHH" into its byte; other text is kept as written. */
static int
pattern_copy(char *out, const char *in, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		if (i + 3 < n && dn_line_hex_escape(in + i, &c))
			i += 3;
		if (c == '\0' || o + 1 >= SIGNING_POLICY_PATTERN_MAX)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	return o > 0 ? 0 : -1;
}

/* The next whitespace-separated token at *p, or a '...' quoted one (quotes removed). */
static int
next_token(const char **p, const char **tok, size_t *len)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	if (*s == '#') { /* a comment runs to the end of its line */
		while (*s && *s != '\n')
			s++;
		*p = s;
		return next_token(p, tok, len);
	}
	if (*s == '\0')
		return 0;
	if (*s == '\'') {
		const char *end = strchr(s + 1, '\'');
		if (end == NULL)
			return -1;
		*tok = s + 1;
		*len = (size_t)(end - s - 1);
		*p = end + 1;
		return 1;
	}
	*tok = s;
	while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
	return 1;
}

static bool
token_is(const char *tok, size_t len, const char *word)
{
	return strlen(word) == len && strncmp(tok, word, len) == 0;
}

/* The double-quoted patterns inside one cond_subjects value. */
static int
add_patterns(struct signing_policy *p, const char *v, size_t len)
{
	const char *end = v + len;
	while (v < end) {
		const char *open = memchr(v, '"', (size_t)(end - v));
		if (open == NULL)
			break;
		const char *close = memchr(open + 1, '"', (size_t)(end - open - 1));
		if (close == NULL || p->count >= SIGNING_POLICY_PATTERNS_MAX ||
		    pattern_copy(p->patterns[p->count], open + 1, (size_t)(close - open - 1)) != 0)
			return -1;
		p->count++;
		v = close + 1;
	}
	return 0;
}

int
signing_policy_parse(struct signing_policy *p, const char *text, const char *origin, char *err,
    size_t errlen)
{
	const char *s = text, *tok, *type, *value;
	size_t len, type_len, value_len;
	bool signs = false; /* the current access_id_CA block grants CA:sign */
	int r;

	p->count = 0;
	while ((r = next_token(&s, &tok, &len)) == 1) {
		int rt = next_token(&s, &type, &type_len);
		int rv = rt == 1 ? next_token(&s, &value, &value_len) : rt;
		if (rt < 0 || rv < 0) {
			r = -1;
			break;
		}
		if (rt != 1 || rv != 1) {
			snprintf(err, errlen, "%s: '%.*s' needs a type and a value", origin, (int)len,
			    tok);
			return -1;
		}
		if (token_is(tok, len, "access_id_CA"))
			signs = false;
		else if (token_is(tok, len, "pos_rights"))
			signs = signs || token_is(value, value_len, "CA:sign");
		else if (token_is(tok, len, "cond_subjects")) {
			if (signs && add_patterns(p, value, value_len) != 0) {
				snprintf(err, errlen, "%s: a cond_subjects pattern is malformed, empty, "
				    "longer than %d bytes, or one of more than %d", origin,
				    SIGNING_POLICY_PATTERN_MAX - 1, SIGNING_POLICY_PATTERNS_MAX);
				return -1;
			}
		} else if (!token_is(tok, len, "neg_rights") &&
		    !token_is(tok, len, "cond_banned_subjects")) {
			snprintf(err, errlen, "%s: unknown keyword '%.*s'", origin, (int)len, tok);
			return -1;
		}
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: unterminated quoted value", origin);
		return -1;
	}
	return 0;
}

bool
signing_policy_allows(const struct signing_policy *p, const char *subject)
{
	for (size_t i = 0; i < p->count; i++)
		if (fnmatch(p->patterns[i], subject, FNM_NOESCAPE) == 0)
			return true;
	return false;
}
