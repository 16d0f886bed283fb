/*
 * test_stage.c: the staged-name rule (lib/stage_path.h), the per-user quota
 * (stage_quota.h) and the digest check of the node commands (stage_node.h).
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "stage_node.h"
#include "stage_path.h"
#include "stage_quota.h"

static void
names(void)
{
	char err[160];
	const char *good[] = { "in.dat", "data/in.dat", "a/b/c", "..x", "x..", ".hidden",
		"a/.b" };
	const char *bad[] = { "", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "./x", "a/./b",
		"a//b", "a/", "tab\there" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(stage_path_check(good[i], err, sizeof(err)) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(stage_path_check(bad[i], err, sizeof(err)) != 0);
	CHECK(stage_path_check(NULL, err, sizeof(err)) != 0);
	CHECK(stage_path_check("../x", err, sizeof(err)) != 0 && strstr(err, "'..'") != NULL);
	CHECK(stage_path_check("/x", err, sizeof(err)) != 0 && strstr(err, "absolute") != NULL);
	char longname[STAGE_PATH_MAX + 2];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK(stage_path_check(longname, err, sizeof(err)) != 0);
	longname[STAGE_PATH_MAX] = '\0';
	CHECK(stage_path_check(longname, err, sizeof(err)) == 0);

	CHECK(stage_dir_check("/tmp", err, sizeof(err)) == 0);
	CHECK(stage_dir_check("/", err, sizeof(err)) == 0);
	CHECK(stage_dir_check("/tmp/job.1/w", err, sizeof(err)) == 0);
	CHECK(stage_dir_check("tmp", err, sizeof(err)) != 0);
	CHECK(stage_dir_check("/tmp/../etc", err, sizeof(err)) != 0);
	CHECK(stage_dir_check("/tmp/", err, sizeof(err)) != 0);
}

/* Reservations "r1" and "r2" are live unless dropped. */
static bool r1_live = true, r2_live = true;

static bool
live(void *ctx, const char *id)
{
	(void)ctx;
	return (strcmp(id, "r1") == 0 && r1_live) || (strcmp(id, "r2") == 0 && r2_live);
}

static void
quota(void)
{
	char err[512];
	struct stage_quota *q = stage_quota_new(100, live, NULL);
	CHECK(q != NULL);
	CHECK(stage_quota_take(q, "/CN=u", "r1", 60, err, sizeof(err)) == 0);
	CHECK(stage_quota_take(q, "/CN=u", "r2", 40, err, sizeof(err)) == 0);
	CHECK_INT_EQ(stage_quota_used(q, "/CN=u"), 100);
	/* one more byte for the same user, on any reservation, is refused with the figures */
	CHECK(stage_quota_take(q, "/CN=u", "r1", 1, err, sizeof(err)) != 0);
	CHECK(strstr(err, "quota exceeded") != NULL && strstr(err, "100 of the 100") != NULL &&
	    strstr(err, "stage_quota_mib") != NULL);
	/* another user has a quota of their own */
	CHECK(stage_quota_take(q, "/CN=v", "r1", 100, err, sizeof(err)) == 0);
	/* a file larger than the whole quota, even with nothing held */
	CHECK(stage_quota_take(q, "/CN=w", "r1", 101, err, sizeof(err)) != 0);
	/* a stage-in that did not start gives its bytes back */
	stage_quota_give_back(q, "/CN=u", "r2", 40);
	CHECK_INT_EQ(stage_quota_used(q, "/CN=u"), 60);
	/* a reservation that is gone frees what was staged under it */
	r1_live = false;
	CHECK_INT_EQ(stage_quota_used(q, "/CN=u"), 0);
	CHECK_INT_EQ(stage_quota_used(q, "/CN=v"), 0);
	CHECK(stage_quota_take(q, "/CN=u", "r2", 100, err, sizeof(err)) == 0);
	stage_quota_free(q);
}

static void
node_commands(void)
{
	char num[STAGE_NODE_NUM_MAX], *argv[STAGE_NODE_ARGV_MAX];
	const char *d = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	CHECK(stage_sha256_valid(d));
	CHECK(!stage_sha256_valid("0123"));
	CHECK(!stage_sha256_valid(NULL));
	CHECK(!stage_sha256_valid("0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"));
	int n = stage_node_in_argv("/tmp/w", "in.dat", 12345, d, true, num, argv);
	CHECK_INT_EQ(n, 9);
	CHECK_STR_EQ(argv[0], "/bin/sh");
	/* the name and the digest are parameters, never part of the script */
	CHECK_STR_EQ(argv[4], "/tmp/w");
	CHECK_STR_EQ(argv[5], "in.dat");
	CHECK_STR_EQ(argv[6], "12345");
	CHECK_STR_EQ(argv[7], d);
	CHECK_STR_EQ(argv[8], "0700");
	CHECK(strstr(argv[2], "in.dat") == NULL);
	n = stage_node_in_argv("/tmp/w", "in.dat", 1, d, false, num, argv);
	CHECK_STR_EQ(argv[8], "0600");
	CHECK_INT_EQ(stage_node_out_argv("/tmp/w", "out.dat", argv), 6);
	CHECK_STR_EQ(argv[5], "out.dat");
}

int
main(void)
{
	names();
	quota();
	node_commands();
	return check_exit();
}
