/*
 * fe_decision.h: a broker decision or event held by the front-end outside any gSOAP context
 * (in the resolution cache, in the delivery queue). Plain fixed-size structs.
 */
#ifndef QCG_FE_DECISION_H
#define QCG_FE_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define FE_RELAY_ID_HEX (2 * QCG_RELAY_ID_BYTES + 1) /* 32 hex digits and the NUL */
#define FE_EVENT_KIND_MAX 16

struct fe_decision {
	enum connect_method method;
	bool has_target;
	struct access_point target;          /* the peer's registered access point */
	char target_public_address[QCG_ADDR_MAX];
	char relay_id[FE_RELAY_ID_HEX];      /* "" for direct and port range */
	size_t proxy_count;                  /* 0-2 */
	struct proxy proxy[2];
};

struct fe_event {
	int64_t sequence;
	char kind[FE_EVENT_KIND_MAX];        /* "connect", "job-ended", or what a newer broker sends */
	char job[QCG_NAME_MAX];
	char node[QCG_NAME_MAX];             /* the target node, for "connect" */
	bool has_port;
	uint16_t port;
	bool has_initiator;
	struct access_point initiator;
	char initiator_public_address[QCG_ADDR_MAX];
	bool has_decision;
	struct fe_decision decision;
};

/* Whether an answer may be replayed from the cache: only those that need nothing from the
 * target side (direct and port range); the others carry a one-time id. */
static inline bool
fe_decision_cacheable(const struct fe_decision *d)
{
	return d->method == METHOD_DIRECT || d->method == METHOD_PORT_RANGE;
}

#endif
