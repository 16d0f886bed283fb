/*
 * helper_deliver.h: the target side of a connection, as a broker "connect" event (delivered
 * by the front-end's Deliver call) describes it: connect out (reversal: to the initiator's
 * rendezvous endpoint; relays: to the proxy; traversal: simultaneous open from the same port),
 * present the id, and hand the socket to the process waiting on the event's port.
 */
#ifndef QCG_HELPER_DELIVER_H
#define QCG_HELPER_DELIVER_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct helper;

/* Check the connect event (its decision says the method, the relay id and the proxies; its
 * initiator is the initiator helper's rendezvous endpoint, with its cluster's public address)
 * and start the set-up in the background (at most helper.max_setups at once). -1 with err when
 * it is malformed or over the limit. */
int helper_deliver_connect(struct helper *h, const struct qcg_event *ev, char *err,
    size_t errlen);

#endif
