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
#include "qcg_topo_layout.h"
#include "qcg_topo_source.h"

int QCGX_TOPOLOGY_DEPTHS = MPI_KEYVAL_INVALID;
int QCGX_TOPOLOGY_COLORS = MPI_KEYVAL_INVALID;

static int topo_origin = -1;                  /* QCGX_ORIGIN_*, -1 before init */
static int topo_colors[QCG_TOPO_LEVELS];      /* ours, as configured */

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

/* Our status and colors, then (when any rank has no configured colors) hostnames. */
static int
gather_colors(MPI_Comm comm, int n, int *colors)
{
	int mine[1 + QCG_TOPO_LEVELS] = { topo_origin, topo_colors[0], topo_colors[1],
		topo_colors[2] };
	int *all = malloc((size_t)n * sizeof(mine));
	char *names = NULL;
	int rc = all == NULL ? MPI_ERR_NO_MEM : MPI_Allgather(mine, 1 + QCG_TOPO_LEVELS, MPI_INT,
	    all, 1 + QCG_TOPO_LEVELS, MPI_INT, comm);
	int any_hostname = 0;
	for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
		any_hostname |= all[r * 4] == QCGX_ORIGIN_HOSTNAME;
		memcpy(&colors[r * QCG_TOPO_LEVELS], &all[r * 4 + 1], QCG_TOPO_LEVELS * sizeof(int));
	}
	if (rc == MPI_SUCCESS && any_hostname) {
		/* One site, one cluster; a node color per distinct host name. */
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
			colors[r * 3] = colors[r * 3 + 1] = 0;
			colors[r * 3 + 2] = first;
		}
	}
	free(all);
	free(names);
	return rc;
}

/* Attach DEPTHS and COLORS built from the layout's unit numbers. */
static int
attach(MPI_Comm comm, const struct qcg_topo_layout *lay)
{
	int n = lay->n;
	int *depths = blob_new((size_t)n * sizeof(int));
	int **rows = blob_new((size_t)n * (sizeof(int *) + QCG_TOPO_LEVELS * sizeof(int)));
	if (depths == NULL || rows == NULL) {
		if (depths != NULL)
			free(blob_of(depths));
		if (rows != NULL)
			free(blob_of(rows));
		return MPI_ERR_NO_MEM;
	}
	int *cells = (int *)(rows + n);
	for (int r = 0; r < n; r++) {
		depths[r] = QCGX_NUM_LEVELS;
		rows[r] = &cells[r * QCG_TOPO_LEVELS];
		for (int l = 0; l < QCG_TOPO_LEVELS; l++)
			rows[r][l] = lay->unit[l][r];
	}
	int rc = MPI_Comm_set_attr(comm, QCGX_TOPOLOGY_DEPTHS, depths);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_set_attr(comm, QCGX_TOPOLOGY_COLORS, rows);
	else
		free(blob_of(rows));
	return rc;
}

int
QCGX_Comm_attach_topology(MPI_Comm comm)
{
	if (topo_origin < 0) {
		fprintf(stderr, "qcgtopo: QCGX_Topology_init must be called first\n");
		return MPI_ERR_OTHER;
	}
	int n, rc = MPI_Comm_size(comm, &n);
	if (rc != MPI_SUCCESS)
		return rc;
	int *colors = malloc((size_t)n * QCG_TOPO_LEVELS * sizeof(int));
	if (colors == NULL)
		return MPI_ERR_NO_MEM;
	rc = gather_colors(comm, n, colors);
	struct qcg_topo_layout lay;
	if (rc == MPI_SUCCESS && qcg_topo_layout_build(&lay, n, colors) < 0)
		rc = MPI_ERR_NO_MEM;
	free(colors);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = attach(comm, &lay);
	qcg_topo_layout_free(&lay);
	return rc;
}

int
QCGX_Topology_init(void)
{
	if (topo_origin >= 0)
		return MPI_SUCCESS;
	int rank, rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	char err[256];
	int origin = qcg_topo_local_colors(rank, NULL, topo_colors, err, sizeof(err));
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
	int **rows, flag = 0, rank, rc = MPI_Comm_rank(comm, &rank);
	if (rc == MPI_SUCCESS)
		rc = MPI_Comm_get_attr(comm, QCGX_TOPOLOGY_COLORS, &rows, &flag);
	if (rc == MPI_SUCCESS && !flag) { /* flag is the same on every rank: all attach */
		rc = QCGX_Comm_attach_topology(comm);
		if (rc == MPI_SUCCESS)
			rc = MPI_Comm_get_attr(comm, QCGX_TOPOLOGY_COLORS, &rows, &flag);
	}
	if (rc != MPI_SUCCESS)
		return rc;
	rc = MPI_Comm_split(comm, rows[rank][level], rank, newcomm);
	if (rc == MPI_SUCCESS)
		rc = QCGX_Comm_attach_topology(*newcomm);
	return rc;
}
