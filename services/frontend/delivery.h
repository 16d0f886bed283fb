/*
 * delivery.h: broker events on their way to the helpers, on a thread of their own so that a
 * slow or dead helper never holds up the broker link's long poll.
 *
 * A bounded queue (when full, the oldest waiting event is dropped with a warning); each event
 * goes to one node's helper by Deliver (helper.wsdl). A delivery that could not reach the
 * helper is retried a few times with growing delays, other events going first meanwhile, then
 * given up with an error in the log; one the helper refused with a fault is logged and not
 * retried (the same event would be refused again).
 */
#ifndef QCG_DELIVERY_H
#define QCG_DELIVERY_H

#include <stddef.h>

#include "model.h"

struct fe_config;
struct tls_settings;
struct delivery;

#define DELIVERY_QUEUE_MAX 1024 /* events waiting for delivery */
#define DELIVERY_ATTEMPTS 4     /* tries per event, 0.5 s, 1 s, 2 s apart */

struct delivery *delivery_start(const struct fe_config *cfg, const struct tls_settings *tls,
    char *err, size_t errlen);
/* Queue ev for the helper of cfg->nodes[node]. Never blocks for long. */
void delivery_enqueue(struct delivery *d, size_t node, const struct qcg_event *ev);
/* Stop the thread (events still queued are dropped, with a count in the log) and free. */
void delivery_stop(struct delivery *d);

#endif
