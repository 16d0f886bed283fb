/*
 * env_allow.h: which variables of qcg-rsh's environment travel to the remote command.
 *
 * ssh carries no environment; Open MPI counts on that and puts what orted needs on its command
 * line. qcg-rsh carries a short documented allow-list instead, because the grid's remote side
 * starts from an empty environment (the helper gives a launch exactly what it is given):
 *
 *   names starting with QCG_, OMPI_ or PMIX_   (our topology and settings, Open MPI's MCA
 *                                                parameters and its PMIx wiring)
 *   LD_PRELOAD, PATH, LD_LIBRARY_PATH           (libqcgnet.so, and finding orted)
 *
 * Never anything else, and never credentials: X509_* names (the user's proxy) are not on the
 * list, and QCG_ names that point at the launcher's own files (QCG_RSH_MAP) stay home.
 */
#ifndef QCG_ENV_ALLOW_H
#define QCG_ENV_ALLOW_H

#include <stdbool.h>
#include <stddef.h>

#define ENV_ALLOW_MAX 1024 /* variables carried at most */

/* Whether the variable "NAME=value" (or a bare NAME) is carried. */
bool env_allow_name(const char *entry);

/* Collect the carried entries of env (NULL-terminated) into out (pointers into env, at most
 * max). Returns how many, or -1 when more than max would be carried. */
int env_allow_collect(char *const *env, char **out, size_t max);

#endif
