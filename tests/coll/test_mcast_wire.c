/*
 * test_mcast_wire.c: the multicast datagram header and the group ranges
 * (mpi-glue/coll/coll_qcg_mcast_wire.c): a datagram is accepted only when every field is what
 * the current call expects, and a range must be a well-formed IPv4 multicast prefix.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../unit/check.h"
#include "coll_qcg_mcast_wire.h"

#define FS 100 /* fragment size of these cases */

static const struct qcg_mcast_hdr want = { 0x0123456789abcdefull, 42, 0, 3, 250 };

/* A datagram of fragment frag as the root would send it (payload len bytes). */
static size_t
datagram(uint8_t *d, uint32_t frag, size_t len)
{
	struct qcg_mcast_hdr h = want;
	h.frag = frag;
	qcg_mcast_hdr_encode(d, &h);
	memset(d + QCG_MCAST_HDR_BYTES, 0xab, len);
	return QCG_MCAST_HDR_BYTES + len;
}

static void
test_well_formed_fragments_are_accepted_with_their_index(void)
{
	uint8_t d[512] = { 0 };
	const char *why = NULL;
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, datagram(d, 0, FS), &want, FS, &why), 0);
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, datagram(d, 1, FS), &want, FS, &why), 1);
	/* the last fragment is short: 250 - 2 x 100 */
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, datagram(d, 2, 50), &want, FS, &why), 2);
}

static void
test_wrong_lengths_are_dropped(void)
{
	uint8_t d[512] = { 0 };
	const char *why = NULL;
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, 0, &want, FS, &why), -1);
	CHECK_STR_EQ(why, "shorter than the header");
	size_t n = datagram(d, 0, FS);
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, QCG_MCAST_HDR_BYTES - 1, &want, FS, &why), -1);
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, n - 1, &want, FS, &why), -1);
	CHECK_STR_EQ(why, "payload length does not match the fragment");
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, datagram(d, 2, FS), &want, FS, &why), -1);
	CHECK_STR_EQ(why, "payload length does not match the fragment");
}

static void
test_foreign_or_stale_datagrams_are_dropped(void)
{
	uint8_t d[512] = { 0 };
	const char *why = NULL;
	struct qcg_mcast_hdr other = want;
	size_t n = datagram(d, 1, FS);
	other.tag ^= 1; /* another job or communicator on the same group and port */
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, n, &other, FS, &why), -1);
	CHECK_STR_EQ(why, "foreign tag (another job or communicator)");
	other = want;
	other.seq = 43; /* a late datagram of the previous call, seen by the next */
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, n, &other, FS, &why), -1);
	CHECK_STR_EQ(why, "another broadcast (sequence number)");
	other = want;
	other.total = 260; /* same call number, different size: never trusted */
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, n, &other, FS, &why), -1);
	d[0] ^= 0xff;
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, n, &want, FS, &why), -1);
	CHECK_STR_EQ(why, "not a qcg multicast datagram (magic/version)");
}

static void
test_fragment_index_beyond_the_message_is_dropped(void)
{
	uint8_t d[512] = { 0 };
	const char *why = NULL;
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, datagram(d, 3, 0), &want, FS, &why), -1);
	CHECK_STR_EQ(why, "fragment index out of range");
	CHECK_INT_EQ(qcg_mcast_hdr_check(d, datagram(d, 0xffffffffu, 0), &want, FS, &why), -1);
}

static void
test_ranges_must_be_multicast_prefixes(void)
{
	uint32_t base;
	int bits;
	char err[128];
	CHECK_INT_EQ(qcg_mcast_parse_range("239.255.0.0/16", &base, &bits, err, sizeof(err)), 0);
	CHECK_INT_EQ((long)base, 0xefff0000L);
	CHECK_INT_EQ(bits, 16);
	/* lib/cidr's rules, as for every network in the grid: an address is not a range. */
	CHECK_INT_EQ(qcg_mcast_parse_range("239.255.7.9/16", &base, &bits, err, sizeof(err)), -1);
	CHECK_STR_EQ(err, "multicast range: host bits set in 239.255.7.9/16 (the network is "
	    "239.255.0.0/16)");
	CHECK_INT_EQ(qcg_mcast_parse_range("ff00::/8", &base, &bits, err, sizeof(err)), -1);
	CHECK_STR_EQ(err, "multicast range 'ff00::/8': want IPv4 (A.B.C.D/bits)");
	CHECK_INT_EQ(qcg_mcast_parse_range("10.0.0.0/8", &base, &bits, err, sizeof(err)), -1);
	CHECK_STR_EQ(err, "multicast range '10.0.0.0/8': not inside 224.0.0.0/4");
	CHECK_INT_EQ(qcg_mcast_parse_range("239.255.0.0/31", &base, &bits, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_mcast_parse_range("239.255.0.0", &base, &bits, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_mcast_parse_range("239.255.0.0/", &base, &bits, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_mcast_parse_range("239.255.0.0/1x", &base, &bits, err, sizeof(err)), -1);
	CHECK_INT_EQ(qcg_mcast_parse_range(NULL, &base, &bits, err, sizeof(err)), -1);
}

static void
test_picked_groups_stay_inside_the_range_and_off_its_edges(void)
{
	uint32_t base = 0xefff0000u; /* 239.255.0.0/30: only .1 and .2 may be picked */
	int seen[4] = { 0 };
	for (uint64_t r = 0; r < 1000; r++) {
		uint32_t g = qcg_mcast_pick_group(base, 30, r * 0x9e3779b97f4a7c15ull);
		CHECK(g > base && g < base + 3);
		if (g >= base && g < base + 4)
			seen[g - base]++;
	}
	CHECK(seen[1] > 0 && seen[2] > 0);
	CHECK_INT_EQ(seen[0] + seen[3], 0);
}

int
main(void)
{
	RUN(test_well_formed_fragments_are_accepted_with_their_index);
	RUN(test_wrong_lengths_are_dropped);
	RUN(test_foreign_or_stale_datagrams_are_dropped);
	RUN(test_fragment_index_beyond_the_message_is_dropped);
	RUN(test_ranges_must_be_multicast_prefixes);
	RUN(test_picked_groups_stay_inside_the_range_and_off_its_edges);
	return check_exit();
}
