/*
 * helper_decision.h: the one conversion between the model's decision (lib/model.h, the broker's
 * answer as the helper holds it) and the DECISION message of the helper's local API
 * (helper_proto.h), in both directions. The helper writes a decision with the first, the
 * process's side (helper_client.h, libqcgnet.so) reads it back with the second, so that both
 * hold the same struct decision and nothing else has a shape of its own.
 *
 * The message carries what a process needs to carry a decision out: the method, the target's
 * address and port, the relay id, and the proxies' endpoints; a decision read back names no
 * cluster or node (has_target is false). HANDOFF_FOLLOWS is set for exactly the methods whose
 * socket the helper sets up itself (method_hands_off), and a message whose flag says otherwise
 * is refused.
 */
#ifndef QCG_HELPER_DECISION_H
#define QCG_HELPER_DECISION_H

#include <stddef.h>

#include "helper_proto.h"
#include "model.h"

void helper_decision_to_msg(const struct decision *d, struct helper_msg *m);
/* 0, or -1 with err when m is no DECISION or its flag disagrees with its method. The method
 * byte is taken as it is: a method this side does not know is its user's to refuse. */
int helper_decision_from_msg(const struct helper_msg *m, struct decision *out, char *err,
    size_t errlen);

#endif
