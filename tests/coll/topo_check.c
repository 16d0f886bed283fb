/*
 * topo_check.c: libqcgtopo on a job whose topology comes from a file ($QCG_TOPOLOGY_FILE), of
 * any depth: the depth and color attributes agree with the file (each rank's own depth; same
 * unit <=> same colors, numbered by lowest rank), MPI_Comm_dup carries them,
 * QCGX_Comm_split_level gives each rank exactly the ranks of its site / cluster / node (the
 * folded levels: cluster = the path without its node color), and a bad level is refused.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcg_topo.h"
#include "qcg_topo_source.h"

static int failures;

#define EXPECT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "topo_check: %s:%d: FAIL: %s\n", __FILE__, __LINE__,       \
			    #cond);                                                                \
		}                                                                                  \
	} while (0)

/* Whether ranks a and b share their first n colors (both have at least n). */
static int
same_prefix(const struct qcg_topo_path *raw, int a, int b, int n)
{
	if (raw[a].depth < n || raw[b].depth < n)
		return 0;
	for (int i = 0; i < n; i++)
		if (raw[a].color[i] != raw[b].color[i])
			return 0;
	return 1;
}

/* Whether ranks a and b share levels 0..l in the file. */
static int
same_unit(const struct qcg_topo_path *raw, int a, int b, int l)
{
	return same_prefix(raw, a, b, l + 1);
}

/* Whether a and b share folded level l: the site, the path but its node color, the path. */
static int
same_folded(const struct qcg_topo_path *raw, int a, int b, int l)
{
	int na = l == 0 ? 1 : l == 1 ? raw[a].depth - 1 : raw[a].depth;
	int nb = l == 0 ? 1 : l == 1 ? raw[b].depth - 1 : raw[b].depth;
	return na == nb && same_prefix(raw, a, b, na);
}

static void
check_attributes(MPI_Comm comm, const struct qcg_topo_path *raw, int n)
{
	int *depths, **colors, f1 = 0, f2 = 0;
	MPI_Comm_get_attr(comm, QCGX_TOPOLOGY_DEPTHS, &depths, &f1);
	MPI_Comm_get_attr(comm, QCGX_TOPOLOGY_COLORS, &colors, &f2);
	EXPECT(f1 && f2);
	if (!f1 || !f2)
		return;
	for (int a = 0; a < n; a++) {
		EXPECT(depths[a] == raw[a].depth);
		for (int l = 0; l < depths[a]; l++)
			for (int b = 0; b < n; b++)
				if (l < depths[b])
					EXPECT((colors[a][l] == colors[b][l]) == same_unit(raw, a, b, l));
	}
	for (int l = 0; l < depths[0]; l++)
		EXPECT(colors[0][l] == 0);
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	const char *path = getenv(QCG_TOPO_ENV_FILE);
	struct qcg_topo_path *raw = calloc((size_t)n, sizeof(*raw));
	char err[256];
	for (int r = 0; r < n; r++)
		EXPECT(path != NULL && qcg_topo_file_lookup_path(path, r, &raw[r], err, sizeof(err)) == 1);
	EXPECT(QCGX_Topology_origin() == -1);
	EXPECT(QCGX_Topology_init() == MPI_SUCCESS);
	EXPECT(QCGX_Topology_origin() == QCGX_ORIGIN_FILE);
	check_attributes(MPI_COMM_WORLD, raw, n);
	MPI_Comm dup;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	check_attributes(dup, raw, n);
	for (int l = 0; l < QCGX_NUM_LEVELS; l++) {
		MPI_Comm part;
		EXPECT(QCGX_Comm_split_level(dup, l, &part) == MPI_SUCCESS);
		int size, want = 0;
		MPI_Comm_size(part, &size);
		for (int r = 0; r < n; r++)
			want += same_folded(raw, me, r, l);
		EXPECT(size == want);
		int **c, *d, flag = 0, dflag = 0;
		MPI_Comm_get_attr(part, QCGX_TOPOLOGY_COLORS, &c, &flag);
		MPI_Comm_get_attr(part, QCGX_TOPOLOGY_DEPTHS, &d, &dflag);
		EXPECT(flag && dflag);
		if (flag && dflag) /* the part's rank 0 is in unit 0 of every level it has */
			for (int k = 0; k < d[0]; k++)
				EXPECT(c[0][k] == 0);
		MPI_Comm_free(&part);
	}
	MPI_Comm bad = MPI_COMM_NULL;
	MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
	EXPECT(QCGX_Comm_split_level(dup, 3, &bad) == MPI_ERR_ARG);
	MPI_Comm_free(&dup);
	int total;
	MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (me == 0)
		printf("topo_check: %d ranks, %d failures\n", n, total);
	free(raw);
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
