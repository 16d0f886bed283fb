/*
 * relay_hello.h: the wire format of the hello a relay leg sends first, and its pure parser.
 *
 * A leg opens a TCP connection to a qcg-proxy and, before any payload, sends exactly
 * RELAY_HELLO_SIZE bytes:
 *
 *   offset size field
 *   0      4    magic     the ASCII bytes "QCGR" (0x51 0x43 0x47 0x52)
 *   4      1    version   RELAY_HELLO_VERSION (1)
 *   5      1    flags     bit 0 RELAY_HELLO_FLAG_CHAINED: sent by a proxy forwarding the relay
 *                         to the next hop; bit 1 RELAY_HELLO_FLAG_PEER_GONE_MARK: this leg wants
 *                         the peer-gone mark (below); every other bit must be zero
 *   6      2    reserved  zero (network byte order when a later version gives it a meaning)
 *   8      16   relay id  the 128-bit id the broker handed out, as opaque bytes
 *   = 24 bytes.
 *
 * Every byte after the hello is payload and is relayed untouched. The proxy answers nothing:
 * a leg learns that its hello was refused only by the connection being closed.
 *
 * The peer-gone mark (issue 14): when one leg of a joined relay ends (EOF or reset) while the
 * proxy lives, the proxy sends the other leg one TCP urgent byte, RELAY_PEER_GONE_MARK, just
 * before passing the end on, if that leg's hello asked for it (RELAY_HELLO_FLAG_PEER_GONE_MARK)
 * and only once every byte before it has left the proxy's socket. A resumable stream asks; it
 * reads the mark with recv(MSG_OOB) when its leg ends, and then fails at once instead of
 * resuming: its peer ended, not the proxy. A proxy that dies sends no mark, so its legs' ends
 * still resume. Legs that do not ask get none: the mark counts as unread data to a reader that
 * closes without reading to the end, and such a close resets the connection, which would make
 * the proxy drop what it still relays the other way. A proxy forwarding a relay passes the
 * near leg's flag on in its own hello; the next hop marks, and its end (EOF) travels back.
 *
 * The parser takes a buffer and never a socket, so that it can be unit tested and fuzzed; it
 * returns RELAY_HELLO_INCOMPLETE until the whole hello is in the buffer, but rejects a bad
 * magic as soon as the first differing byte arrives (a stray HTTP client is dropped at once).
 */
#ifndef QCG_RELAY_HELLO_H
#define QCG_RELAY_HELLO_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "relay_id.h" /* struct relay_id and its text form */

#define RELAY_HELLO_SIZE 24
#define RELAY_HELLO_MAGIC "QCGR"
#define RELAY_HELLO_VERSION 1
#define RELAY_HELLO_FLAG_CHAINED 0x01
#define RELAY_HELLO_FLAG_PEER_GONE_MARK 0x02
#define RELAY_HELLO_FLAGS_KNOWN (RELAY_HELLO_FLAG_CHAINED | RELAY_HELLO_FLAG_PEER_GONE_MARK)
#define RELAY_PEER_GONE_MARK 0x47 /* 'G': the urgent byte of a leg whose peer ended */

/* What the parser found. Everything below RELAY_HELLO_OK is a reason to close the leg. */
enum relay_hello_status {
	RELAY_HELLO_OK = 0,          /* a whole, valid hello: *out is filled */
	RELAY_HELLO_INCOMPLETE = 1,  /* valid so far; read more and call again */
	RELAY_HELLO_BAD_MAGIC = -1,  /* not "QCGR": not one of ours */
	RELAY_HELLO_BAD_VERSION = -2,/* a version this proxy does not speak */
	RELAY_HELLO_BAD_FLAGS = -3,  /* unknown flag bits set */
	RELAY_HELLO_BAD_RESERVED = -4, /* reserved bytes not zero */
};

/* A parsed hello. */
struct relay_hello {
	uint8_t version;     /* always RELAY_HELLO_VERSION for now */
	uint8_t flags;       /* RELAY_HELLO_FLAG_* */
	struct relay_id id;  /* the relay this leg belongs to */
};

/*
 * Parse the first `len` bytes a leg sent (len may exceed RELAY_HELLO_SIZE; the rest is not
 * looked at). Fills *out only on RELAY_HELLO_OK.
 */
enum relay_hello_status relay_hello_parse(const uint8_t *buf, size_t len, struct relay_hello *out);

/* Write the hello for `id` with `flags` into buf (RELAY_HELLO_SIZE bytes). */
void relay_hello_encode(uint8_t buf[RELAY_HELLO_SIZE], const struct relay_id *id, uint8_t flags);

/* A short reason for a status, for logs ("bad magic"). */
const char *relay_hello_status_name(enum relay_hello_status status);

#endif
