/*
 * coll_qcg_mcast_wire.c: encoding and checking the multicast datagram header, and the group
 * ranges (see coll_qcg_mcast_wire.h). Never trusts a datagram: every field is checked before
 * the payload is used.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "coll_qcg_mcast_wire.h"

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void
qcg_mcast_hdr_encode(uint8_t *out, const struct qcg_mcast_hdr *h)
{
	put32(out, QCG_MCAST_MAGIC);
	put32(out + 4, QCG_MCAST_VERSION);
	put32(out + 8, (uint32_t)(h->tag >> 32));
	put32(out + 12, (uint32_t)h->tag);
	put32(out + 16, h->seq);
	put32(out + 20, h->frag);
	put32(out + 24, h->nfrag);
	put32(out + 28, h->total);
}

size_t
qcg_mcast_frag_len(uint32_t f, uint32_t total, size_t frag_size)
{
	size_t first = (size_t)f * frag_size;
	if (first >= total)
		return 0;
	return total - first < frag_size ? total - first : frag_size;
}

int
qcg_mcast_hdr_check(const uint8_t *d, size_t len, const struct qcg_mcast_hdr *want,
    size_t frag_size, const char **why)
{
	if (len < QCG_MCAST_HDR_BYTES)
		return *why = "shorter than the header", -1;
	if (get32(d) != QCG_MCAST_MAGIC || get32(d + 4) != QCG_MCAST_VERSION)
		return *why = "not a qcg multicast datagram (magic/version)", -1;
	uint64_t tag = (uint64_t)get32(d + 8) << 32 | get32(d + 12);
	if (tag != want->tag)
		return *why = "foreign tag (another job or communicator)", -1;
	if (get32(d + 16) != want->seq)
		return *why = "another broadcast (sequence number)", -1;
	uint32_t frag = get32(d + 20);
	if (get32(d + 24) != want->nfrag || get32(d + 28) != want->total)
		return *why = "fragment count or message size differ from this call's", -1;
	if (frag >= want->nfrag)
		return *why = "fragment index out of range", -1;
	if (len - QCG_MCAST_HDR_BYTES != qcg_mcast_frag_len(frag, want->total, frag_size))
		return *why = "payload length does not match the fragment", -1;
	return (int)frag;
}

int
qcg_mcast_parse_range(const char *s, uint32_t *base, int *bits, char *err, size_t errlen)
{
	struct cidr c;
	char why[128];
	uint32_t host;

	if (s == NULL || cidr_parse(s, strlen(s), &c, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "multicast range: %s", s ? why : "missing (want A.B.C.D/bits)");
		return -1;
	}
	if (c.family != AF_INET) {
		snprintf(err, errlen, "multicast range '%s': want IPv4 (A.B.C.D/bits)", s);
		return -1;
	}
	if (c.prefix < 4 || c.prefix > 30) {
		snprintf(err, errlen, "multicast range '%s': prefix length must be 4..30", s);
		return -1;
	}
	memcpy(&host, c.addr, sizeof(host));
	host = ntohl(host);
	if ((host & 0xf0000000u) != 0xe0000000u) {
		snprintf(err, errlen, "multicast range '%s': not inside 224.0.0.0/4", s);
		return -1;
	}
	*base = host;
	*bits = (int)c.prefix;
	return 0;
}

uint32_t
qcg_mcast_pick_group(uint32_t base, int bits, uint64_t random)
{
	uint32_t hosts = 1u << (32 - bits); /* bits <= 30: at least 4 addresses */
	return base + 1 + (uint32_t)(random % (hosts - 2));
}
