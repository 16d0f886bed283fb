/*
 * helper_outcomes.h: the record of connections nobody waits for, sent in batches (issue 15).
 *
 * A connection the helper decided by itself (helper_direct.h), or one the broker decided
 * without coordinating anything (direct or port range, the answers the front-end caches per
 * cluster pair), needs the broker only for its log. Such records wait here and go to the
 * front-end in batches (ReportOutcomes: once OUTCOME_BATCH_MAX records wait or the oldest is
 * OUTCOME_BATCH_AGE_MS old, up to OUTCOME_SEND_MAX in one call), so that a job of P ranks
 * costs the broker a call per batch instead of one per connection, and qcg-query connections
 * still lists every connection. A failed attempt, and a method the broker coordinated
 * (reversal, traversal, relay), is reported at once (helper_session.c).
 */
#ifndef QCG_HELPER_OUTCOMES_H
#define QCG_HELPER_OUTCOMES_H

#include "model.h"

struct helper;

#define OUTCOME_SEND_MAX QCG_OUTCOMES_PER_CALL /* records per ReportOutcomes when more wait */
/* This many waiting records are sent at once: a full call. Fewer would cost the node, its
 * front-end and the broker a call per few dozen connections in the middle of a storm (64 did:
 * at P = 1024 some 20 calls crossed the set-up of a ring); the age below bounds the wait. */
#define OUTCOME_BATCH_MAX OUTCOME_SEND_MAX
#define OUTCOME_BATCH_AGE_MS 200    /* the oldest waiting record is sent by then */
#define OUTCOME_QUEUE_MAX 16384     /* records waiting at most; a process reporting another
				       waits for room, then its record is dropped, counted */
#define OUTCOME_FULL_WAIT_MS 5000   /* that wait, at most */

/* Queue rec. to_address: where the connection went, for the broker to find the target's
 * cluster and node; "" when rec names them already. Never waits on the network itself; when
 * OUTCOME_QUEUE_MAX records wait, it waits up to OUTCOME_FULL_WAIT_MS for the batch thread to
 * take some. */
void helper_outcomes_queue(struct helper *h, const struct connection_record *rec,
    const char *to_address);

/* Send what waits without waiting for its age (a process of a job ended: its connections are
 * all known, and a listing asked for right after the job should have them). */
void helper_outcomes_flush_soon(void);

#endif
