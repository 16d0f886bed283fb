/*
 * job_jsdl.c: JSDL 1.0 job descriptions with the SPMD extension (GFD.115), OpenMPI variation.
 *
 *   jsdl:JobDefinition/jsdl:JobDescription
 *     jsdl:JobIdentification/jsdl:JobName
 *     jsdl:Application/jsdl-spmd:SPMDApplication
 *       jsdl-posix:Executable, Argument*, Input, Output, Error, WorkingDirectory,
 *       Environment@name*, WallTimeLimit (seconds)
 *       jsdl-spmd:NumberOfProcesses, ProcessesPerHost, SPMDVariation (must be OpenMPI)
 *     jsdl:Resources/jsdl:CandidateHosts/jsdl:HostName+
 *     jsdl:Resources/j:StageExecutable (true: the executable is staged from the submitting
 *     host; false or absent: installed at its path on every node),
 *     jsdl:Resources/j:ClusterExecutable@cluster* (the program's installed path on that
 *     cluster's nodes instead of Executable's; mpirun inside the job only),
 *     jsdl:Resources/j:KeepJobDirectory (true: the job's directory on each node stays after
 *     the job; false or absent: removed),
 *     jsdl:Resources/j:ReserveTimeout (seconds to wait for busy nodes; j is urn:qcg-ompi:job:1,
 *       job.xsd's namespace, since JSDL has no such element)
 *     jsdl:DataStaging* (FileName with Source/URI: stage in; with Target/URI: stage out)
 *
 * JSDL's CandidateHosts means "any of these"; a co-allocated job uses all of them, in order.
 * A HostName is CLUSTER[@SITE][:N]: with N on every host, N processes go there (they must add
 * up to NumberOfProcesses); with none, NumberOfProcesses is split evenly, the first clusters
 * taking the remainder. Elements this launcher cannot honour are errors.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_xml_util.h"

#define NS_JSDL "http://schemas.ggf.org/jsdl/2005/11/jsdl"
#define NS_POSIX "http://schemas.ggf.org/jsdl/2005/11/jsdl-posix"
#define NS_SPMD "http://schemas.ogf.org/jsdl/2007/02/jsdl-spmd"
#define NS_QCG_JOB "urn:qcg-ompi:job:1"
#define SPMD_OPENMPI "http://www.ogf.org/jsdl/2007/02/jsdl-spmd/OpenMPI"

struct jsdl_state {
	struct job_desc *d;
	int total, total_line, per_host, variation_line;
	int host_counts;                /* hosts that gave :N */
};

/* The first child element of n named name in ns, or NULL. */
static const xmlNode *
child(const xmlNode *n, const char *ns, const char *name)
{
	for (const xmlNode *k = n ? n->children : NULL; k; k = k->next)
		if (job_xml_is(k, ns, name))
			return k;
	return NULL;
}

static int
text_of(struct jsdl_state *s, const xmlNode *n, char *buf, size_t len, char *err, size_t errlen)
{
	if (job_xml_text(n, buf, len) == 0)
		return 0;
	job_error(s->d, job_xml_line(n), err, errlen, "<%s> is longer than %zu bytes",
	    (const char *)n->name, len - 1);
	return -1;
}

/* One child of SPMDApplication from the POSIX namespace. */
static int
posix_element(struct jsdl_state *s, const xmlNode *n, const char *v, char *err, size_t errlen)
{
	struct job_desc *d = s->d;
	const char *tag = (const char *)n->name;
	int line = job_xml_line(n);
	char name[JOB_STRING_MAX], entry[JOB_STRING_MAX];
	long secs;

	if (strcmp(tag, "Executable") == 0)
		return job_set_string(d, &d->executable, "Executable", v, line, err, errlen);
	if (strcmp(tag, "Argument") == 0)
		return job_add_arg(d, v, line, err, errlen);
	if (strcmp(tag, "Input") == 0)
		return job_set_string(d, &d->in, "Input", v, line, err, errlen);
	if (strcmp(tag, "Output") == 0)
		return job_set_string(d, &d->out, "Output", v, line, err, errlen);
	if (strcmp(tag, "Error") == 0)
		return job_set_string(d, &d->err, "Error", v, line, err, errlen);
	if (strcmp(tag, "WorkingDirectory") == 0)
		return job_set_string(d, &d->workdir, "WorkingDirectory", v, line, err, errlen);
	if (strcmp(tag, "Environment") == 0) {
		if (job_xml_attr(n, "name", name, sizeof(name)) != 0 || name[0] == '\0' ||
		    (size_t)snprintf(entry, sizeof(entry), "%s=%s", name, v) >= sizeof(entry)) {
			job_error(d, line, err, errlen, "Environment needs a name attribute and must "
			    "fit in %d bytes", JOB_STRING_MAX - 1);
			return -1;
		}
		return job_add_env(d, entry, line, err, errlen);
	}
	if (strcmp(tag, "WallTimeLimit") == 0) {
		int v32;
		if (job_parse_count(v, (int)JOB_WALLTIME_MAX, &v32) != 0) {
			job_error(d, line, err, errlen, "WallTimeLimit must be a positive number of "
			    "seconds up to %ld, got '%s'", JOB_WALLTIME_MAX, v);
			return -1;
		}
		secs = v32;
		d->walltime = secs;
		d->walltime_line = line;
		return 0;
	}
	job_error(d, line, err, errlen, "jsdl-posix:%s is not supported in SPMDApplication", tag);
	return -1;
}

static int
spmd_element(struct jsdl_state *s, const xmlNode *n, const char *v, char *err, size_t errlen)
{
	const char *tag = (const char *)n->name;
	int line = job_xml_line(n);
	if (strcmp(tag, "NumberOfProcesses") == 0) {
		s->total_line = line;
		if (job_parse_count(v, JOB_PROCESSES_MAX, &s->total) == 0)
			return 0;
		job_error(s->d, line, err, errlen, "NumberOfProcesses must be a positive integer "
		    "up to %d, got '%s'", JOB_PROCESSES_MAX, v);
		return -1;
	}
	if (strcmp(tag, "ProcessesPerHost") == 0) {
		if (job_parse_count(v, JOB_PROCESSES_MAX, &s->per_host) == 0)
			return 0;
		job_error(s->d, line, err, errlen, "ProcessesPerHost must be a positive integer, "
		    "got '%s'", v);
		return -1;
	}
	if (strcmp(tag, "SPMDVariation") == 0) {
		s->variation_line = line;
		if (strcmp(v, SPMD_OPENMPI) == 0)
			return 0;
		job_error(s->d, line, err, errlen, "SPMDVariation must be %s (this launcher runs "
		    "Open MPI), got '%s'", SPMD_OPENMPI, v);
		return -1;
	}
	job_error(s->d, line, err, errlen, "jsdl-spmd:%s is not supported", tag);
	return -1;
}

static int
map_application(struct jsdl_state *s, const xmlNode *app, char *err, size_t errlen)
{
	static char v[JOB_STRING_MAX];
	const xmlNode *spmd = child(app, NS_SPMD, "SPMDApplication");
	if (spmd == NULL) {
		job_error(s->d, job_xml_line(app), err, errlen, "Application must hold a "
		    "jsdl-spmd:SPMDApplication (namespace %s)", NS_SPMD);
		return -1;
	}
	for (const xmlNode *n = spmd->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (text_of(s, n, v, sizeof(v), err, errlen) != 0)
			return -1;
		int rc;
		if (job_xml_is(n, NS_POSIX, (const char *)n->name))
			rc = posix_element(s, n, v, err, errlen);
		else if (job_xml_is(n, NS_SPMD, (const char *)n->name))
			rc = spmd_element(s, n, v, err, errlen);
		else {
			job_error(s->d, job_xml_line(n), err, errlen, "unexpected element <%s> in "
			    "SPMDApplication", (const char *)n->name);
			rc = -1;
		}
		if (rc != 0)
			return -1;
	}
	if (s->total_line == 0 || s->variation_line == 0) {
		job_error(s->d, job_xml_line(spmd), err, errlen, "SPMDApplication needs %s",
		    s->total_line == 0 ? "NumberOfProcesses" : "SPMDVariation");
		return -1;
	}
	return 0;
}

/* HostName CLUSTER[@SITE][:N] */
static int
map_host(struct jsdl_state *s, const xmlNode *n, char *err, size_t errlen)
{
	char v[QCG_NAME_MAX * 2 + 16];
	int line = job_xml_line(n), count = 0;
	if (text_of(s, n, v, sizeof(v), err, errlen) != 0)
		return -1;
	char *colon = strrchr(v, ':'), *at;
	if (colon) {
		*colon++ = '\0';
		if (job_parse_count(colon, JOB_PROCESSES_MAX, &count) != 0) {
			job_error(s->d, line, err, errlen, "HostName must be CLUSTER[@SITE][:N] with "
			    "N a positive integer, got ':%s'", colon);
			return -1;
		}
		s->host_counts++;
	}
	if ((at = strchr(v, '@')) != NULL)
		*at++ = '\0';
	if (v[0] == '\0' || (at && at[0] == '\0')) {
		job_error(s->d, line, err, errlen, "HostName must be CLUSTER[@SITE][:N]");
		return -1;
	}
	struct job_cluster *c = job_add_cluster(s->d, v, at, line, err, errlen);
	if (c == NULL)
		return -1;
	c->processes = count;
	c->per_node = s->per_host;
	return 0;
}

/* Share NumberOfProcesses among the clusters (see the header comment). */
static int
split_processes(struct jsdl_state *s, char *err, size_t errlen)
{
	struct job_desc *d = s->d;
	int n = d->cluster_count, sum = 0;
	if (s->host_counts != 0 && s->host_counts != n) {
		job_error(d, d->cluster[0].line, err, errlen, "either every HostName gives :N "
		    "processes or none does");
		return -1;
	}
	if (s->host_counts == 0) {
		if (s->total < n) {
			job_error(d, s->total_line, err, errlen, "NumberOfProcesses %d is fewer than "
			    "the %d candidate hosts", s->total, n);
			return -1;
		}
		for (int i = 0; i < n; i++)
			d->cluster[i].processes = s->total / n + (i < s->total % n);
		return 0;
	}
	for (int i = 0; i < n; i++)
		sum += d->cluster[i].processes;
	if (sum != s->total) {
		job_error(d, s->total_line, err, errlen, "NumberOfProcesses is %d but the "
		    "HostNames' counts add up to %d", s->total, sum);
		return -1;
	}
	return 0;
}

/* j:ClusterExecutable cluster="NAME": that cluster's installed path of the program. The
 * cluster must be one of CandidateHosts'. */
static int
map_cluster_executable(struct jsdl_state *s, const xmlNode *n, char *err, size_t errlen)
{
	char name[QCG_NAME_MAX], v[JOB_STRING_MAX];
	int line = job_xml_line(n);
	if (job_xml_attr(n, "cluster", name, sizeof(name)) != 0 || name[0] == '\0') {
		job_error(s->d, line, err, errlen, "ClusterExecutable needs a cluster attribute "
		    "naming one of CandidateHosts' clusters");
		return -1;
	}
	if (text_of(s, n, v, sizeof(v), err, errlen) != 0)
		return -1;
	for (int i = 0; i < s->d->cluster_count; i++)
		if (strcmp(s->d->cluster[i].name, name) == 0)
			return job_set_string(s->d, &s->d->cluster[i].executable,
			    "ClusterExecutable", v, line, err, errlen);
	job_error(s->d, line, err, errlen, "ClusterExecutable names cluster '%s', which is not "
	    "among CandidateHosts", name);
	return -1;
}

/* DataStaging: FileName and a Source (stage in) or a Target (stage out) URI. */
static int
map_staging(struct jsdl_state *s, const xmlNode *n, char *err, size_t errlen)
{
	char file[JOB_STRING_MAX], uri[JOB_STRING_MAX];
	const xmlNode *fn = child(n, NS_JSDL, "FileName");
	const xmlNode *src = child(child(n, NS_JSDL, "Source"), NS_JSDL, "URI");
	const xmlNode *dst = child(child(n, NS_JSDL, "Target"), NS_JSDL, "URI");
	int line = job_xml_line(n);
	if (fn == NULL || (src == NULL) == (dst == NULL)) {
		job_error(s->d, line, err, errlen, "DataStaging needs a FileName and exactly one of "
		    "Source/URI and Target/URI");
		return -1;
	}
	if (text_of(s, fn, file, sizeof(file), err, errlen) != 0 ||
	    text_of(s, src ? src : dst, uri, sizeof(uri), err, errlen) != 0)
		return -1;
	const char *path = strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri;
	if (strstr(path, "://") != NULL) {
		job_error(s->d, line, err, errlen, "DataStaging URI must be a local path or file://, "
		    "got '%.80s'", uri);
		return -1;
	}
	return src ? job_add_stage(s->d, 0, path, file, line, err, errlen)
		   : job_add_stage(s->d, 1, file, path, line, err, errlen);
}

static int
map_description(struct jsdl_state *s, const xmlNode *jd, char *err, size_t errlen)
{
	char name[QCG_NAME_MAX];
	const xmlNode *id = child(child(jd, NS_JSDL, "JobIdentification"), NS_JSDL, "JobName");
	const xmlNode *app = child(jd, NS_JSDL, "Application");
	const xmlNode *hosts = child(child(jd, NS_JSDL, "Resources"), NS_JSDL, "CandidateHosts");
	if (id && (text_of(s, id, name, sizeof(name), err, errlen) != 0 ||
	    job_set_string(s->d, &s->d->name, "JobName", name, job_xml_line(id), err, errlen)))
		return -1;
	if (app == NULL || hosts == NULL) {
		job_error(s->d, job_xml_line(jd), err, errlen, "JobDescription needs %s",
		    app ? "Resources/CandidateHosts (the clusters, in rank order)" : "Application");
		return -1;
	}
	if (map_application(s, app, err, errlen) != 0)
		return -1;
	for (const xmlNode *h = hosts->children; h; h = h->next)
		if (job_xml_is(h, NS_JSDL, "HostName") && map_host(s, h, err, errlen) != 0)
			return -1;
	if (s->d->cluster_count == 0) {
		job_error(s->d, job_xml_line(hosts), err, errlen, "CandidateHosts has no HostName");
		return -1;
	}
	const xmlNode *wait = child(child(jd, NS_JSDL, "Resources"), NS_QCG_JOB, "ReserveTimeout");
	if (wait != NULL) {
		char v[64];
		int secs = -1;
		if (text_of(s, wait, v, sizeof(v), err, errlen) != 0)
			return -1;
		if (job_parse_count(v, (int)JOB_RESERVE_TIMEOUT_MAX, &secs) != 0)
			secs = -1;
		if (job_set_reserve_timeout(s->d, "ReserveTimeout (seconds)", secs, v,
		    job_xml_line(wait), err, errlen) != 0)
			return -1;
	}
	const xmlNode *stage = child(child(jd, NS_JSDL, "Resources"), NS_QCG_JOB,
	    "StageExecutable");
	if (stage != NULL) {
		char v[16];
		if (text_of(s, stage, v, sizeof(v), err, errlen) != 0 ||
		    job_set_executable_staged(s->d, "StageExecutable", v, job_xml_line(stage), err,
			errlen) != 0)
			return -1;
	}
	const xmlNode *res = child(jd, NS_JSDL, "Resources");
	for (const xmlNode *n = res ? res->children : NULL; n; n = n->next)
		if (job_xml_is(n, NS_QCG_JOB, "ClusterExecutable") &&
		    map_cluster_executable(s, n, err, errlen) != 0)
			return -1;
	const xmlNode *keep = child(child(jd, NS_JSDL, "Resources"), NS_QCG_JOB,
	    "KeepJobDirectory");
	if (keep != NULL) {
		char v[16];
		if (text_of(s, keep, v, sizeof(v), err, errlen) != 0 ||
		    job_set_keep_directory(s->d, "KeepJobDirectory", v, job_xml_line(keep), err,
			errlen) != 0)
			return -1;
	}
	for (const xmlNode *n = jd->children; n; n = n->next)
		if (job_xml_is(n, NS_JSDL, "DataStaging") && map_staging(s, n, err, errlen) != 0)
			return -1;
	return split_processes(s, err, errlen);
}

struct job_desc *
job_parse_jsdl(const char *text, size_t len, const char *origin, char *err, size_t errlen)
{
	struct jsdl_state s = { 0 };
	xmlDocPtr doc = job_xml_read(text, len, origin, err, errlen);
	if (doc == NULL)
		return NULL;
	if ((s.d = job_desc_new(origin, JOB_FORMAT_JSDL)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", origin);
		goto fail;
	}
	const xmlNode *root = xmlDocGetRootElement(doc);
	const xmlNode *jd = child(root, NS_JSDL, "JobDescription");
	if (!job_xml_is(root, NS_JSDL, "JobDefinition") || jd == NULL) {
		job_error(s.d, job_xml_line(root), err, errlen, "expected jsdl:JobDefinition with a "
		    "JobDescription (namespace %s)", NS_JSDL);
		goto fail;
	}
	if (map_description(&s, jd, err, errlen) != 0)
		goto fail;
	xmlFreeDoc(doc);
	return s.d;
fail:
	free(s.d);
	xmlFreeDoc(doc);
	return NULL;
}
