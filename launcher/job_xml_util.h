/*
 * job_xml_util.h: what the two XML formats (native job_xml.c, JSDL job_jsdl.c) share: reading
 * a document with libxml2 safely (no network, no entity expansion, errors with their line),
 * and small accessors.
 */
#ifndef QCG_JOB_XML_UTIL_H
#define QCG_JOB_XML_UTIL_H

#include <stddef.h>

#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "job_desc.h"

/* libxml2's first error for a document, kept with its line: the sentence a user sees. */
struct job_xml_errors {
	char text[JOB_ERR_MAX];
	int line;
};
/* A libxml2 structured-error callback that fills the struct job_xml_errors at ctx once. */
void job_xml_keep_first_error(void *ctx, xmlErrorPtr e);

/* Parse text; NULL with err "origin:line: libxml2's message". */
xmlDocPtr job_xml_read(const char *text, size_t len, const char *origin, char *err,
    size_t errlen);
/* Whether node is an element named name in namespace ns (NULL: any). */
int job_xml_is(const xmlNode *node, const char *ns, const char *name);
/* The element's text content trimmed of surrounding blanks, into buf; -1 if it does not fit. */
int job_xml_text(const xmlNode *node, char *buf, size_t len);
/* An attribute's value into buf ("" when absent); -1 if it does not fit. */
int job_xml_attr(const xmlNode *node, const char *name, char *buf, size_t len);
/* The element's line (libxml2 counts from 1). */
int job_xml_line(const xmlNode *node);

#endif
