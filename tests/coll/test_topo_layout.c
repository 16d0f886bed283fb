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
#include "qcg_topo_fold.h"
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

/* Any depth (MPICH-G2): 2 to 16 levels, as text and as file lines of differing depths. */
static void
path_parse_accepts_two_to_sixteen_levels(void)
{
	struct qcg_topo_path p;
	CHECK_INT_EQ(qcg_topo_parse_path("4,9", &p, err, sizeof(err)), 0);
	CHECK(p.depth == 2 && p.color[0] == 4 && p.color[1] == 9);
	CHECK_INT_EQ(qcg_topo_parse_path(" 1 , 2,3 ,4 ", &p, err, sizeof(err)), 0);
	CHECK(p.depth == 4 && p.color[0] == 1 && p.color[3] == 4);
	CHECK_INT_EQ(qcg_topo_parse_path("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", &p, err,
	    sizeof(err)), 0);
	CHECK(p.depth == 16 && p.color[15] == 15);
	char text[128];
	qcg_topo_path_text(&p, text, sizeof(text));
	CHECK_STR_EQ(text, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15");
}

static void
path_parse_rejects_one_level_seventeen_and_garbage(void)
{
	struct qcg_topo_path p;
	CHECK_INT_EQ(qcg_topo_parse_path("5", &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "1 level;") != NULL);
	CHECK_INT_EQ(qcg_topo_parse_path("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &p, err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "more than 16 levels") != NULL);
	CHECK_INT_EQ(qcg_topo_parse_path("1,,2", &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "level 1 must be an integer") != NULL);
	CHECK_INT_EQ(qcg_topo_parse_path("1,2 x", &p, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_topo_parse_path("1,2000000", &p, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_topo_parse_path("", &p, err, sizeof(err)), -1);
	/* the three-level reader still wants exactly three */
	int c[3];
	CHECK_INT_EQ(qcg_topo_parse_colors("1,2,3,4", c, err, sizeof(err)), -1);
	CHECK(strstr(err, "three numbers") != NULL);
}

static void
path_file_lines_may_differ_in_depth(void)
{
	char path[64];
	struct qcg_topo_path p;
	write_file(path, "# rank site ... node\n0 0 1\n1 0 1 2 3\n2 1 0 0 # three\n");
	CHECK_INT_EQ(qcg_topo_file_lookup_path(path, 0, &p, err, sizeof(err)), 1);
	CHECK(p.depth == 2 && p.color[1] == 1);
	CHECK_INT_EQ(qcg_topo_file_lookup_path(path, 1, &p, err, sizeof(err)), 1);
	CHECK(p.depth == 4 && p.color[3] == 3);
	CHECK_INT_EQ(qcg_topo_file_lookup_path(path, 2, &p, err, sizeof(err)), 1);
	CHECK_INT_EQ(p.depth, 3);
	int c[3]; /* a file with a line of depth 4 is not a three-level file */
	CHECK_INT_EQ(qcg_topo_file_lookup(path, 2, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 2") != NULL);
	unlink(path);
	write_file(path, "0 1 2\n1 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n");
	CHECK_INT_EQ(qcg_topo_file_lookup_path(path, 0, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 2") != NULL && strstr(err, "2 to 16 levels") != NULL);
	unlink(path);
	write_file(path, "0 1\n");
	CHECK_INT_EQ(qcg_topo_file_lookup_path(path, 0, &p, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 1") != NULL);
	unlink(path);
	write_file(path, "0 1 2,3\n");
	CHECK_INT_EQ(qcg_topo_file_lookup_path(path, 0, &p, err, sizeof(err)), -1);
	unlink(path);
}

static void
local_path_reads_any_depth_from_the_environment(void)
{
	struct qcg_topo_path p;
	int c[3];
	unsetenv(QCG_TOPO_ENV_MCA_FILE);
	unsetenv(QCG_TOPO_ENV_FILE);
	setenv(QCG_TOPO_ENV_COLORS, "3,1,4,1", 1);
	CHECK_INT_EQ(qcg_topo_local_path(0, NULL, &p, err, sizeof(err)), QCG_TOPO_FROM_ENV);
	CHECK(p.depth == 4 && p.color[2] == 4);
	CHECK_INT_EQ(qcg_topo_local_colors(0, NULL, c, err, sizeof(err)), -1);
	setenv(QCG_TOPO_ENV_COLORS, "3", 1);
	CHECK_INT_EQ(qcg_topo_local_path(0, NULL, &p, err, sizeof(err)), -1);
	unsetenv(QCG_TOPO_ENV_COLORS);
}

/* Site, cluster, rack, node; one member of depth 2 and one of depth 3 beside them. */
static void
fold_keeps_every_level_apart_and_numbers_by_lowest_member(void)
{
	struct qcg_topo_path p[8] = {
		{ 4, { 7, 1, 0, 0 } }, { 4, { 7, 1, 0, 0 } }, { 4, { 7, 1, 1, 0 } },
		{ 4, { 7, 2, 0, 0 } }, { 4, { 9, 1, 0, 0 } }, { 4, { 9, 1, 0, 1 } },
		{ 2, { 9, 5 } }, { 3, { 9, 5, 0 } },
	};
	int got[8 * 3];
	int site[8] = { 0, 0, 0, 0, 4, 4, 4, 4 }, cluster[8] = { 0, 0, 2, 3, 4, 4, 6, 7 };
	int node[8] = { 0, 0, 2, 3, 4, 5, 6, 7 };
	CHECK_INT_EQ(qcg_topo_fold(p, 8, got), 0);
	for (int r = 0; r < 8; r++) {
		CHECK_INT_EQ(got[r * 3 + 0], site[r]);
		CHECK_INT_EQ(got[r * 3 + 1], cluster[r]);
		CHECK_INT_EQ(got[r * 3 + 2], node[r]);
	}
	CHECK_INT_EQ(qcg_topo_max_depth(p, 8), 4);
}

/* Depth 3 folds to the same units as the colors themselves. */
static void
fold_of_three_levels_keeps_the_units(void)
{
	int raw[6][3] = { { 5, 0, 0 }, { 5, 0, 1 }, { 5, 1, 0 }, { 6, 0, 0 }, { 6, 0, 0 }, { 5, 0, 1 } };
	struct qcg_topo_path p[6];
	int got[6 * 3];
	for (int r = 0; r < 6; r++) {
		p[r].depth = 3;
		for (int l = 0; l < 3; l++)
			p[r].color[l] = raw[r][l];
	}
	CHECK_INT_EQ(qcg_topo_fold(p, 6, got), 0);
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 6; b++)
			for (int l = 0; l < 3; l++) {
				int same_raw = 1;
				for (int k = 0; k <= l; k++)
					same_raw &= raw[a][k] == raw[b][k];
				CHECK_INT_EQ(got[a * 3 + l] == got[b * 3 + l], same_raw);
			}
}

/* Units of one level among mixed depths: numbered by lowest member; too shallow gives -1. */
static void
prefix_units_number_each_level_and_skip_shallow_members(void)
{
	struct qcg_topo_path p[5] = {
		{ 4, { 3, 1, 0, 0 } }, { 2, { 3, 9 } }, { 3, { 3, 1, 5 } }, { 4, { 3, 2, 0, 0 } },
		{ 3, { 1, 1, 0 } },
	};
	int u[5];
	int want0[5] = { 0, 0, 0, 0, 1 }, want1[5] = { 0, 1, 0, 2, 3 }, want3[5] = { 0, -1, -1, 1, -1 };
	CHECK_INT_EQ(qcg_topo_prefix_units(p, 5, 0, u), 2);
	for (int r = 0; r < 5; r++)
		CHECK_INT_EQ(u[r], want0[r]);
	CHECK_INT_EQ(qcg_topo_prefix_units(p, 5, 1, u), 4);
	for (int r = 0; r < 5; r++)
		CHECK_INT_EQ(u[r], want1[r]);
	CHECK_INT_EQ(qcg_topo_prefix_units(p, 5, 3, u), 2);
	for (int r = 0; r < 5; r++)
		CHECK_INT_EQ(u[r], want3[r]);
	CHECK_INT_EQ(qcg_topo_prefix_units(p, 5, 4, u), 0);
	CHECK_INT_EQ(qcg_topo_prefix_units(p, 5, QCG_TOPO_DEPTH_MAX, u), -1);
}

static void
fold_refuses_no_members_and_bad_depths(void)
{
	struct qcg_topo_path p[1] = { { 1, { 0 } } };
	int got[3];
	CHECK_INT_EQ(qcg_topo_fold(p, 0, got), -1);
	CHECK_INT_EQ(qcg_topo_fold(p, 1, got), -1);
	p[0].depth = QCG_TOPO_DEPTH_MAX + 1;
	CHECK_INT_EQ(qcg_topo_fold(p, 1, got), -1);
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
	RUN(path_parse_accepts_two_to_sixteen_levels);
	RUN(path_parse_rejects_one_level_seventeen_and_garbage);
	RUN(path_file_lines_may_differ_in_depth);
	RUN(local_path_reads_any_depth_from_the_environment);
	RUN(fold_keeps_every_level_apart_and_numbers_by_lowest_member);
	RUN(fold_of_three_levels_keeps_the_units);
	RUN(fold_refuses_no_members_and_bad_depths);
	RUN(prefix_units_number_each_level_and_skip_shallow_members);
	RUN(layout_numbers_units_by_lowest_rank_and_links_children);
	RUN(layout_detects_interleaved_ranks_and_orders_dfs_by_site);
	RUN(layout_of_one_member_has_one_unit_per_level);
	return check_exit();
}
