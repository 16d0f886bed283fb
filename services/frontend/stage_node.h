/*
 * stage_node.h: the commands a node runs for staging, as the job's account, under its helper.
 *
 * Stage-in: /bin/sh receives the file on stdin (the helper's PUT /launch-input/ID), writes it
 * to a temporary file beside the target while computing its SHA-256 (tee | sha256sum: one
 * pass, nothing held in memory), checks the size and the digest the launcher declared, and
 * only then renames it into place (mode 0700 for an executable, else 0600). Any failure, a
 * signal included, removes the temporary file: nothing is left. The working directory is
 * created if needed. A name whose resolved path (realpath -m: symbolic links followed) is not
 * the plain one is refused before a byte is written, so no symbolic link on the way can lead
 * out of it.
 *
 * Stage-out: the file goes to stdout (ReadOutput) through tee, which feeds sha256sum on the
 * way; the digest is the last line of stderr. A read error changes the digest, so the
 * launcher sees a mismatch.
 *
 * Only coreutils and a POSIX sh are needed on the node; the name and the digest are the
 * shell's positional parameters, never its code.
 */
#ifndef QCG_STAGE_NODE_H
#define QCG_STAGE_NODE_H

#include <stdbool.h>
#include <stdint.h>

#define STAGE_NODE_ARGV_MAX 10
#define STAGE_NODE_NUM_MAX 24 /* a decimal size with the NUL */

/* Fill argv (STAGE_NODE_ARGV_MAX entries; num is storage for the size) and return argc. */
int stage_node_in_argv(const char *workdir, const char *path, uint64_t size,
    const char *sha256, bool executable, char num[STAGE_NODE_NUM_MAX],
    char *argv[STAGE_NODE_ARGV_MAX]);
int stage_node_out_argv(const char *workdir, const char *path, char *argv[STAGE_NODE_ARGV_MAX]);

/* The environment both run with. */
extern char *stage_node_env[1];

/* Whether s is a SHA-256 digest as the node prints it: 64 lowercase hex digits. */
bool stage_sha256_valid(const char *s);

#endif
