/*
 * xml_bounds.c: a streaming count of elements, attributes and namespace declarations (see
 * xml_bounds.h for why). It is not an XML parser: it follows just enough of the syntax (tags,
 * quoted attribute values, end tags, <? and <! constructs) to count, and leaves every judgement
 * of well-formedness to gSOAP. Where it is unsure it counts more, never less.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "xml_bounds.h"

enum {
	S_HEAD,       /* HTTP head: skip to the empty line */
	S_TEXT,       /* character data between tags */
	S_LT,         /* just after '<' */
	S_TAGNAME,    /* the name of a start tag */
	S_TAG,        /* inside a start tag, between attributes */
	S_ATTRNAME,   /* an attribute's name */
	S_AFTER_NAME, /* after the name, before '=' */
	S_VALUE_WAIT, /* after '=', before the quote */
	S_VALUE,      /* inside the quoted value */
	S_ENDTAG,     /* inside "</...>" */
	S_SPECIAL,    /* inside "<?...>" or "<!...>" */
};

void
xml_bounds_init(struct xml_bounds *b, const struct xml_bounds_limits *limits)
{
	memset(b, 0, sizeof(*b));
	b->limits = *limits;
	b->state = S_HEAD;
}

static int
exceed(struct xml_bounds *b, const char *what, uint32_t limit)
{
	snprintf(b->why, sizeof(b->why), "more than %u %s", (unsigned)limit, what);
	b->exceeded = b->why;
	return -1;
}

/* Record a distinct attribute name; -1 when there are too many on this connection. */
static int
name_seen(struct xml_bounds *b, uint32_t hash)
{
	uint32_t slot = hash % XML_BOUNDS_NAME_SLOTS;
	while (b->name_slots[slot] != 0) {
		if (b->name_slots[slot] == hash)
			return 0;
		slot = (slot + 1) % XML_BOUNDS_NAME_SLOTS;
	}
	if (++b->names > b->limits.attribute_names)
		return exceed(b, "distinct attribute names on one connection",
		    b->limits.attribute_names);
	b->name_slots[slot] = hash;
	return 0;
}

/* An attribute's name has ended: count it. */
static int
attribute_done(struct xml_bounds *b)
{
	if (++b->attributes > b->limits.attributes)
		return exceed(b, "attributes in one message", b->limits.attributes);
	if (++b->element_attributes > b->limits.element_attributes)
		return exceed(b, "attributes on one element", b->limits.element_attributes);
	if (b->name_len >= 5 && memcmp(b->name_head, "xmlns", 5) == 0 &&
	    (b->name_len == 5 || b->name_head[5] == ':') &&
	    ++b->namespaces > b->limits.namespaces)
		return exceed(b, "namespace declarations in one message", b->limits.namespaces);
	return name_seen(b, b->name_hash ? b->name_hash : 1);
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* A start tag ended with '>' (self_closed: "/>"). */
static void
start_tag_done(struct xml_bounds *b, int self_closed)
{
	if (!self_closed)
		b->depth++;
	b->state = b->depth > 0 ? S_TEXT : S_HEAD; /* a root "<x/>" ends its message */
}

/* One byte inside a start tag, between attributes. */
static int
in_tag(struct xml_bounds *b, char c)
{
	if (is_space(c))
		return 0;
	if (c == '/') {
		b->tag_closing = 1;
		return 0;
	}
	if (c == '>') {
		start_tag_done(b, b->tag_closing);
		return 0;
	}
	b->tag_closing = 0;
	b->name_hash = 2166136261u;
	b->name_len = 0;
	b->state = S_ATTRNAME;
	b->name_hash = (b->name_hash ^ (unsigned char)c) * 16777619u;
	b->name_head[b->name_len++] = c;
	return 0;
}

int
xml_bounds_feed(struct xml_bounds *b, const char *data, size_t len)
{
	static const char blank_line[] = "\r\n\r\n";

	if (b->exceeded != NULL)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		switch (b->state) {
		case S_HEAD:
			b->head_match = c == blank_line[b->head_match] ? b->head_match + 1 :
			    c == '\r' ? 1 : 0;
			if (b->head_match == 4) {
				b->head_match = 0;
				b->depth = 0;
				b->elements = b->attributes = b->namespaces = 0;
				b->state = S_TEXT;
			}
			break;
		case S_TEXT:
			if (c == '<')
				b->state = S_LT;
			break;
		case S_LT:
			if (c == '/') {
				b->state = S_ENDTAG;
			} else if (c == '?' || c == '!') {
				b->state = S_SPECIAL;
			} else {
				if (++b->elements > b->limits.elements)
					return exceed(b, "elements in one message", b->limits.elements);
				b->element_attributes = 0;
				b->tag_closing = 0;
				b->state = S_TAGNAME;
			}
			break;
		case S_TAGNAME:
			if (is_space(c))
				b->state = S_TAG;
			else if (c == '/')
				b->tag_closing = 1;
			else if (c == '>')
				start_tag_done(b, b->tag_closing);
			break;
		case S_TAG:
			if (in_tag(b, c) != 0)
				return -1;
			break;
		case S_ATTRNAME:
			if (c == '=' || is_space(c) || c == '>' || c == '/') {
				if (attribute_done(b) != 0)
					return -1;
				b->state = c == '=' ? S_VALUE_WAIT : is_space(c) ? S_AFTER_NAME : S_TAG;
				if (c == '>' || c == '/')
					in_tag(b, c);
			} else {
				b->name_hash = (b->name_hash ^ (unsigned char)c) * 16777619u;
				if (b->name_len < sizeof(b->name_head))
					b->name_head[b->name_len] = c;
				b->name_len++;
			}
			break;
		case S_AFTER_NAME:
			if (c == '=') {
				b->state = S_VALUE_WAIT;
			} else if (!is_space(c)) {
				b->state = S_TAG;
				in_tag(b, c);
			}
			break;
		case S_VALUE_WAIT:
			if (c == '"' || c == '\'') {
				b->quote = c;
				b->state = S_VALUE;
			} else if (!is_space(c)) {
				b->state = S_TAG;
				in_tag(b, c);
			}
			break;
		case S_VALUE:
			if (c == b->quote)
				b->state = S_TAG;
			break;
		case S_ENDTAG:
			if (c == '>') {
				b->depth--;
				b->state = b->depth > 0 ? S_TEXT : S_HEAD;
			}
			break;
		case S_SPECIAL:
			if (c == '>')
				b->state = S_TEXT;
			break;
		}
	}
	return 0;
}
