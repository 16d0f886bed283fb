/*
 * job_xml.c: the native XML job description: validated against launcher/job.xsd (compiled
 * into the program, so a description means the same wherever qcg-submit runs), then mapped to
 * the internal form.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlschemas.h>

#include "job_xml_util.h"

#define JOB_NS "urn:qcg-ompi:job:1"

extern const char job_xsd_text[]; /* launcher/job.xsd, generated job_xsd.c */

/* Validate doc against job.xsd; 0, or -1 with err naming the line and libxml2's reason. */
static int
validate(xmlDocPtr doc, const char *origin, char *err, size_t errlen)
{
	struct job_xml_errors x = { "", 0 };
	xmlSchemaParserCtxtPtr pctx = xmlSchemaNewMemParserCtxt(job_xsd_text,
	    (int)strlen(job_xsd_text));
	xmlSchemaPtr schema = pctx ? xmlSchemaParse(pctx) : NULL;
	xmlSchemaValidCtxtPtr vctx = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
	int rc = -1;
	if (vctx == NULL)
		snprintf(err, errlen, "%s: the built-in job.xsd could not be loaded", origin);
	else {
		xmlSchemaSetValidStructuredErrors(vctx, job_xml_keep_first_error, &x);
		int v = xmlSchemaValidateDoc(vctx, doc);
		if (v == 0)
			rc = 0;
		else
			snprintf(err, errlen, "%s:%d: does not match job.xsd: %s", origin, x.line,
			    x.text[0] ? x.text : "invalid");
	}
	if (vctx)
		xmlSchemaFreeValidCtxt(vctx);
	if (schema)
		xmlSchemaFree(schema);
	if (pctx)
		xmlSchemaFreeParserCtxt(pctx);
	return rc;
}

/* <cluster name= processes= processesPerNode= executable=> with its <node>s. */
static int
map_cluster(struct job_desc *d, const xmlNode *n, const char *site, char *err, size_t errlen)
{
	char name[QCG_NAME_MAX], count[16], per[16], node[QCG_NAME_MAX], exe[JOB_STRING_MAX];
	int line = job_xml_line(n);
	if (job_xml_attr(n, "name", name, sizeof(name)) || job_xml_attr(n, "processes", count,
	    sizeof(count)) || job_xml_attr(n, "processesPerNode", per, sizeof(per)) ||
	    job_xml_attr(n, "executable", exe, sizeof(exe))) {
		job_error(d, line, err, errlen, "cluster attribute too long");
		return -1;
	}
	struct job_cluster *c = job_add_cluster(d, name, site, line, err, errlen);
	if (c == NULL)
		return -1;
	if (exe[0] && job_set_string(d, &c->executable, "executable", exe, line, err, errlen) != 0)
		return -1;
	/* The schema checked both counts already; this only converts them. */
	if (job_parse_count(count, JOB_PROCESSES_MAX, &c->processes) != 0 ||
	    (per[0] && job_parse_count(per, JOB_PROCESSES_MAX, &c->per_node) != 0)) {
		job_error(d, line, err, errlen, "cluster %s: bad process count", name);
		return -1;
	}
	for (const xmlNode *k = n->children; k; k = k->next) {
		if (!job_xml_is(k, JOB_NS, "node"))
			continue;
		if (job_xml_text(k, node, sizeof(node)) != 0 ||
		    job_cluster_add_node(d, c, node, job_xml_line(k), err, errlen) != 0) {
			if (err[0] == '\0')
				job_error(d, job_xml_line(k), err, errlen, "node name too long");
			return -1;
		}
	}
	return 0;
}

static int
map_resources(struct job_desc *d, const xmlNode *res, char *err, size_t errlen)
{
	char site[QCG_NAME_MAX];
	for (const xmlNode *n = res->children; n; n = n->next) {
		if (job_xml_is(n, JOB_NS, "cluster")) {
			if (map_cluster(d, n, NULL, err, errlen) != 0)
				return -1;
		} else if (job_xml_is(n, JOB_NS, "site")) {
			if (job_xml_attr(n, "name", site, sizeof(site)) != 0)
				return -1;
			for (const xmlNode *c = n->children; c; c = c->next)
				if (job_xml_is(c, JOB_NS, "cluster") &&
				    map_cluster(d, c, site, err, errlen) != 0)
					return -1;
		}
	}
	return 0;
}

/* One child element of <job>. */
static int
map_element(struct job_desc *d, const xmlNode *n, char *err, size_t errlen)
{
	static char text[JOB_STRING_MAX], a[JOB_STRING_MAX], b[JOB_STRING_MAX];
	const char *tag = (const char *)n->name;
	int line = job_xml_line(n);
	static const struct { const char *tag; size_t off; } strings[] = {
		{ "executable", offsetof(struct job_desc, executable) },
		{ "workingDirectory", offsetof(struct job_desc, workdir) },
		{ "stdin", offsetof(struct job_desc, in) },
		{ "stdout", offsetof(struct job_desc, out) },
		{ "stderr", offsetof(struct job_desc, err) },
	};
	if (strcmp(tag, "resources") == 0)
		return map_resources(d, n, err, errlen);
	if (job_xml_text(n, text, sizeof(text)) != 0) {
		job_error(d, line, err, errlen, "<%s> is longer than %d bytes", tag,
		    JOB_STRING_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (strcmp(tag, strings[i].tag) == 0)
			return job_set_string(d, (struct job_string *)((char *)d + strings[i].off),
			    tag, text, line, err, errlen);
	if (strcmp(tag, "argument") == 0)
		return job_add_arg(d, text, line, err, errlen);
	if (strcmp(tag, "binding") == 0)
		return job_set_binding(d, "<binding>", text, line, err, errlen);
	if (strcmp(tag, "stageExecutable") == 0)
		return job_set_executable_staged(d, "<stageExecutable>", text, line, err, errlen);
	if (strcmp(tag, "keepJobDirectory") == 0)
		return job_set_keep_directory(d, "<keepJobDirectory>", text, line, err, errlen);
	if (strcmp(tag, "environment") == 0) {
		job_xml_attr(n, "name", a, sizeof(a));
		if ((size_t)snprintf(b, sizeof(b), "%s=%s", a, text) >= sizeof(b)) {
			job_error(d, line, err, errlen, "environment %s is too long", a);
			return -1;
		}
		return job_add_env(d, b, line, err, errlen);
	}
	if (strcmp(tag, "stageIn") == 0 || strcmp(tag, "stageOut") == 0) {
		job_xml_attr(n, "from", a, sizeof(a));
		job_xml_attr(n, "to", b, sizeof(b));
		return job_add_stage(d, tag[5] == 'O', a, b, line, err, errlen);
	}
	if (strcmp(tag, "reserveTimeout") == 0) {
		long secs = -1;
		if (job_parse_duration(text, &secs) != 0)
			secs = -1;
		return job_set_reserve_timeout(d, "<reserveTimeout> (a duration such as PT30S)",
		    secs, text, line, err, errlen);
	}
	if (strcmp(tag, "wallTime") == 0) {
		if (job_parse_duration(text, &d->walltime) != 0 || d->walltime == 0) {
			job_error(d, line, err, errlen, "wallTime must be a duration in days, hours, "
			    "minutes and seconds such as PT30M or P1DT2H (no months or years, no "
			    "fractions, not zero, at most a year), got '%s'", text);
			return -1;
		}
		d->walltime_line = line;
	}
	return 0;
}

struct job_desc *
job_parse_xml(const char *text, size_t len, const char *origin, char *err, size_t errlen)
{
	xmlDocPtr doc = job_xml_read(text, len, origin, err, errlen);
	struct job_desc *d = NULL;
	if (doc == NULL)
		return NULL;
	if (validate(doc, origin, err, errlen) != 0)
		goto out;
	if ((d = job_desc_new(origin, JOB_FORMAT_XML)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", origin);
		goto out;
	}
	xmlNodePtr root = xmlDocGetRootElement(doc);
	char name[QCG_NAME_MAX];
	if (job_xml_attr(root, "name", name, sizeof(name)) == 0 && name[0] &&
	    job_set_string(d, &d->name, "name", name, job_xml_line(root), err, errlen) != 0)
		goto fail;
	for (const xmlNode *n = root->children; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && map_element(d, n, err, errlen) != 0)
			goto fail;
	goto out;
fail:
	free(d);
	d = NULL;
out:
	xmlFreeDoc(doc);
	return d;
}
