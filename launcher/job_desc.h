/*
 * job_desc.h: a job description in its one internal form, whatever file format it came in
 * (native XML job_xml.c, QCG-Simple job_simple.c, JSDL with the SPMD extension job_jsdl.c),
 * and the checks every description passes (job_validate.c) before anything is reserved.
 *
 * Every value remembers the line it came from, so that an error names file and line whatever
 * the format. Sizes are bounded; the setters refuse what does not fit.
 */
#ifndef QCG_JOB_DESC_H
#define QCG_JOB_DESC_H

#include <stddef.h>

#include "model.h"

#define JOB_FILE_MAX (1024 * 1024)  /* bytes of a description file */
#define JOB_STRING_MAX 1024         /* bytes of one path, argument or environment entry */
#define JOB_ARGS_MAX 128
#define JOB_ENV_MAX 128
#define JOB_CLUSTERS_MAX 32
#define JOB_NODES_MAX 64            /* named nodes per cluster */
#define JOB_STAGE_MAX 32            /* stage-in and stage-out files, each */
#define JOB_PROCESSES_MAX 65536     /* processes in one cluster, and in all */
#define JOB_WALLTIME_MAX (366L * 86400) /* seconds */
#define JOB_RESERVE_TIMEOUT_MAX 3600L /* seconds a job may wait for busy nodes */
#define JOB_ERR_MAX 512             /* bytes of an error message */

enum job_format { JOB_FORMAT_XML, JOB_FORMAT_SIMPLE, JOB_FORMAT_JSDL };

/* How each rank is bound to the processors of its node (mpirun's --bind-to). None by default:
 * a front-end grants slots, not named cores, and other jobs may share the node, so only the
 * user can know that binding pays (job_files.h says how ranks are placed). */
enum job_binding {
	JOB_BIND_NONE,                  /* any processor the node lets the rank use */
	JOB_BIND_CORE,                  /* one core each, distinct cores while the node has them */
	JOB_BIND_SOCKET,                /* the socket (package) its core is on */
};
#define JOB_BINDING_CHOICES "none|core|socket"

struct job_string {
	char text[JOB_STRING_MAX];
	int line;                       /* where it came from (0: nowhere, a default) */
};

struct job_cluster {
	char name[QCG_NAME_MAX];        /* the cluster, as its front-end registered it */
	char site[QCG_NAME_MAX];        /* topology level 0; the cluster's own name if not given */
	int processes;                  /* ranks on this cluster (> 0) */
	int per_node;                   /* processes per node, 0: as the front-end fills nodes */
	char node[JOB_NODES_MAX][QCG_NAME_MAX]; /* nodes asked for, in order (none: any) */
	int node_count;
	int line;
	struct job_string executable;   /* the program's installed path on this cluster's nodes
	                                 * (line 0: the job's <executable>); mpirun inside the
	                                 * job only (launcher/submit_remote.h) */
};

struct job_stage {
	struct job_string from, to;     /* stage-in: local -> node; stage-out: node -> local */
};

struct job_desc {
	char origin[256];               /* the file name errors start with */
	enum job_format format;
	struct job_string name, executable, workdir, in, out, err;
	struct job_string arg[JOB_ARGS_MAX];
	int argc;
	struct job_string env[JOB_ENV_MAX]; /* NAME=value */
	int envc;
	struct job_cluster cluster[JOB_CLUSTERS_MAX]; /* in rank order */
	int cluster_count;
	long walltime;                  /* seconds, 0: none given */
	int walltime_line;
	enum job_binding binding;
	int binding_line;               /* 0: not given, JOB_BIND_NONE */
	long reserve_timeout;           /* seconds to wait for busy nodes (and for the commit);
	                                 * 0: not given (qcg-submit's option or its default) */
	int reserve_timeout_line;
	struct job_stage stage_in[JOB_STAGE_MAX], stage_out[JOB_STAGE_MAX];
	int stage_in_count, stage_out_count;
	int executable_staged_line;     /* 0: the executable is installed on every node at its
	                                 * path; else the line that asked to stage it from the
	                                 * submitting host (job_stage_executable) */
	int keep_directory_line;        /* 0: the job's directory on each node is removed at the
	                                 * end (mpirun inside the job); else the line that asked
	                                 * to keep it */
};

/* A zeroed description (calloc; free with free()). NULL when out of memory. */
struct job_desc *job_desc_new(const char *origin, enum job_format format);

/* Setters: 0, or -1 with err "origin:line: why" (too long, too many). */
int job_set_string(struct job_desc *d, struct job_string *s, const char *what,
    const char *value, int line, char *err, size_t errlen);
int job_add_arg(struct job_desc *d, const char *value, int line, char *err, size_t errlen);
int job_add_env(struct job_desc *d, const char *name_value, int line, char *err, size_t errlen);
int job_add_stage(struct job_desc *d, int out, const char *from, const char *to, int line,
    char *err, size_t errlen);
/* A new cluster at the end (rank order); NULL with err when there are too many or the name
 * does not fit. */
struct job_cluster *job_add_cluster(struct job_desc *d, const char *name, const char *site,
    int line, char *err, size_t errlen);
int job_cluster_add_node(struct job_desc *d, struct job_cluster *c, const char *node,
    int line, char *err, size_t errlen);

/* Whether the executable is staged from here: value yes|no|true|false|1|0 (what: the
 * format's own name for the setting). 0, or -1 with err "origin:line: ...". */
int job_set_executable_staged(struct job_desc *d, const char *what, const char *value, int line,
    char *err, size_t errlen);
/* Whether any cluster names its own installed path of the executable. */
int job_has_cluster_executables(const struct job_desc *d);
/* Whether the job's directory on each node is kept after the job (what: the format's name
 * for it; value as for job_set_executable_staged). 0, or -1 with err "origin:line: ...". */
int job_set_keep_directory(struct job_desc *d, const char *what, const char *value, int line,
    char *err, size_t errlen);
/* A staged executable becomes a stage-in of the local file to its base name in the working
 * directory, and the program run is "./NAME". Nothing when not staged. 0, or -1 with err. */
int job_stage_executable(struct job_desc *d, char *err, size_t errlen);

/* Parse a positive decimal integer that fits in an int up to max; -1 otherwise. */
int job_parse_count(const char *s, int max, int *out);
/* Set the binding from its name (one of JOB_BINDING_CHOICES); 0, or -1 with err
 * "origin:line: <what> must be one of none|core|socket, got 'x'" (what: the format's own name
 * for it, "<binding>" or "binding") or "... given twice". */
int job_set_binding(struct job_desc *d, const char *what, const char *value, int line,
    char *err, size_t errlen);
/* Set how long the job waits for busy nodes (seconds, 1 to JOB_RESERVE_TIMEOUT_MAX); 0, or -1
 * with err "origin:line: <what> must be ..., got 'x'" (text: what the file said) or "... given
 * twice". */
int job_set_reserve_timeout(struct job_desc *d, const char *what, long seconds,
    const char *text, int line, char *err, size_t errlen);
/* mpirun's --bind-to word for a binding. */
const char *job_binding_name(enum job_binding b);
/* An ISO 8601 duration, PnDTnHnMnS (weeks PnW too), into seconds; -1 when malformed. */
int job_parse_duration(const char *s, long *seconds);

/* Printf into err with the origin and line: "origin:line: ...". */
void job_error(const struct job_desc *d, int line, char *err, size_t errlen, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));

/* Parsers, one per format: parse text (len bytes) into a new description, or NULL with err.
 * They check syntax and what their format promises; job_validate checks the meaning. */
struct job_desc *job_parse_xml(const char *text, size_t len, const char *origin, char *err,
    size_t errlen);
struct job_desc *job_parse_simple(const char *text, size_t len, const char *origin, char *err,
    size_t errlen);
struct job_desc *job_parse_jsdl(const char *text, size_t len, const char *origin, char *err,
    size_t errlen);

/* The checks every description must pass before anything is reserved; 0 or -1 with err. */
int job_validate(const struct job_desc *d, char *err, size_t errlen);

/* Read path (at most JOB_FILE_MAX bytes), recognise its format (an XML root element jsdl:JobDefinition
 * is JSDL, any other XML is native, else QCG-Simple), parse and validate it. NULL with err. */
struct job_desc *job_load(const char *path, char *err, size_t errlen);

/* Total processes over all clusters. */
int job_total_processes(const struct job_desc *d);

#endif
