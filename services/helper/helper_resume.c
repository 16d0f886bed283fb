/*
 * helper_resume.c: RESUME on a node (issue 14). A process whose resumable relay lost its leg
 * asks for a new relay; the helper asks its front-end (ResumeRelay, for the session's job: the
 * job its HELLO proved with the job's token) and answers the new relay as a DECISION. The
 * broker checks that this node is one of the relay's two ends and gives both the same relay.
 */
#include "config.h"

#include <stdio.h>

#include "helper.h"
#include "helper_api.h"
#include "helper_decision.h"
#include "helper_frontend.h"
#include "log.h"
#include "relay_id.h"

int
helper_session_replayed(struct session *s, const struct helper_msg *req)
{
	char id[RELAY_ID_HEX_LEN + 1], err[1024];

	relay_id_format(req->relay_id, id);
	if (req->setup_usec > ((uint64_t)1 << 40))
		return helper_wire_send_err(s->sock, HELPER_ERR_PROTOCOL, "REPLAYED: %llu bytes is "
		    "not a replay", (unsigned long long)req->setup_usec);
	if (helper_frontend_report_replay(s->h, s->job, id, req->setup_usec, err,
		sizeof(err)) != 0) {
		log_warn("job %s: replay after relay %s not recorded: %s", s->job, id, err);
		return helper_wire_send_err(s->sock, HELPER_ERR_REMOTE, "%s", err);
	}
	struct helper_msg ok;
	helper_msg_init(&ok, HELPER_MSG_OK);
	return helper_wire_send(s->sock, &ok, -1, err, sizeof(err));
}

int
helper_session_resume(struct session *s, const struct helper_msg *req)
{
	struct decision res;
	struct helper_msg m;
	char id[RELAY_ID_HEX_LEN + 1], err[1024];
	bool refused;

	relay_id_format(req->relay_id, id);
	if (helper_frontend_resume_relay(s->h, s->job, id, &res, &refused, err, sizeof(err)) != 0) {
		log_warn("job %s: resume of relay %s for pid %d: %s", s->job, id, (int)s->pid, err);
		return helper_wire_send_err(s->sock, refused ? HELPER_ERR_NO_METHOD :
		    HELPER_ERR_REMOTE, "%s", err);
	}
	if ((res.method != METHOD_RELAY && res.method != METHOD_RELAY_CHAIN) ||
	    res.proxy_count == 0) {
		log_warn("job %s: resume of relay %s: the answer is %s with %zu proxies, not a relay",
		    s->job, id, connect_method_name(res.method), res.proxy_count);
		return helper_wire_send_err(s->sock, HELPER_ERR_REMOTE, "resume of relay %s: the "
		    "answer is not a relay", id);
	}
	res.resumable = true;
	helper_decision_to_msg(&res, &m);
	log_info("job %s: relay %s of pid %d resumed through %s", s->job, id, (int)s->pid,
	    res.proxy[0].endpoint);
	return helper_wire_send(s->sock, &m, -1, err, sizeof(err));
}
