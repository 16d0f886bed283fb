/*
 * signing_policy.h: the Globus EACL "<hash>.signing_policy" files of a grid CA directory, which
 * say what subjects a CA may sign (qcg-ca init writes one for every CA):
 *
 *   access_id_CA      X509         '/O=Grid/OU=qcg-ompi/CN=qcg-ompi CA'
 *   pos_rights        globus        CA:sign
 *   cond_subjects     globus       '"/O=Grid/OU=qcg-ompi/ *"'  (without the space)
 *
 * Patterns are globs ('*' matches anything, '/' included) over the subject in the one-line form
 * of tls_name_to_dn; "\xHH" in a pattern stands for that byte (how openssl and Globus tools print
 * UTF-8), so a pattern copied from their output matches.
 */
#ifndef QCG_SIGNING_POLICY_H
#define QCG_SIGNING_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#define SIGNING_POLICY_FILE_MAX (64 * 1024) /* a policy file larger than this is refused */
#define SIGNING_POLICY_PATTERNS_MAX 64      /* cond_subjects patterns per file */
#define SIGNING_POLICY_PATTERN_MAX 1024

struct signing_policy {
	size_t count;                                        /* patterns in use */
	char patterns[SIGNING_POLICY_PATTERNS_MAX][SIGNING_POLICY_PATTERN_MAX];
};

/* Parse the text of one policy file: every cond_subjects pattern of a block that grants
 * CA:sign. 0, or -1 with "origin: reason" in err (a file we cannot read grants nothing). */
int signing_policy_parse(struct signing_policy *p, const char *text, const char *origin,
    char *err, size_t errlen);
/* Whether subject (tls_name_to_dn form) matches one of the policy's patterns. */
bool signing_policy_allows(const struct signing_policy *p, const char *subject);

#endif
