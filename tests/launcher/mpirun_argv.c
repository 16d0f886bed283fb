/*
 * mpirun_argv.c: print, one word a line, the mpirun command line qcg-submit builds for a
 * one-process job (submit_mpirun_argv) as if qcg-submit ran from SELF_DIR, after a line
 * "installed-component-dir=DIR" naming the directory configure chose for mca_coll_qcg.
 * For test_component_path.sh.
 *
 *   mpirun_argv SELF_DIR
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "job_desc.h"
#include "submit_run.h"

int
main(int argc, char **argv)
{
	static struct job_desc job;
	static char *words[SUBMIT_ARGV_MAX];
	if (argc != 2) {
		fprintf(stderr, "usage: mpirun_argv SELF_DIR\n");
		return 2;
	}
	snprintf(job.executable.text, sizeof(job.executable.text), "/bin/true");
	job.executable.line = 1;
	struct submit_plan plan = { .job = &job, .dir = "/nonexistent-job-dir", .mpirun = "mpirun",
		.rsh = "qcg-rsh", .processes = 1 };
	plan.component_path = submit_component_path(argv[1]);
	int n = submit_mpirun_argv(&plan, words);
	printf("installed-component-dir=%s\n", QCG_COMPONENT_DIR);
	for (int i = 0; i < n; i++)
		printf("%s\n", words[i]);
	return 0;
}
