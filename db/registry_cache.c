/*
 * registry_cache.c: the process's cache of the registry's hot rows (clusters by name, access
 * points by job, address and port, the proxy list), shared by every connection of the process to one
 * database file, so that a Resolve whose rows nobody changed touches no SQLite at all.
 *
 * Invalidation is by generation, never by row: each file's cache has a counter, which every
 * write transaction of any connection of this process to the file moves twice, in SQLite's
 * commit hook (before the commit becomes visible) and in its WAL hook (after). A row is stored
 * with the generation read before the read transaction that found it began, and served only
 * while the counter still has that value. So a row is never served once a commit that could
 * have changed it is visible to anyone, and every row served under one generation comes from
 * the same committed state. A write by another process is not seen: the broker's database is
 * written by the broker process alone (db/README.md).
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

/* Direct-mapped slots: a collision costs a miss (one read from SQLite), never a wrong row. The
 * sizes bound the memory: about 0.4 + 1.6 + 0.1 MB per database file. */
#define CACHE_CLUSTERS 256
#define CACHE_ACCESS_POINTS 4096
#define CACHE_PROXIES 64
/* What SQLite's own WAL hook does by default, which installing ours replaces: a passive
 * checkpoint once the WAL holds this many frames. */
#define WAL_AUTOCHECKPOINT_FRAMES 1000

struct cluster_slot {
	uint64_t gen; /* 0: empty (generations start at 1) */
	struct cluster row;
};

struct access_point_slot {
	uint64_t gen;
	struct access_point row;
};

struct reg_cache {
	char *path;                 /* the database file's name as SQLite resolved it */
	int refs;                   /* connections using this cache; under files_lock */
	_Atomic uint64_t gen;       /* moved by every write transaction */
	pthread_mutex_t lock;       /* guards the slots */
	struct cluster_slot clusters[CACHE_CLUSTERS];
	struct access_point_slot access_points[CACHE_ACCESS_POINTS];
	uint64_t proxies_gen;
	size_t nproxies;
	struct proxy proxies[CACHE_PROXIES];
	struct reg_cache *next;     /* in files */
};

static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reg_cache *files;

/* FNV-1a over a string, then a number: the slot of a key. */
static uint32_t
hash_key(const char *s, uint32_t n)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	h = (h ^ n) * 16777619u;
	return h;
}

static void
bump(struct reg_cache *cache)
{
	atomic_fetch_add_explicit(&cache->gen, 1, memory_order_acq_rel);
}

/* Before the commit is visible: from now on no row read earlier is served. Never vetoes. */
static int
commit_hook(void *arg)
{
	bump(arg);
	return 0;
}

/* After the commit: a row read between the two moves (the old state, since the commit was not
 * yet visible) is not served either. Then SQLite's default WAL duty. */
static int
wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	bump(arg);
	if (frames >= WAL_AUTOCHECKPOINT_FRAMES)
		(void)sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

int
reg_cache_attach(struct registry *reg)
{
	const char *path = sqlite3_db_filename(reg->db, "main");
	struct reg_cache *c;
	char mode[16] = "";
	sqlite3_stmt *st = NULL;

	/* An in-memory database is one per connection (no name to share) and has no WAL, whose
	 * hook the invalidation needs: no cache. */
	if (path == NULL || path[0] == '\0')
		return 0;
	if (sqlite3_prepare_v2(reg->db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
		snprintf(mode, sizeof(mode), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (strcmp(mode, "wal") != 0)
		return 0;

	pthread_mutex_lock(&files_lock);
	for (c = files; c != NULL; c = c->next)
		if (strcmp(c->path, path) == 0)
			break;
	if (c == NULL) {
		if ((c = calloc(1, sizeof(*c))) == NULL || (c->path = strdup(path)) == NULL) {
			free(c);
			pthread_mutex_unlock(&files_lock);
			return reg_failf(reg, "registry_open: %s: out of memory for the row cache",
			    path);
		}
		atomic_init(&c->gen, 1);
		pthread_mutex_init(&c->lock, NULL);
		c->next = files;
		files = c;
	}
	c->refs++;
	pthread_mutex_unlock(&files_lock);
	reg->cache = c;
	sqlite3_commit_hook(reg->db, commit_hook, c);
	sqlite3_wal_hook(reg->db, wal_hook, c);
	return 0;
}

void
reg_cache_detach(struct registry *reg)
{
	struct reg_cache *c = reg->cache, **p;

	if (c == NULL)
		return;
	sqlite3_commit_hook(reg->db, NULL, NULL);
	sqlite3_wal_hook(reg->db, NULL, NULL);
	reg->cache = NULL;
	pthread_mutex_lock(&files_lock);
	if (--c->refs == 0) {
		for (p = &files; *p != c; p = &(*p)->next)
			;
		*p = c->next;
		pthread_mutex_destroy(&c->lock);
		free(c->path);
		free(c);
	}
	pthread_mutex_unlock(&files_lock);
}

uint64_t
reg_cache_generation(const struct registry *reg)
{
	return reg->cache ? atomic_load_explicit(&reg->cache->gen, memory_order_acquire) : 0;
}

/* Whether rows stored under gen may be served now: nothing was committed since. */
static bool
current(const struct reg_cache *c, uint64_t gen)
{
	return gen != 0 && gen == atomic_load_explicit(&c->gen, memory_order_acquire);
}

static struct cluster_slot *
cluster_slot(struct reg_cache *c, const char *name)
{
	return &c->clusters[hash_key(name, 0) % CACHE_CLUSTERS];
}

/* The slot of (job, address, port): the hash of the job, folded into the address's. */
static struct access_point_slot *
access_point_slot(struct reg_cache *c, const char *job, const char *address, uint16_t port)
{
	return &c->access_points[hash_key(address, hash_key(job, port)) % CACHE_ACCESS_POINTS];
}

bool
reg_cache_get_cluster(struct registry *reg, const char *name, struct cluster *out)
{
	struct reg_cache *c = reg->cache;
	bool hit = false;

	if (c == NULL || strnlen(name, QCG_NAME_MAX) >= QCG_NAME_MAX)
		return false;
	pthread_mutex_lock(&c->lock);
	struct cluster_slot *s = cluster_slot(c, name);
	if (s->gen == reg->snapshot_gen && current(c, s->gen) && strcmp(s->row.name, name) == 0) {
		*out = s->row;
		hit = true;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void
reg_cache_put_cluster(struct registry *reg, const struct cluster *row)
{
	struct reg_cache *c = reg->cache;

	if (c == NULL || !current(c, reg->snapshot_gen))
		return;
	pthread_mutex_lock(&c->lock);
	struct cluster_slot *s = cluster_slot(c, row->name);
	s->gen = reg->snapshot_gen;
	s->row = *row;
	pthread_mutex_unlock(&c->lock);
}

bool
reg_cache_get_access_point(struct registry *reg, const char *job, const char *address,
    uint16_t port, struct access_point *out)
{
	struct reg_cache *c = reg->cache;
	bool hit = false;

	if (c == NULL || strnlen(job, QCG_NAME_MAX) >= QCG_NAME_MAX ||
	    strnlen(address, QCG_ADDR_MAX) >= QCG_ADDR_MAX)
		return false;
	pthread_mutex_lock(&c->lock);
	struct access_point_slot *s = access_point_slot(c, job, address, port);
	/* Only a row that was the only listener at its address and port is stored (the caller's
	 * rule), so it is the answer for every initiator. */
	if (s->gen == reg->snapshot_gen && current(c, s->gen) && s->row.port == port &&
	    strcmp(s->row.job, job) == 0 && strcmp(s->row.address, address) == 0) {
		*out = s->row;
		hit = true;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void
reg_cache_put_access_point(struct registry *reg, const struct access_point *row)
{
	struct reg_cache *c = reg->cache;

	if (c == NULL || !current(c, reg->snapshot_gen))
		return;
	pthread_mutex_lock(&c->lock);
	struct access_point_slot *s = access_point_slot(c, row->job, row->address, row->port);
	s->gen = reg->snapshot_gen;
	s->row = *row;
	pthread_mutex_unlock(&c->lock);
}

int
reg_cache_get_proxies(struct registry *reg, struct proxy **out, size_t *count)
{
	struct reg_cache *c = reg->cache;
	int rc = 1;

	if (c == NULL)
		return 1;
	pthread_mutex_lock(&c->lock);
	if (c->proxies_gen == reg->snapshot_gen && current(c, c->proxies_gen)) {
		struct proxy *rows = NULL;
		if (c->nproxies > 0 && (rows = malloc(c->nproxies * sizeof(*rows))) == NULL) {
			rc = -1;
		} else {
			if (c->nproxies > 0)
				memcpy(rows, c->proxies, c->nproxies * sizeof(*rows));
			*out = rows;
			*count = c->nproxies;
			rc = 0;
		}
	}
	pthread_mutex_unlock(&c->lock);
	if (rc < 0)
		reg_failf(reg, "registry_list_proxies: out of memory");
	return rc;
}

void
reg_cache_put_proxies(struct registry *reg, const struct proxy *rows, size_t count)
{
	struct reg_cache *c = reg->cache;

	if (c == NULL || count > CACHE_PROXIES || !current(c, reg->snapshot_gen))
		return;
	pthread_mutex_lock(&c->lock);
	if (count > 0)
		memcpy(c->proxies, rows, count * sizeof(*rows));
	c->nproxies = count;
	c->proxies_gen = reg->snapshot_gen;
	pthread_mutex_unlock(&c->lock);
}
