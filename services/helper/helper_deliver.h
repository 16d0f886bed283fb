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

struct helper_setup {
	char job[QCG_NAME_MAX];
	uint16_t port;                          /* the target process's listening port */
	enum connect_method method;
	char initiator_address[QCG_ADDR_MAX];   /* the initiator helper's rendezvous endpoint */
	uint16_t initiator_port;
	char initiator_public[QCG_ADDR_MAX];    /* its cluster's public address, or "" */
	uint8_t relay_id[QCG_RELAY_ID_BYTES];
	size_t proxy_count;
	char proxy[2][QCG_ENDPOINT_MAX];
};

/* Check the set-up and start it in the background (at most helper.max_setups at once). -1 with
 * err when it is malformed or over the limit. */
int helper_deliver_connect(struct helper *h, const struct helper_setup *s, char *err,
    size_t errlen);

#endif
