/*
 * topo_check.c: libqcgtopo on a job whose topology comes from a file ($QCG_TOPOLOGY_FILE):
 * the depth and color attributes agree with the file (same unit <=> same colors, numbered by
 * lowest rank), MPI_Comm_dup carries them, QCGX_Comm_split_level gives each rank exactly the
 * ranks of its site / cluster / node, and a bad level is refused.
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

/* Whether ranks a and b share levels 0..l in the file. */
static int
same_unit(const int *raw, int a, int b, int l)
{
	for (int i = 0; i <= l; i++)
		if (raw[a * 3 + i] != raw[b * 3 + i])
			return 0;
	return 1;
}

static void
check_attributes(MPI_Comm comm, const int *raw, int n)
{
	int *depths, **colors, f1 = 0, f2 = 0;
	MPI_Comm_get_attr(comm, QCGX_TOPOLOGY_DEPTHS, &depths, &f1);
	MPI_Comm_get_attr(comm, QCGX_TOPOLOGY_COLORS, &colors, &f2);
	EXPECT(f1 && f2);
	if (!f1 || !f2)
		return;
	for (int a = 0; a < n; a++) {
		EXPECT(depths[a] == QCGX_NUM_LEVELS);
		for (int l = 0; l < QCGX_NUM_LEVELS; l++)
			for (int b = 0; b < n; b++)
				EXPECT((colors[a][l] == colors[b][l]) == same_unit(raw, a, b, l));
	}
	EXPECT(colors[0][0] == 0 && colors[0][1] == 0 && colors[0][2] == 0);
}

int
main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int me, n;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	const char *path = getenv(QCG_TOPO_ENV_FILE);
	int *raw = calloc((size_t)n * 3, sizeof(int));
	char err[256];
	for (int r = 0; r < n; r++)
		EXPECT(path != NULL && qcg_topo_file_lookup(path, r, &raw[r * 3], err, sizeof(err)) == 1);
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
			want += same_unit(raw, me, r, l);
		EXPECT(size == want);
		int *colors_of_part, **c, flag = 0;
		MPI_Comm_get_attr(part, QCGX_TOPOLOGY_COLORS, &c, &flag);
		colors_of_part = flag ? c[0] : NULL;
		EXPECT(colors_of_part != NULL && colors_of_part[l] == 0);
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
