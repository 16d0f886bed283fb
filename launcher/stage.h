/*
 * stage.h: a job's stage-in and stage-out files, carried through the front-ends under the
 * job's committed reservations (no other channel reaches a closed cluster's nodes).
 *
 * Stage-in copies each local file (relative to qcg-submit's directory) to every node of the
 * job, at its path relative to the job's working directory (or /tmp), before mpirun starts.
 * Stage-out copies each file from rank 0's node back, after the job ends and before the
 * reservations are released.
 *
 * Any size: a file is streamed (StageIn, then its bytes as a PUT body, lib/http_stream.h;
 * StageOut + ReadOutput), so neither qcg-submit nor the front-end nor the helper
 * ever holds more than a chunk of it. SHA-256 end to end: stage-in declares the digest of the
 * local file and the node checks what arrived before the file takes its name; stage-out
 * hashes the bytes as they arrive here and compares with the digest the node computed while
 * sending, and only then renames the local temporary file into place. Either way a failure
 * leaves no partial file. Names that leave the working directory were refused before
 * anything was reserved (job_validate.c), and are refused again by the front-end and,
 * for symbolic links, by the node.
 */
#ifndef QCG_STAGE_H
#define QCG_STAGE_H

#include <stddef.h>

#include "coalloc.h"

struct soap;
struct tls_settings;

#define STAGE_CHUNK (512 * 1024) /* bytes read at once for a file's SHA-256 */

/* 0, or -1 with err naming the file, the node and the reason. Each cluster's copies go in a
 * thread with a connection of its own made with tls (soap's timeouts and size bound), so
 * that the clusters' front-ends work at once; soap itself serves a job of one cluster. */
int stage_in(struct soap *soap, const struct tls_settings *tls, const struct coalloc *c,
    const struct job_desc *job, char *err, size_t errlen);
int stage_out(struct soap *soap, const struct coalloc *c, const struct job_desc *job, char *err,
    size_t errlen);
/* Remove the stage-in files from every node (after the job, or after a failed stage-in), and
 * the working directory when that leaves it empty: the job leaves nothing it brought. A node
 * that cannot be reached is named on stderr; its files go when its reservation is released
 * only if the site cleans its nodes (nothing here can reach it). */
void stage_clean(struct soap *soap, const struct coalloc *c, const struct job_desc *job);

/* One local file to one node, as name (relative) under workdir, with mode 0600: the job's own
 * files (the hostfile, the hosts map, the delegated proxy) for mpirun inside the job
 * (submit_remote.h). 0, or -1 with err naming the file, the node and the reason. */
int stage_put_file(struct soap *soap, const struct coalloc_part *p, const char *node,
    const char *local, const char *name, const char *workdir, char *err, size_t errlen);

#endif
