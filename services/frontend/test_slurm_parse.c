/*
 * test_slurm_parse.c: what the Slurm allocator says to Slurm and reads back, without Slurm:
 * salloc's answers are classified (granted, pending, impossible, failed), hostlists and CPU
 * lists expand exactly and garbled ones are refused, and the command lines carry the grid
 * job, the limits and the site's settings.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "slurm_parse.h"

static void
salloc_answers_are_classified_with_their_job_id(void)
{
	char id[SLURM_JOB_ID_MAX], why[256];
	CHECK_INT_EQ(slurm_parse_salloc("salloc: Pending job allocation 41\n"
	    "salloc: job 41 queued and waiting for resources\n"
	    "salloc: job 41 has been allocated resources\n"
	    "salloc: Granted job allocation 41\n", id, why, sizeof(why)), SLURM_SALLOC_GRANTED);
	CHECK_STR_EQ(id, "41");
	CHECK_INT_EQ(slurm_parse_salloc("salloc: Granted job allocation 7\n", id, why,
	    sizeof(why)), SLURM_SALLOC_GRANTED);
	CHECK_STR_EQ(id, "7");
	CHECK_INT_EQ(slurm_parse_salloc("salloc: Pending job allocation 42\n"
	    "salloc: job 42 queued and waiting for resources\n"
	    "salloc: error: Unable to allocate resources: Immediate execution impossible, "
	    "insufficient priority\n", id, why, sizeof(why)), SLURM_SALLOC_PENDING);
	CHECK_STR_EQ(id, "42");
	CHECK(strstr(why, "Immediate execution impossible") != NULL);
	CHECK_INT_EQ(slurm_parse_salloc("salloc: error: Job submit/allocate failed: Requested "
	    "node configuration is not available\n", id, why, sizeof(why)),
	    SLURM_SALLOC_IMPOSSIBLE);
	CHECK_STR_EQ(id, "");
	CHECK(strstr(why, "Requested node configuration is not available") != NULL);
	CHECK_INT_EQ(slurm_parse_salloc("salloc: error: Invalid partition name specified\n", id,
	    why, sizeof(why)), SLURM_SALLOC_IMPOSSIBLE);
	CHECK_INT_EQ(slurm_parse_salloc("salloc: error: Unable to contact slurm controller\n", id,
	    why, sizeof(why)), SLURM_SALLOC_FAILED);
	CHECK(strstr(why, "Unable to contact") != NULL);
	CHECK_INT_EQ(slurm_parse_salloc("", id, why, sizeof(why)), SLURM_SALLOC_FAILED);
	/* "Granted" without a number is no grant. */
	CHECK_INT_EQ(slurm_parse_salloc("salloc: Granted job allocation x\n", id, why,
	    sizeof(why)), SLURM_SALLOC_FAILED);
	/* A job id too long for us is no job id. */
	CHECK_INT_EQ(slurm_parse_salloc("salloc: Granted job allocation "
	    "123456789012345678901234567890\n", id, why, sizeof(why)), SLURM_SALLOC_FAILED);
}

static void
hostlists_expand_exactly_and_garbled_ones_are_refused(void)
{
	struct slurm_alloc_node n[8];
	size_t count;
	char err[256];
	CHECK_INT_EQ(slurm_hostlist_expand("a1", n, 8, &count, err, sizeof(err)), 0);
	CHECK_INT_EQ(count, 1);
	CHECK_STR_EQ(n[0].name, "a1");
	CHECK_INT_EQ(slurm_hostlist_expand("a[1-3],gw-b,c[07,9]x", n, 8, &count, err,
	    sizeof(err)), 0);
	CHECK_INT_EQ(count, 6);
	CHECK_STR_EQ(n[2].name, "a3");
	CHECK_STR_EQ(n[3].name, "gw-b");
	CHECK_STR_EQ(n[4].name, "c07x");
	CHECK_STR_EQ(n[5].name, "c9x"); /* zero padding is per number, as Slurm writes it */
	CHECK_INT_EQ(slurm_hostlist_expand("a[1-9]", n, 8, &count, err, sizeof(err)), -1);
	CHECK(strstr(err, "more than 8") != NULL);
	CHECK_INT_EQ(slurm_hostlist_expand("a[3-1]", n, 8, &count, err, sizeof(err)), -1);
	CHECK_INT_EQ(slurm_hostlist_expand("a[1-2", n, 8, &count, err, sizeof(err)), -1);
	CHECK_INT_EQ(slurm_hostlist_expand("a[1][2]", n, 8, &count, err, sizeof(err)), -1);
	CHECK_INT_EQ(slurm_hostlist_expand("a;rm", n, 8, &count, err, sizeof(err)), -1);
	CHECK_INT_EQ(slurm_hostlist_expand("", n, 8, &count, err, sizeof(err)), -1);
	CHECK_INT_EQ(slurm_cpu_ids_count("0-3,6"), 5);
	CHECK_INT_EQ(slurm_cpu_ids_count("2"), 1);
	CHECK_INT_EQ(slurm_cpu_ids_count("3-1"), -1);
	CHECK_INT_EQ(slurm_cpu_ids_count("0-"), -1);
	CHECK_INT_EQ(slurm_cpu_ids_count("x"), -1);
	CHECK_INT_EQ(slurm_cpu_ids_count("0,"), -1);
}

static void
job_detail_gives_state_nodes_and_cpus(void)
{
	struct slurm_alloc_node n[8];
	size_t count;
	char state[32], err[256];
	const char *text = "JobId=12 JobName=qcg-j1 UserId=daemon(1) JobState=RUNNING Reason=None "
	    "NumNodes=3 NumCPUs=5 NodeList=a[1-3] BatchHost=a1 Nodes=a[1-2] CPU_IDs=0-1 Mem=0 "
	    "GRES= Nodes=a3 CPU_IDs=0 Mem=0 GRES= Comment=qcg-ompi\n";
	CHECK_INT_EQ(slurm_parse_job_detail(text, state, sizeof(state), n, 8, &count, err,
	    sizeof(err)), 0);
	CHECK_STR_EQ(state, "RUNNING");
	CHECK_INT_EQ(count, 3);
	CHECK_STR_EQ(n[1].name, "a2");
	CHECK_INT_EQ(n[1].cpus, 2);
	CHECK_INT_EQ(n[2].cpus, 1);
	CHECK_INT_EQ(slurm_parse_job_detail("JobId=1 NumNodes=1", state, sizeof(state), n, 8,
	    &count, err, sizeof(err)), -1);
	CHECK(strstr(err, "JobState") != NULL);
	CHECK_INT_EQ(slurm_parse_job_detail("JobState=RUNNING Nodes=a1 Mem=0", state,
	    sizeof(state), n, 8, &count, err, sizeof(err)), -1);
	CHECK(strstr(err, "without CPU_IDs") != NULL);
	CHECK_INT_EQ(slurm_parse_job_detail("JobState=RUNNING Nodes=a1 CPU_IDs=x", state,
	    sizeof(state), n, 8, &count, err, sizeof(err)), -1);
}

static void
node_states_that_lose_a_job_are_recognised(void)
{
	CHECK(slurm_node_state_lost("drain"));
	CHECK(slurm_node_state_lost("drng"));
	CHECK(slurm_node_state_lost("down*"));
	CHECK(slurm_node_state_lost("DOWN"));
	CHECK(slurm_node_state_lost("fail"));
	CHECK(slurm_node_state_lost(""));
	CHECK(!slurm_node_state_lost("alloc"));
	CHECK(!slurm_node_state_lost("mix"));
	CHECK(!slurm_node_state_lost("idle"));
	char w[64];
	CHECK_STR_EQ(slurm_node_state_word("drng", w, sizeof(w)), "draining");
	CHECK_STR_EQ(slurm_node_state_word("drain", w, sizeof(w)), "drained");
	CHECK_STR_EQ(slurm_node_state_word("DRAIN", w, sizeof(w)), "drained");
	CHECK_STR_EQ(slurm_node_state_word("down*", w, sizeof(w)), "down (not responding)");
	CHECK_STR_EQ(slurm_node_state_word("failg", w, sizeof(w)), "failing");
	CHECK_STR_EQ(slurm_node_state_word("weird$", w, sizeof(w)), "weird");
	CHECK_STR_EQ(slurm_node_state_word("", w, sizeof(w)), "in state ''");
	CHECK_INT_EQ(slurm_minutes(1), 1);
	CHECK_INT_EQ(slurm_minutes(60), 1);
	CHECK_INT_EQ(slurm_minutes(61), 2);
}

static int
has_arg(char *const *argv, const char *want)
{
	for (int i = 0; argv[i]; i++)
		if (strcmp(argv[i], want) == 0)
			return 1;
	return 0;
}

static void
salloc_line_carries_job_limits_and_site_settings(void)
{
	char *argv[SLURM_ARGV_MAX], storage[SLURM_ARGV_STORAGE], err[256];
	const char *nodes[] = { "a1", "a2" };
	struct slurm_salloc_request r = { "job-7", 6, 3, nodes, 2, 125, 10, "grid", "acct", "",
		"", "site-a" };
	CHECK_INT_EQ(slurm_salloc_argv(&r, argv, storage, sizeof(storage), err, sizeof(err)), 0);
	CHECK_STR_EQ(argv[0], "salloc");
	CHECK(has_arg(argv, "--no-shell"));
	CHECK(has_arg(argv, "--immediate=10"));
	CHECK(has_arg(argv, "--job-name=qcg-job-7"));
	CHECK(has_arg(argv, "--comment=qcg-ompi grid job job-7, front-end of cluster site-a"));
	CHECK(has_arg(argv, "--ntasks=6"));
	CHECK(has_arg(argv, "--ntasks-per-node=3"));
	CHECK(has_arg(argv, "--nodelist=a1,a2"));
	CHECK(has_arg(argv, "--time=3"));
	CHECK(has_arg(argv, "--partition=grid"));
	CHECK(has_arg(argv, "--account=acct"));
	for (int i = 0; argv[i]; i++)
		CHECK(strncmp(argv[i], "--qos", 5) != 0); /* empty: Slurm's default */
	struct slurm_salloc_request bare = { "j", 1, 0, NULL, 0, 0, 5, "", "", "", "jane", "" };
	CHECK_INT_EQ(slurm_salloc_argv(&bare, argv, storage, sizeof(storage), err, sizeof(err)),
	    0);
	for (int i = 0; argv[i]; i++)
		CHECK(strncmp(argv[i], "--time", 6) != 0 && strncmp(argv[i], "--nodelist", 10) != 0);
	/* run as the mapped account: the job, and so its steps, are that account's */
	CHECK_STR_EQ(argv[0], "runuser");
	CHECK_STR_EQ(argv[2], "jane");
	CHECK_STR_EQ(argv[3], "--");
	CHECK_STR_EQ(argv[4], "salloc");
	CHECK_INT_EQ(slurm_salloc_argv(&r, argv, storage, 40, err, sizeof(err)), -1);
	CHECK(strstr(err, "too long") != NULL);
}

static void
step_prefix_runs_in_the_allocation_and_moves_the_preload(void)
{
	const char *prefix[16];
	char storage[2048], err[256];
	char *env[] = { "A=1", "LD_PRELOAD=/usr/lib/libqcgnet.so", "B=2" };
	int moved;
	int n = slurm_step_prefix("41", "a2", "/tb/slurm-a.conf", env, 3, prefix, 16, storage,
	    sizeof(storage), &moved, err, sizeof(err));
	CHECK(n > 0);
	CHECK_INT_EQ(moved, 1);
	CHECK_STR_EQ(prefix[0], "env");
	CHECK_STR_EQ(prefix[1], "SLURM_CONF=/tb/slurm-a.conf");
	CHECK_STR_EQ(prefix[2], "srun");
	CHECK(has_arg((char *const *)prefix, "--jobid=41"));
	CHECK(has_arg((char *const *)prefix, "--overlap"));
	CHECK(has_arg((char *const *)prefix, "--nodelist=a2"));
	CHECK_STR_EQ(prefix[n - 1], "--export=ALL,LD_PRELOAD=/usr/lib/libqcgnet.so");
	n = slurm_step_prefix("41", "a2", "", env, 1, prefix, 16, storage, sizeof(storage),
	    &moved, err, sizeof(err));
	CHECK_STR_EQ(prefix[0], "srun");
	CHECK_INT_EQ(moved, -1);
	CHECK_STR_EQ(prefix[n - 1], "--export=ALL");
	char *commas[] = { "LD_PRELOAD=/a.so,/b.so" };
	CHECK_INT_EQ(slurm_step_prefix("41", "a2", "", commas, 1, prefix, 16, storage,
	    sizeof(storage), &moved, err, sizeof(err)), -1);
	CHECK(strstr(err, "comma") != NULL);
}

/* orted's --daemonize, as plm_rsh puts it into the command qcg-rsh runs with sh -c. */
static void
daemonize_is_found_only_as_a_whole_word(void)
{
	CHECK_INT_EQ((int)slurm_daemonize_word("orted -mca ess env --daemonize -mca x y"), 19);
	CHECK_INT_EQ((int)slurm_daemonize_word("orted --daemonize"), 6);
	CHECK_INT_EQ((int)slurm_daemonize_word("--daemonize"), 0);
	CHECK_INT_EQ((int)slurm_daemonize_word("orted -mca x --daemonize-not --daemonize"), 29);
	CHECK_INT_EQ((int)slurm_daemonize_word("orted --no--daemonize"), -1);
	CHECK_INT_EQ((int)slurm_daemonize_word("orted -mca x --daemonized"), -1);
	CHECK_INT_EQ((int)slurm_daemonize_word("/bin/hostname"), -1);
	CHECK_INT_EQ((int)slurm_daemonize_word(""), -1);
}

static void
own_jobs_are_those_whose_comment_names_this_front_end(void)
{
	char ids[2][SLURM_JOB_ID_MAX], err[256];
	size_t n = 9;
	const char *q = "41 qcg-ompi grid job j-1, front-end of cluster site-a\n"
	    "42 qcg-ompi grid job j-2, front-end of cluster site-ab\n"
	    "43 qcg-ompi grid job j-3, front-end of cluster other-site-a\n"
	    "44 (null)\n"
	    "45 qcg-ompi grid job j-5\n"
	    "46 a user's job, front-end of cluster site-a\n"
	    "47 qcg-ompi grid job job with spaces, front-end of cluster site-a\n";
	CHECK_INT_EQ(slurm_parse_own_jobs(q, "site-a", ids, 2, &n, err, sizeof(err)), 0);
	CHECK_INT_EQ(n, 2);
	CHECK_STR_EQ(ids[0], "41");
	CHECK_STR_EQ(ids[1], "47");
	CHECK_INT_EQ(slurm_parse_own_jobs("", "site-a", ids, 2, &n, err, sizeof(err)), 0);
	CHECK_INT_EQ(n, 0);
	CHECK_INT_EQ(slurm_parse_own_jobs(q, "site-a", ids, 1, &n, err, sizeof(err)), -1);
	CHECK(strstr(err, "more than 1") != NULL);
	/* Array tasks, heterogeneous components and garbage are no salloc job of ours. */
	CHECK_INT_EQ(slurm_parse_own_jobs("x1 qcg-ompi grid job j, front-end of cluster site-a\n"
	    "12_3 qcg-ompi grid job j, front-end of cluster site-a\n"
	    "12+0 qcg-ompi grid job j, front-end of cluster site-a\n"
	    "49 qcg-ompi grid job j, front-end of cluster site-a", "site-a", ids, 2, &n, err,
	    sizeof(err)), 0);
	CHECK_INT_EQ(n, 1);
	CHECK_STR_EQ(ids[0], "49");
	/* One that names no comment at all is not ours. */
	CHECK_INT_EQ(slurm_parse_own_jobs("48\n", "site-a", ids, 2, &n, err, sizeof(err)), 0);
	CHECK_INT_EQ(n, 0);
}

int
main(void)
{
	RUN(salloc_answers_are_classified_with_their_job_id);
	RUN(hostlists_expand_exactly_and_garbled_ones_are_refused);
	RUN(job_detail_gives_state_nodes_and_cpus);
	RUN(node_states_that_lose_a_job_are_recognised);
	RUN(salloc_line_carries_job_limits_and_site_settings);
	RUN(step_prefix_runs_in_the_allocation_and_moves_the_preload);
	RUN(daemonize_is_found_only_as_a_whole_word);
	RUN(own_jobs_are_those_whose_comment_names_this_front_end);
	return check_exit();
}
