/*
 * relay_id.h: the 128-bit one-time ids that the two halves of a relay, reversal or traversal
 * match on (the broker draws them, proxies and helpers match them), and their text form: 32
 * hex digits, as they travel in the WSDL's Decision.relayId and on the proxy's control socket.
 *
 * One implementation for every part: the broker formats ids, the proxy and the helpers parse
 * them, so a difference between two copies would silently break relays.
 */
#ifndef QCG_RELAY_ID_H
#define QCG_RELAY_ID_H

#include <stdint.h>

#include "model.h"

#define RELAY_ID_HEX_LEN (2 * QCG_RELAY_ID_BYTES) /* hex digits, without the NUL */

/* struct relay_id, the id itself, is in model.h: decisions carry it. */

/* Format id as RELAY_ID_HEX_LEN lowercase hex digits plus a NUL into buf. */
void relay_id_format(const uint8_t id[QCG_RELAY_ID_BYTES], char buf[RELAY_ID_HEX_LEN + 1]);

/* Parse exactly RELAY_ID_HEX_LEN hex digits (either case) into id. Returns 0, or -1 (and
 * leaves id alone) for NULL, a shorter or longer string, or a non-hex character; a short
 * string is never read past its NUL. */
int relay_id_parse(const char *text, uint8_t id[QCG_RELAY_ID_BYTES]);

/* relay_id_parse into a struct relay_id. */
static inline int
relay_id_parse_hex(const char *text, struct relay_id *out)
{
	return relay_id_parse(text, out->bytes);
}

#endif
