/*
 * helper_proto.h: the local API between qcg-helper and the processes of its node (libqcgnet.so,
 * the MPI glue), over a unix stream socket. This header is the protocol's definition.
 *
 * Every message is a fixed 12-byte header and a typed payload; integers are big-endian:
 *
 *   offset size field
 *   0      4    magic    the ASCII bytes "QCGH"
 *   4      1    version  HELPER_PROTO_VERSION (1)
 *   5      1    type     HELPER_MSG_* below
 *   6      2    flags    HELPER_FLAG_*; a bit a type does not allow makes the message invalid
 *   8      4    length   payload bytes that follow, at most HELPER_PAYLOAD_MAX
 *
 * Payload fields, in order ("str" is a u16 length then that many bytes, no NUL inside, at most
 * the limit given; "id" is the 16 raw bytes of a 128-bit relay/rendezvous id):
 *
 *   type               dir  payload                                             answer
 *   1  HELLO           ->   str job (63), str token (16..128)                   OK | ERR
 *   2  REGISTER        ->   str address (63), u16 port, str process (127)       OK | ERR
 *   3  RESOLVE         ->   str to_address (63), u16 to_port,                   DECISION | ERR
 *                           u8 after (a method that failed, 255 = none)
 *   4  WAIT_INBOUND    ->   u16 port (the process's listening port)             OK | ERR, then
 *                                                                               HANDOFF...
 *   5  REPORT          ->   u8 method, str to_address (63), u16 to_port,        OK | ERR
 *                           u8 ok (0/1), u64 setup_usec
 *   6  MCAST_GROUP     ->   (empty): a multicast group for the job, from the    GROUP | ERR
 *                           broker (no other job holds it until this one ends)
 *   7  RESUME          ->   id relay_id: the relay of a resumable connection     DECISION | ERR
 *                           whose leg broke (the newest id the connection had);
 *                           the answer is the new relay (another proxy, a new
 *                           id), the same for both ends (issue 14)
 *   8  REPLAYED        ->   id relay_id (the new relay), u64 bytes: what this    OK | ERR
 *                           end sent again after that resume, for the broker's
 *                           statistics (issue 14)
 *   64 OK              <-   (empty)
 *   65 ERR             <-   u16 code (HELPER_ERR_*), str message (255)
 *   66 DECISION        <-   u8 method, str target_address (63),                 [HANDOFF]
 *                           u16 target_port, id relay_id, u8 proxy_count (0..2),
 *                           proxy_count x str proxy endpoint "host:port" (255)
 *                           flag HANDOFF_FOLLOWS: reversal or traversal; the helper
 *                           sets the connection up and a HANDOFF (or ERR) follows
 *                           flag RESUMABLE: a relay whose two ends wrap the leg in
 *                           the resumable stream (mpi-glue/net/qcgnet_resume_*.h)
 *   67 HANDOFF         <-   u8 method, str peer_address (63), u16 peer_port,
 *                           id relay_id; flag FD: a connected TCP socket travels
 *                           with the message's first byte as SCM_RIGHTS
 *                           flag RESUMABLE: as DECISION's (the initiator wraps too)
 *   68 GROUP           <-   str address (63, an IPv4 multicast group), u16 port
 *
 * Methods are the numbers of enum connect_method (lib/model.h). Rules of the conversation:
 *  - HELLO comes first and once; it names the job and proves membership with the job's token.
 *    The helper also checks the caller's uid (SO_PEERCRED) against the job's account.
 *  - One request at a time per connection: the next request is sent after the answer (and
 *    after the HANDOFF or ERR that a DECISION with HANDOFF_FOLLOWS announces).
 *  - WAIT_INBOUND turns the connection into an inbound channel for that port: after its OK,
 *    the helper sends a HANDOFF (with FD) for every connection set up towards that port, for as
 *    long as the connection stays open; the process sends nothing more on it.
 *  - For a HANDOFF towards a listening process, peer_address/peer_port are the initiator's
 *    published endpoint: what accept()/getpeername() must report for the handed-off socket.
 *    For the initiator, they are the target's published endpoint.
 *  - A REPORT refers to a RESOLVE made earlier on the same connection (same to_address/port).
 *
 * The parser works on a buffer, never a socket: it says complete, incomplete or invalid, so
 * that it can be unit tested and fuzzed (proto/fuzz_helper_proto.c).
 * This file and helper_proto.c depend on nothing but libc: they are linked into the preloaded
 * libqcgnet.so as well as into the daemon.
 */
#ifndef QCG_HELPER_PROTO_H
#define QCG_HELPER_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define HELPER_PROTO_MAGIC "QCGH"
#define HELPER_PROTO_VERSION 1
#define HELPER_HEADER_SIZE 12
#define HELPER_PAYLOAD_MAX 2048 /* larger than any valid payload; anything above is refused */
#define HELPER_MSG_MAX (HELPER_HEADER_SIZE + HELPER_PAYLOAD_MAX)

#define HELPER_TOKEN_MIN 16      /* a job token's length bounds (bytes) */
#define HELPER_TOKEN_MAX 128
#define HELPER_ERROR_TEXT_MAX 256 /* an ERR message, with the NUL */
#define HELPER_METHOD_NONE_WIRE 255 /* RESOLVE's "after" when nothing failed yet */

enum helper_msg_type {
	HELPER_MSG_HELLO = 1,
	HELPER_MSG_REGISTER = 2,
	HELPER_MSG_RESOLVE = 3,
	HELPER_MSG_WAIT_INBOUND = 4,
	HELPER_MSG_REPORT = 5,
	HELPER_MSG_MCAST_GROUP = 6,
	HELPER_MSG_RESUME = 7,
	HELPER_MSG_REPLAYED = 8,
	HELPER_MSG_OK = 64,
	HELPER_MSG_ERR = 65,
	HELPER_MSG_DECISION = 66,
	HELPER_MSG_HANDOFF = 67,
	HELPER_MSG_GROUP = 68,
};

#define HELPER_FLAG_HANDOFF_FOLLOWS 0x0001 /* DECISION only */
#define HELPER_FLAG_FD 0x0002              /* HANDOFF only */
#define HELPER_FLAG_RESUMABLE 0x0004       /* DECISION, HANDOFF: a relay both ends wrap in
                                            * the resumable stream (issue 14) */

/* ERR codes: what went wrong, so that the glue can decide whether to fall back. */
enum helper_err_code {
	HELPER_ERR_PROTOCOL = 1, /* malformed or unexpected message; the helper closes */
	HELPER_ERR_DENIED = 2,   /* bad token, wrong uid, HELLO missing */
	HELPER_ERR_NOT_FOUND = 3,/* nothing listens there / unknown job */
	HELPER_ERR_REMOTE = 4,   /* the front-end or broker refused or failed */
	HELPER_ERR_TIMEOUT = 5,  /* the other side of a reversal/traversal never came */
	HELPER_ERR_LIMIT = 6,    /* a limit of the helper was reached */
	HELPER_ERR_INTERNAL = 7, /* the helper failed */
	HELPER_ERR_NO_METHOD = 8,/* the broker has no (further) method for this pair */
};

/* A decoded message. Which fields are meaningful depends on type (see the table above). */
struct helper_msg {
	uint8_t type;                               /* HELPER_MSG_* */
	uint16_t flags;                             /* HELPER_FLAG_* */
	char job[QCG_NAME_MAX];                     /* HELLO */
	char token[HELPER_TOKEN_MAX + 1];           /* HELLO */
	char address[QCG_ADDR_MAX];                 /* REGISTER, RESOLVE/REPORT (to), DECISION
						       (target), HANDOFF (peer), GROUP */
	uint16_t port;                              /* the port that goes with address; WAIT_INBOUND */
	char process[QCG_PROCESS_MAX];              /* REGISTER */
	uint8_t method;                             /* RESOLVE (after), REPORT, DECISION, HANDOFF */
	uint8_t ok;                                 /* REPORT */
	uint64_t setup_usec;                        /* REPORT; REPLAYED: the bytes */
	uint16_t code;                              /* ERR */
	char message[HELPER_ERROR_TEXT_MAX];        /* ERR */
	uint8_t relay_id[QCG_RELAY_ID_BYTES];       /* DECISION, HANDOFF, RESUME */
	uint8_t proxy_count;                        /* DECISION */
	char proxy[2][QCG_ENDPOINT_MAX];            /* DECISION */
};

enum helper_parse_status {
	HELPER_PARSE_OK = 0,         /* one whole message decoded; *consumed says its size */
	HELPER_PARSE_INCOMPLETE = 1, /* valid so far; read more and call again */
	HELPER_PARSE_INVALID = -1,   /* not a valid message; err says why; close the connection */
};

/*
 * Decode the message at the start of buf (len bytes; more may follow). On OK fills *out and
 * *consumed; on INVALID writes a reason naming the field into err. Never reads past len.
 */
enum helper_parse_status helper_msg_parse(const uint8_t *buf, size_t len, struct helper_msg *out,
    size_t *consumed, char *err, size_t errlen);

/*
 * Encode m into buf (cap bytes). Returns the message's size, or -1 when a field breaks its
 * limit or the buffer is too small (err says which).
 */
long helper_msg_encode(const struct helper_msg *m, uint8_t *buf, size_t cap, char *err,
    size_t errlen);

/* A message of type with every field empty. */
void helper_msg_init(struct helper_msg *m, enum helper_msg_type type);

/* The type's name ("RESOLVE"), or "?unknown" for a type the protocol does not define. */
const char *helper_msg_type_name(unsigned type);

#endif
