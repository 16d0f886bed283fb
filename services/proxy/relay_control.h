/*
 * relay_control.h: a local control socket for the data plane (unix stream socket, mode 0600).
 *
 * It lets the host's administrator, the tests and the benchmarks announce relay ids without
 * the broker, through the same calls the SOAP layer makes (relay_expect, relay_forward,
 * relay_stats). Whoever can open the socket can authorize relays, so it is created owner-only.
 *
 * Protocol: one command per line (at most RELAY_CONTROL_LINE_MAX bytes with the newline), one
 * reply line per command, "ok[ ...]" or "error <reason>":
 *
 *   expect <32 hex digits id> <ttl seconds>          -> ok
 *   forward <32 hex digits id> <host:port> <ttl s>   -> ok
 *   stats                                            -> ok legs_open=... (relay_stats_format)
 *
 * A client is served until it closes, sends a bad line length, or stays silent
 * RELAY_CONTROL_IDLE_MS; clients are served one at a time (it is not a hot path), so a
 * client that holds its connection open delays the others, and relay_control_stop, by at most
 * that idle time.
 */
#ifndef QCG_RELAY_CONTROL_H
#define QCG_RELAY_CONTROL_H

#include <stddef.h>

#include "model.h"
#include "relay.h"

#define RELAY_CONTROL_LINE_MAX 512
#define RELAY_CONTROL_IDLE_MS 5000

enum relay_control_verb {
	RELAY_CONTROL_EXPECT,
	RELAY_CONTROL_FORWARD,
	RELAY_CONTROL_STATS,
};

struct relay_control_command {
	enum relay_control_verb verb;
	struct relay_id id;               /* EXPECT, FORWARD */
	char next_hop[QCG_ENDPOINT_MAX];  /* FORWARD */
	unsigned ttl_s;                   /* EXPECT, FORWARD */
};

/* Parse one line (without its newline). Returns 0, or -1 with the reason in err. */
int relay_control_parse(const char *line, struct relay_control_command *cmd, char *err,
    size_t errlen);

struct relay_control;

/* Listen on `path` and serve commands against `plane` in a thread of its own. A stale socket
 * left at path is replaced; any other file there is an error. NULL with the reason in err. */
struct relay_control *relay_control_start(struct relay_plane *plane, const char *path, char *err,
    size_t errlen);

/* Stop serving, remove the socket file, free. */
void relay_control_stop(struct relay_control *ctl);

#endif
