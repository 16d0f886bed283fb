/*
 * stage.h: a job's stage-in and stage-out files, carried through the front-ends under the
 * job's committed reservations (no other channel reaches a closed cluster's nodes).
 *
 * Stage-in copies each local file (relative to qcg-submit's directory) to every node of the
 * job, at its path relative to the job's working directory (or /tmp), before mpirun starts.
 * Stage-out copies each file from rank 0's node back, after the job ends and before the
 * reservations are released. A file travels base64-encoded in one Launch (a shell on the node
 * writes or reads it), so files are limited to STAGE_FILE_MAX bytes.
 */
#ifndef QCG_STAGE_H
#define QCG_STAGE_H

#include <stddef.h>

#include "coalloc.h"

struct soap;

#define STAGE_FILE_MAX (45 * 1024) /* its base64 (60 KiB) fits one 64 KiB Launch argument */

/* 0, or -1 with err naming the file, the node and the reason. */
int stage_in(struct soap *soap, const struct coalloc *c, const struct job_desc *job, char *err,
    size_t errlen);
int stage_out(struct soap *soap, const struct coalloc *c, const struct job_desc *job, char *err,
    size_t errlen);

#endif
