/*
 * helper_client.h: the client side of qcg-helper's local API (helper_proto.h), for the MPI glue
 * (libqcgnet.so) and for tests. libc only and position independent: it is linked into a
 * preloaded shared object, so it has no global state, no threads and no signal handlers, and
 * every name starts with helper_client_.
 *
 * Typical use in the glue:
 *   - at start: helper_client_open_env() once per process (job and token from the launcher);
 *   - listen(): helper_client_register(); then a second connection per listening socket does
 *     helper_client_wait_inbound() and gets each handed-off socket from
 *     helper_client_next_handoff() (poll helper_client_fd() for readiness);
 *   - connect(): helper_client_resolve(); for reversal/traversal
 *     (method_hands_off(decision.method)) helper_client_next_handoff() delivers the connected
 *     socket; for relays, connect to decision.proxy[0].endpoint and send the hello that
 *     helper_client_relay_hello() builds;
 *     then helper_client_report().
 */
#ifndef QCG_HELPER_CLIENT_H
#define QCG_HELPER_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "helper_proto.h"
#include "helper_wire.h"

#define HELPER_CLIENT_SOCKET_ENV "QCG_HELPER_SOCKET" /* the helper's socket path */
#define HELPER_CLIENT_JOB_ENV "QCG_JOB_ID"           /* the job's name */
#define HELPER_CLIENT_TOKEN_ENV "QCG_JOB_TOKEN"      /* the job's secret token */
#define HELPER_CLIENT_DEFAULT_SOCKET "/run/qcg/helper.sock"

struct helper_client {
	int fd;                      /* the unix socket; poll it for HANDOFFs */
	int timeout_ms;              /* how long an answer may take (default 30 s) */
	struct helper_reader reader;
};

/* A socket the helper set up. */
struct helper_handoff {
	int fd;                              /* connected TCP socket; the caller owns it */
	int method;
	char peer_address[QCG_ADDR_MAX];     /* what getpeername() must report for fd */
	uint16_t peer_port;
	uint8_t relay_id[QCG_RELAY_ID_BYTES];
	int resumable;                       /* a relay leg to wrap in the resumable stream */
};

/*
 * Connect to the helper at socket_path and introduce the job with its token (HELLO). Returns 0,
 * or -1 with err (the helper's ERR text when it refused).
 */
int helper_client_open(struct helper_client *c, const char *socket_path, const char *job,
    const char *token, char *err, size_t errlen);
/* Same with QCG_HELPER_SOCKET (default /run/qcg/helper.sock), QCG_JOB_ID and QCG_JOB_TOKEN. */
int helper_client_open_env(struct helper_client *c, char *err, size_t errlen);
void helper_client_close(struct helper_client *c);
/* The descriptor to poll for incoming HANDOFFs. */
int helper_client_fd(const struct helper_client *c);

/* Each returns 0, or -1 with err; *code (when not NULL) gets the helper's ERR code or 0. */
int helper_client_register(struct helper_client *c, const char *address, uint16_t port,
    const char *process, int *code, char *err, size_t errlen);
/* after: the method that failed (enum connect_method), or -1. What RESOLVE answered, as the
 * model's decision (helper_decision.h): for direct and port range connect to target.address
 * and target.port; when method_hands_off(method) a HANDOFF (or ERR) comes next; for relays
 * connect to proxy[0].endpoint ("host:port") with relay_id. */
int helper_client_resolve(struct helper_client *c, const char *to_address, uint16_t to_port,
    int after, struct decision *out, int *code, char *err, size_t errlen);
int helper_client_wait_inbound(struct helper_client *c, uint16_t port, int *code, char *err,
    size_t errlen);
int helper_client_report(struct helper_client *c, int method, const char *to_address,
    uint16_t to_port, int ok, uint64_t setup_usec, int *code, char *err, size_t errlen);

/* MCAST_GROUP: a multicast group for the job from the broker, into address/port. */
int helper_client_mcast_group(struct helper_client *c, char address[QCG_ADDR_MAX],
    uint16_t *port, int *code, char *err, size_t errlen);

/* RESUME: a new relay in place of relay_id, whose leg broke (issue 14). */
int helper_client_resume(struct helper_client *c, const uint8_t relay_id[QCG_RELAY_ID_BYTES],
    struct decision *out, int *code, char *err, size_t errlen);

/* REPLAYED: this end sent `bytes` again after the resume that made relay_id. */
int helper_client_replayed(struct helper_client *c, const uint8_t relay_id[QCG_RELAY_ID_BYTES],
    uint64_t bytes, int *code, char *err, size_t errlen);

/* Wait up to timeout_ms (-1: forever) for the next HANDOFF. 0, 1 on timeout, -1 on error. */
int helper_client_next_handoff(struct helper_client *c, int timeout_ms, struct helper_handoff *out,
    int *code, char *err, size_t errlen);

/* The 24-byte hello a relay leg sends to a qcg-proxy first (relay_hello.h). */
void helper_client_relay_hello(uint8_t out[24], const uint8_t relay_id[QCG_RELAY_ID_BYTES]);

#endif
