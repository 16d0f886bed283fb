/*
 * gridmap.c: parsing and lookup of the grid-mapfile.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dn_line.h"
#include "gridmap.h"

/* An account name: what useradd accepts, so that a typo cannot smuggle in a path or option. */
static int
account_name_valid(const char *s)
{
	if (!(islower((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' ||
			*s == '-' || *s == '.'))
			return 0;
	return 1;
}

static int
gridmap_parse_line(const char *line, struct gridmap_entry *e, const char **why)
{
	const char *p = line;
	char accounts[512];

	if (dn_line_quoted(&p, e->dn, sizeof(e->dn), why) != 0)
		return -1;
	dn_line_skip_space(&p);
	if (dn_line_word(&p, accounts, sizeof(accounts), why) != 0) {
		*why = "expected an account after the DN";
		return -1;
	}
	dn_line_skip_space(&p);
	if (*p != '\0' && *p != '#') {
		*why = "unexpected text after the account list";
		return -1;
	}
	/* Every account of the list must be valid, not only the default (the first): an invalid
	 * one is a mistake in the file, and the file is refused rather than half-used. */
	char *next;
	for (char *a = accounts; a != NULL; a = next) {
		if ((next = strchr(a, ',')) != NULL)
			*next++ = '\0';
		if (strlen(a) >= sizeof(e->account) || !account_name_valid(a)) {
			*why = "account is not a valid login name";
			return -1;
		}
	}
	strcpy(e->account, accounts); /* the list was cut after the first account */
	return 0;
}

/* dn_line_each callback: append one entry, growing the array as needed. */
static int
gridmap_add_line(const char *line, void *ctx, const char **why)
{
	struct gridmap *map = ctx;

	if (map->count % 16 == 0) { /* grow in steps of 16 entries */
		struct gridmap_entry *grown =
		    realloc(map->entries, (map->count + 16) * sizeof(*grown));
		if (grown == NULL) {
			*why = "out of memory";
			return -1;
		}
		map->entries = grown;
	}
	if (gridmap_parse_line(line, &map->entries[map->count], why) != 0)
		return -1;
	map->count++;
	return 0;
}

int
gridmap_parse(struct gridmap *map, const char *text, const char *origin, char *err, size_t errlen)
{
	map->entries = NULL;
	map->count = 0;
	pthread_rwlock_init(&map->lock, NULL);
	if (dn_line_each(text, origin, gridmap_add_line, map, err, errlen) != 0) {
		gridmap_free(map);
		return -1;
	}
	return 0;
}

int
gridmap_reload(struct gridmap *map, const char *path, char *err, size_t errlen)
{
	struct gridmap fresh;
	if (gridmap_load(&fresh, path, err, errlen) != 0)
		return -1;
	pthread_rwlock_wrlock(&map->lock);
	struct gridmap_entry *old = map->entries;
	map->entries = fresh.entries;
	map->count = fresh.count;
	pthread_rwlock_unlock(&map->lock);
	pthread_rwlock_destroy(&fresh.lock);
	free(old);
	return 0;
}

int
gridmap_load(struct gridmap *map, const char *path, char *err, size_t errlen)
{
	char *text = dn_line_read_file(path, err, errlen);
	if (text == NULL)
		return -1;
	int rc = gridmap_parse(map, text, path, err, errlen);
	free(text);
	return rc;
}

void
gridmap_free(struct gridmap *map)
{
	free(map->entries);
	map->entries = NULL;
	map->count = 0;
}

const char *
gridmap_lookup(const struct gridmap *map, const char *dn)
{
	for (size_t i = 0; i < map->count; i++)
		if (strcmp(map->entries[i].dn, dn) == 0)
			return map->entries[i].account;
	return NULL;
}

bool
gridmap_account_of(const struct gridmap *map, const char *dn, char account[GRIDMAP_ACCOUNT_MAX])
{
	pthread_rwlock_t *lock = (pthread_rwlock_t *)&map->lock; /* readers only lock it */
	pthread_rwlock_rdlock(lock);
	const char *found = gridmap_lookup(map, dn);
	if (found != NULL && account != NULL)
		strcpy(account, found);
	pthread_rwlock_unlock(lock);
	return found != NULL;
}
