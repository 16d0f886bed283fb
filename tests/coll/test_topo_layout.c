/*
 * test_topo_layout.c: the topology sources (environment, file) and the per-communicator layout
 * that the coll component and libqcgtopo both compute from them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"
#include "qcg_topo_layout.h"
#include "qcg_topo_source.h"

static char err[256];

static void
colors_parse_accepts_three_numbers_with_blanks(void)
{
	int c[3];
	CHECK_INT_EQ(qcg_topo_parse_colors("0,1,2", c, err, sizeof(err)), 0);
	CHECK(c[0] == 0 && c[1] == 1 && c[2] == 2);
	CHECK_INT_EQ(qcg_topo_parse_colors(" 3 , 4 ,5 ", c, err, sizeof(err)), 0);
	CHECK(c[0] == 3 && c[1] == 4 && c[2] == 5);
}

static void
colors_parse_rejects_wrong_count_sign_size_and_text(void)
{
	int c[3];
	CHECK_INT_EQ(qcg_topo_parse_colors("1,2", c, err, sizeof(err)), -1);
	CHECK(strstr(err, "'1,2'") != NULL);
	CHECK_INT_EQ(qcg_topo_parse_colors("1,2,3,4", c, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_topo_parse_colors("-1,0,0", c, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_topo_parse_colors("2000000,0,0", c, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_topo_parse_colors("a,b,c", c, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_topo_parse_colors("", c, err, sizeof(err)), -1);
}

/* Write text to a fresh temporary file; the caller unlinks path. */
static void
write_file(char *path, const char *text)
{
	strcpy(path, "/tmp/qcg-topo-test-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_INT_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
	close(fd);
}

static void
file_lookup_finds_rank_and_skips_comments(void)
{
	char path[64];
	write_file(path, "# rank site cluster node\n0 0 0 0\n\n1 0 0 1 # second node\n2 1 0 0\n");
	int c[3];
	CHECK_INT_EQ(qcg_topo_file_lookup(path, 1, c, err, sizeof(err)), 1);
	CHECK(c[0] == 0 && c[1] == 0 && c[2] == 1);
	CHECK_INT_EQ(qcg_topo_file_lookup(path, 2, c, err, sizeof(err)), 1);
	CHECK_INT_EQ(c[0], 1);
	CHECK_INT_EQ(qcg_topo_file_lookup(path, 7, c, err, sizeof(err)), 0);
	unlink(path);
}

static void
file_lookup_refuses_bad_lines_and_duplicates_with_line_number(void)
{
	char path[64];
	int c[3];
	write_file(path, "0 0 0 0\n1 0 x 0\n");
	CHECK_INT_EQ(qcg_topo_file_lookup(path, 0, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 2") != NULL);
	unlink(path);
	write_file(path, "0 0 0 0\n0 1 0 0\n");
	CHECK_INT_EQ(qcg_topo_file_lookup(path, 0, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "twice") != NULL);
	unlink(path);
	CHECK_INT_EQ(qcg_topo_file_lookup("/nonexistent/qcg", 0, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/qcg") != NULL);
}

static void
local_colors_prefers_env_then_file_and_reports_missing_rank(void)
{
	char path[64];
	int c[3];
	write_file(path, "0 5 6 7\n");
	unsetenv(QCG_TOPO_ENV_COLORS);
	unsetenv(QCG_TOPO_ENV_MCA_FILE);
	setenv(QCG_TOPO_ENV_FILE, path, 1);
	CHECK_INT_EQ(qcg_topo_local_colors(0, NULL, c, err, sizeof(err)), QCG_TOPO_FROM_FILE);
	CHECK(c[0] == 5 && c[1] == 6 && c[2] == 7);
	CHECK_INT_EQ(qcg_topo_local_colors(3, NULL, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "no line for rank 3") != NULL);
	setenv(QCG_TOPO_ENV_COLORS, "1,2,3", 1);
	CHECK_INT_EQ(qcg_topo_local_colors(3, NULL, c, err, sizeof(err)), QCG_TOPO_FROM_ENV);
	CHECK(c[0] == 1 && c[1] == 2 && c[2] == 3);
	unsetenv(QCG_TOPO_ENV_COLORS);
	unsetenv(QCG_TOPO_ENV_FILE);
	CHECK_INT_EQ(qcg_topo_local_colors(0, "", c, err, sizeof(err)), QCG_TOPO_NONE);
	unlink(path);
}

/* A launcher that gave the job a topology marks every rank: one without colors is an error
 * that names the rank, not a case for discovery; with its colors it is as usual. */
static void
a_rank_without_the_topology_its_launcher_gave_is_an_error(void)
{
	int c[3];
	unsetenv(QCG_TOPO_ENV_COLORS);
	unsetenv(QCG_TOPO_ENV_MCA_FILE);
	unsetenv(QCG_TOPO_ENV_FILE);
	setenv(QCG_TOPO_ENV_REQUIRED, "1", 1);
	CHECK_INT_EQ(qcg_topo_local_colors(5, NULL, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "rank 5 has no topology") != NULL);
	CHECK(strstr(err, "QCG_TOPOLOGY_REQUIRED=1") != NULL);
	setenv(QCG_TOPO_ENV_COLORS, "2,0,1", 1);
	CHECK_INT_EQ(qcg_topo_local_colors(5, NULL, c, err, sizeof(err)), QCG_TOPO_FROM_ENV);
	CHECK(c[0] == 2 && c[1] == 0 && c[2] == 1);
	unsetenv(QCG_TOPO_ENV_COLORS);
	setenv(QCG_TOPO_ENV_REQUIRED, "", 1);
	CHECK_INT_EQ(qcg_topo_local_colors(5, NULL, c, err, sizeof(err)), QCG_TOPO_NONE);
	unsetenv(QCG_TOPO_ENV_REQUIRED);
}

/* 2 sites x 2 nodes x 2 ranks, contiguous, colors deliberately not 0-based. */
static void
layout_numbers_units_by_lowest_rank_and_links_children(void)
{
	int col[] = { 9, 4, 1,  9, 4, 1,  9, 4, 2,  9, 4, 2,
		      3, 4, 1,  3, 4, 1,  3, 4, 7,  3, 4, 7 };
	struct qcg_topo_layout L;
	CHECK_INT_EQ(qcg_topo_layout_build(&L, 8, col), 0);
	CHECK_INT_EQ(L.nunits[0], 2);
	CHECK_INT_EQ(L.nunits[1], 2); /* cluster 4 of site 9 is not cluster 4 of site 3 */
	CHECK_INT_EQ(L.nunits[2], 4);
	CHECK_INT_EQ(L.unit[0][5], 1);
	CHECK_INT_EQ(L.unit[2][6], 3);
	CHECK_INT_EQ(L.master[2][3], 6);
	CHECK_INT_EQ(L.pos[2][7], 1);
	CHECK_INT_EQ(L.pos[0][7], 3);
	CHECK_INT_EQ(qcg_topo_nchildren(&L, 0, 0), 2);
	CHECK_INT_EQ(qcg_topo_nchildren(&L, 2, 1), 2);
	CHECK_INT_EQ(L.child_list[2][L.child_start[2][1] + 1], 3);
	CHECK_INT_EQ(L.contiguous, 1);
	CHECK_INT_EQ(qcg_topo_holder(&L, 2, 1, 3), 3); /* the root holds its own node */
	CHECK_INT_EQ(qcg_topo_holder(&L, 2, 2, 3), 4); /* other nodes: their lowest rank */
	CHECK_INT_EQ(qcg_topo_holder(&L, 0, 1, -1), 4);
	qcg_topo_layout_free(&L);
}

/* 3 sites of uneven size, ranks interleaved round-robin: not contiguous, dfs regroups. */
static void
layout_detects_interleaved_ranks_and_orders_dfs_by_site(void)
{
	int col[] = { 0, 0, 0,  1, 0, 0,  2, 0, 0,  0, 0, 1,  1, 0, 0,  0, 1, 0,  2, 0, 0 };
	struct qcg_topo_layout L;
	CHECK_INT_EQ(qcg_topo_layout_build(&L, 7, col), 0);
	CHECK_INT_EQ(L.nunits[0], 3);
	CHECK_INT_EQ(L.nunits[1], 4);
	CHECK_INT_EQ(L.contiguous, 0);
	int want[] = { 0, 3, 5, 1, 4, 2, 6 };
	for (int i = 0; i < 7; i++)
		CHECK_INT_EQ(L.dfs[i], want[i]);
	CHECK_INT_EQ(L.dfs_start[0][1], 3);
	CHECK_INT_EQ(L.dfs_start[1][3], 2); /* the second cluster of site 0 holds only rank 5 */
	CHECK_INT_EQ(L.dfs_start[1][1], 3);
	CHECK_INT_EQ(L.usize[0][0], 3);
	qcg_topo_layout_free(&L);
}

static void
layout_of_one_member_has_one_unit_per_level(void)
{
	int col[] = { 4, 4, 4 };
	struct qcg_topo_layout L;
	CHECK_INT_EQ(qcg_topo_layout_build(&L, 1, col), 0);
	CHECK(L.nunits[0] == 1 && L.nunits[1] == 1 && L.nunits[2] == 1);
	qcg_topo_layout_free(&L);
	CHECK_INT_EQ(qcg_topo_layout_build(&L, 0, col), -1);
}

int
main(void)
{
	RUN(colors_parse_accepts_three_numbers_with_blanks);
	RUN(colors_parse_rejects_wrong_count_sign_size_and_text);
	RUN(file_lookup_finds_rank_and_skips_comments);
	RUN(file_lookup_refuses_bad_lines_and_duplicates_with_line_number);
	RUN(local_colors_prefers_env_then_file_and_reports_missing_rank);
	RUN(a_rank_without_the_topology_its_launcher_gave_is_an_error);
	RUN(layout_numbers_units_by_lowest_rank_and_links_children);
	RUN(layout_detects_interleaved_ranks_and_orders_dfs_by_site);
	RUN(layout_of_one_member_has_one_unit_per_level);
	return check_exit();
}
