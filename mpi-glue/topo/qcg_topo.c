/*
 * qcg_topo.c: libqcgtopo: the topology as communicator attributes, and splitting by level.
 *
 * Attribute values are reference-counted blocks, so MPI_Comm_dup shares them (copy callback
 * takes a reference) and the last MPI_Comm_free releases them.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qcg_topo.h"
#include "qcg_topo_fold.h"
#include "qcg_topo_source.h"

int QCGX_TOPOLOGY_DEPTHS = MPI_KEYVAL_INVALID;
int QCGX_TOPOLOGY_COLORS = MPI_KEYVAL_INVALID;

static int topo_origin = -1;                  /* QCGX_ORIGIN_*, -1 before init */
static struct qcg_topo_path topo_path;       /* ours, as configured (any depth) */

/* A reference-counted attribute value: the header sits just before the data handed to MPI. */
struct blob {
	int refs;
	max_align_t data[];
};

static void *
blob_new(size_t size)
{
	struct blob *b = calloc(1, sizeof(*b) + size);
	if (b == NULL)
		return NULL;
	b->refs = 1;
	return b->data;
}

static struct blob *
blob_of(void *data)
{
	return (struct blob *)((char *)data - offsetof(struct blob, data));
}

static int
blob_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
	blob_of(in)->refs++;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

static int
blob_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
	struct blob *b = blob_of(value);
	if (--b->refs == 0)
		free(b);
	return MPI_SUCCESS;
}

/* What each rank sends: its origin, then its path (depth and colors). */
#define WIRE_INTS (2 + QCG_TOPO_DEPTH_MAX)

/* Every member's path; when any rank has no configured colors, every member is one site and
 * one cluster, with a node per distinct host name (lowest rank on that host). */
static int
gather_paths(MPI_Comm comm, int n, struct qcg_topo_path *paths)
{
	int mine[WIRE_INTS] = { topo_origin, topo_path.depth };
	memcpy(&mine[2], topo_path.color, sizeof(topo_path.color));
	int *all = malloc((size_t)n * sizeof(mine));
	char *names = NULL;
	int rc = all == NULL ? MPI_ERR_NO_MEM :
	    MPI_Allgather(mine, WIRE_INTS, MPI_INT, all, WIRE_INTS, MPI_INT, comm);
	int any_hostname = 0;
	for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
		any_hostname |= all[r * WIRE_INTS] == QCGX_ORIGIN_HOSTNAME;
		paths[r].depth = all[r * WIRE_INTS + 1];
		memcpy(paths[r].color, &all[r * WIRE_INTS + 2], sizeof(paths[r].color));
	}
	if (rc == MPI_SUCCESS && any_hostname) {
		names = calloc((size_t)n, MPI_MAX_PROCESSOR_NAME);
		char me[MPI_MAX_PROCESSOR_NAME] = "";
		int len;
		rc = names == NULL ? MPI_ERR_NO_MEM : MPI_Get_processor_name(me, &len);
		if (rc == MPI_SUCCESS)
			rc = MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
			    MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
		for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
			int first = 0; /* the lowest rank on the same host; stops at r itself */
			while (strncmp(names + (size_t)first * MPI_MAX_PROCESSOR_NAME,
			    names + (size_t)r * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME) != 0)
				first++;
			paths[r] = (struct qcg_topo_path){ 3, { 0, 0, first } };
		}
	}
	free(all);
	free(names);
	return rc;
}

/* Attach DEPTHS (each member's own depth) and COLORS (a row of that many colors, each level's
 * units numbered 0.. in the order of their lowest rank). */
static int
attach(MPI_Comm comm, const struct qcg_topo_path *paths, int n)
{
	size_t cells_total = 0;
	for (int r = 0; r < n; r++)
		cells_total += (size_t)paths[r].depth;
	int *depths = blob_new((size_t)n * sizeof(int));
	int **rows = blob_new((size_t)n * sizeof(int *) + cells_total * sizeof(int));
	int *unit = malloc((size_t)n * sizeof(int));
	int rc = depths == NULL || rows == NULL || unit == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
	int *cells = rc == MPI_SUCCESS ? (int *)(rows + n) : NULL;
	for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
		depths[r] = paths[r].depth;
		rows[r] = cells;
		cells += paths[r].depth;
	}
	int max_depth = qcg_topo_max_depth(paths, n);
	for (int l = 0; l < max_depth && rc == MPI_SUCCESS; l++) {
		if (qcg_topo_prefix_units(paths, n, l, unit) < 0)
			rc = MPI_ERR_OTHER;
		for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
			if (l < paths[r].depth)
				rows[r][l] = unit[r];
	}
	free(unit);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_set_attr(comm, QCGX_TOPOLOGY_DEPTHS, depths);
	else if (depths != NULL)
		free(blob_of(depths));
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_set_attr(comm, QCGX_TOPOLOGY_COLORS, rows);
	else if (rows != NULL)
		free(blob_of(rows));
	return rc;
}

/* Every member's path, gathered over comm (collective). */
static int
comm_paths(MPI_Comm comm, int *n, struct qcg_topo_path **paths)
{
	if (topo_origin < 0) {
		fprintf(stderr, "qcgtopo: QCGX_Topology_init must be called first\n");
		return MPI_ERR_OTHER;
	}
	int rc = MPI_Comm_size(comm, n);
	if (rc != MPI_SUCCESS)
		return rc;
	*paths = malloc((size_t)*n * sizeof(**paths));
	if (*paths == NULL)
		return MPI_ERR_NO_MEM;
	rc = gather_paths(comm, *n, *paths);
	if (rc != MPI_SUCCESS) {
		free(*paths);
		*paths = NULL;
	}
	return rc;
}

int
QCGX_Comm_attach_topology(MPI_Comm comm)
{
	int n;
	struct qcg_topo_path *paths;
	int rc = comm_paths(comm, &n, &paths);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = attach(comm, paths, n);
	free(paths);
	return rc;
}

int
QCGX_Topology_init(void)
{
	if (topo_origin >= 0)
		return MPI_SUCCESS;
	int rank, rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char err[256];
	int origin = qcg_topo_local_path(rank, NULL, &topo_path, err, sizeof(err));
	int ok = origin >= 0, all_ok = 0;
	if (!ok)
		fprintf(stderr, "qcgtopo: rank %d: %s\n", rank, err);
	/* Agree on success first, so that no rank waits in an allgather the others skipped. */
	if (rc == MPI_SUCCESS)
		rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS || !all_ok)
		return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
	topo_origin = origin == QCG_TOPO_FROM_ENV ? QCGX_ORIGIN_ENV :
	    origin == QCG_TOPO_FROM_FILE ? QCGX_ORIGIN_FILE : QCGX_ORIGIN_HOSTNAME;
	rc = MPI_Comm_create_keyval(blob_copy, blob_delete, &QCGX_TOPOLOGY_DEPTHS, NULL);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_create_keyval(blob_copy, blob_delete, &QCGX_TOPOLOGY_COLORS, NULL);
	if (rc == MPI_SUCCESS)
		rc = QCGX_Comm_attach_topology(MPI_COMM_WORLD);
	return rc;
}

int
QCGX_Topology_origin(void)
{
	return topo_origin;
}

int
QCGX_Comm_split_level(MPI_Comm comm, int level, MPI_Comm *newcomm)
{
	if (level < 0 || level >= QCGX_NUM_LEVELS) {
		fprintf(stderr, "qcgtopo: QCGX_Comm_split_level: level %d is not 0..%d\n", level,
		    QCGX_NUM_LEVELS - 1);
		return MPI_ERR_ARG;
	}
	/* Split on the three folded levels (mpi-glue/topo/README.md, "Any depth"): the same
	 * numbering for every member whatever its depth. */
	int n, rank, rc = MPI_Comm_rank(comm, &rank);
	struct qcg_topo_path *paths = NULL;
	if (rc == MPI_SUCCESS)
		rc = comm_paths(comm, &n, &paths);
	if (rc != MPI_SUCCESS)
		return rc;
	int *folded = malloc((size_t)n * QCG_TOPO_LEVELS * sizeof(int));
	if (folded == NULL || qcg_topo_fold(paths, n, folded) < 0)
		rc = folded == NULL ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_split(comm, folded[rank * QCG_TOPO_LEVELS + level], rank, newcomm);
	free(folded);
	free(paths);
	if (rc == MPI_SUCCESS)
		rc = QCGX_Comm_attach_topology(*newcomm);
	return rc;
}
