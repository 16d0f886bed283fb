/*
 * fuzz_job.c: libFuzzer target for one job description parser (launcher/job_simple.c,
 * job_xml.c or job_jsdl.c, chosen at build time by FUZZ_JOB_PARSER, e.g.
 * -DFUZZ_JOB_PARSER=job_parse_xml; QCG-Simple when not given) and the validation that
 * follows it. The three formats end in one struct job_desc, so one set of checks serves all. Besides not crashing, it checks the header's promises and
 * aborts when one is broken: every error starts with the origin ("fuzz:"), a parsed
 * description stays inside its bounds with NUL-terminated strings, and cluster lines point
 * into the input.
 *
 * Replayed by make check (tests/launcher/test_job_simple_replay.sh for QCG-Simple,
 * tests/fuzz/replay_job_xml and replay_job_jsdl for the others); fuzzed by the
 * --enable-fuzzing build (tests/fuzz/README.md).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_desc.h"

#ifndef FUZZ_JOB_PARSER
#define FUZZ_JOB_PARSER job_parse_simple
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_string(const struct job_string *s)
{
	if (memchr(s->text, '\0', sizeof(s->text)) == NULL)
		abort();
}

static void
check_desc(const struct job_desc *d, int lines)
{
	if (d->cluster_count < 0 || d->cluster_count > JOB_CLUSTERS_MAX || d->argc < 0 ||
	    d->argc > JOB_ARGS_MAX || d->envc < 0 || d->envc > JOB_ENV_MAX ||
	    d->stage_in_count > JOB_STAGE_MAX || d->stage_out_count > JOB_STAGE_MAX)
		abort();
	check_string(&d->executable);
	for (int i = 0; i < d->argc; i++)
		check_string(&d->arg[i]);
	for (int i = 0; i < d->cluster_count; i++) {
		const struct job_cluster *c = &d->cluster[i];
		if (c->line < 1 || c->line > lines || c->processes < 0 ||
		    memchr(c->name, '\0', sizeof(c->name)) == NULL || c->name[0] == '\0' ||
		    c->site[0] == '\0' || c->node_count > JOB_NODES_MAX)
			abort();
	}
	if (d->walltime < 0 || d->walltime > JOB_WALLTIME_MAX)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[JOB_ERR_MAX + 300] = "";
	/* The highest line a description may name: libxml2 also ends a line at a lone CR (XML 1.0
	 * section 2.11), so CRs count too; for QCG-Simple that is a looser bound, still a bound. */
	int lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r';
	struct job_desc *d = FUZZ_JOB_PARSER((const char *)data, size, "fuzz", err, sizeof(err));
	if (d == NULL) {
		if (strncmp(err, "fuzz:", 5) != 0)
			abort();
		return 0;
	}
	check_desc(d, lines);
	err[0] = '\0';
	if (job_validate(d, err, sizeof(err)) != 0 && strncmp(err, "fuzz:", 5) != 0)
		abort();
	free(d);
	return 0;
}
