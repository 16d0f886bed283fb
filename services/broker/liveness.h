/*
 * liveness.h: which front-ends and proxies the broker believes alive.
 *
 * Their sign of life is the WaitEvents long poll they keep open anyway: each poll from a
 * queue's owner renews its lease in the registry (one write per poll, never per second); a
 * poll whose connection closes (the process died: its kernel sent FIN) withdraws the service
 * at once, unless another poll of the same queue is still open (a restarted process polls
 * while its predecessor's dying connection is noticed); and a sweeper thread withdraws those
 * whose lease ran out (the host vanished without a FIN). A lease lasts the poll's timeout plus
 * broker.lease_grace, so a service that polls back to back never lapses. The sweeper starts one
 * grace after the broker does: leases that ran out while it was down are not held against
 * services that could not poll it.
 */
#ifndef QCG_BROKER_LIVENESS_H
#define QCG_BROKER_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"

struct config;
struct liveness_watch;

#define LIVENESS_GRACE_DEFAULT 15L  /* seconds a lease outlasts its poll */
#define LIVENESS_GRACE_MAX 3600L
#define LIVENESS_SWEEP_MS 1000      /* how often expired leases are looked for (a read) */

struct liveness_settings {
	int64_t grace;          /* broker.lease_grace, seconds */
};

/* Read broker.lease_grace; -1 with err naming the key when it is malformed or out of range. */
int liveness_settings_from_config(const struct config *cfg, struct liveness_settings *out,
    char *err, size_t errlen);

/* Start the sweeper on the registry file db_path (its own connection). */
int liveness_start(const char *db_path, const struct liveness_settings *s,
    struct liveness_watch **out, char *err, size_t errlen);
/* Stop and join the sweeper; NULL is allowed. */
void liveness_stop(struct liveness_watch *w);

/* Which lease a WaitEvents queue is: "proxy:<endpoint>" is a proxy's, anything else a
 * cluster's (its front-end's). *name points into queue. */
enum registry_lease_kind liveness_queue_kind(const char *queue, const char **name);

/* The seconds of lease a registration grants (the service polls right after). */
int64_t liveness_register_lease(const struct liveness_watch *w);
/* The seconds of lease a poll of timeout_s grants. */
int64_t liveness_poll_lease(const struct liveness_watch *w, int timeout_s);

/* Count an open poll of queue (begin) and end it; end returns how many polls of queue are
 * still open. -1 from begin when the table is full (then end must not be called). */
int liveness_poll_begin(struct liveness_watch *w, const char *queue);
size_t liveness_poll_end(struct liveness_watch *w, const char *queue);

/* Whether the peer of a connected socket has closed its side (FIN, RST or error), without
 * reading anything: what a long poll checks between its slices. */
bool liveness_peer_closed(int fd);

/* How many polls of queue are open now (a proxy whose poll is open is alive). */
size_t liveness_polls_open(struct liveness_watch *w, const char *queue);

#endif
