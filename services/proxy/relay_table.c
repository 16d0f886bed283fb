/*
 * relay_table.c: relay ids, their announcements and the legs waiting for a partner (see
 * relay_table.h for the state machine).
 *
 * A chained hash table keyed by the id, with a keyed mix so that chosen ids (accept-any mode)
 * cannot pile into one bucket, plus a FIFO of WAITING entries: every leg waits the same
 * partner timeout, so arrival order is deadline order and expiring them is a pop from the head.
 * Announcements and tombstones are swept by a full scan at most once a second.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "random_bytes.h"
#include "relay_table.h"

#define TABLE_SWEEP_INTERVAL_MS 1000
#define TABLE_MAX_BUCKETS (1u << 20)

enum entry_state {
	ENTRY_EXPECTED, /* announced, no leg yet */
	ENTRY_FORWARD,  /* announced for forwarding to next_hop */
	ENTRY_WAITING,  /* one leg parked, partner awaited */
	ENTRY_USED,     /* tombstone: relay joined, forwarded or timed out */
};

struct entry {
	struct relay_id id;
	enum entry_state state;
	uint64_t expires_ms;              /* announcement ttl, partner deadline or tombstone end */
	int parked_fd;                    /* ENTRY_WAITING: the first leg; -1 otherwise */
	struct sockaddr_storage next_hop; /* ENTRY_FORWARD */
	socklen_t next_hop_len;
	struct entry *hash_next;          /* bucket chain */
	struct entry *wait_prev, *wait_next; /* waiting FIFO, ENTRY_WAITING only */
};

struct relay_table {
	pthread_mutex_t lock;
	struct relay_table_limits limits;
	struct entry **buckets;
	size_t bucket_mask;   /* bucket count - 1 (a power of two) */
	uint64_t hash_key[2]; /* random, so bucket choice cannot be predicted */
	size_t entries;
	size_t count[ENTRY_USED + 1];
	struct entry *wait_head, *wait_tail;
	uint64_t next_sweep_ms;
};

static size_t
table_bucket(const struct relay_table *table, const struct relay_id *id)
{
	uint64_t a, b;

	memcpy(&a, id->bytes, 8);
	memcpy(&b, id->bytes + 8, 8);
	a ^= table->hash_key[0];
	b ^= table->hash_key[1];
	/* A 128-to-64 multiply-xorshift mix; enough against accidental and cheap adversarial
	 * collisions once keyed. */
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + (a >> 29));
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return (size_t)h & table->bucket_mask;
}

struct relay_table *
relay_table_create(const struct relay_table_limits *limits)
{
	struct relay_table *table = calloc(1, sizeof(*table));
	size_t nbuckets = 64;

	if (table == NULL)
		return NULL;
	table->limits = *limits;
	while (nbuckets < limits->max_ids && nbuckets < TABLE_MAX_BUCKETS)
		nbuckets <<= 1;
	table->buckets = calloc(nbuckets, sizeof(*table->buckets));
	if (table->buckets == NULL) {
		free(table);
		return NULL;
	}
	table->bucket_mask = nbuckets - 1;
	if (random_bytes(table->hash_key, sizeof(table->hash_key)) != 0) {
		/* No entropy source: still correct, only predictable buckets. */
		table->hash_key[0] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
		table->hash_key[1] = (uint64_t)(uintptr_t)table;
	}
	pthread_mutex_init(&table->lock, NULL);
	return table;
}

static struct entry *
table_find(struct relay_table *table, const struct relay_id *id, struct entry ***link_out)
{
	struct entry **link = &table->buckets[table_bucket(table, id)];

	for (; *link != NULL; link = &(*link)->hash_next) {
		if (memcmp((*link)->id.bytes, id->bytes, sizeof(id->bytes)) == 0) {
			if (link_out != NULL)
				*link_out = link;
			return *link;
		}
	}
	return NULL;
}

static void
wait_unlink(struct relay_table *table, struct entry *e)
{
	if (e->wait_prev != NULL)
		e->wait_prev->wait_next = e->wait_next;
	else
		table->wait_head = e->wait_next;
	if (e->wait_next != NULL)
		e->wait_next->wait_prev = e->wait_prev;
	else
		table->wait_tail = e->wait_prev;
	e->wait_prev = e->wait_next = NULL;
}

static void
wait_append(struct relay_table *table, struct entry *e)
{
	e->wait_next = NULL;
	e->wait_prev = table->wait_tail;
	if (table->wait_tail != NULL)
		table->wait_tail->wait_next = e;
	else
		table->wait_head = e;
	table->wait_tail = e;
}

static void
entry_set_state(struct relay_table *table, struct entry *e, enum entry_state state)
{
	table->count[e->state]--;
	table->count[state]++;
	e->state = state;
}

/* Unlink and free `e`; its parked socket, if any, must have been taken out already. */
static void
entry_remove(struct relay_table *table, struct entry **link)
{
	struct entry *e = *link;

	*link = e->hash_next;
	if (e->state == ENTRY_WAITING)
		wait_unlink(table, e);
	table->count[e->state]--;
	table->entries--;
	free(e);
}

/* Drop expired announcements and tombstones (not waiting legs: those go through the FIFO so
 * their sockets reach the caller). */
static void
table_sweep(struct relay_table *table, uint64_t now_ms)
{
	for (size_t b = 0; b <= table->bucket_mask; b++) {
		struct entry **link = &table->buckets[b];
		while (*link != NULL) {
			struct entry *e = *link;
			if (e->state != ENTRY_WAITING && e->expires_ms <= now_ms)
				entry_remove(table, link);
			else
				link = &e->hash_next;
		}
	}
	table->next_sweep_ms = now_ms + TABLE_SWEEP_INTERVAL_MS;
}

static struct entry *
table_insert(struct relay_table *table, const struct relay_id *id, enum entry_state state,
    uint64_t expires_ms, uint64_t now_ms, enum relay_table_result *result)
{
	if (table->entries >= table->limits.max_ids)
		table_sweep(table, now_ms);
	if (table->entries >= table->limits.max_ids) {
		*result = RELAY_TABLE_FULL;
		return NULL;
	}
	struct entry *e = calloc(1, sizeof(*e));
	if (e == NULL) {
		*result = RELAY_TABLE_NOMEM;
		return NULL;
	}
	size_t b = table_bucket(table, id);
	e->id = *id;
	e->state = state;
	e->expires_ms = expires_ms;
	e->parked_fd = -1;
	e->hash_next = table->buckets[b];
	table->buckets[b] = e;
	table->entries++;
	table->count[state]++;
	*result = RELAY_TABLE_OK;
	return e;
}

/* Find a live entry for `id`, dropping it first when it has expired (sweeps are periodic, so an
 * expired announcement must not be honoured between two sweeps). */
static struct entry *
table_find_live(struct relay_table *table, const struct relay_id *id, uint64_t now_ms)
{
	struct entry **link;
	struct entry *e = table_find(table, id, &link);

	if (e != NULL && e->state != ENTRY_WAITING && e->expires_ms <= now_ms) {
		entry_remove(table, link);
		e = NULL;
	}
	return e;
}

static enum relay_table_result
table_announce(struct relay_table *table, const struct relay_id *id, enum entry_state state,
    const struct sockaddr *next_hop, socklen_t next_hop_len, uint64_t ttl_ms, uint64_t now_ms)
{
	enum relay_table_result result = RELAY_TABLE_OK;

	pthread_mutex_lock(&table->lock);
	struct entry *e = table_find_live(table, id, now_ms);
	if (e != NULL && e->state != state) {
		result = RELAY_TABLE_IN_USE;
	} else if (e != NULL) {
		e->expires_ms = now_ms + ttl_ms; /* a repeated announcement refreshes it */
	} else {
		e = table_insert(table, id, state, now_ms + ttl_ms, now_ms, &result);
	}
	if (e != NULL && result == RELAY_TABLE_OK && next_hop != NULL) {
		memcpy(&e->next_hop, next_hop, next_hop_len);
		e->next_hop_len = next_hop_len;
	}
	pthread_mutex_unlock(&table->lock);
	return result;
}

enum relay_table_result
relay_table_expect(struct relay_table *table, const struct relay_id *id, uint64_t ttl_ms,
    uint64_t now_ms)
{
	return table_announce(table, id, ENTRY_EXPECTED, NULL, 0, ttl_ms, now_ms);
}

enum relay_table_result
relay_table_forward(struct relay_table *table, const struct relay_id *id,
    const struct sockaddr *next_hop, socklen_t next_hop_len, uint64_t ttl_ms, uint64_t now_ms)
{
	if (next_hop_len > sizeof(struct sockaddr_storage))
		return RELAY_TABLE_NOMEM;
	return table_announce(table, id, ENTRY_FORWARD, next_hop, next_hop_len, ttl_ms, now_ms);
}

static void
entry_park(struct relay_table *table, struct entry *e, int fd, uint64_t now_ms)
{
	entry_set_state(table, e, ENTRY_WAITING);
	e->parked_fd = fd;
	e->expires_ms = now_ms + table->limits.partner_timeout_ms;
	wait_append(table, e);
}

static void
entry_retire(struct relay_table *table, struct entry *e, uint64_t now_ms)
{
	if (e->state == ENTRY_WAITING)
		wait_unlink(table, e);
	entry_set_state(table, e, ENTRY_USED);
	e->parked_fd = -1;
	e->expires_ms = now_ms + table->limits.used_ttl_ms;
}

/* The claim's decision, with the lock held. */
static enum relay_claim
table_claim_locked(struct relay_table *table, const struct relay_id *id, int fd, uint64_t now_ms,
    struct relay_claim_result *result)
{
	enum relay_table_result inserted;
	struct entry *e = table_find_live(table, id, now_ms);

	if (e == NULL) {
		if (!table->limits.accept_any_id)
			return RELAY_CLAIM_UNKNOWN;
		e = table_insert(table, id, ENTRY_EXPECTED, now_ms, now_ms, &inserted);
		if (e == NULL)
			return RELAY_CLAIM_FULL;
	}
	switch (e->state) {
	case ENTRY_EXPECTED:
		entry_park(table, e, fd, now_ms);
		return RELAY_CLAIM_PARKED;
	case ENTRY_WAITING:
		result->partner_fd = e->parked_fd;
		entry_retire(table, e, now_ms);
		return RELAY_CLAIM_JOIN;
	case ENTRY_FORWARD:
		memcpy(&result->next_hop, &e->next_hop, e->next_hop_len);
		result->next_hop_len = e->next_hop_len;
		entry_retire(table, e, now_ms);
		return RELAY_CLAIM_FORWARD;
	case ENTRY_USED:
		break;
	}
	return RELAY_CLAIM_REUSED;
}

enum relay_claim
relay_table_claim(struct relay_table *table, const struct relay_id *id, int fd, uint64_t now_ms,
    struct relay_claim_result *result)
{
	pthread_mutex_lock(&table->lock);
	enum relay_claim claim = table_claim_locked(table, id, fd, now_ms, result);
	pthread_mutex_unlock(&table->lock);
	return claim;
}

size_t
relay_table_expire(struct relay_table *table, uint64_t now_ms, int *fds, size_t max_fds)
{
	size_t n = 0;

	pthread_mutex_lock(&table->lock);
	while (n < max_fds && table->wait_head != NULL && table->wait_head->expires_ms <= now_ms) {
		struct entry *e = table->wait_head;
		fds[n++] = e->parked_fd;
		entry_retire(table, e, now_ms); /* a late partner is refused as reused */
	}
	if (now_ms >= table->next_sweep_ms)
		table_sweep(table, now_ms);
	pthread_mutex_unlock(&table->lock);
	return n;
}

void
relay_table_count(struct relay_table *table, struct relay_table_counts *out)
{
	pthread_mutex_lock(&table->lock);
	out->expected = table->count[ENTRY_EXPECTED];
	out->forward = table->count[ENTRY_FORWARD];
	out->waiting = table->count[ENTRY_WAITING];
	out->used = table->count[ENTRY_USED];
	pthread_mutex_unlock(&table->lock);
}

void
relay_table_destroy(struct relay_table *table)
{
	if (table == NULL)
		return;
	for (size_t b = 0; b <= table->bucket_mask; b++) {
		struct entry *e = table->buckets[b];
		while (e != NULL) {
			struct entry *next = e->hash_next;
			if (e->state == ENTRY_WAITING && e->parked_fd >= 0)
				close(e->parked_fd);
			free(e);
			e = next;
		}
	}
	free(table->buckets);
	pthread_mutex_destroy(&table->lock);
	free(table);
}

const char *
relay_table_result_name(enum relay_table_result result)
{
	switch (result) {
	case RELAY_TABLE_OK:
		return "ok";
	case RELAY_TABLE_FULL:
		return "too many relay ids pending";
	case RELAY_TABLE_IN_USE:
		return "relay id already in use";
	case RELAY_TABLE_NOMEM:
		return "out of memory";
	}
	return "unknown result";
}

const char *
relay_claim_name(enum relay_claim claim)
{
	switch (claim) {
	case RELAY_CLAIM_PARKED:
		return "parked";
	case RELAY_CLAIM_JOIN:
		return "joined";
	case RELAY_CLAIM_FORWARD:
		return "forwarded";
	case RELAY_CLAIM_UNKNOWN:
		return "unknown relay id";
	case RELAY_CLAIM_REUSED:
		return "relay id already used";
	case RELAY_CLAIM_FULL:
		return "too many relay ids pending";
	}
	return "unknown claim";
}
