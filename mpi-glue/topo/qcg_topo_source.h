/*
 * qcg_topo_source.h: where a process learns its own place in the grid topology.
 *
 * Shared by the coll component (mpi-glue/coll) and the application library (libqcgtopo), so
 * that both read exactly the same sources in the same order. Pure C: no MPI, no Open MPI
 * internals, so it is unit-tested on its own. The formats are documented in README.md here.
 */
#ifndef QCG_TOPO_SOURCE_H
#define QCG_TOPO_SOURCE_H

#include <stddef.h>

#define QCG_TOPO_LEVELS 3          /* the collectives' levels: 0 site, 1 cluster, 2 node */
#define QCG_TOPO_DEPTH_MIN 2       /* a description gives at least a site and a node ... */
#define QCG_TOPO_DEPTH_MAX 16      /* ... and at most this many levels (MPICH-G2's depth) */
#define QCG_TOPO_COLOR_MAX 1000000 /* colors are 0..this; larger is a typo, not a grid */
#define QCG_TOPO_FILE_MAX (16 * 1024 * 1024) /* a topology file larger than this is refused */
#define QCG_TOPO_RANK_MAX (1 << 22)          /* highest world rank a file may describe */

/* Environment and MCA names, in the order they are consulted. */
#define QCG_TOPO_ENV_COLORS "QCG_TOPOLOGY_COLORS"          /* per rank, set by the launcher */
#define QCG_TOPO_ENV_MCA_FILE "OMPI_MCA_coll_qcg_topology_file" /* mpirun --mca coll_qcg_... */
#define QCG_TOPO_ENV_FILE "QCG_TOPOLOGY_FILE"              /* whole job, one line per rank */
/* Set (non-empty) by a launcher that gave the job a topology (qcg-submit: every rank): a rank
 * that then finds no source has lost its colors on the way, which is an error, not a case
 * for discovery or for stepping aside unnoticed. */
#define QCG_TOPO_ENV_REQUIRED "QCG_TOPOLOGY_REQUIRED"

/* Which source gave the colors. */
enum qcg_topo_origin {
	QCG_TOPO_NONE = 0, /* nothing configured: discovery (or stepping aside) is up to the caller */
	QCG_TOPO_FROM_ENV,  /* QCG_TOPOLOGY_COLORS */
	QCG_TOPO_FROM_FILE, /* a topology file (MCA parameter or QCG_TOPOLOGY_FILE) */
	QCG_TOPO_DISCOVERED, /* measured at startup by the coll component (never by this file) */
};

/*
 * A process's place as the description gives it, MPICH-G2's depth and colors: color[0] is the
 * slowest level (the site), color[depth - 1] the node; any levels between, slowest first.
 * Processes of one job may have different depths.
 */
struct qcg_topo_path {
	int depth;
	int color[QCG_TOPO_DEPTH_MAX];
};

/*
 * Parse "c0,c1,...,cN" (QCG_TOPO_DEPTH_MIN..QCG_TOPO_DEPTH_MAX non-negative integers, at most
 * QCG_TOPO_COLOR_MAX each, commas, optional blanks). Returns 0, or -1 with a message in err
 * naming the text and the reason.
 */
int qcg_topo_parse_path(const char *text, struct qcg_topo_path *p, char *err, size_t errlen);

/* Write p as "c0,c1,...,cN" into buf (len >= 16 * QCG_TOPO_DEPTH_MAX is always enough). */
void qcg_topo_path_text(const struct qcg_topo_path *p, char *buf, size_t len);

/*
 * Like qcg_topo_file_lookup, for lines "rank c0 c1 ... cN" of any depth from
 * QCG_TOPO_DEPTH_MIN to QCG_TOPO_DEPTH_MAX (each line its own).
 */
int qcg_topo_file_lookup_path(const char *path, int rank, struct qcg_topo_path *p, char *err,
    size_t errlen);

/* Like qcg_topo_local_colors, for paths of any depth (the environment's "c0,...,cN" too). */
int qcg_topo_local_path(int world_rank, const char *file_param, struct qcg_topo_path *p,
    char *err, size_t errlen);

/*
 * Parse "site,cluster,node" (three non-negative integers, at most QCG_TOPO_COLOR_MAX each,
 * separated by commas, optional surrounding blanks) into colors[]. Returns 0, or -1 with a
 * message in err that names the text and the reason.
 */
int qcg_topo_parse_colors(const char *text, int colors[QCG_TOPO_LEVELS], char *err, size_t errlen);

/*
 * Read a topology file: lines "rank site cluster node", '#' starts a comment, blank lines are
 * ignored. Every line is validated (a broken file is refused even if our own line is fine, so
 * that all ranks agree). Finds the line of world rank `rank`. Returns 1 found, 0 the file has no
 * line for this rank, -1 error (message in err, with the file name and line number).
 */
int qcg_topo_file_lookup(const char *path, int rank, int colors[QCG_TOPO_LEVELS], char *err,
    size_t errlen);

/*
 * This process's colors from, in order: $QCG_TOPOLOGY_COLORS, the file named by `file_param`
 * (the coll_qcg_topology_file MCA parameter; NULL or "" to use $OMPI_MCA_coll_qcg_topology_file),
 * then $QCG_TOPOLOGY_FILE. `world_rank` selects the file line. Returns the origin (NONE when
 * nothing is configured) or -1 with a message in err when a configured source is broken, or
 * when none is configured although $QCG_TOPOLOGY_REQUIRED says the launcher gave one.
 */
int qcg_topo_local_colors(int world_rank, const char *file_param, int colors[QCG_TOPO_LEVELS],
    char *err, size_t errlen);

#endif
