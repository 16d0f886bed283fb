/*
 * xml_bounds.h: bounds on the shape of incoming XML, checked on the raw byte stream before
 * gSOAP parses it.
 *
 * gSOAP 2.8 keeps every attribute name it has seen on a connection in one list and searches it
 * for each attribute and resets it for each element, and searches the in-scope namespace
 * declarations for each prefix: a 979 KB request with 90,000 distinct attribute names cost the
 * broker 18 CPU seconds. Its own limits (maxlevel, maxoccurs, recv_maxlength) bound depth,
 * array sizes and bytes, not these. The scanner here counts, per message, elements, attributes
 * and namespace declarations, per element attributes, and per connection distinct attribute
 * names, in one pass of a few instructions per byte, and says which bound a stream exceeded.
 *
 * It sees the HTTP stream (headers, then the XML body) as the server reads it: it skips each
 * message's HTTP head (up to the empty line), scans the XML until its root element closes, and
 * then expects the next message's head, so pipelined requests are each scanned.
 */
#ifndef QCG_XML_BOUNDS_H
#define QCG_XML_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

struct xml_bounds_limits {
	uint32_t elements;            /* per message */
	uint32_t attributes;          /* per message */
	uint32_t element_attributes;  /* per element */
	uint32_t namespaces;          /* xmlns declarations per message */
	uint32_t attribute_names;     /* distinct attribute names per connection (gSOAP's list) */
};

#define XML_BOUNDS_NAME_SLOTS 1024 /* open addressing; attribute_names must stay below half */

struct xml_bounds {
	struct xml_bounds_limits limits;
	int state;                    /* where in the stream the last byte left us (xml_bounds.c) */
	int head_match;               /* bytes of "\r\n\r\n" matched while in the HTTP head */
	int depth;                    /* open elements of the current message */
	int tag_is_end, tag_closing;  /* in "</x>"; a '/' just seen inside a start tag */
	char quote;                   /* the quote character of the attribute value we are in */
	uint32_t name_hash, name_len; /* the attribute name being read */
	uint32_t elements, attributes, element_attributes, namespaces, names;
	uint32_t name_slots[XML_BOUNDS_NAME_SLOTS]; /* hashes of distinct names (0: free) */
	char name_head[6];            /* the first bytes of that name (is it "xmlns"?) */
	const char *exceeded;         /* NULL while within bounds, else points to why */
	char why[96];                 /* the bound exceeded, e.g. "more than 64 attributes ..." */
};

/* Start scanning a connection's stream (expects an HTTP head first). */
void xml_bounds_init(struct xml_bounds *b, const struct xml_bounds_limits *limits);

/* Feed the next len bytes of the stream. 0 while within bounds; -1 once a bound is exceeded,
 * with b->exceeded naming it (e.g. "more than 64 attributes on one element"), and for every
 * later call. */
int xml_bounds_feed(struct xml_bounds *b, const char *data, size_t len);

#endif
