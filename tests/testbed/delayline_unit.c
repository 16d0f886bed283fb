/*
 * delayline_unit.c: the delay line's timing model and command line, without sockets.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "../unit/check.h"
#include "dl_conf.h"
#include "dl_frame.h"
#include "dl_sched.h"

#define MS 1000000ULL

static void
constant_delay_is_added_to_every_frame(void)
{
	struct dl_sched s;
	uint64_t due;

	dl_sched_init(&s, 5 * MS, 0, 0);
	CHECK_INT_EQ(dl_sched_admit(&s, 100 * MS, 1500, &due), 0);
	CHECK_INT_EQ(due, 105 * MS);
	CHECK_INT_EQ(dl_sched_admit(&s, 101 * MS, 60, &due), 0);
	CHECK_INT_EQ(due, 106 * MS);
}

static void
rate_serialises_frames_back_to_back(void)
{
	struct dl_sched s;
	uint64_t due;

	/* 8 Mbit/s: 1000 bytes take exactly 1 ms. */
	dl_sched_init(&s, 2 * MS, 8000000, 1 << 20);
	CHECK_INT_EQ(dl_sched_admit(&s, 10 * MS, 1000, &due), 0);
	CHECK_INT_EQ(due, 13 * MS);
	/* Arrives while the first is being sent: waits for it. */
	CHECK_INT_EQ(dl_sched_admit(&s, 10 * MS, 1000, &due), 0);
	CHECK_INT_EQ(due, 14 * MS);
	CHECK_INT_EQ(dl_sched_backlog(&s, 10 * MS), 2000);
	/* Arrives after the transmitter went idle: no queueing. */
	CHECK_INT_EQ(dl_sched_admit(&s, 50 * MS, 1000, &due), 0);
	CHECK_INT_EQ(due, 53 * MS);
	CHECK_INT_EQ(dl_sched_backlog(&s, 60 * MS), 0);
}

static void
full_queue_drops_but_idle_link_never_does(void)
{
	struct dl_sched s;
	uint64_t due, t = 0;
	int admitted = 0;

	dl_sched_init(&s, MS, 8000000, 3000);
	/* A frame larger than the whole queue still passes an idle link. */
	CHECK_INT_EQ(dl_sched_admit(&s, 0, 9000, &due), 0);
	CHECK_INT_EQ(due, 10 * MS);
	/* A burst at one instant: the queue takes 3000 bytes, then drops. */
	t = 100 * MS;
	for (int i = 0; i < 10; i++)
		admitted += dl_sched_admit(&s, t, 1000, &due) == 0;
	CHECK_INT_EQ(admitted, 3);
	/* A drop leaves the state untouched: the next due time follows the last admitted one. */
	CHECK_INT_EQ(s.tx_free_ns, t + 3 * MS);
}

static void
delivery_order_never_goes_backwards(void)
{
	struct dl_sched s;
	uint64_t due, last = 0;
	int ordered = 1;

	dl_sched_init(&s, 3 * MS, 100000000, 1 << 20);
	for (uint64_t i = 0; i < 1000; i++) {
		/* A caller passing an older clock reading must not reorder frames. */
		uint64_t now = (i % 7 == 0) ? i * 1000 : i * 1000 + 5000;

		if (dl_sched_admit(&s, now, 64 + (uint32_t)(i % 1400), &due) == 0) {
			ordered &= due >= last;
			last = due;
		}
	}
	CHECK(ordered);
}

static void
units_parse_and_bad_values_are_named(void)
{
	char err[256];
	uint64_t v;

	CHECK_INT_EQ(dl_parse_delay("5ms", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 5 * MS);
	CHECK_INT_EQ(dl_parse_delay("250us", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 250000);
	CHECK_INT_EQ(dl_parse_delay("1.5", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 1500000);
	CHECK_INT_EQ(dl_parse_delay("-1ms", &v, err, sizeof(err)), -1);
	CHECK(strstr(err, "delay '-1ms'") != NULL);
	CHECK_INT_EQ(dl_parse_delay("5 parsecs", &v, err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown unit") != NULL);
	CHECK_INT_EQ(dl_parse_delay("2h", &v, err, sizeof(err)), -1);
	CHECK_INT_EQ(dl_parse_rate("10mbit", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 10000000);
	CHECK_INT_EQ(dl_parse_rate("100", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 100000000);
	CHECK_INT_EQ(dl_parse_rate("0", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 0);
	CHECK_INT_EQ(dl_parse_rate("100bit", &v, err, sizeof(err)), -1);
	CHECK(strstr(err, "below 8kbit") != NULL);
	CHECK_INT_EQ(dl_parse_size("64k", &v, err, sizeof(err)), 0);
	CHECK_INT_EQ(v, 65536);
	CHECK_INT_EQ(dl_parse_size("1g", &v, err, sizeof(err)), -1);
}

static void
options_apply_to_the_ports_after_them(void)
{
	static struct dl_conf c;
	char err[256];
	char *argv[] = { "qcg-delayline", "--delay", "5ms", "a0:a1", "--rate", "10mbit",
		"--delay", "1ms", "b0:b1", NULL };

	CHECK_INT_EQ(dl_conf_parse(9, argv, &c, err, sizeof(err)), 0);
	CHECK_INT_EQ(c.nports, 2);
	CHECK_STR_EQ(c.ports[0].host_if, "a0");
	CHECK_STR_EQ(c.ports[0].wan_if, "a1");
	CHECK_INT_EQ(c.ports[0].delay_ns, 5 * MS);
	CHECK_INT_EQ(c.ports[0].rate_bps, 0);
	CHECK_INT_EQ(c.ports[1].delay_ns, 1 * MS);
	CHECK_INT_EQ(c.ports[1].rate_bps, 10000000);
	/* Default queue: 100 ms at 10 Mbit/s. */
	CHECK_INT_EQ(c.ports[1].queue_bytes, 125000);
}

static void
bad_ports_are_rejected_with_the_reason(void)
{
	static struct dl_conf c;
	char err[256];
	char *no_colon[] = { "qcg-delayline", "a0", NULL };
	char *reused[] = { "qcg-delayline", "a0:a1", "a1:a2", NULL };
	char *long_name[] = { "qcg-delayline", "averyveryverylongname:a1", NULL };
	char *none[] = { "qcg-delayline", "--delay", "5ms", NULL };
	char *bad_opt[] = { "qcg-delayline", "--colour", "a0:a1", NULL };

	CHECK_INT_EQ(dl_conf_parse(2, no_colon, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "HOSTIF:WANIF") != NULL);
	CHECK_INT_EQ(dl_conf_parse(3, reused, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "a1 is already used") != NULL);
	CHECK_INT_EQ(dl_conf_parse(2, long_name, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "1 to 15 characters") != NULL);
	CHECK_INT_EQ(dl_conf_parse(3, none, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "no port") != NULL);
	CHECK_INT_EQ(dl_conf_parse(3, bad_opt, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "--colour") != NULL);
}

static void
pool_recycles_and_respects_its_limit(void)
{
	struct dl_pool p;
	struct dl_fifo q = { NULL, NULL, 0 };
	struct dl_frame *a, *b;

	dl_pool_init(&p, 2);
	a = dl_pool_get(&p, 60);
	b = dl_pool_get(&p, DL_FRAME_SMALL);
	CHECK(a != NULL && b != NULL);
	CHECK(dl_pool_get(&p, 60) == NULL);
	dl_fifo_push(&q, a);
	dl_fifo_push(&q, b);
	CHECK(dl_fifo_pop(&q) == a);
	dl_pool_put(&p, a);
	CHECK(dl_pool_get(&p, 60) == a);
	CHECK(dl_fifo_pop(&q) == b);
	CHECK(dl_fifo_pop(&q) == NULL);
	dl_pool_put(&p, a);
	dl_pool_put(&p, b);
	dl_pool_destroy(&p);
	CHECK_INT_EQ(p.allocated, 0);
}

/* A large buffer costs its size in small units, and each size is recycled as itself. */
static void
pool_counts_super_frame_buffers_by_size(void)
{
	struct dl_pool p;
	struct dl_frame *big, *small;

	dl_pool_init(&p, DL_FRAME_LARGE_UNITS);
	big = dl_pool_get(&p, DL_FRAME_SMALL + 1);
	CHECK(big != NULL && big->cap == DL_FRAME_LARGE);
	CHECK(dl_pool_get(&p, 60) == NULL);
	CHECK(dl_pool_get(&p, DL_FRAME_LARGE + 1) == NULL);
	dl_pool_put(&p, big);
	small = dl_pool_get(&p, 60);
	CHECK(small == NULL);
	CHECK(dl_pool_get(&p, DL_FRAME_LARGE) == big);
	dl_pool_put(&p, big);
	dl_pool_destroy(&p);
	CHECK_INT_EQ(p.allocated, 0);
	dl_pool_init(&p, DL_FRAME_LARGE_UNITS + 1);
	small = dl_pool_get(&p, 60);
	CHECK(small != NULL && small->cap == DL_FRAME_SMALL);
	dl_pool_put(&p, small);
	dl_pool_destroy(&p);
	CHECK_INT_EQ(p.allocated, 0);
}

/* Build virtio header + Ethernet + IPv4 (ihl 5) + TCP (doff 8) + payload bytes into buf. */
static uint32_t
tcp_frame(unsigned char *buf, uint8_t gso_type, uint16_t gso_size, uint32_t payload, int vlan)
{
	struct virtio_net_hdr vh = { .gso_type = gso_type, .gso_size = gso_size };
	unsigned char *e = buf + DL_VNET_HDR_LEN;
	uint32_t off = 12;

	memset(buf, 0, DL_VNET_HDR_LEN + 18 + 20 + 32 + payload);
	memcpy(buf, &vh, sizeof(vh));
	if (vlan) {
		e[off] = 0x81, e[off + 1] = 0x00;
		off += 4;
	}
	e[off] = 0x08, e[off + 1] = 0x00;
	off += 2;
	e[off] = 0x45;
	e[off + 20 + 12] = 8 << 4;
	return DL_VNET_HDR_LEN + off + 20 + 32 + payload;
}

/* A rate-limited link is charged what the segments of a super-frame would take on a wire. */
static void
wire_length_counts_every_segment_header(void)
{
	static unsigned char buf[DL_FRAME_LARGE];
	uint32_t hdrs = 14 + 20 + 32, len;

	len = tcp_frame(buf, VIRTIO_NET_HDR_GSO_NONE, 0, 1000, 0);
	CHECK_INT_EQ(dl_frame_wire_len(buf, len), hdrs + 1000);
	/* 10 segments of 1448 and one of 520 bytes: 11 copies of the headers. */
	len = tcp_frame(buf, VIRTIO_NET_HDR_GSO_TCPV4, 1448, 14480 + 520, 0);
	CHECK_INT_EQ(dl_frame_wire_len(buf, len), 11 * hdrs + 14480 + 520);
	len = tcp_frame(buf, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, 1000, 3000, 1);
	CHECK_INT_EQ(dl_frame_wire_len(buf, len), 3 * (hdrs + 4) + 3000);
	/* What cannot be parsed is charged its own length, never less. */
	len = tcp_frame(buf, VIRTIO_NET_HDR_GSO_TCPV4, 1000, 3000, 0);
	buf[DL_VNET_HDR_LEN + 12] = 0x12;
	CHECK_INT_EQ(dl_frame_wire_len(buf, len), len - DL_VNET_HDR_LEN);
	CHECK_INT_EQ(dl_frame_wire_len(buf, 4), 4);
	len = tcp_frame(buf, VIRTIO_NET_HDR_GSO_TCPV4, 1000, 0, 0);
	CHECK_INT_EQ(dl_frame_wire_len(buf, len), len - DL_VNET_HDR_LEN);
}

int
main(void)
{
	RUN(constant_delay_is_added_to_every_frame);
	RUN(rate_serialises_frames_back_to_back);
	RUN(full_queue_drops_but_idle_link_never_does);
	RUN(delivery_order_never_goes_backwards);
	RUN(units_parse_and_bad_values_are_named);
	RUN(options_apply_to_the_ports_after_them);
	RUN(bad_ports_are_rejected_with_the_reason);
	RUN(pool_recycles_and_respects_its_limit);
	RUN(pool_counts_super_frame_buffers_by_size);
	RUN(wire_length_counts_every_segment_header);
	return check_exit();
}
