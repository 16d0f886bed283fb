/*
 * job_xml_util.c: libxml2 reading and accessors shared by the XML job formats.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>

#include "job_xml_util.h"

void
job_xml_keep_first_error(void *ctx, xmlErrorPtr e)
{
	struct job_xml_errors *x = ctx;
	if (x->text[0] != '\0' || e == NULL || e->message == NULL)
		return;
	snprintf(x->text, sizeof(x->text), "%s", e->message);
	size_t n = strlen(x->text);
	while (n > 0 && isspace((unsigned char)x->text[n - 1]))
		x->text[--n] = '\0';
	x->line = e->line;
}

xmlDocPtr
job_xml_read(const char *text, size_t len, const char *origin, char *err, size_t errlen)
{
	struct job_xml_errors x = { "", 0 };
	if (len > INT_MAX) {
		snprintf(err, errlen, "%s: too large", origin);
		return NULL;
	}
	xmlParserCtxtPtr ctx = xmlNewParserCtxt();
	if (ctx == NULL) {
		snprintf(err, errlen, "%s: out of memory", origin);
		return NULL;
	}
	xmlSetStructuredErrorFunc(&x, job_xml_keep_first_error);
	/* No network, no entity substitution, no DTD loading: a description is data, not a
	 * way to read other files. */
	xmlDocPtr doc = xmlCtxtReadMemory(ctx, text, (int)len, origin, NULL,
	    XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR);
	xmlSetStructuredErrorFunc(NULL, NULL);
	if (doc == NULL || x.text[0] != '\0') {
		snprintf(err, errlen, "%s:%d: not well-formed XML: %s", origin, x.line,
		    x.text[0] ? x.text : "parser failed");
		if (doc)
			xmlFreeDoc(doc);
		doc = NULL;
	}
	xmlFreeParserCtxt(ctx);
	return doc;
}

int
job_xml_is(const xmlNode *node, const char *ns, const char *name)
{
	if (node == NULL || node->type != XML_ELEMENT_NODE ||
	    strcmp((const char *)node->name, name) != 0)
		return 0;
	if (ns == NULL)
		return 1;
	return node->ns != NULL && strcmp((const char *)node->ns->href, ns) == 0;
}

int
job_xml_text(const xmlNode *node, char *buf, size_t len)
{
	xmlChar *t = xmlNodeGetContent(node);
	const char *s = t ? (const char *)t : "";
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	int rc = n < len ? 0 : -1;
	if (rc == 0) {
		memcpy(buf, s, n);
		buf[n] = '\0';
	}
	xmlFree(t);
	return rc;
}

int
job_xml_attr(const xmlNode *node, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
	int rc = 0;
	if (v == NULL)
		buf[0] = '\0';
	else if (strlen((const char *)v) >= len)
		rc = -1;
	else
		snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return rc;
}

int
job_xml_line(const xmlNode *node)
{
	long l = xmlGetLineNo(node);
	return l > 0 && l < INT_MAX ? (int)l : 0;
}
