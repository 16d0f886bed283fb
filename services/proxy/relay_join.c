/*
 * relay_join.c: the life of a joined relay inside its worker: registering both sockets with
 * epoll, pumping on readiness, and closing.
 *
 * Both sockets are registered once, edge-triggered, for input and output: an edge pumps the
 * directions it can unblock (relay_splice.c runs each until EAGAIN), so no epoll_ctl is needed
 * per transfer. A relay that spends its byte budget goes on the worker's ready list and is pumped
 * again after the next epoll_wait, so one fast relay cannot starve the others.
 *
 * A relay closed while handling one event may still be named by a later event of the same
 * epoll_wait batch (its other socket), so closed relays are marked dead and freed only after
 * the batch.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "relay_splice.h"
#include "relay_worker.h"

/* Bytes one direction may move per pump before yielding to other relays. */
#define JOIN_PUMP_BUDGET (1u << 20)

struct relay_joined {
	struct relay_tag tag[2];     /* epoll tags of fd[0] and fd[1] */
	struct relay_session session;
	struct relay_id id;
	bool dead;                   /* closed; freed after the current batch */
	bool ready;                  /* on the ready list */
	struct relay_joined *prev, *next;  /* the worker's list of live relays */
	struct relay_joined *ready_next;   /* ready list, or dead list once dead */
};

static void
joined_unlink(struct relay_worker *w, struct relay_joined *j)
{
	if (j->prev != NULL)
		j->prev->next = j->next;
	else
		w->joined = j->next;
	if (j->next != NULL)
		j->next->prev = j->prev;
}

/* End the relay: close both legs and both pipes, account for it, and defer the free. */
static void
joined_end(struct relay_worker *w, struct relay_joined *j, bool completed, int err)
{
	char idhex[RELAY_ID_HEX_LEN + 1];

	relay_session_close(&j->session); /* closing the sockets also drops them from epoll */
	/* Gauges before counters, so whoever sees the relay counted as ended also sees its legs
	 * released. */
	atomic_fetch_sub(&w->shared->legs_open, 2);
	atomic_fetch_sub(&w->shared->relays_active, 1);
	if (completed) {
		RELAY_COUNT(w, relays_completed, 1);
	} else {
		RELAY_COUNT(w, relays_aborted, 1);
		relay_id_format(j->id.bytes, idhex);
		log_debug("relay %s aborted: %s", idhex, strerror(err));
	}
	joined_unlink(w, j);
	j->dead = true;
	/* A ready relay is skipped and freed by the ready pass; otherwise free it after the batch. */
	if (!j->ready) {
		j->ready_next = w->dead;
		w->dead = j;
	}
}

static void
joined_pump(struct relay_worker *w, struct relay_joined *j, unsigned dirs)
{
	uint64_t moved[2] = { 0, 0 };
	enum relay_pump_result r = relay_session_pump(&j->session, dirs, JOIN_PUMP_BUDGET, moved);

	if (moved[0] != 0)
		RELAY_COUNT(w, bytes[0], moved[0]);
	if (moved[1] != 0)
		RELAY_COUNT(w, bytes[1], moved[1]);
	switch (r) {
	case RELAY_PUMP_WAIT:
		break;
	case RELAY_PUMP_AGAIN:
		if (!j->ready) {
			j->ready = true;
			j->ready_next = w->ready;
			w->ready = j;
		}
		break;
	case RELAY_PUMP_DONE:
		joined_end(w, j, true, 0);
		break;
	case RELAY_PUMP_ERROR:
		joined_end(w, j, false, errno);
		break;
	}
}

static int
joined_register(struct relay_worker *w, struct relay_joined *j)
{
	for (int side = 0; side < 2; side++) {
		j->tag[side].kind = TAG_SESSION;
		j->tag[side].side = side;
		j->tag[side].owner = j;
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
			.data.ptr = &j->tag[side] };
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, j->session.fd[side], &ev) < 0)
			return -1;
	}
	return 0;
}

void
relay_join(struct relay_worker *w, int fd_first, int fd_second, const struct relay_id *id,
    bool forwarded)
{
	char idhex[RELAY_ID_HEX_LEN + 1];
	struct relay_joined *j = calloc(1, sizeof(*j));

	relay_id_format(id->bytes, idhex);
	if (j == NULL || relay_session_init(&j->session, fd_first, fd_second,
	    w->shared->cfg.pipe_size) < 0) {
		log_warn("relay %s: cannot join its legs: %s", idhex, strerror(errno));
		RELAY_COUNT(w, relays_aborted, 1);
		relay_worker_close_leg(w, fd_first);
		relay_worker_close_leg(w, fd_second);
		free(j);
		return;
	}
	j->session.wants_mark[0] = relay_leg_wants_mark(fd_first);
	j->session.wants_mark[1] = relay_leg_wants_mark(fd_second);
	j->session.is_hop[0] = relay_leg_is_hop(fd_first);
	j->session.is_hop[1] = relay_leg_is_hop(fd_second);
	j->id = *id;
	j->next = w->joined;
	if (w->joined != NULL)
		w->joined->prev = j;
	w->joined = j;
	atomic_fetch_add(&w->shared->relays_active, 1);
	RELAY_COUNT(w, relays_joined, 1);
	if (forwarded)
		RELAY_COUNT(w, relays_forwarded, 1);
	if (joined_register(w, j) < 0) {
		log_warn("relay %s: epoll: %s", idhex, strerror(errno));
		joined_end(w, j, false, errno);
		return;
	}
	log_debug("relay %s joined%s", idhex, forwarded ? " to its next hop" : "");
	joined_pump(w, j, RELAY_DIR_BOTH); /* bytes may have arrived right behind the hellos */
}

void
relay_join_event(struct relay_worker *w, struct relay_tag *tag, uint32_t events)
{
	struct relay_joined *j = tag->owner;

	if (j->dead)
		return;
	if (events & EPOLLERR) {
		/* An error with nothing to read or write (a reset while both directions wait) would
		 * otherwise go unnoticed under edge triggering. */
		int soerr = 0;
		socklen_t len = sizeof(soerr);
		getsockopt(j->session.fd[tag->side], SOL_SOCKET, SO_ERROR, &soerr, &len);
		if (soerr != 0) {
			relay_session_leg_failed(&j->session, tag->side);
			joined_end(w, j, false, soerr);
			return;
		}
	}
	joined_pump(w, j, relay_session_dirs_for(tag->side, events));
}

void
relay_join_run_ready(struct relay_worker *w)
{
	struct relay_joined *list = w->ready;

	w->ready = NULL;
	while (list != NULL) {
		struct relay_joined *j = list;
		list = j->ready_next;
		j->ready = false;
		if (j->dead) {
			j->ready_next = w->dead;
			w->dead = j;
			continue;
		}
		joined_pump(w, j, RELAY_DIR_BOTH);
	}
}

void
relay_join_free_dead(struct relay_worker *w)
{
	while (w->dead != NULL) {
		struct relay_joined *j = w->dead;
		w->dead = j->ready_next;
		free(j);
	}
}

void
relay_join_close_all(struct relay_worker *w)
{
	while (w->joined != NULL)
		joined_end(w, w->joined, false, ECANCELED);
	/* Ready relays are now all dead: move them to the dead list and free everything. */
	relay_join_run_ready(w);
	relay_join_free_dead(w);
}
