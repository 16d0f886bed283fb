/*
 * fuzz_job_simple.c: libFuzzer target for the QCG-Simple parser (launcher/job_simple.c) and
 * the validation that follows it. Besides not crashing, it checks the header's promises and
 * aborts when one is broken: every error starts with the origin ("fuzz:"), a parsed
 * description stays inside its bounds with NUL-terminated strings, and cluster lines point
 * into the input.
 *
 * Replayed by make check (tests/launcher/test_job_simple_replay.sh); to fuzz, from the source
 * tree with B a configured build directory:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I$B -Ilib -Ilauncher \
 *     $(pkg-config --cflags libxml-2.0) tests/launcher/fuzz_job_simple.c launcher/job_desc.c \
 *     launcher/job_simple.c launcher/job_validate.c launcher/job_xml.c launcher/job_jsdl.c \
 *     launcher/job_xml_util.c $B/launcher/job_xsd.c \
 *     $(pkg-config --libs libxml-2.0) -o /tmp/fuzz_job_simple
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job_desc.h"

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
	int lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	struct job_desc *d = job_parse_simple((const char *)data, size, "fuzz", err, sizeof(err));
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
