/*
 * broker_link.h: the front-end's standing relation with the broker, on a thread of its own
 * with its own kept-alive client context.
 *
 * It registers the cluster (retrying until the broker answers), then long-polls WaitEvents for
 * the cluster's queue with afterSequence = the last sequence seen, and hands each new event to
 * a callback. Any failure (broker killed, restarted, unreachable, a fault) backs off (0.2 s,
 * doubling to 5 s), registers the cluster again and resumes: a broker restart needs no help.
 * Sequence numbers keep growing across broker restarts (services/broker/events.h), so the
 * last one seen stays a valid cursor.
 */
#ifndef QCG_BROKER_LINK_H
#define QCG_BROKER_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct fe_config;
struct tls_settings;
struct broker_link;

#define BROKER_LINK_BACKOFF_MIN 0.2 /* seconds after the first failure */
#define BROKER_LINK_BACKOFF_MAX 5.0 /* seconds between attempts at most */

/* Called on the link's thread for every event, in sequence order; must not block for long. */
typedef void (*broker_event_fn)(void *arg, const struct qcg_event *ev);

/* Start the thread. cfg and tls must outlive the link. */
struct broker_link *broker_link_start(const struct fe_config *cfg, const struct tls_settings *tls,
    broker_event_fn on_event, void *arg, char *err, size_t errlen);
/* Stop the thread (it interrupts a long poll in progress) and free the link. */
void broker_link_stop(struct broker_link *link);

/* For logs and tests: successful registrations so far, and the last sequence seen. */
void broker_link_stats(struct broker_link *link, unsigned long *registrations, int64_t *last_seq);

#endif
