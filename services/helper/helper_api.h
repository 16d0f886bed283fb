/*
 * helper_api.h: the local API's server: a unix socket (helper.socket, with helper.socket_mode
 * and helper.socket_group), an accept thread, and one thread per connection (at most
 * helper.max_clients), each running a session (helper_session.c).
 */
#ifndef QCG_HELPER_API_H
#define QCG_HELPER_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "helper_proto.h"
#include "helper_wire.h"

struct helper;
struct helper_api;

/* Create the socket (replacing a stale one) and start accepting. */
int helper_api_start(struct helper *h, struct helper_api **out, char *err, size_t errlen);
/* Stop accepting and remove the socket file; sessions end when their peers go. */
void helper_api_stop(struct helper_api *api);

/* ---- one connection (helper_session.c, helper_resolve.c) ---------------------------------- */

#define SESSION_RECENT_MAX 16 /* RESOLVEs remembered for later REPORTs */

struct session_recent {
	char to_address[QCG_ADDR_MAX];
	uint16_t to_port;
	char to_cluster[QCG_NAME_MAX];
	char to_node[QCG_NAME_MAX];
	bool decided_here;         /* direct without a Resolve: its REPORT goes to the batch */
};

struct session {
	struct helper *h;
	int sock;
	uid_t uid;                 /* SO_PEERCRED of the caller */
	pid_t pid;
	int hello_done;
	char job[QCG_NAME_MAX];    /* from HELLO */
	struct helper_reader reader;
	struct session_recent recent[SESSION_RECENT_MAX];
	unsigned recent_next;
	bool queued_outcomes;      /* it left records to a batch (helper_outcomes.h) */
};

/* Serve one connection until the peer leaves or breaks the protocol; closes sock. */
void helper_session_run(struct session *s);
/* RESOLVE: ask the front-end and carry the decision out (helper_resolve.c). 0, or -1 when the
 * connection must close. */
int helper_session_resolve(struct session *s, const struct helper_msg *req);
/* The DECISION message for a decision (helper_resolve.c). */
/* RESUME: a new relay for a resumable relay whose leg broke (helper_resume.c, issue 14). 0, or
 * -1 when the connection must close. */
int helper_session_resume(struct session *s, const struct helper_msg *req);
/* REPLAYED: what a process sent again after a resume, passed on for the statistics. */
int helper_session_replayed(struct session *s, const struct helper_msg *req);
/* Remember where a RESOLVE led, for a later REPORT. */
void helper_session_remember(struct session *s, const char *to_address, uint16_t to_port,
    const char *cluster, const char *node);
/* Remember a connect decided here (helper_direct.h): its REPORT is batched. */
void helper_session_remember_direct(struct session *s, const char *to_address,
    uint16_t to_port);
const struct session_recent *helper_session_recall(const struct session *s,
    const char *to_address, uint16_t to_port);

#endif
