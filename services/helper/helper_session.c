/*
 * helper_session.c: one local-API connection: HELLO first, then one request at a time
 * (helper_proto.h); WAIT_INBOUND turns the connection into an inbound channel.
 */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"
#include "helper_api.h"
#include "helper_outcomes.h"
#include "helper_frontend.h"
#include "helper_registrations.h"
#include "log.h"

static int
send_ok(struct session *s)
{
	struct helper_msg m;
	char err[128];
	helper_msg_init(&m, HELPER_MSG_OK);
	return helper_wire_send(s->sock, &m, -1, err, sizeof(err));
}

void
helper_session_remember(struct session *s, const char *to_address, uint16_t to_port,
    const char *cluster, const char *node)
{
	struct session_recent *r = &s->recent[s->recent_next++ % SESSION_RECENT_MAX];
	snprintf(r->to_address, sizeof(r->to_address), "%s", to_address);
	r->to_port = to_port;
	snprintf(r->to_cluster, sizeof(r->to_cluster), "%s", cluster);
	snprintf(r->to_node, sizeof(r->to_node), "%s", node);
	r->decided_here = false;
}

void
helper_session_remember_direct(struct session *s, const char *to_address, uint16_t to_port)
{
	helper_session_remember(s, to_address, to_port, "", "");
	s->recent[(s->recent_next - 1) % SESSION_RECENT_MAX].decided_here = true;
}

const struct session_recent *
helper_session_recall(const struct session *s, const char *to_address, uint16_t to_port)
{
	for (unsigned i = 0; i < SESSION_RECENT_MAX; i++) {
		const struct session_recent *r = &s->recent[i];
		if (r->to_port == to_port && r->to_address[0] != '\0' &&
		    strcmp(r->to_address, to_address) == 0)
			return r;
	}
	return NULL;
}

static int
on_hello(struct session *s, const struct helper_msg *m)
{
	char err[256];
	int code = helper_jobs_check(s->h->jobs, m->job, m->token, s->uid, err, sizeof(err));
	if (code != 0) {
		log_warn("local API: refused pid %d uid %u: %s", (int)s->pid, (unsigned)s->uid, err);
		helper_wire_send_err(s->sock, code, "%s", err);
		return -1;
	}
	s->hello_done = 1;
	snprintf(s->job, sizeof(s->job), "%s", m->job);
	log_debug("local API: pid %d uid %u joined job %s", (int)s->pid, (unsigned)s->uid, s->job);
	return send_ok(s);
}

static int
on_register(struct session *s, const struct helper_msg *m)
{
	struct access_point ap;
	char err[1024];
	memset(&ap, 0, sizeof(ap));
	snprintf(ap.job, sizeof(ap.job), "%s", s->job);
	snprintf(ap.cluster, sizeof(ap.cluster), "%s", s->h->cfg.cluster);
	snprintf(ap.node, sizeof(ap.node), "%s", s->h->cfg.node);
	snprintf(ap.address, sizeof(ap.address), "%s", m->address);
	ap.port = m->port;
	/* a process without a name of its own is known by its pid */
	if (m->process[0] != '\0')
		snprintf(ap.process, sizeof(ap.process), "%s", m->process);
	else
		snprintf(ap.process, sizeof(ap.process), "pid-%d", (int)s->pid);
	if (helper_registrations_submit(s->h, &ap, err, sizeof(err)) != 0) {
		log_warn("job %s: register %s:%u: %s", s->job, ap.address, ap.port, err);
		return helper_wire_send_err(s->sock, HELPER_ERR_REMOTE, "%s", err);
	}
	log_info("job %s: registered %s:%u (%s)", s->job, ap.address, ap.port, ap.process);
	return send_ok(s);
}

/* Whether a report of a connection the broker decided may wait for a batch: one that worked,
 * by a method the broker coordinated nothing for (the answers front-ends cache per cluster
 * pair). A failure, or a reversal, traversal or relay, goes at once: the broker's log of such
 * attempts is what an operator (and the start-up watch) reads while a job starts. */
static bool
batched(const struct connection_record *rec)
{
	return rec->succeeded &&
	    (rec->method == METHOD_DIRECT || rec->method == METHOD_PORT_RANGE);
}

static int
on_report(struct session *s, const struct helper_msg *m)
{
	struct connection_record rec;
	char err[1024];
	const struct session_recent *r = helper_session_recall(s, m->address, m->port);
	if (r == NULL)
		return helper_wire_send_err(s->sock, HELPER_ERR_NOT_FOUND,
		    "no RESOLVE of %s:%u on this connection to report on", m->address, m->port);
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.job, sizeof(rec.job), "%s", s->job);
	snprintf(rec.from_cluster, sizeof(rec.from_cluster), "%s", s->h->cfg.cluster);
	snprintf(rec.from_node, sizeof(rec.from_node), "%s", s->h->cfg.node);
	snprintf(rec.to_cluster, sizeof(rec.to_cluster), "%s", r->to_cluster);
	snprintf(rec.to_node, sizeof(rec.to_node), "%s", r->to_node);
	rec.to_port = m->port;
	rec.method = (enum connect_method)m->method;
	rec.succeeded = m->ok != 0;
	rec.setup_usec = (int64_t)(m->setup_usec > INT64_MAX ? INT64_MAX : m->setup_usec);
	rec.when = (int64_t)time(NULL);
	if (r->decided_here || batched(&rec)) { /* the broker learns of it in the next batch */
		helper_outcomes_queue(s->h, &rec, r->decided_here ? m->address : "");
		s->queued_outcomes = true;
		return send_ok(s);
	}
	if (helper_frontend_report(s->h, &rec, err, sizeof(err)) != 0)
		return helper_wire_send_err(s->sock, HELPER_ERR_REMOTE, "%s", err);
	return send_ok(s);
}

/* MCAST_GROUP: a multicast group for the session's job (the one HELLO proved), from the broker
 * through the front-end; the broker bounds how many one job may hold. */
static int
on_mcast_group(struct session *s)
{
	struct helper_msg a;
	char err[256];
	helper_msg_init(&a, HELPER_MSG_GROUP);
	if (helper_frontend_mcast_group(s->h, s->job, a.address, &a.port, err, sizeof(err)) != 0)
		return helper_wire_send_err(s->sock, HELPER_ERR_REMOTE, "%s", err);
	log_debug("job %s: pid %d got multicast group %s:%u", s->job, (int)s->pid, a.address,
	    a.port);
	return helper_wire_send(s->sock, &a, -1, err, sizeof(err));
}

/*
 * WAIT_INBOUND: register, answer OK, then only watch the connection: HANDOFFs are written by
 * whoever sets a connection up (helper_jobs_hand_inbound). Anything the process sends now, or
 * its leaving, ends the channel. Returns -1: the connection is done either way.
 */
static int
on_wait_inbound(struct session *s, const struct helper_msg *m)
{
	char err[256];
	if (helper_jobs_add_waiter(s->h->jobs, s->job, m->port, s->sock, err, sizeof(err)) != 0) {
		helper_wire_send_err(s->sock, HELPER_ERR_LIMIT, "%s", err);
		return -1;
	}
	log_debug("job %s: pid %d waits for inbound sockets on port %u", s->job, (int)s->pid, m->port);
	for (;;) {
		struct pollfd pfd = { .fd = s->sock, .events = POLLIN };
		int rc = poll(&pfd, 1, -1);
		if (rc > 0)
			break;
	}
	helper_jobs_remove_waiter(s->h->jobs, s->sock);
	return -1;
}

/* One request; -1 ends the connection. */
static int
dispatch(struct session *s, const struct helper_msg *m)
{
	if (m->type == HELPER_MSG_HELLO) {
		if (s->hello_done) {
			helper_wire_send_err(s->sock, HELPER_ERR_PROTOCOL, "HELLO was sent already");
			return -1;
		}
		return on_hello(s, m);
	}
	if (!s->hello_done) {
		helper_wire_send_err(s->sock, HELPER_ERR_DENIED, "HELLO must come first");
		return -1;
	}
	switch (m->type) {
	case HELPER_MSG_REGISTER: return on_register(s, m);
	case HELPER_MSG_RESOLVE: return helper_session_resolve(s, m);
	case HELPER_MSG_WAIT_INBOUND: return on_wait_inbound(s, m);
	case HELPER_MSG_REPORT: return on_report(s, m);
	case HELPER_MSG_MCAST_GROUP: return on_mcast_group(s);
	case HELPER_MSG_RESUME: return helper_session_resume(s, m);
	case HELPER_MSG_REPLAYED: return helper_session_replayed(s, m);
	default:
		helper_wire_send_err(s->sock, HELPER_ERR_PROTOCOL, "%s is not a request",
		    helper_msg_type_name(m->type));
		return -1;
	}
}

void
helper_session_run(struct session *s)
{
	struct helper_msg m;
	char err[256];
	int fd;
	struct timeval tv = { 5, 0 }; /* a process that stops reading cannot hold us longer */
	setsockopt(s->sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	helper_reader_init(&s->reader, 0);
	for (;;) {
		enum helper_wire_status st = helper_wire_read(s->sock, &s->reader, &m, &fd, -1,
		    s->h->cfg.client_io_ms, err, sizeof(err));
		if (st == HELPER_WIRE_ERROR || st == HELPER_WIRE_TIMEOUT) {
			log_warn("local API: pid %d uid %u: %s", (int)s->pid, (unsigned)s->uid, err);
			helper_wire_send_err(s->sock, HELPER_ERR_PROTOCOL, "%s", err);
			break;
		}
		if (st != HELPER_WIRE_OK || dispatch(s, &m) != 0)
			break;
	}
	helper_reader_clear(&s->reader);
	close(s->sock);
	if (s->queued_outcomes)
		helper_outcomes_flush_soon();
}
