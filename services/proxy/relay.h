/*
 * relay.h: the data plane of qcg-proxy, as a library the rest of the proxy calls.
 *
 * relay_start() opens the listeners and starts one worker thread per core; from then on legs
 * connect, send their hello (relay_hello.h) and are joined with the other leg of the same relay
 * id, or forwarded to a next-hop proxy. Which ids are usable is decided by whoever calls
 * relay_expect() and relay_forward(): the SOAP layer, when the broker announces a relay, or the
 * local control socket (relay_control.h). relay_stats() gives a snapshot for the statistics
 * query. Every function here is thread-safe.
 *
 * The plane ignores SIGPIPE for the whole process (splice(2) has no MSG_NOSIGNAL): a leg that
 * vanishes mid-write must fail one relay, not kill the proxy.
 */
#ifndef QCG_RELAY_H
#define QCG_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "relay_hello.h"

/* Hard bounds the configuration is checked against. */
#define RELAY_MAX_THREADS 256
#define RELAY_MAX_LEGS_LIMIT 1000000u
#define RELAY_PIPE_SIZE_MIN 4096u
#define RELAY_PIPE_SIZE_MAX (1u << 20)
#define RELAY_TIMEOUT_MAX_MS 3600000u /* one hour */
#define RELAY_ID_TTL_MAX_S 86400u     /* an announcement lives at most a day */

struct relay_config {
	char listen_host[QCG_ADDR_MAX]; /* address of the relay port; "" = the wildcard address
	                                 * getaddrinfo offers first (0.0.0.0 normally; give "::"
	                                 * for dual-stack) */
	uint16_t listen_port;           /* 0 = any free port (see relay_port) */
	unsigned threads;               /* worker threads; 0 = one per online core */
	unsigned max_legs;              /* legs open at once (handshaking, waiting, joined);
	                                 * lowered at start to what RLIMIT_NOFILE can hold */
	unsigned max_ids;               /* relay ids remembered at once (announced or used) */
	unsigned pipe_size;             /* bytes buffered per direction of a relay */
	unsigned hello_timeout_ms;      /* a leg must complete its hello within this */
	unsigned partner_timeout_ms;    /* a first leg waits this long for its partner */
	unsigned unknown_id_wait_ms;    /* a leg whose id is not announced (yet) waits this long
	                                 * for the announcement before it is refused; 0 = refuse
	                                 * at once. The broker answers the initiator and tells the
	                                 * target's helper and the proxy on three separate paths,
	                                 * so either leg may arrive before the proxy's own event */
	unsigned used_id_ttl_ms;        /* a used id is refused as "reused" this long */
	bool accept_any_id;             /* INSECURE (tests, benchmarks): no announcement needed */
};

/* Counters since relay_start, and gauges of the moment. */
struct relay_stats {
	uint64_t legs_open;         /* gauge: legs connected (handshaking, waiting, joined) */
	uint64_t legs_waiting;      /* gauge: first legs waiting for their partner */
	uint64_t legs_unannounced;  /* gauge: legs waiting for their id's announcement */
	uint64_t relays_active;     /* gauge: joined relays moving bytes */
	uint64_t ids_expected;      /* gauge: announced ids not yet claimed (incl. forwards) */
	uint64_t legs_accepted;     /* legs accepted on the relay port */
	uint64_t legs_refused;      /* legs closed at once because max_legs were open */
	uint64_t relays_joined;     /* relays whose two legs met here */
	uint64_t relays_forwarded;  /* relays joined with a next-hop proxy */
	uint64_t relays_completed;  /* relays ended by EOF both ways */
	uint64_t relays_aborted;    /* relays ended by an error (reset, ...) */
	uint64_t bytes_first_to_second; /* payload from the first leg to the second (or next hop) */
	uint64_t bytes_second_to_first; /* payload the other way */
	uint64_t hellos_rejected;   /* malformed hellos (bad magic, version, flags) */
	uint64_t ids_unknown;       /* hellos naming an id nobody announced (in time) */
	uint64_t ids_late;          /* legs that came before their id's announcement and got it */
	uint64_t ids_reused;        /* hellos naming an id whose relay already happened */
	uint64_t timeouts_hello;    /* legs that did not finish their hello in time */
	uint64_t timeouts_partner;  /* first legs whose partner never came */
	uint64_t forwards_failed;   /* next hop unreachable or too slow */
};

struct relay_plane;

/* Fill cfg with the defaults (all addresses, port 7300, one thread per core, 16384 legs,
 * 65536 ids, 256 KiB pipes, 10 s hello, 30 s partner, 5 s wait for an unannounced id, 60 s
 * used-id memory). */
void relay_config_defaults(struct relay_config *cfg);

/* Check cfg against the bounds above; 0, or -1 with the offending setting named in err. */
int relay_config_check(const struct relay_config *cfg, char *err, size_t errlen);

/* Start the plane. Returns NULL with the reason in err on failure. */
struct relay_plane *relay_start(const struct relay_config *cfg, char *err, size_t errlen);

/* Stop the workers, close every leg and free the plane. */
void relay_stop(struct relay_plane *plane);

/* The port the relay listeners are bound to (useful after listen_port 0). */
uint16_t relay_port(const struct relay_plane *plane);

/* A snapshot of the statistics (counters are summed over the workers; each is exact, the set is
 * not one atomic instant). */
void relay_stats(struct relay_plane *plane, struct relay_stats *out);

/* Format a snapshot as one line of "name=value" pairs separated by spaces (the control
 * socket's reply and the periodic log line). Returns what snprintf returns. */
int relay_stats_format(const struct relay_stats *st, char *buf, size_t len);

/*
 * Allow two legs presenting `id` to be joined if the first arrives within ttl_s seconds
 * (1..RELAY_ID_TTL_MAX_S). Returns 0, or -1 with the reason in err (id already in use, too
 * many ids pending).
 */
int relay_expect(struct relay_plane *plane, const struct relay_id *id, unsigned ttl_s, char *err,
    size_t errlen);

/*
 * When a leg presenting `id` arrives within ttl_s seconds, connect to `next_hop` ("host:port"
 * of another qcg-proxy), send it a hello with the same id, and join the two: a relay chain.
 * The next hop must have been told to expect the id. Returns 0, or -1 with the reason in err.
 */
int relay_forward(struct relay_plane *plane, const struct relay_id *id, const char *next_hop,
    unsigned ttl_s, char *err, size_t errlen);

#endif
