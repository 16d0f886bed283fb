/*
 * coll_qcg_mcast_wire.h: what travels in one multicast datagram of the multicast broadcast, and
 * the group ranges groups are drawn from. Plain C, no MPI: the unit tests and any fuzzer call
 * these functions on raw bytes.
 *
 * A datagram is a 32-byte header in network byte order followed by one fragment of the message:
 *   0  magic "QCM1"         4  version (1)        8  tag (64 bits, random per communicator)
 *   16 seq (the call's number on this communicator) 20 frag (index)   24 nfrag  28 total bytes
 * Anything that is not exactly what the current call expects is dropped: a datagram of another
 * job or communicator that happens to use the same group and port (wrong tag), a late one of an
 * earlier call (wrong seq), or a forged or truncated one (lengths, indices).
 */
#ifndef COLL_QCG_MCAST_WIRE_H
#define COLL_QCG_MCAST_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define QCG_MCAST_MAGIC 0x51434d31u /* "QCM1" */
#define QCG_MCAST_VERSION 1u
#define QCG_MCAST_HDR_BYTES 32
#define QCG_MCAST_MAX_DGRAM 65507   /* largest UDP payload over IPv4 */
#define QCG_MCAST_MAX_FRAGS 4096    /* bounds the bitmap, requests and datagrams of one call */

struct qcg_mcast_hdr {
	uint64_t tag;   /* random per communicator, agreed at set-up */
	uint32_t seq;   /* number of the broadcast on this communicator */
	uint32_t frag;  /* index of this fragment, < nfrag */
	uint32_t nfrag; /* fragments of the whole message */
	uint32_t total; /* bytes of the whole message */
};

/* Write h as a header into out (QCG_MCAST_HDR_BYTES bytes). */
void qcg_mcast_hdr_encode(uint8_t *out, const struct qcg_mcast_hdr *h);

/*
 * Check datagram d (len bytes) against what the current call expects (want: tag, seq, nfrag,
 * total) with fragments of frag_size bytes. Returns the fragment index, or -1 with *why set to
 * the reason it was dropped.
 */
int qcg_mcast_hdr_check(const uint8_t *d, size_t len, const struct qcg_mcast_hdr *want,
    size_t frag_size, const char **why);

/* Bytes of fragment f of a total-byte message cut into frag_size pieces. */
size_t qcg_mcast_frag_len(uint32_t f, uint32_t total, size_t frag_size);

/*
 * Parse "A.B.C.D/bits", an IPv4 multicast range (inside 224.0.0.0/4, bits 4..30). Returns 0 with
 * *base (host byte order, host part cleared) and *bits, or -1 with err naming what is wrong.
 */
int qcg_mcast_parse_range(const char *s, uint32_t *base, int *bits, char *err, size_t errlen);

/* A group of the range chosen by random (host byte order): never the range's first or last
 * address (host part all zeros or all ones), which some switches treat specially. */
uint32_t qcg_mcast_pick_group(uint32_t base, int bits, uint64_t random);

#endif
