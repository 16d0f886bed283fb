/*
 * relay_splice.h: two joined legs moving bytes to each other with splice(2), zero-copy.
 *
 * Each direction owns a pipe: splice(source socket -> pipe), then splice(pipe -> destination
 * socket). The pipe is the only buffer, so its size (F_SETPIPE_SZ) bounds the memory a relay
 * can pin. When a source reads EOF and its pipe is drained, the destination gets
 * shutdown(SHUT_WR): a half-close goes through, and the other direction keeps flowing. The
 * session is finished when both directions are.
 *
 * This module knows nothing about epoll: relay_session_pump() moves what it can without
 * blocking and says whether to wait for readiness, come back soon (budget spent), or close.
 * The caller must call it after any readiness change on either socket (edge-triggered epoll is
 * fine: the pump runs each direction until EAGAIN or until its budget is spent).
 */
#ifndef QCG_RELAY_SPLICE_H
#define QCG_RELAY_SPLICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One direction: bytes read from fd[src] go out on the other socket. */
struct relay_direction {
	int pipe_rd, pipe_wr; /* the pipe holding bytes in flight */
	size_t in_pipe;       /* bytes in the pipe now */
	bool src_eof;         /* the source sent FIN */
	bool done;            /* EOF seen, pipe drained, destination shut down for writing */
	bool src_marked;      /* the source sent a peer-gone mark (a proxy's: relay_hello.h) */
};

struct relay_session {
	int fd[2];                    /* fd[0] the first leg, fd[1] the second (or the next hop) */
	struct relay_direction dir[2]; /* dir[0]: fd[0] -> fd[1]; dir[1]: fd[1] -> fd[0] */
	size_t pipe_size;             /* capacity of each pipe, as the kernel granted it */
	bool wants_mark[2];           /* fd[i]'s hello asked for the peer-gone mark (relay_hello.h);
	                               * false after relay_session_init */
	bool is_hop[2];               /* fd[i] leads to another proxy (chained hello, or dialed):
	                               * its end means the far end ended only when it carried a mark */
};

/* The leg on `side` failed (a reset seen by epoll before any read or write did): give the other
 * leg the peer-gone mark if its hello asked for it (relay_hello.h), before the session closes. */
void relay_session_leg_failed(struct relay_session *s, int side);

enum relay_pump_result {
	RELAY_PUMP_WAIT,  /* nothing more to do until a socket becomes ready */
	RELAY_PUMP_AGAIN, /* budget spent with work left: pump again after other relays */
	RELAY_PUMP_DONE,  /* both directions closed: close the session */
	RELAY_PUMP_ERROR, /* a socket failed (reset...): errno says why; close the session */
};

/*
 * Set up a session for two connected non-blocking sockets; creates the two pipes and asks for
 * `pipe_size` bytes each (the kernel may round up, or refuse above a non-root user's limit, in
 * which case the default size is kept). On success the session owns fd0 and fd1; returns 0.
 * On failure returns -1 with errno set, and the caller still owns the sockets.
 */
int relay_session_init(struct relay_session *s, int fd0, int fd1, size_t pipe_size);

/* Which directions a readiness change can unblock (see relay_session_dirs_for). */
#define RELAY_DIR_0 0x1 /* fd[0] -> fd[1] */
#define RELAY_DIR_1 0x2 /* fd[1] -> fd[0] */
#define RELAY_DIR_BOTH (RELAY_DIR_0 | RELAY_DIR_1)

/* The directions to pump after epoll reported `events` on fd[side]: input on a socket feeds
 * the direction it is the source of, output space the direction it is the destination of;
 * errors and hang-ups concern both. Pumping only those saves a system call per event. */
unsigned relay_session_dirs_for(int side, uint32_t events);

/*
 * Move bytes in the directions of `dirs` (RELAY_DIR_*), at most `budget` bytes per direction.
 * Adds the bytes delivered to the destination sockets to moved[0] (fd[0] -> fd[1]) and
 * moved[1] (fd[1] -> fd[0]).
 */
enum relay_pump_result relay_session_pump(struct relay_session *s, unsigned dirs, size_t budget,
    uint64_t moved[2]);

/* Close both sockets and both pipes. */
void relay_session_close(struct relay_session *s);

#endif
