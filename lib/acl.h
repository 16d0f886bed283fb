/*
 * acl.h: a service's access control list: which certificate DNs may act in which role.
 *
 *   # role     DN pattern (fnmatch(3) glob, matched against the whole DN; a backslash is
 *   #          literal, as in the DNs of tls_name_to_dn, where '=' in a value is "\=")
 *   frontend   "/O=Grid/OU=qcg-ompi/CN=host/gw-*"
 *   proxy      "/O=Grid/OU=qcg-ompi/CN=host/proxy-1"
 *   helper     "/O=Grid/OU=qcg-ompi/CN=host/a*"
 *   admin      "/O=Grid/OU=qcg-ompi/CN=Grid Admin"
 *
 * Services use it for other services (host certificates); users are authorized by the
 * grid-mapfile instead.
 */
#ifndef QCG_ACL_H
#define QCG_ACL_H

#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>

#include "model.h"

enum acl_role {
	ACL_ROLE_FRONTEND = 1 << 0,
	ACL_ROLE_PROXY = 1 << 1,
	ACL_ROLE_HELPER = 1 << 2,
	ACL_ROLE_BROKER = 1 << 3,
	ACL_ROLE_ADMIN = 1 << 4,
};

struct acl_rule {
	unsigned roles;           /* ACL_ROLE_* bits */
	char pattern[QCG_DN_MAX]; /* fnmatch pattern over the whole DN */
};

struct acl {
	struct acl_rule *rules;
	size_t count;
	pthread_rwlock_t lock; /* rules and count, against acl_reload (SIGHUP) */
};

int acl_parse(struct acl *acl, const char *text, const char *origin, char *err, size_t errlen);
int acl_load(struct acl *acl, const char *path, char *err, size_t errlen);
/* Replace the rules of a loaded ACL with those of path, atomically for concurrent readers. On
 * error the ACL keeps its rules. */
int acl_reload(struct acl *acl, const char *path, char *err, size_t errlen);
void acl_free(struct acl *acl);
/* The union of the roles every matching rule grants dn. */
unsigned acl_roles(const struct acl *acl, const char *dn);
/* Whether dn holds role. */
bool acl_allows(const struct acl *acl, const char *dn, enum acl_role role);
/* Role names as written in the file ("frontend", ...); -1 if unknown. */
int acl_role_parse(const char *name);

#endif
