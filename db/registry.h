/*
 * registry.h: the broker's SQLite registry. The only module that writes SQL.
 *
 * One `struct registry` wraps one sqlite3 connection opened in WAL mode with a busy timeout;
 * it is not shared between threads (each broker worker opens its own, WAL lets them read while
 * one writes). Every function returns 0 on success, REGISTRY_NOT_FOUND when the row asked for
 * does not exist, REGISTRY_DENIED when the caller may not change that row, or -1 on error,
 * with a message in registry_error().
 */
#ifndef QCG_REGISTRY_H
#define QCG_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "relay_id.h"

#define REGISTRY_NOT_FOUND 1
#define REGISTRY_DENIED 2
/* Only inside registry_read_begin_cached: the row is not in the cache at this generation. */
#define REGISTRY_CACHE_MISS 3
/* registry_find_access_point: the address names listeners in several other clusters. */
#define REGISTRY_AMBIGUOUS 4

/* The longest job description the registry stores (bytes, without the NUL). */
#define REGISTRY_DESCRIPTION_MAX (1024 * 1024)

struct registry;

/* Open (creating if needed) the database at path and bring its schema up to date. */
int registry_open(const char *path, struct registry **out, char *err, size_t errlen);
void registry_close(struct registry *reg);
/* The last error message of this connection. */
const char *registry_error(const struct registry *reg);
/* The schema version (PRAGMA user_version) after migrations. */
int registry_schema_version(struct registry *reg);
/* How many migrations registry_open applied to this database (0 when it was up to date). */
int registry_migrations_applied(const struct registry *reg);

/* A read snapshot: every read made between registry_read_begin and registry_read_end sees the
 * same committed state, in one SQLite read transaction instead of one per statement (WAL: other
 * connections keep writing meanwhile; the snapshot is released at end, so keep it short). Only
 * reads may be made inside: a write fails with an error. Every successful begin must be
 * followed by end, on every path; end without begin does nothing. */
int registry_read_begin(struct registry *reg);
void registry_read_end(struct registry *reg);
/* A read snapshot served from the process's cache of hot rows alone, without SQLite: the
 * cluster, access point and proxy-list reads return the rows that registry_read_begin
 * snapshots of any connection of this process read since the last commit to the file, or
 * REGISTRY_CACHE_MISS (then redo the reads in a registry_read_begin snapshot, which refills
 * the cache). Every row served in one such snapshot comes from the same committed state, the
 * newest one. Other reads in it go to SQLite, each in its own transaction; writes are refused.
 * Returns REGISTRY_CACHE_MISS at once for a database without a cache (in memory); end it with
 * registry_read_end. Writes by other processes are not seen: for a database only this process
 * writes (db/README.md, "The row cache"). */
int registry_read_begin_cached(struct registry *reg);

/* Clusters. Registering an existing name replaces it only when caller_dn matches the DN that
 * registered it first (REGISTRY_DENIED otherwise). */
int registry_put_cluster(struct registry *reg, const struct cluster *c, const char *caller_dn);
int registry_delete_cluster(struct registry *reg, const char *name, const char *caller_dn);
int registry_get_cluster(struct registry *reg, const char *name, struct cluster *out);
/* All clusters, ordered by name, into a malloc'ed array the caller frees. */
int registry_list_clusters(struct registry *reg, struct cluster **out, size_t *count);

/* Proxies, keyed by endpoint and owned, like clusters, by the DN that registered them
 * (owner_dn; p->owner_dn is ignored on put). Registering or deleting an endpoint that another
 * DN owns is REGISTRY_DENIED, unless `admin` (the caller holds the admin role): an admin may
 * replace or delete any row, and its put keeps the row's owner. A row from schema 2 has no
 * owner yet (""): the next non-admin put claims it, and only an admin may delete it before
 * that. put sets out_id (may be NULL) to the row id. */
int registry_put_proxy(struct registry *reg, const struct proxy *p, const char *caller_dn,
    bool admin, int64_t *out_id);
int registry_delete_proxy(struct registry *reg, const char *endpoint, const char *caller_dn,
    bool admin);
int registry_get_proxy(struct registry *reg, const char *endpoint, struct proxy *out);
int registry_list_proxies(struct registry *reg, struct proxy **out, size_t *count);
/* Add delta (may be negative, floor 0) to a proxy's load. */
int registry_add_proxy_load(struct registry *reg, const char *endpoint, int64_t delta);

/* Leases of the services that long-poll the broker (db/migrations/004_liveness.sql): a
 * front-end's, kept on its cluster's row, and a proxy's. Times are unix seconds. */
enum registry_lease_kind {
	REGISTRY_LEASE_CLUSTER = 0, /* name = the cluster, owner = its frontend_dn */
	REGISTRY_LEASE_PROXY = 1,   /* name = the endpoint, owner = its owner_dn */
};
/* A poll from the owner: last_seen = now, lease_expires = expires, no longer withdrawn.
 * *was_withdrawn (may be NULL) says whether it had been withdrawn (it is back).
 * REGISTRY_NOT_FOUND when owner_dn owns no such row (an admin's poll renews nothing). */
int registry_renew_lease(struct registry *reg, enum registry_lease_kind kind, const char *name,
    const char *owner_dn, int64_t now, int64_t expires, bool *was_withdrawn);
/* Withdraw name at `now` (its poll's connection closed); *withdrawn (may be NULL) says
 * whether this call did (false: absent or withdrawn already). */
int registry_withdraw(struct registry *reg, enum registry_lease_kind kind, const char *name,
    int64_t now, bool *withdrawn);
/* Withdraw every live row whose lease ended before now. *names (malloc'ed, NULL when none; the
 * caller frees it) gets the keys this call withdrew, *count how many. Writes nothing when no
 * lease has ended. */
int registry_withdraw_expired(struct registry *reg, enum registry_lease_kind kind, int64_t now,
    char (**names)[QCG_ENDPOINT_MAX], size_t *count);

/* Jobs. */
int registry_put_job(struct registry *reg, const struct job *j);
int registry_set_job_state(struct registry *reg, const char *id, enum job_state state,
    int exit_code, int64_t when);
/* out->description is malloc'ed (or NULL); free it with free(). */
int registry_get_job(struct registry *reg, const char *id, struct job *out);
/* Jobs ordered by submission time, newest first, at most limit; descriptions are not loaded. */
int registry_list_jobs(struct registry *reg, size_t limit, struct job **out, size_t *count);
/* A job's clusters and their batch jobs: set replaces what was recorded (at most
 * QCG_JOB_CLUSTERS_MAX; REGISTRY_NOT_FOUND without the job); get gives them in cluster name
 * order, malloc'ed (free() them), none before the launcher recorded any. */
int registry_set_job_clusters(struct registry *reg, const char *job,
    const struct job_cluster_record *clusters, size_t count);
int registry_get_job_clusters(struct registry *reg, const char *job,
    struct job_cluster_record **out, size_t *count);

/* Access points, unique by (job, address, port, cluster): ranks on different nodes may listen
 * on the same port, and clusters with the same private range may have the same address in one
 * job. Registering the same key again replaces the row. REGISTRY_NOT_FOUND (registry_error says
 * so) when the job or the cluster is not registered. */
int registry_put_access_point(struct registry *reg, const struct access_point *ap);
/* Find the access point a process in `job` listens on at address:port, as an initiator in
 * from_cluster names it. Listeners at address:port in two clusters (a shared private range):
 * from_cluster's own is the one (the address means its own node to the initiator); when
 * neither is its own, REGISTRY_AMBIGUOUS (registry_error names the clusters). */
int registry_find_access_point(struct registry *reg, const char *job, const char *from_cluster,
    const char *address, uint16_t port, struct access_point *out);
int registry_list_access_points(struct registry *reg, const char *job, struct access_point **out,
    size_t *count);
/* Remove all of a job's access points; *removed (may be NULL) gets how many. */
int registry_delete_job_access_points(struct registry *reg, const char *job, size_t *removed);

/* The connection log. */
int registry_log_connection(struct registry *reg, const struct connection_record *rec);
/* n records in one transaction, all or none: a batch (ReportOutcomes) costs one commit, and
 * invalidates the row cache once, not once per connection. */
int registry_log_connections(struct registry *reg, const struct connection_record *recs,
    size_t n);
int registry_list_connections(struct registry *reg, const char *job,
    struct connection_record **out, size_t *count);
/* Drop log rows older than `before` (unix seconds), so the log does not grow without bound
 * (the broker's pruner, services/broker/prune.c, calls it on a timer); in batches, each its own
 * transaction, so that other writers are never held up long. *removed (may be NULL) gets how
 * many. */
int registry_prune_connections(struct registry *reg, int64_t before, size_t *removed);

/* Multicast groups: allocate a free group for job from 239.192.0.0/16 (administratively scoped),
 * never one another job holds; release all of a job's groups. */
int registry_allocate_multicast_group(struct registry *reg, const char *job,
    struct multicast_group *out);
int registry_release_multicast_groups(struct registry *reg, const char *job);
int registry_list_multicast_groups(struct registry *reg, const char *job,
    struct multicast_group **out, size_t *count);

/* Relays handed out (db/migrations/007_relays.sql), so that one can be resumed on another
 * proxy (issue 14). ids are the 32 hex digits of lib/relay_id.h. */
struct relay_record {
	char id[RELAY_ID_HEX_LEN + 1];           /* this relay */
	char job[QCG_NAME_MAX];
	char from_cluster[QCG_NAME_MAX];         /* the initiator's end */
	char from_node[QCG_NAME_MAX];
	char to_cluster[QCG_NAME_MAX];           /* the target's end */
	char to_node[QCG_NAME_MAX];
	char to_address[QCG_ADDR_MAX];           /* the target's access point */
	uint16_t to_port;
	enum connect_method method;              /* METHOD_RELAY or METHOD_RELAY_CHAIN */
	char proxy[2][QCG_ENDPOINT_MAX];         /* [0] the initiator's proxy, [1] "" or the
	                                          * target's (a chain) */
	int64_t decided_at;                      /* unix seconds */
	char resumed_from[RELAY_ID_HEX_LEN + 1]; /* the relay this one replaced, or "" */
	char successor[RELAY_ID_HEX_LEN + 1];    /* the relay that replaced this one, or "" */
	int64_t bytes_replayed;                  /* reported by the ends after the resume */
};
/* Record a relay Resolve handed out (r->resumed_from and successor are ignored: ""). */
int registry_record_relay(struct registry *reg, const struct relay_record *r);
/* The relay with id; REGISTRY_NOT_FOUND when the broker never handed it out (or pruned it). */
int registry_get_relay(struct registry *reg, const char *id, struct relay_record *out);
/* Record r, the relay that replaces r->resumed_from, and make it that relay's successor, in
 * one transaction: REGISTRY_DENIED (nothing written) when the old relay has a successor
 * already, REGISTRY_NOT_FOUND when it does not exist. */
int registry_record_resume(struct registry *reg, const struct relay_record *r);
/* Add bytes (0..2^40) to a relay's bytes_replayed; REGISTRY_NOT_FOUND when there is no such
 * relay. */
int registry_add_relay_replayed(struct registry *reg, const char *id, int64_t bytes);
/* A job's resumes (relays with resumed_from set), oldest first, malloc'ed (free() them). */
int registry_list_resumes(struct registry *reg, const char *job, struct relay_record **out,
    size_t *count);
/* Drop relays decided before `before` (unix seconds), as the connection log is pruned. */
int registry_prune_relays(struct registry *reg, int64_t before, size_t *removed);

#endif
