/*
 * test_stage.c: the staged-name rule (lib/stage_path.h), the per-user quota
 * (stage_quota.h) and the digest check of the node commands (stage_node.h).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Run the stage-out command on a file of 200,000 bytes with its standard output in a pipe, as
 * the helper runs it. Returns its exit status; its stdout bytes go to outf, stderr to errf. */
static int
run_stage_out(const char *dir, const char *name, const char *outf, const char *errf)
{
	char *argv[STAGE_NODE_ARGV_MAX + 1];
	int n = stage_node_out_argv(dir, name, argv);
	argv[n] = NULL;
	pid_t reader = fork();
	if (reader != 0) {
		int st = -1;
		waitpid(reader, &st, 0);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
	}
	/* the reader of the pipe; it exits with the script's status once the pipe is drained */
	int p[2];
	FILE *out = fopen(outf, "w");
	if (out == NULL || freopen(errf, "w", stderr) == NULL || pipe(p) != 0)
		_exit(98);
	pid_t script = fork();
	if (script == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv("/bin/sh", argv);
		_exit(97);
	}
	close(p[1]);
	char buf[8192];
	ssize_t got;
	while ((got = read(p[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)got, out);
	fclose(out);
	int st = -1;
	waitpid(script, &st, 0);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 96);
}

/* The last line of file, without its newline. */
static void
last_line(const char *file, char *last, size_t len)
{
	char line[256];
	last[0] = '\0';
	FILE *f = fopen(file, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		snprintf(last, len, "%.*s", (int)strcspn(line, "\n"), line);
	if (f != NULL)
		fclose(f);
}

/* Every byte of the file comes out on stdout, and the digest of exactly those bytes is stderr's
 * last line; a missing file is an error that says so. */
static void
stage_out_runs(void)
{
	char dir[] = "/tmp/qcg-test-stage-out.XXXXXX", path[256], outf[256], errf[256], last[256];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.dat", dir);
	snprintf(outf, sizeof(outf), "%s/stdout", dir);
	snprintf(errf, sizeof(errf), "%s/stderr", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	for (int i = 0; f != NULL && i < 200000 / 6; i++)
		fputs("hello\n", f);
	if (f != NULL) {
		fputs("he", f); /* 200,000 bytes: `yes hello | head -c 200000` */
		fclose(f);
	}
	CHECK_INT_EQ(run_stage_out(dir, "out.dat", outf, errf), 0);
	char cmp[600];
	snprintf(cmp, sizeof(cmp), "cmp -s '%s' '%s'", outf, path);
	CHECK(system(cmp) == 0);
	last_line(errf, last, sizeof(last));
	CHECK_STR_EQ(last, "5b79bcf79d06fbf478793097d7a464db437f3eb5849f294f74c31f9d4fc48e43");
	CHECK_INT_EQ(run_stage_out(dir, "gone.dat", outf, errf), 1);
	last_line(errf, last, sizeof(last));
	CHECK(strstr(last, "gone.dat: no such file") != NULL);
	snprintf(cmp, sizeof(cmp), "rm -rf '%s'", dir);
	CHECK(system(cmp) == 0);
}

int
main(void)
{
	names();
	quota();
	node_commands();
	stage_out_runs();
	return check_exit();
}
