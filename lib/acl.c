/*
 * acl.c: parsing and evaluation of a service ACL.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "dn_line.h"

static const struct {
	const char *name;
	enum acl_role role;
} acl_role_names[] = {
	{ "frontend", ACL_ROLE_FRONTEND },
	{ "proxy", ACL_ROLE_PROXY },
	{ "helper", ACL_ROLE_HELPER },
	{ "broker", ACL_ROLE_BROKER },
	{ "admin", ACL_ROLE_ADMIN },
};

int
acl_role_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(acl_role_names) / sizeof(acl_role_names[0]); i++)
		if (strcmp(acl_role_names[i].name, name) == 0)
			return (int)acl_role_names[i].role;
	return -1;
}

/* dn_line_each callback: one "role[,role] "pattern"" line. */
static int
acl_add_line(const char *line, void *ctx, const char **why)
{
	struct acl *acl = ctx;
	char roles[128];
	const char *p = line;
	struct acl_rule rule = { 0 };

	if (dn_line_word(&p, roles, sizeof(roles), why) != 0)
		return -1;
	for (char *save = NULL, *r = strtok_r(roles, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		int role = acl_role_parse(r);
		if (role < 0) {
			*why = "unknown role (want frontend, proxy, helper, broker or admin)";
			return -1;
		}
		rule.roles |= (unsigned)role;
	}
	if (rule.roles == 0) { /* "," alone: a rule that grants nothing is a mistake */
		*why = "no role named (want frontend, proxy, helper, broker or admin)";
		return -1;
	}
	dn_line_skip_space(&p);
	if (dn_line_quoted(&p, rule.pattern, sizeof(rule.pattern), why) != 0)
		return -1;
	dn_line_skip_space(&p);
	if (*p != '\0' && *p != '#') {
		*why = "unexpected text after the DN pattern";
		return -1;
	}
	if (acl->count % 16 == 0) { /* grow in steps of 16 rules */
		struct acl_rule *grown = realloc(acl->rules, (acl->count + 16) * sizeof(*grown));
		if (grown == NULL) {
			*why = "out of memory";
			return -1;
		}
		acl->rules = grown;
	}
	acl->rules[acl->count++] = rule;
	return 0;
}

int
acl_parse(struct acl *acl, const char *text, const char *origin, char *err, size_t errlen)
{
	acl->rules = NULL;
	acl->count = 0;
	pthread_rwlock_init(&acl->lock, NULL);
	if (dn_line_each(text, origin, acl_add_line, acl, err, errlen) != 0) {
		acl_free(acl);
		return -1;
	}
	return 0;
}

int
acl_load(struct acl *acl, const char *path, char *err, size_t errlen)
{
	char *text = dn_line_read_file(path, err, errlen);
	if (text == NULL)
		return -1;
	int rc = acl_parse(acl, text, path, err, errlen);
	free(text);
	return rc;
}

int
acl_reload(struct acl *acl, const char *path, char *err, size_t errlen)
{
	struct acl fresh;
	if (acl_load(&fresh, path, err, errlen) != 0)
		return -1;
	pthread_rwlock_wrlock(&acl->lock);
	struct acl_rule *old = acl->rules;
	acl->rules = fresh.rules;
	acl->count = fresh.count;
	pthread_rwlock_unlock(&acl->lock);
	pthread_rwlock_destroy(&fresh.lock);
	free(old);
	return 0;
}

void
acl_free(struct acl *acl)
{
	free(acl->rules);
	acl->rules = NULL;
	acl->count = 0;
}

unsigned
acl_roles(const struct acl *acl, const char *dn)
{
	pthread_rwlock_t *lock = (pthread_rwlock_t *)&acl->lock; /* readers only lock it */
	unsigned roles = 0;
	pthread_rwlock_rdlock(lock);
	for (size_t i = 0; i < acl->count; i++)
		if (fnmatch(acl->rules[i].pattern, dn, FNM_NOESCAPE) == 0)
			roles |= acl->rules[i].roles;
	pthread_rwlock_unlock(lock);
	return roles;
}

bool
acl_allows(const struct acl *acl, const char *dn, enum acl_role role)
{
	return (acl_roles(acl, dn) & (unsigned)role) != 0;
}
