/*
 * test_job_desc.c: job descriptions in their three formats (native XML, QCG-Simple, JSDL SPMD)
 * give one internal form; each format's own rules; ISO 8601 durations; and bad descriptions,
 * each refused with the file, the line and what was expected.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "job_desc.h"

static char err[JOB_ERR_MAX + 300];

/* Parse text as the format its content says (as job_load does) and validate it. */
static struct job_desc *
parse(enum job_format f, const char *text)
{
	struct job_desc *d;
	err[0] = '\0';
	switch (f) {
	case JOB_FORMAT_XML: d = job_parse_xml(text, strlen(text), "t.xml", err, sizeof(err)); break;
	case JOB_FORMAT_JSDL: d = job_parse_jsdl(text, strlen(text), "t.jsdl", err, sizeof(err)); break;
	default: d = job_parse_simple(text, strlen(text), "t.qcg", err, sizeof(err)); break;
	}
	if (d != NULL && job_validate(d, err, sizeof(err)) != 0) {
		free(d);
		d = NULL;
	}
	return d;
}

static struct job_desc *
load_example(const char *name, const char *ext)
{
	char path[4096];
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/examples/%s/%s.%s", top ? top : ".", name, name, ext);
	struct job_desc *d = job_load(path, err, sizeof(err));
	if (d == NULL)
		fprintf(stderr, "%s\n", err);
	return d;
}

/* The parts of a description that must not depend on its format. */
static int
same_job(const struct job_desc *a, const struct job_desc *b)
{
	if (strcmp(a->name.text, b->name.text) || strcmp(a->executable.text, b->executable.text) ||
	    a->argc != b->argc || a->cluster_count != b->cluster_count || a->walltime != b->walltime)
		return 0;
	for (int i = 0; i < a->argc; i++)
		if (strcmp(a->arg[i].text, b->arg[i].text))
			return 0;
	for (int i = 0; i < a->cluster_count; i++) {
		const struct job_cluster *x = &a->cluster[i], *y = &b->cluster[i];
		if (strcmp(x->name, y->name) || strcmp(x->site, y->site) ||
		    x->processes != y->processes || x->per_node != y->per_node)
			return 0;
	}
	return 1;
}

static void
examples_give_one_internal_form_in_all_three_formats(void)
{
	static const char *const names[] = { "hello", "all-pairs", "pi" };
	for (int i = 0; i < 3; i++) {
		struct job_desc *x = load_example(names[i], "xml");
		struct job_desc *q = load_example(names[i], "qcg");
		struct job_desc *j = load_example(names[i], "jsdl");
		CHECK(x && q && j);
		if (x && q && j) {
			CHECK(same_job(x, q));
			CHECK(same_job(x, j));
			CHECK_INT_EQ(x->format, JOB_FORMAT_XML);
			CHECK_INT_EQ(q->format, JOB_FORMAT_SIMPLE);
			CHECK_INT_EQ(j->format, JOB_FORMAT_JSDL);
			CHECK_INT_EQ(job_total_processes(x), 6);
			CHECK_STR_EQ(x->cluster[2].name, "c");
			CHECK_INT_EQ(x->walltime, 600);
		}
		free(x);
		free(q);
		free(j);
	}
}

static void
simple_directives_fill_every_field(void)
{
	struct job_desc *d = parse(JOB_FORMAT_SIMPLE,
	    "#!/bin/sh\n#QCG name=sim\n#QCG executable=/bin/prog\n#QCG argument=-x\n"
	    "#QCG argument=two words\n#QCG environment=A=b=c\n#QCG walltime=P1DT2H3M4S\n"
	    "#QCG host=reef@poznan\n#QCG nodes=2:8:4\n#QCG host=zeus\n#QCG nodes=3:4\n"
	    "#QCG procs=10\n#QCG stage-in-file=/home/u/in.dat -> data/in.dat\n"
	    "#QCG stage-in-file=/home/u/conf\n#QCG stage-out-file=out.dat -> /home/u/out.dat\n"
	    "#QCG output=o.txt\n#QCG error=e.txt\necho this line is the script\n");
	CHECK(d != NULL);
	if (d == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_STR_EQ(d->name.text, "sim");
	CHECK_INT_EQ(d->argc, 2);
	CHECK_STR_EQ(d->arg[1].text, "two words");
	CHECK_STR_EQ(d->env[0].text, "A=b=c");
	CHECK_INT_EQ(d->walltime, 86400 + 2 * 3600 + 3 * 60 + 4);
	CHECK_INT_EQ(d->cluster_count, 2);
	CHECK_STR_EQ(d->cluster[0].site, "poznan");
	CHECK_INT_EQ(d->cluster[0].processes, 8);   /* 2 nodes x 4 processes */
	CHECK_INT_EQ(d->cluster[0].per_node, 4);
	CHECK_STR_EQ(d->cluster[1].site, "zeus");   /* a cluster without a site is its own */
	CHECK_INT_EQ(d->cluster[1].processes, 10);  /* procs, within 3 x 4 */
	CHECK_INT_EQ(d->cluster[1].line, 10);
	CHECK_INT_EQ(d->stage_in_count, 2);
	CHECK_STR_EQ(d->stage_in[0].to.text, "data/in.dat");
	CHECK_STR_EQ(d->stage_in[1].to.text, "conf");
	CHECK_STR_EQ(d->stage_out[0].to.text, "/home/u/out.dat");
	CHECK_STR_EQ(d->out.text, "o.txt");
	free(d);
}

static void
xml_sites_nodes_environment_and_staging(void)
{
	struct job_desc *d = parse(JOB_FORMAT_XML,
	    "<job xmlns='urn:qcg-ompi:job:1' name='x'>\n"
	    "<executable>/bin/prog</executable><argument>a b</argument>\n"
	    "<environment name='OMP_NUM_THREADS'>2</environment>\n"
	    "<workingDirectory>/scratch</workingDirectory><stdout>out</stdout>\n"
	    "<wallTime>PT1H</wallTime><stageIn from='in' to='in.dat'/><stageOut from='r' to='/tmp/r'/>\n"
	    "<resources><site name='s1'><cluster name='a' processes='3'/>\n"
	    "<cluster name='b' processes='4' processesPerNode='2'><node>b1</node><node>b2</node></cluster>\n"
	    "</site><cluster name='c' processes='1'/></resources></job>\n");
	CHECK(d != NULL);
	if (d == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_STR_EQ(d->env[0].text, "OMP_NUM_THREADS=2");
	CHECK_STR_EQ(d->workdir.text, "/scratch");
	CHECK_INT_EQ(d->walltime, 3600);
	CHECK_INT_EQ(d->cluster_count, 3);
	CHECK_STR_EQ(d->cluster[0].site, "s1");
	CHECK_STR_EQ(d->cluster[1].site, "s1");
	CHECK_STR_EQ(d->cluster[2].site, "c");
	CHECK_INT_EQ(d->cluster[1].node_count, 2);
	CHECK_STR_EQ(d->cluster[1].node[1], "b2");
	CHECK_INT_EQ(d->cluster[1].line, 7);
	CHECK_STR_EQ(d->stage_out[0].to.text, "/tmp/r");
	free(d);
}

#define JSDL_HEAD "<jsdl:JobDefinition xmlns:jsdl='http://schemas.ggf.org/jsdl/2005/11/jsdl' " \
	"xmlns:p='http://schemas.ggf.org/jsdl/2005/11/jsdl-posix' " \
	"xmlns:s='http://schemas.ogf.org/jsdl/2007/02/jsdl-spmd'><jsdl:JobDescription>\n" \
	"<jsdl:Application><s:SPMDApplication><p:Executable>/bin/p</p:Executable>\n"
#define JSDL_OMPI "<s:SPMDVariation>http://www.ogf.org/jsdl/2007/02/jsdl-spmd/OpenMPI</s:SPMDVariation>\n"

static void
jsdl_splits_processes_over_candidate_hosts(void)
{
	struct job_desc *d = parse(JOB_FORMAT_JSDL, JSDL_HEAD
	    "<s:NumberOfProcesses>7</s:NumberOfProcesses>" JSDL_OMPI
	    "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>\n"
	    "<jsdl:HostName>a@s</jsdl:HostName><jsdl:HostName>b@s</jsdl:HostName>"
	    "<jsdl:HostName>c</jsdl:HostName></jsdl:CandidateHosts></jsdl:Resources>\n"
	    "<jsdl:DataStaging><jsdl:FileName>in</jsdl:FileName><jsdl:Source><jsdl:URI>"
	    "file:///home/u/in</jsdl:URI></jsdl:Source></jsdl:DataStaging>\n"
	    "</jsdl:JobDescription></jsdl:JobDefinition>");
	CHECK(d != NULL);
	if (d == NULL) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_INT_EQ(d->cluster[0].processes, 3);
	CHECK_INT_EQ(d->cluster[1].processes, 2);
	CHECK_INT_EQ(d->cluster[2].processes, 2);
	CHECK_STR_EQ(d->cluster[1].site, "s");
	CHECK_STR_EQ(d->stage_in[0].from.text, "/home/u/in");
	free(d);
	d = parse(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>5</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a:1</jsdl:HostName><jsdl:HostName>b:4</jsdl:HostName>"
	    "</jsdl:CandidateHosts></jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>");
	CHECK(d != NULL && d->cluster[0].processes == 1 && d->cluster[1].processes == 4);
	free(d);
}

static void
iso8601_durations(void)
{
	long s = 0;
	CHECK(job_parse_duration("PT30M", &s) == 0 && s == 1800);
	CHECK(job_parse_duration("P2D", &s) == 0 && s == 172800);
	CHECK(job_parse_duration("P1W", &s) == 0 && s == 604800);
	CHECK(job_parse_duration("PT1H0M5S", &s) == 0 && s == 3605);
	CHECK(job_parse_duration("PT", &s) != 0);
	CHECK(job_parse_duration("P", &s) != 0);
	CHECK(job_parse_duration("30M", &s) != 0);
	CHECK(job_parse_duration("P1M", &s) != 0);   /* months have no fixed length */
	CHECK(job_parse_duration("PT5M1H", &s) != 0); /* designators out of order */
	CHECK(job_parse_duration("PT1.5H", &s) != 0);
	CHECK(job_parse_duration("P400D", &s) != 0); /* more than a year */
}

/* A bad description: refused, and the error holds want (with file and line). */
static void
refused(enum job_format f, const char *text, const char *want)
{
	struct job_desc *d = parse(f, text);
	CHECK(d == NULL);
	free(d);
	if (strstr(err, want) == NULL) {
		check_failures++;
		fprintf(stderr, "FAIL: error '%s' does not contain '%s'\n", err, want);
	}
	check_count++;
}

#define HOST "#QCG executable=/bin/p\n#QCG host=a\n#QCG procs=2\n"

static void
ten_kinds_of_bad_description_each_get_a_clear_error(void)
{
	/* 1 */ refused(JOB_FORMAT_SIMPLE, HOST "#QCG queue=long\n", "t.qcg:4: unknown directive 'queue'");
	/* 2 */ refused(JOB_FORMAT_SIMPLE, "#QCG executable=/bin/p\n#QCG host=a\n#QCG nodes=2x4\n",
	    "t.qcg:3: nodes must be N:C or N:C:P");
	/* 3 */ refused(JOB_FORMAT_SIMPLE, HOST "#QCG walltime=10 minutes\n",
	    "t.qcg:4: walltime must be an ISO 8601 duration");
	/* 4 */ refused(JOB_FORMAT_SIMPLE, "#QCG host=a\n#QCG procs=2\n", "t.qcg: no executable given");
	/* 5 */ refused(JOB_FORMAT_SIMPLE, "#QCG executable=/bin/p\n", "t.qcg: no cluster given");
	/* 6 */ refused(JOB_FORMAT_SIMPLE, "#QCG executable=/bin/p\n#QCG procs=4\n",
	    "t.qcg:2: procs needs a host directive before it");
	/* 7 */ refused(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'>\n<executable>/p</executable>\n"
	    "<resources><cluster name='a' processes='0'/></resources></job>",
	    "t.xml:3: does not match job.xsd");
	/* 8 */ refused(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'>\n<executable>/p</executable>\n"
	    "<resources></job>", "t.xml:3: not well-formed XML");
	/* 9 */ refused(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>\n"
	    "<s:SPMDVariation>http://www.ogf.org/jsdl/2007/02/jsdl-spmd/MPICH2</s:SPMDVariation>"
	    "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts></jsdl:Resources>"
	    "</jsdl:JobDescription></jsdl:JobDefinition>", "t.jsdl:4: SPMDVariation must be");
	/* 10 */ refused(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>4</s:NumberOfProcesses>\n"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a:1</jsdl:HostName><jsdl:HostName>b:1</jsdl:HostName>"
	    "</jsdl:CandidateHosts></jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>",
	    "t.jsdl:3: NumberOfProcesses is 4 but the HostNames' counts add up to 2");
	/* 11 */ refused(JOB_FORMAT_SIMPLE, HOST "#QCG host=a\n#QCG procs=1\n",
	    "t.qcg:4: cluster a is listed twice (first on line 2)");
	/* 12 */ refused(JOB_FORMAT_SIMPLE, HOST "#QCG environment=1BAD=x\n",
	    "t.qcg:4: environment must be NAME=value");
	/* 13 */ refused(JOB_FORMAT_SIMPLE, "#QCG executable=/bin/p\n#QCG host=a\n#QCG nodes=2:4\n"
	    "#QCG procs=9\n", "t.qcg:4: procs=9 does not fit on nodes=2:4:4");
	/* 14 */ refused(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<resources>\n<cluster name='a' processes='5' processesPerNode='2'><node>a1</node>"
	    "<node>a2</node></cluster></resources></job>",
	    "t.xml:3: cluster a: 2 nodes of 2 processes cannot hold 5");
	/* 15 */ refused(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<workingDirectory>scratch</workingDirectory>\n<resources><cluster name='a' "
	    "processes='1'/></resources></job>", "t.xml:2: the working directory must be an absolute");
	/* 16 */ refused(JOB_FORMAT_SIMPLE, HOST "#QCG environment=QCG_TOPOLOGY_COLORS=0,0,0\n",
	    "t.qcg:4: QCG_TOPOLOGY_COLORS is set by the launcher");
	/* 17 */ refused(JOB_FORMAT_SIMPLE, "just a shell script\n", "not a job description");
	/* 18 */ refused(JOB_FORMAT_SIMPLE, HOST "#QCG executable=/bin/q\n",
	    "t.qcg:4: executable given twice (first on line 1)");
}

/* The binding: none unless asked, the same word in both formats that have it, and a bad or
 * repeated one refused with the line and the choices. */
static void
binding_is_none_unless_asked_and_checked_in_xml_and_simple(void)
{
	struct job_desc *d = parse(JOB_FORMAT_SIMPLE, HOST);
	CHECK(d != NULL && d->binding == JOB_BIND_NONE && d->binding_line == 0);
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG binding=core\n");
	CHECK(d != NULL && d->binding == JOB_BIND_CORE && d->binding_line == 4);
	free(d);
	d = parse(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<binding>socket</binding>\n<resources><cluster name='a' processes='2'/></resources>"
	    "</job>");
	CHECK(d != NULL && d->binding == JOB_BIND_SOCKET && d->binding_line == 2);
	CHECK_STR_EQ(job_binding_name(d ? d->binding : JOB_BIND_NONE), "socket");
	free(d);
	refused(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n\n"
	    "<binding>x</binding>\n<resources><cluster name='a' processes='2'/></resources></job>",
	    "t.xml:3: <binding> must be one of none|core|socket, got 'x'");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG binding=hwthread\n",
	    "t.qcg:4: binding must be one of none|core|socket, got 'hwthread'");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG binding=core\n#QCG binding=none\n",
	    "t.qcg:5: binding given twice (first on line 4)");
}

/* How long to wait for busy nodes: not given by default; the same seconds from each of the
 * three formats; out of range, malformed or repeated refused with the line. */
static void
reserve_timeout_in_all_three_formats(void)
{
	struct job_desc *d = parse(JOB_FORMAT_SIMPLE, HOST);
	CHECK(d != NULL && d->reserve_timeout == 0 && d->reserve_timeout_line == 0);
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG reserve-timeout=PT1M30S\n");
	CHECK(d != NULL && d->reserve_timeout == 90 && d->reserve_timeout_line == 4);
	free(d);
	d = parse(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<reserveTimeout>PT90S</reserveTimeout>\n<resources><cluster name='a' processes='2'/>"
	    "</resources></job>");
	CHECK(d != NULL && d->reserve_timeout == 90 && d->reserve_timeout_line == 2);
	free(d);
	d = parse(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:ReserveTimeout xmlns:q='urn:qcg-ompi:job:1'>90</q:ReserveTimeout></jsdl:Resources>"
	    "</jsdl:JobDescription></jsdl:JobDefinition>");
	CHECK(d != NULL && d->reserve_timeout == 90 && d->reserve_timeout_line == 5);
	free(d);
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG reserve-timeout=PT2H\n",
	    "t.qcg:4: reserve-timeout (a duration such as PT30S) must be 1 to 3600 seconds, "
	    "got 'PT2H'");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG reserve-timeout=20\n",
	    "t.qcg:4: reserve-timeout (a duration such as PT30S) must be 1 to 3600 seconds, "
	    "got '20'");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG reserve-timeout=PT1M\n#QCG reserve-timeout=PT2M\n",
	    "t.qcg:5: reserve-timeout (a duration such as PT30S) given twice (first on line 4)");
	refused(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<reserveTimeout>PT0S</reserveTimeout>\n<resources><cluster name='a' processes='2'/>"
	    "</resources></job>",
	    "t.xml:2: <reserveTimeout> (a duration such as PT30S) must be 1 to 3600 seconds, "
	    "got 'PT0S'");
	refused(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:ReserveTimeout xmlns:q='urn:qcg-ompi:job:1'>soon</q:ReserveTimeout></jsdl:Resources>"
	    "</jsdl:JobDescription></jsdl:JobDefinition>",
	    "t.jsdl:5: ReserveTimeout (seconds) must be 1 to 3600 seconds, got 'soon'");
}

/* A cluster may name its own installed path of the program (issue 12), in all three formats;
 * a relative one, one beside a staged executable, or (JSDL) one for a cluster the job does
 * not use is refused with its line. */
static void
cluster_executable_in_all_three_formats(void)
{
	struct job_desc *d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG host-executable=/opt/a/prog\n"
	    "#QCG host=b\n#QCG procs=1\n");
	CHECK(d != NULL && d->cluster_count == 2 && job_has_cluster_executables(d) &&
	    strcmp(d->cluster[0].executable.text, "/opt/a/prog") == 0 &&
	    d->cluster[0].executable.line == 4 && d->cluster[1].executable.line == 0);
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST);
	CHECK(d != NULL && !job_has_cluster_executables(d));
	free(d);
	d = parse(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<resources><cluster name='a' processes='2'/>\n<cluster name='b' processes='1' "
	    "executable='/opt/b/prog'/></resources></job>");
	CHECK(d != NULL && d->cluster_count == 2 && d->cluster[0].executable.line == 0 &&
	    strcmp(d->cluster[1].executable.text, "/opt/b/prog") == 0 &&
	    d->cluster[1].executable.line == 3);
	free(d);
	d = parse(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:ClusterExecutable xmlns:q='urn:qcg-ompi:job:1' cluster='a'>/opt/a/prog"
	    "</q:ClusterExecutable></jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>");
	CHECK(d != NULL && strcmp(d->cluster[0].executable.text, "/opt/a/prog") == 0 &&
	    d->cluster[0].executable.line == 5);
	free(d);
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG host-executable=bin/prog\n",
	    "t.qcg:4: cluster a: its executable must be an absolute path on its nodes without "
	    "blanks (nor may the job's executable have any), got 'bin/prog'");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG host-executable=/opt/my prog\n",
	    "t.qcg:4: cluster a: its executable must be an absolute path on its nodes without "
	    "blanks (nor may the job's executable have any), got '/opt/my prog'");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG stage-executable=yes\n#QCG host-executable=/x\n",
	    "t.qcg:5: cluster a: an installed path of the executable and a staged executable "
	    "(line 4) exclude each other");
	refused(JOB_FORMAT_SIMPLE, "#QCG executable=/bin/p\n#QCG host-executable=/x\n",
	    "t.qcg:2: host-executable needs a host directive before it (host=CLUSTER)");
	refused(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:ClusterExecutable xmlns:q='urn:qcg-ompi:job:1' cluster='z'>/opt/z/prog"
	    "</q:ClusterExecutable></jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>",
	    "t.jsdl:5: ClusterExecutable names cluster 'z', which is not among CandidateHosts");
}

/* The job's directory on each node is removed at the end unless the description asks to keep
 * it (issue 12), in all three formats; a value other than yes/no is refused with its line. */
static void
keep_job_directory_in_all_three_formats(void)
{
	struct job_desc *d = parse(JOB_FORMAT_SIMPLE, HOST);
	CHECK(d != NULL && d->keep_directory_line == 0);
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG keep-job-directory=yes\n");
	CHECK(d != NULL && d->keep_directory_line == 4);
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG keep-job-directory=no\n");
	CHECK(d != NULL && d->keep_directory_line == 0);
	free(d);
	d = parse(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<keepJobDirectory>true</keepJobDirectory>\n<resources><cluster name='a' "
	    "processes='2'/></resources></job>");
	CHECK(d != NULL && d->keep_directory_line == 2);
	free(d);
	d = parse(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>/p</executable>\n"
	    "<keepJobDirectory>false</keepJobDirectory>\n<resources><cluster name='a' "
	    "processes='2'/></resources></job>");
	CHECK(d != NULL && d->keep_directory_line == 0);
	free(d);
	d = parse(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:KeepJobDirectory xmlns:q='urn:qcg-ompi:job:1'>true</q:KeepJobDirectory>"
	    "</jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>");
	CHECK(d != NULL && d->keep_directory_line == 5);
	free(d);
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG keep-job-directory=later\n",
	    "t.qcg:4: keep-job-directory must be yes or no (true or false), got 'later'");
	refused(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:KeepJobDirectory xmlns:q='urn:qcg-ompi:job:1'>forever</q:KeepJobDirectory>"
	    "</jsdl:Resources></jsdl:JobDescription></jsdl:JobDefinition>",
	    "t.jsdl:5: KeepJobDirectory must be yes or no (true or false), got 'forever'");
}

/* The executable is installed on the nodes unless the description asks to stage it (issue
 * 12), in all three formats; staged, it becomes a stage-in to its base name, run as ./NAME. */
static void
staged_executable_in_all_three_formats(void)
{
	struct job_desc *d = parse(JOB_FORMAT_SIMPLE, HOST);
	CHECK(d != NULL && d->executable_staged_line == 0);
	CHECK(d != NULL && job_stage_executable(d, err, sizeof(err)) == 0 &&
	    d->stage_in_count == 0);
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG stage-executable=yes\n");
	CHECK(d != NULL && d->executable_staged_line == 4);
	if (d != NULL) {
		const char *exe = strrchr(d->executable.text, '/');
		char want[JOB_STRING_MAX + 2];
		snprintf(want, sizeof(want), "./%s", exe ? exe + 1 : d->executable.text);
		char from[JOB_STRING_MAX];
		snprintf(from, sizeof(from), "%s", d->executable.text);
		CHECK(job_stage_executable(d, err, sizeof(err)) == 0);
		CHECK_INT_EQ(d->stage_in_count, 1);
		CHECK_STR_EQ(d->stage_in[0].from.text, from);
		CHECK_STR_EQ(d->stage_in[0].to.text, want + 2);
		CHECK_STR_EQ(d->executable.text, want);
		CHECK(job_validate(d, err, sizeof(err)) == 0);
	}
	free(d);
	d = parse(JOB_FORMAT_SIMPLE, HOST "#QCG stage-executable=no\n");
	CHECK(d != NULL && d->executable_staged_line == 0);
	free(d);
	d = parse(JOB_FORMAT_XML, "<job xmlns='urn:qcg-ompi:job:1'><executable>bin/prog</executable>\n"
	    "<stageExecutable>true</stageExecutable>\n<resources><cluster name='a' processes='2'/>"
	    "</resources></job>");
	CHECK(d != NULL && d->executable_staged_line == 2);
	CHECK(d != NULL && job_stage_executable(d, err, sizeof(err)) == 0 &&
	    strcmp(d->executable.text, "./prog") == 0 &&
	    strcmp(d->stage_in[0].from.text, "bin/prog") == 0 &&
	    strcmp(d->stage_in[0].to.text, "prog") == 0);
	free(d);
	d = parse(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:StageExecutable xmlns:q='urn:qcg-ompi:job:1'>true</q:StageExecutable></jsdl:Resources>"
	    "</jsdl:JobDescription></jsdl:JobDefinition>");
	CHECK(d != NULL && d->executable_staged_line == 5);
	free(d);
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG stage-executable=maybe\n",
	    "t.qcg:4: stage-executable must be yes or no (true or false), got 'maybe'");
	refused(JOB_FORMAT_JSDL, JSDL_HEAD "<s:NumberOfProcesses>2</s:NumberOfProcesses>"
	    JSDL_OMPI "</s:SPMDApplication></jsdl:Application><jsdl:Resources><jsdl:CandidateHosts>"
	    "<jsdl:HostName>a</jsdl:HostName></jsdl:CandidateHosts>\n"
	    "<q:StageExecutable xmlns:q='urn:qcg-ompi:job:1'>often</q:StageExecutable></jsdl:Resources>"
	    "</jsdl:JobDescription></jsdl:JobDefinition>",
	    "t.jsdl:5: StageExecutable must be yes or no (true or false), got 'often'");
	/* a staged name on the nodes that leaves the working directory: refused before anything */
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG stage-in-file=/home/u/x -> ../x\n",
	    "t.qcg:4: stage-in name '../x' on the nodes has a '..' component: it must stay inside "
	    "the job's directory");
	refused(JOB_FORMAT_SIMPLE, HOST "#QCG stage-out-file=/etc/passwd -> x\n",
	    "t.qcg:4: stage-out name '/etc/passwd' on the nodes is absolute: it must be relative "
	    "to the job's directory");
}

int
main(void)
{
	RUN(examples_give_one_internal_form_in_all_three_formats);
	RUN(simple_directives_fill_every_field);
	RUN(xml_sites_nodes_environment_and_staging);
	RUN(jsdl_splits_processes_over_candidate_hosts);
	RUN(iso8601_durations);
	RUN(ten_kinds_of_bad_description_each_get_a_clear_error);
	RUN(binding_is_none_unless_asked_and_checked_in_xml_and_simple);
	RUN(reserve_timeout_in_all_three_formats);
	RUN(staged_executable_in_all_three_formats);
	RUN(keep_job_directory_in_all_three_formats);
	RUN(cluster_executable_in_all_three_formats);
	return check_exit();
}
