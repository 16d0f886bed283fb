/*
 * helper_decision.c: the model's decision as a DECISION message and back (helper_decision.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "helper_decision.h"

void
helper_decision_to_msg(const struct decision *d, struct helper_msg *m)
{
	helper_msg_init(m, HELPER_MSG_DECISION);
	m->method = (uint8_t)d->method;
	snprintf(m->address, sizeof(m->address), "%s", d->target.address);
	m->port = d->target.port;
	memcpy(m->relay_id, d->relay_id.bytes, sizeof(m->relay_id));
	m->proxy_count = (uint8_t)(d->proxy_count < 2 ? d->proxy_count : 2);
	for (size_t i = 0; i < m->proxy_count; i++)
		snprintf(m->proxy[i], sizeof(m->proxy[i]), "%s", d->proxy[i].endpoint);
	if (method_hands_off(d->method))
		m->flags = HELPER_FLAG_HANDOFF_FOLLOWS;
	if (d->resumable && (d->method == METHOD_RELAY || d->method == METHOD_RELAY_CHAIN))
		m->flags |= HELPER_FLAG_RESUMABLE;
}

int
helper_decision_from_msg(const struct helper_msg *m, struct decision *out, char *err,
    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (m->type != HELPER_MSG_DECISION) {
		snprintf(err, errlen, "a DECISION was expected, qcg-helper answered %s",
		    helper_msg_type_name(m->type));
		return -1;
	}
	out->method = (enum connect_method)m->method;
	if (((m->flags & HELPER_FLAG_HANDOFF_FOLLOWS) != 0) != method_hands_off(out->method)) {
		snprintf(err, errlen, "DECISION: HANDOFF_FOLLOWS %s for method %d",
		    m->flags & HELPER_FLAG_HANDOFF_FOLLOWS ? "set" : "missing", m->method);
		return -1;
	}
	/* the parser bounded every field (helper_proto.h): the copies fit */
	memcpy(out->target.address, m->address, sizeof(out->target.address));
	out->target.port = m->port;
	memcpy(out->relay_id.bytes, m->relay_id, sizeof(out->relay_id.bytes));
	out->resumable = (m->flags & HELPER_FLAG_RESUMABLE) != 0;
	out->proxy_count = m->proxy_count < 2 ? m->proxy_count : 2;
	for (size_t i = 0; i < out->proxy_count; i++)
		memcpy(out->proxy[i].endpoint, m->proxy[i], sizeof(out->proxy[i].endpoint));
	return 0;
}
