/*
 * coll_qcg_mcast_params.c: the MCA parameters of the multicast broadcast (ompi_info lists them
 * with this help text) and their checks when the component opens.
 */
#include "config.h"

#include "coll_qcg_mcast.h"

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"

struct qcg_mcast_params mca_coll_qcg_mcast_params;

static const mca_base_var_enum_value_t mode_values[] = {
	{ QCG_MCAST_OFF, "off" },
	{ QCG_MCAST_ON, "on" },
	{ QCG_MCAST_AUTO, "auto" },
	{ 0, NULL },
};

static const mca_base_var_enum_value_t transport_values[] = {
	{ QCG_TRANSPORT_UDP, "udp" },
	{ QCG_TRANSPORT_VERBS, "verbs" },
	{ QCG_TRANSPORT_AUTO, "auto" },
	{ 0, NULL },
};

static const mca_base_var_enum_value_t delay_values[] = {
	{ QCG_DELAY_NONE, "none" },
	{ QCG_DELAY_FIXED, "fixed" },
	{ QCG_DELAY_SYNC, "sync" },
	{ 0, NULL },
};

void
mca_coll_qcg_mcast_register(void)
{
	struct qcg_mcast_params *p = &mca_coll_qcg_mcast_params;
	p->mode = QCG_MCAST_AUTO;
	mca_coll_qcg_register_enum("mcast",
	    "Multicast broadcast inside each cluster (paper 001: UDP/IP multicast, then a chain "
	    "along a virtual ring that repairs losses): auto (default) only when the job runs under "
	    "the services (the broker hands out a group no other job holds) and the cluster has "
	    "more than 2 processes; on: always, drawing a random group from coll_qcg_mcast_range "
	    "when there is no broker; off: never", mode_values, &p->mode);
	p->min_bytes = 1;
	mca_coll_qcg_register_var("mcast_min_bytes",
	    "Broadcasts smaller than this many bytes keep the tree",
	    MCA_BASE_VAR_TYPE_INT, NULL, &p->min_bytes);
	/* bench/coll/mcast_results.md: at 64 KiB (47 datagrams per receiver) multicast stayed 7-16x
	 * tuned as processes grew; up to 4 KiB its ratio fell with the process count. */
	p->max_bytes = 8192;
	mca_coll_qcg_register_var("mcast_max_bytes",
	    "Broadcasts larger than this many bytes keep the tree (every datagram costs a system "
	    "call at the root and at each receiver, and segmented pipelining wins for large "
	    "messages); at most coll_qcg_mcast_frag_size x 4096",
	    MCA_BASE_VAR_TYPE_INT, NULL, &p->max_bytes);
	p->frag_size = 1400;
	mca_coll_qcg_register_var("mcast_frag_size",
	    "Message bytes per multicast datagram: keep header (32 bytes) "
	    "+ fragment + 28 within the LAN's MTU, or the kernel fragments the datagram and one "
	    "lost piece loses it all. 64..65475", MCA_BASE_VAR_TYPE_INT, NULL, &p->frag_size);
	p->ring_bytes = 32768;
	mca_coll_qcg_register_var("mcast_ring_bytes",
	    "Bytes per message of the ring stage (rounded down to whole fragments, at least one): "
	    "a process forwards a piece to its successor once it has all of its fragments, so "
	    "larger pieces mean fewer MPI messages, smaller ones an earlier start down the ring. "
	    "1..16777216", MCA_BASE_VAR_TYPE_INT, NULL, &p->ring_bytes);
	p->delay = QCG_DELAY_NONE;
	mca_coll_qcg_register_enum("mcast_delay",
	    "What the multicast root does before sending (a receiver that is not in the broadcast "
	    "yet still gets datagrams its socket buffered, but a full buffer loses them): none "
	    "(default, fastest when receivers are rarely late); fixed: sleep "
	    "coll_qcg_mcast_root_delay_us; sync: wait for one receiver drawn pseudo-randomly per "
	    "call from a seed agreed at set-up (the paper's randomized single-process sync)",
	    delay_values, &p->delay);
	p->root_delay_us = 0;
	mca_coll_qcg_register_var("mcast_root_delay_us",
	    "The root's sleep under coll_qcg_mcast_delay=fixed (microseconds, 0..1000000)",
	    MCA_BASE_VAR_TYPE_INT, NULL, &p->root_delay_us);
	p->range = "239.255.0.0/16";
	mca_coll_qcg_register_var("mcast_range",
	    "IPv4 multicast range (A.B.C.D/bits) random groups are drawn from when there is no "
	    "broker; the default is the administratively scoped local range (RFC 2365)",
	    MCA_BASE_VAR_TYPE_STRING, NULL, &p->range);
	p->interface = "";
	mca_coll_qcg_register_var("mcast_interface",
	    "IPv4 address of the interface to join the group and send on; empty (default): the "
	    "one the routing table gives for the group", MCA_BASE_VAR_TYPE_STRING, NULL,
	    &p->interface);
	p->rcvbuf_kb = 4096;
	mca_coll_qcg_register_var("mcast_rcvbuf_kb",
	    "Receive buffer asked for the multicast socket (KiB; the kernel caps it at "
	    "net.core.rmem_max)", MCA_BASE_VAR_TYPE_INT, NULL, &p->rcvbuf_kb);
	p->transport = QCG_TRANSPORT_UDP;
	mca_coll_qcg_register_enum("mcast_transport",
	    "What carries the multicast datagrams: udp (default): UDP/IP multicast; verbs: "
	    "InfiniBand UD multicast through rdma-core (the paper's hardware multicast; needs an "
	    "RDMA device, a build with rdma-core, and coll_qcg_mcast_interface set to the node's "
	    "IPoIB address; fragments must fit the IB MTU); auto: verbs where that is all given, "
	    "else udp. A cluster where any member cannot open its transport uses the ordinary "
	    "broadcast", transport_values, &p->transport);
	p->drop_percent = 0;
	mca_coll_qcg_register_var("mcast_drop_percent",
	    "Testing: the multicast root drops this share (0..100) of its datagrams instead of "
	    "sending them, so that the ring must repair the loss", MCA_BASE_VAR_TYPE_INT, NULL,
	    &p->drop_percent);
}

/* Bring one int parameter inside lo..hi, saying so. */
static void
clamp(const char *name, int *v, int lo, int hi, int dflt)
{
	if (*v >= lo && *v <= hi)
		return;
	opal_output(0, "coll:qcg: coll_qcg_%s %d is outside %d..%d; using %d", name, *v, lo, hi,
	    dflt);
	*v = dflt;
}

int
mca_coll_qcg_mcast_check_params(void)
{
	struct qcg_mcast_params *p = &mca_coll_qcg_mcast_params;
	if (p->mode != QCG_MCAST_OFF && p->mode != QCG_MCAST_ON && p->mode != QCG_MCAST_AUTO)
		p->mode = QCG_MCAST_AUTO;
	if (p->transport != QCG_TRANSPORT_UDP && p->transport != QCG_TRANSPORT_VERBS &&
	    p->transport != QCG_TRANSPORT_AUTO)
		p->transport = QCG_TRANSPORT_UDP;
	if (p->delay != QCG_DELAY_NONE && p->delay != QCG_DELAY_FIXED && p->delay != QCG_DELAY_SYNC)
		p->delay = QCG_DELAY_NONE;
	clamp("mcast_frag_size", &p->frag_size, 64, QCG_MCAST_MAX_DGRAM - QCG_MCAST_HDR_BYTES,
	    1400);
	clamp("mcast_ring_bytes", &p->ring_bytes, 1, 1 << 24, 32768);
	clamp("mcast_root_delay_us", &p->root_delay_us, 0, 1000000, 0);
	clamp("mcast_drop_percent", &p->drop_percent, 0, 100, 0);
	clamp("mcast_rcvbuf_kb", &p->rcvbuf_kb, 0, 1 << 20, 4096);
	clamp("mcast_min_bytes", &p->min_bytes, 0, 1 << 30, 1);
	long cap = (long)p->frag_size * QCG_MCAST_MAX_FRAGS;
	if (p->max_bytes < 0 || p->max_bytes > cap) {
		opal_output(0, "coll:qcg: coll_qcg_mcast_max_bytes %d is outside 0..%ld "
		    "(fragment size x %d fragments); using %ld", p->max_bytes, cap,
		    QCG_MCAST_MAX_FRAGS, cap);
		p->max_bytes = (int)cap;
	}
	return OMPI_SUCCESS;
}
