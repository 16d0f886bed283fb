/*
 * relay_leg.c: a leg from accept() to its join: reading and judging its hello, parking it,
 * or dialing the next hop of a chain and sending that hop our hello.
 *
 * Every leg in this phase is a relay_handshake in the worker's FIFO, and every one shares the
 * same deadline (hello_timeout_ms after it started), so the FIFO is in deadline order and a
 * slow or silent leg (slowloris) is closed by popping the head.
 *
 * A leg whose id nobody has announced yet is not refused at once: the broker answers the
 * initiator, and tells the target's helper (through its front-end) and this proxy (its own
 * long poll) on separate paths, so on a loaded machine either leg can come first. A target
 * leg refused then was never retried: its initiator's leg waited for the partner timeout and
 * was closed with the application's first bytes unread, a reset (the testbed showed it:
 * "leg for relay 519de8... from 172.31.0.10 refused: unknown relay id" and the job hung). Such
 * a leg waits, out of epoll, in the worker's unannounced list for up to unknown_id_wait_ms;
 * relay_expect/relay_forward wake the workers, which claim it again. Legs of ids never
 * announced are still refused, only later; max_legs bounds how many can wait.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "relay_net.h"
#include "relay_worker.h"

struct relay_handshake {
	struct relay_tag tag;        /* TAG_HELLO_IN or TAG_HELLO_OUT */
	int fd;                      /* the socket in epoll */
	int inbound_fd;              /* TAG_HELLO_OUT: the leg being forwarded; -1 otherwise */
	uint8_t buf[RELAY_HELLO_SIZE]; /* IN: bytes received so far; OUT: the hello to send */
	size_t done;                 /* bytes received (IN) or sent (OUT) */
	struct relay_id id;          /* TAG_HELLO_OUT: the relay being forwarded */
	uint64_t deadline_ms;
	struct relay_handshake *prev, *next;
};

/* A leg whose hello named an id that is not announced (yet). */
struct relay_unannounced {
	int fd;
	struct relay_id id;
	uint64_t since_ms;    /* when the hello was read */
	uint64_t deadline_ms; /* refused as unknown from then on */
	struct relay_unannounced *next;
};

static void
hs_link(struct relay_worker *w, struct relay_handshake *hs)
{
	hs->next = NULL;
	hs->prev = w->hs_tail;
	if (w->hs_tail != NULL)
		w->hs_tail->next = hs;
	else
		w->hs_head = hs;
	w->hs_tail = hs;
}

static void
hs_unlink(struct relay_worker *w, struct relay_handshake *hs)
{
	if (hs->prev != NULL)
		hs->prev->next = hs->next;
	else
		w->hs_head = hs->next;
	if (hs->next != NULL)
		hs->next->prev = hs->prev;
	else
		w->hs_tail = hs->prev;
}

/* Forget the handshake; with close_legs its sockets are closed, else the caller took them. */
static void
hs_finish(struct relay_worker *w, struct relay_handshake *hs, bool close_legs)
{
	hs_unlink(w, hs);
	if (close_legs) {
		relay_worker_close_leg(w, hs->fd);
		if (hs->inbound_fd >= 0)
			relay_worker_close_leg(w, hs->inbound_fd);
	} else {
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, hs->fd, NULL);
	}
	free(hs);
}

static struct relay_handshake *
hs_start(struct relay_worker *w, enum relay_tag_kind kind, int fd, uint32_t events,
    uint64_t now_ms)
{
	struct relay_handshake *hs = calloc(1, sizeof(*hs));

	if (hs == NULL)
		return NULL;
	hs->tag.kind = kind;
	hs->tag.owner = hs;
	hs->fd = fd;
	hs->inbound_fd = -1;
	hs->deadline_ms = now_ms + w->shared->cfg.hello_timeout_ms;
	struct epoll_event ev = { .events = events, .data.ptr = &hs->tag };
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		free(hs);
		return NULL;
	}
	hs_link(w, hs);
	return hs;
}

void
relay_leg_accepted(struct relay_worker *w, int fd, uint64_t now_ms)
{
	RELAY_COUNT(w, legs_accepted, 1);
	/* Level-triggered: the hello is read in one or a few small reads. */
	if (relay_net_tune_leg(fd) < 0 || hs_start(w, TAG_HELLO_IN, fd, EPOLLIN, now_ms) == NULL) {
		log_warn("%s: cannot set up a new leg: %s", __func__, strerror(errno));
		relay_worker_close_leg(w, fd);
	}
}

/* Per fd, the flags of that leg's hello (the peer-gone mark, a hop). Every leg's entry is written
 * when its hello is read or, for a leg we dial, when it is dialed, before the join reads it:
 * what a closed earlier holder of the fd number left is overwritten. Threads of the process
 * share fd numbers, hence atomics. An fd above the table gets no mark (it resumes in vain, as
 * without the mark). */
#define MARK_FDS 65536
static atomic_uchar g_hello_flags[MARK_FDS]; /* RELAY_HELLO_FLAG_* of the leg on fd */

static void
leg_note_flags(int fd, uint8_t flags)
{
	if (fd >= 0 && fd < MARK_FDS)
		atomic_store(&g_hello_flags[fd], flags);
}

static uint8_t
leg_flags(int fd)
{
	return fd >= 0 && fd < MARK_FDS ? atomic_load(&g_hello_flags[fd]) : 0;
}

bool
relay_leg_wants_mark(int fd)
{
	return (leg_flags(fd) & RELAY_HELLO_FLAG_PEER_GONE_MARK) != 0;
}

bool
relay_leg_is_hop(int fd)
{
	return (leg_flags(fd) & RELAY_HELLO_FLAG_CHAINED) != 0;
}

/* Dial the next hop for a leg whose relay is to be forwarded; the leg waits out of epoll. */
static void
leg_forward(struct relay_worker *w, int inbound_fd, const struct relay_id *id,
    const struct relay_claim_result *claim, uint64_t now_ms)
{
	char hop[96];

	relay_net_format((const struct sockaddr *)&claim->next_hop, hop, sizeof(hop));
	if (atomic_fetch_add(&w->shared->legs_open, 1) >= (long)w->shared->cfg.max_legs) {
		atomic_fetch_sub(&w->shared->legs_open, 1);
		RELAY_COUNT(w, legs_refused, 1);
		relay_worker_log_refusal(w, "forward to %s refused: max-legs reached", hop);
		relay_worker_close_leg(w, inbound_fd);
		return;
	}
	int fd = relay_net_connect_start((const struct sockaddr *)&claim->next_hop,
	    claim->next_hop_len);
	struct relay_handshake *hs = fd < 0 ? NULL :
	    hs_start(w, TAG_HELLO_OUT, fd, EPOLLOUT, now_ms);
	if (hs == NULL) {
		log_warn("%s: cannot connect to next hop %s: %s", __func__, hop, strerror(errno));
		RELAY_COUNT(w, forwards_failed, 1);
		if (fd >= 0)
			relay_worker_close_leg(w, fd);
		else
			atomic_fetch_sub(&w->shared->legs_open, 1);
		relay_worker_close_leg(w, inbound_fd);
		return;
	}
	hs->inbound_fd = inbound_fd;
	hs->id = *id;
	/* The near leg's wish travels on: the next hop marks our leg when the far end ends, and
	 * we pass that on (relay_splice.c); we mark our leg when the near end ends. */
	uint8_t flags = RELAY_HELLO_FLAG_CHAINED |
	    (leg_flags(inbound_fd) & RELAY_HELLO_FLAG_PEER_GONE_MARK);
	leg_note_flags(fd, flags);
	relay_hello_encode(hs->buf, id, flags);
}

/* Act on what the table said about a leg (refusals close it). */
static void
leg_act(struct relay_worker *w, int fd, const struct relay_id *id, enum relay_claim claim,
    const struct relay_claim_result *result, uint64_t now_ms)
{
	char idhex[RELAY_ID_HEX_LEN + 1];

	relay_id_format(id->bytes, idhex);
	switch (claim) {
	case RELAY_CLAIM_PARKED:
		log_debug("relay %s: first leg waits for its partner", idhex);
		return;
	case RELAY_CLAIM_JOIN:
		relay_join(w, result->partner_fd, fd, id, false);
		return;
	case RELAY_CLAIM_FORWARD:
		leg_forward(w, fd, id, result, now_ms);
		return;
	case RELAY_CLAIM_UNKNOWN:
		RELAY_COUNT(w, ids_unknown, 1);
		break;
	case RELAY_CLAIM_REUSED:
		RELAY_COUNT(w, ids_reused, 1);
		break;
	case RELAY_CLAIM_FULL:
		RELAY_COUNT(w, legs_refused, 1);
		break;
	}
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	char from[96] = "?";
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) == 0)
		relay_net_format((struct sockaddr *)&peer, from, sizeof(from));
	relay_worker_log_refusal(w, "leg for relay %s from %s refused: %s", idhex, from,
	    relay_claim_name(claim));
	relay_worker_close_leg(w, fd);
}

/*
 * Keep a leg whose id is unknown until its announcement comes (or the wait is over). The
 * gauge is raised before claiming once more: an announcement made after relay_expect read the
 * gauge as zero is seen by this claim (see wake_unannounced in relay.c). Returns true when the
 * leg is kept, false when the caller acts on *claim (now known, or no room to wait).
 */
static bool
leg_hold_unannounced(struct relay_worker *w, int fd, const struct relay_id *id,
    enum relay_claim *claim, struct relay_claim_result *result, uint64_t now_ms)
{
	struct relay_unannounced *u = malloc(sizeof(*u));
	if (u == NULL)
		return false;
	atomic_fetch_add(&w->shared->legs_unannounced, 1);
	*claim = relay_table_claim(w->shared->table, id, fd, now_ms, result);
	if (*claim != RELAY_CLAIM_UNKNOWN) {
		atomic_fetch_sub(&w->shared->legs_unannounced, 1);
		free(u);
		if (*claim == RELAY_CLAIM_PARKED || *claim == RELAY_CLAIM_JOIN ||
		    *claim == RELAY_CLAIM_FORWARD)
			RELAY_COUNT(w, ids_late, 1);
		return false;
	}
	u->fd = fd;
	u->id = *id;
	u->since_ms = now_ms;
	u->deadline_ms = now_ms + w->shared->cfg.unknown_id_wait_ms;
	u->next = NULL;
	if (w->un_tail != NULL)
		w->un_tail->next = u;
	else
		w->un_head = u;
	w->un_tail = u;
	return true;
}

/* The hello is whole and valid: ask the table what this leg is, and act on it. */
static void
leg_claim(struct relay_worker *w, int fd, const struct relay_hello *hello, uint64_t now_ms)
{
	struct relay_claim_result result;
	leg_note_flags(fd, hello->flags);
	enum relay_claim claim = relay_table_claim(w->shared->table, &hello->id, fd, now_ms, &result);

	if (claim == RELAY_CLAIM_UNKNOWN && w->shared->cfg.unknown_id_wait_ms > 0 &&
	    leg_hold_unannounced(w, fd, &hello->id, &claim, &result, now_ms))
		return;
	leg_act(w, fd, &hello->id, claim, &result, now_ms);
}

void
relay_leg_recheck_unannounced(struct relay_worker *w, uint64_t now_ms)
{
	struct relay_unannounced **link = &w->un_head, *prev = NULL;

	while (*link != NULL) {
		struct relay_unannounced *u = *link;
		struct relay_claim_result result;
		enum relay_claim claim = relay_table_claim(w->shared->table, &u->id, u->fd, now_ms,
		    &result);
		if (claim == RELAY_CLAIM_UNKNOWN && now_ms < u->deadline_ms) {
			prev = u;
			link = &u->next;
			continue;
		}
		*link = u->next;
		if (w->un_tail == u)
			w->un_tail = prev;
		atomic_fetch_sub(&w->shared->legs_unannounced, 1);
		if (claim == RELAY_CLAIM_PARKED || claim == RELAY_CLAIM_JOIN ||
		    claim == RELAY_CLAIM_FORWARD) {
			char idhex[RELAY_ID_HEX_LEN + 1];
			relay_id_format(u->id.bytes, idhex);
			RELAY_COUNT(w, ids_late, 1);
			/* budgeted like refusals: the sign of a slow broker path, worth seeing */
			relay_worker_log_refusal(w, "leg for relay %s waited %llu ms for its "
			    "announcement", idhex, (unsigned long long)(now_ms - u->since_ms));
		}
		int fd = u->fd;
		struct relay_id id = u->id;
		free(u);
		leg_act(w, fd, &id, claim, &result, now_ms);
	}
}

/* Read what is missing of the hello (never more: what follows is payload for the partner). */
static void
leg_read_hello(struct relay_worker *w, struct relay_handshake *hs, uint64_t now_ms)
{
	struct relay_hello hello;
	ssize_t n = recv(hs->fd, hs->buf + hs->done, RELAY_HELLO_SIZE - hs->done, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) { /* gone before saying who it is */
		hs_finish(w, hs, true);
		return;
	}
	hs->done += (size_t)n;
	enum relay_hello_status st = relay_hello_parse(hs->buf, hs->done, &hello);
	if (st == RELAY_HELLO_INCOMPLETE)
		return;
	if (st != RELAY_HELLO_OK) {
		RELAY_COUNT(w, hellos_rejected, 1);
		relay_worker_log_refusal(w, "leg refused: malformed hello (%s)",
		    relay_hello_status_name(st));
		hs_finish(w, hs, true);
		return;
	}
	int fd = hs->fd;
	hs_finish(w, hs, false); /* out of epoll before another worker may own it */
	leg_claim(w, fd, &hello, now_ms);
}

/* Our leg to the next hop is writable: connected (or failed); send the hello, then join. */
static void
leg_send_hello(struct relay_worker *w, struct relay_handshake *hs)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	char idhex[RELAY_ID_HEX_LEN + 1];

	relay_id_format(hs->id.bytes, idhex);
	if (getsockopt(hs->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		soerr = errno;
	if (soerr == 0) {
		ssize_t n = send(hs->fd, hs->buf + hs->done, RELAY_HELLO_SIZE - hs->done,
		    MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0)
			soerr = errno;
		else
			hs->done += (size_t)n;
	}
	if (soerr != 0) {
		log_warn("relay %s: next hop failed: %s", idhex, strerror(soerr));
		RELAY_COUNT(w, forwards_failed, 1);
		hs_finish(w, hs, true);
		return;
	}
	if (hs->done < RELAY_HELLO_SIZE)
		return;
	int inbound = hs->inbound_fd, outbound = hs->fd;
	struct relay_id id = hs->id;
	hs_finish(w, hs, false);
	relay_join(w, inbound, outbound, &id, true);
}

void
relay_leg_event(struct relay_worker *w, struct relay_tag *tag, uint32_t events, uint64_t now_ms)
{
	struct relay_handshake *hs = tag->owner;

	if (tag->kind == TAG_HELLO_IN)
		leg_read_hello(w, hs, now_ms);
	else
		leg_send_hello(w, hs);
}

void
relay_leg_expire(struct relay_worker *w, uint64_t now_ms)
{
	while (w->hs_head != NULL && w->hs_head->deadline_ms <= now_ms) {
		struct relay_handshake *hs = w->hs_head;
		if (hs->tag.kind == TAG_HELLO_IN) {
			RELAY_COUNT(w, timeouts_hello, 1);
			relay_worker_log_refusal(w, "leg closed: no complete hello within %u ms",
			    w->shared->cfg.hello_timeout_ms);
		} else {
			RELAY_COUNT(w, forwards_failed, 1);
			relay_worker_log_refusal(w, "forward closed: next hop silent for %u ms",
			    w->shared->cfg.hello_timeout_ms);
		}
		hs_finish(w, hs, true);
	}
}

void
relay_leg_close_all(struct relay_worker *w)
{
	while (w->hs_head != NULL)
		hs_finish(w, w->hs_head, true);
	while (w->un_head != NULL) {
		struct relay_unannounced *u = w->un_head;
		w->un_head = u->next;
		atomic_fetch_sub(&w->shared->legs_unannounced, 1);
		relay_worker_close_leg(w, u->fd);
		free(u);
	}
	w->un_tail = NULL;
}
