/*
 * test_slurm_cmd.c: the bounded child every Slurm command runs as: its exit status, standard
 * output and error are kept apart; SLURM_CONF reaches it; a child that outlives its bound is
 * stopped and reported (the front-end never waits unbounded); too much output is flagged so
 * that it is not parsed; a missing program is an error, not a hang.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "check.h"
#include "slurm_cmd.h"

static struct slurm_cmd_result res;

static double
seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
status_and_streams_are_kept_apart(void)
{
	char why[256];
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; echo \"$SLURM_CONF\"; exit 3", NULL };
	CHECK_INT_EQ(slurm_cmd_run(argv, "/tb/slurm-a.conf", 10000, &res, why, sizeof(why)), 0);
	CHECK_INT_EQ(res.exit_status, 3);
	CHECK_STR_EQ(res.out, "out\n/tb/slurm-a.conf\n");
	CHECK_STR_EQ(res.err, "err\n");
	CHECK(!res.timed_out && !res.truncated);
}

static void
a_child_past_its_bound_is_stopped(void)
{
	char why[256];
	/* It ignores SIGTERM, so only the SIGKILL after the grace ends it. */
	char *argv[] = { "sh", "-c", "trap '' TERM; echo started; sleep 60", NULL };
	double t0 = seconds();
	CHECK_INT_EQ(slurm_cmd_run(argv, "", 300, &res, why, sizeof(why)), -1);
	double took = seconds() - t0;
	CHECK(res.timed_out);
	CHECK_STR_EQ(res.out, "started\n"); /* what it said before the bound is kept */
	CHECK(strstr(why, "did not finish within 300 ms") != NULL);
	/* a generous bound proving "no hang": 0.3 s + the 3 s grace, far below the sleep */
	CHECK(took < 30.0);
}

static void
too_much_output_is_flagged_and_missing_programs_fail(void)
{
	char why[256];
	char *big[] = { "sh", "-c", "head -c 40000 /dev/zero | tr '\\0' x", NULL };
	CHECK_INT_EQ(slurm_cmd_run(big, "", 10000, &res, why, sizeof(why)), 0);
	CHECK(res.truncated);
	CHECK_INT_EQ(strlen(res.out), SLURM_CMD_OUTPUT_MAX - 1);
	char *missing[] = { "qcg-no-such-slurm-command", NULL };
	CHECK_INT_EQ(slurm_cmd_run(missing, "", 10000, &res, why, sizeof(why)), -1);
	CHECK(strstr(why, "cannot run qcg-no-such-slurm-command") != NULL);
}

int
main(void)
{
	RUN(status_and_streams_are_kept_apart);
	RUN(a_child_past_its_bound_is_stopped);
	RUN(too_much_output_is_flagged_and_missing_programs_fail);
	return check_exit();
}
