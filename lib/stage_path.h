/*
 * stage_path.h: whether a staged file's name stays inside the job's directory.
 *
 * One rule for qcg-submit (which refuses a bad name before anything is reserved) and for
 * qcg-frontend (which refuses it again before it reserves quota or starts anything on a node,
 * since a front-end trusts no client). The name is relative: no leading '/', no empty, "."
 * or ".." component, no control character, at most STAGE_PATH_MAX bytes. Symbolic links can
 * only be seen where the file is written; the node's receiver refuses a name whose resolved
 * path differs from the plain one (services/frontend/stage_node.c).
 */
#ifndef QCG_STAGE_PATH_H
#define QCG_STAGE_PATH_H

#include <stddef.h>

#define STAGE_PATH_MAX 1024 /* bytes of a staged name, without the NUL */

/* 0, or -1 with err saying why (the name is not repeated: callers name it). */
int stage_path_check(const char *path, char *err, size_t errlen);

/* The same for a working directory, which must be absolute instead. */
int stage_dir_check(const char *dir, char *err, size_t errlen);

#endif
