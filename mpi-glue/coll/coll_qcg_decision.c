/*
 * coll_qcg_decision.c: the cost model behind coll/qcg's choice of algorithm (header: why).
 *
 * P-LogP after Kielmann et al. (MagPIe), reduced to what set-up measures: per link class c a
 * one-way latency a[c] and a time per byte b[c] = 1 / bandwidth. A message of m bytes over c
 * costs hop(c, m) = a[c] + m b[c], plus one more round trip when m is above the eager limit
 * (the rendezvous of Open MPI's TCP transport); the CPU cost of handling one message (LogP's
 * o) is taken as the node's latency, and copying or reducing a byte as the node's time per
 * byte (memory bandwidth). Two families of predictions:
 *
 *   - the previous component (tuned) does not know the topology: its log-depth algorithms take
 *     ceil(log2 P) rounds, of which, when ranks are contiguous per site, ceil(log2 S) cross the
 *     WAN and those inside a node stay there (otherwise every round may cross the WAN); its
 *     bandwidth-optimal forms (scatter-allgather, reduce-scatter-gather, ring, pairwise) move
 *     about twice the message across the slowest link in use, and several ranks of one site
 *     share the site's WAN link. Where tuned has several algorithms the least is taken, so qcg
 *     wins only against tuned's best;
 *   - the multilevel algorithms: a tree per level inside the site (node, cluster, site) with
 *     the node's copy at every holder, one WAN step between site holders (the source serves
 *     every other site: its link is busy (S-1) times), and for the gather family the funnel:
 *     a site holder receives, copies and forwards all of its site's bytes.
 * Where every link is the same the multilevel trees have at least tuned's rounds plus copies,
 * so tuned is chosen; where the WAN's latency dominates, one WAN step instead of log2 S (or
 * P-1) wins.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "coll_qcg_decision.h"

#define EAGER_BYTES 65536.0 /* above this a message waits one round trip (TCP BTL) */
#define QCG_LINK_DISTINCT_RATIO 4.0 /* as coll_qcg_discovery_ratio's default */
#define SEGMENT_BYTES 32768.0 /* qcg's pipeline segment and WAN chunk (coll_qcg_bcast_segsize) */
#define QCG_MARGIN 0.05 /* a candidate must be predicted 5 % faster than the previous one */

static const char *const alg_names[QCG_NALGS] = { "auto", "tuned", "multilevel",
	"segmented", "spread" };
static const char *const coll_names[QCG_NCOLLS] = { "bcast", "reduce", "allreduce", "barrier",
	"gather", "scatter", "allgather", "alltoall", "reduce_scatter", "scan", "gatherv",
	"scatterv", "allgatherv", "alltoallv" };

const char *
qcg_alg_name(int alg)
{
	return alg >= 0 && alg < QCG_NALGS ? alg_names[alg] : "?";
}

const char *
qcg_coll_name(int coll)
{
	return coll >= 0 && coll < QCG_NCOLLS ? coll_names[coll] : "?";
}

int
qcg_coll_size_unknown(int coll)
{
	return coll == QCG_COLL_GATHERV || coll == QCG_COLL_SCATTERV ||
	    coll == QCG_COLL_ALLGATHERV || coll == QCG_COLL_ALLTOALLV;
}

int
qcg_coll_rooted(int coll)
{
	return coll == QCG_COLL_BCAST || coll == QCG_COLL_REDUCE || coll == QCG_COLL_GATHER ||
	    coll == QCG_COLL_SCATTER;
}

int
qcg_verify_worth(int coll, size_t bytes, int alg, const double *predicted, long verify_bytes,
    int margin_pct)
{
	int unrooted = coll == QCG_COLL_ALLREDUCE || coll == QCG_COLL_ALLGATHER ||
	    coll == QCG_COLL_ALLTOALL || coll == QCG_COLL_ALLGATHERV;
	if (alg == QCG_ALG_PREVIOUS || alg < 0 || alg >= QCG_NALGS || verify_bytes <= 0)
		return 0;
	if (coll == QCG_COLL_ALLTOALLV)
		return bytes == QCG_BYTES_UNKNOWN;
	if (!(unrooted || qcg_coll_rooted(coll)) || bytes == QCG_BYTES_UNKNOWN)
		return 0;
	if (bytes >= (size_t)verify_bytes)
		return 1;
	return unrooted && margin_pct > 0 && predicted != NULL && predicted[alg] > 0 &&
	    predicted[QCG_ALG_PREVIOUS] < predicted[alg] * (1 + margin_pct / 100.0);
}

int
qcg_size_class(size_t bytes)
{
	int c = 0;
	while (bytes > 0 && c < 63) {
		bytes >>= 1;
		c++;
	}
	return c;
}

/* The model's view of the links: unmeasured classes borrow the nearest measured faster one. */
struct model {
	double a[QCG_NLINKS], b[QCG_NLINKS];
	double o, g; /* per-message CPU cost; copy (or reduce) time per byte */
	double shared_mbs; /* the WAN's total bandwidth with every pair of two sites at once */
	int wan_distinct;  /* the WAN is a level of its own (not the site's link measured twice) */
	const struct qcg_shape *s;
};

static double
lg(double x)
{
	return x <= 1 ? 0 : ceil(log2(x));
}

static double
hop(const struct model *M, int c, double m)
{
	double t = M->a[c] + m * M->b[c];
	return m > EAGER_BYTES ? t + 2 * M->a[c] : t;
}

/* Whether a class of link is crossed inside one site. */
static int
has_lan(const struct model *M)
{
	return M->s->site_clusters > 1;
}

static int
has_host(const struct model *M)
{
	return M->s->cluster_nodes > 1;
}

/* The slowest link inside a site (between its nodes), or the node's when a site is one node. */
static int
site_link(const struct model *M)
{
	if (has_lan(M) && (!has_host(M) || M->a[QCG_LINK_LAN] >= M->a[QCG_LINK_HOST]))
		return QCG_LINK_LAN;
	return has_host(M) ? QCG_LINK_HOST : QCG_LINK_NODE;
}

/* The slowest link of the communicator: the WAN when there are two sites or more. */
static int
worst_link(const struct model *M)
{
	return M->s->sites > 1 ? QCG_LINK_WAN : site_link(M);
}

/* Rounds of a topology-oblivious log-depth algorithm per class: WAN, inside a site, node. */
static void
oblivious_rounds(const struct model *M, double *w, double *l, double *nd)
{
	const struct qcg_shape *s = M->s;
	double total = lg(s->n);
	if (!s->contiguous) {
		*w = total, *l = 0, *nd = 0;
		return;
	}
	*w = lg(s->sites);
	*nd = lg(s->node_ranks);
	if (*w + *nd > total)
		*nd = total - *w;
	*l = total - *w - *nd;
}

/* Time of the oblivious rounds, each moving m bytes, plus per round `extra_per_byte` x m. */
static double
oblivious_tree(const struct model *M, double m, double extra_per_byte)
{
	double w, l, nd;
	oblivious_rounds(M, &w, &l, &nd);
	return w * hop(M, QCG_LINK_WAN, m) + l * hop(M, site_link(M), m) +
	    nd * hop(M, QCG_LINK_NODE, m) + (w + l + nd) * m * extra_per_byte;
}

/* Latency only of the oblivious rounds. */
static double
oblivious_latency(const struct model *M)
{
	return oblivious_tree(M, 0, 0);
}

/* Bytes of a site that cross its WAN link when every rank exchanges m with every other. */
static double
site_cross(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	return s->sites > 1 ? (double)s->site_ranks * (double)(s->n - s->site_ranks) * m : 0;
}

/* The trees inside one site: per class its rounds (binomial) and the sum of their latencies. */
static double
site_rounds(const struct model *M, int c)
{
	const struct qcg_shape *s = M->s;
	switch (c) {
	case QCG_LINK_LAN: return lg(s->site_clusters);
	case QCG_LINK_HOST: return lg(s->cluster_nodes);
	case QCG_LINK_NODE: return lg(s->node_ranks);
	default: return 0;
	}
}

/*
 * A message of m bytes down (or up) the site trees, pipelined in segments as qcg's bcast and
 * reduce are: the latencies of every round, the busiest stage's bytes, and one segment for each
 * other stage; a copy (or a reduction, per_byte) of m at each holder that forwards.
 */
static double
site_tree(const struct model *M, double m, double per_byte)
{
	double lat = 0, busiest = 0, seg = m < SEGMENT_BYTES ? m : SEGMENT_BYTES, rest = 0;
	for (int c = QCG_LINK_LAN; c <= QCG_LINK_NODE; c++) {
		double r = site_rounds(M, c);
		if (r == 0)
			continue;
		lat += r * (M->a[c] + M->o);
		double stage = r * m * (M->b[c] + per_byte);
		rest += r * seg * M->b[c];
		if (stage > busiest)
			busiest = stage;
	}
	return lat + busiest + (rest > 0 ? rest : 0) + m * M->g;
}

/* The WAN step of a rooted multilevel collective: the source serves S-1 site holders. */
static double
wan_flat(const struct model *M, double m)
{
	double S = M->s->sites;
	if (S <= 1)
		return 0;
	/* chunked under the eager limit: no rendezvous; the source's link sends S-1 copies */
	return M->a[QCG_LINK_WAN] + (S - 1) * (m * M->b[QCG_LINK_WAN] + M->o);
}

/*
 * Time per byte of each rank's WAN traffic when every rank of a site crosses at once, as the
 * oblivious algorithms make them: the site's line is shared (its total bandwidth measured with
 * all pairs of two sites at once). Counted wherever the WAN is a level of its own, distinct
 * from the site's link by latency or by bandwidth (group_indistinct): a WAN as fast per byte
 * as a slow site network is still one line that every rank of the site crosses at once in
 * tuned's rounds, while qcg's WAN step is one pair (the three-tier testbed: one pair 126 MB/s,
 * all pairs 48 MB/s; tuned's allgather of 1 MiB took 2.4 s, predicted 0.13 s when this
 * required the WAN to be 2x slower per byte than the site link). Where the WAN is not distinct
 * (one host, a topology file), the same contention hits every algorithm alike and is left out
 * of both.
 */
static double
wan_b_shared(const struct model *M)
{
	double bw = M->b[QCG_LINK_WAN];
	if (M->shared_mbs <= 0 || !M->wan_distinct)
		return bw;
	double per_rank = M->s->site_ranks / M->shared_mbs;
	return per_rank > bw ? per_rank : bw;
}

/*
 * Time per byte of one WAN pair while the site's line also carries the other direction and
 * the site's own traffic, as in the aggregated alltoall's exchange: no better than the line's
 * total with all pairs at once, when that is measured lower than one pair alone (three tiers:
 * 48 against 126 MB/s; the aggregated alltoall of 64 KiB took 247 ms, predicted 119 ms from
 * one pair's figure, against tuned's 144-162 ms).
 */
static double
wan_b_line(const struct model *M)
{
	double bw = M->b[QCG_LINK_WAN];
	if (M->shared_mbs <= 0 || !M->wan_distinct || 1.0 / M->shared_mbs < bw)
		return bw;
	return 1.0 / M->shared_mbs;
}

/*
 * Time per byte of a site's WAN line carried by many connections at once (the spread forms:
 * every member's own): its total with all pairs of two sites, when measured faster than one
 * pair; else one pair's.
 */
static double
wan_b_many(const struct model *M)
{
	double bw = M->b[QCG_LINK_WAN];
	if (M->shared_mbs <= 0 || !M->wan_distinct || 1.0 / M->shared_mbs >= bw)
		return bw;
	return 1.0 / M->shared_mbs;
}

/* Time per byte of the slowest link an oblivious algorithm uses with every rank sending. */
static double
bottleneck_b(const struct model *M)
{
	return M->s->sites > 1 ? wan_b_shared(M) : M->b[site_link(M)];
}

/* Latency of one round of a ring or pairwise algorithm: its slowest pair. */
static double
ring_round(const struct model *M)
{
	return M->a[worst_link(M)] + M->o;
}

#define TUNED_SEGMENT_BYTES 131072.0 /* tuned's pipeline segment for large messages */

/* tuned's segmented chain: n-1 hops of latency, then the message and the chain's length in
 * segments through the slowest link; per byte `extra` more (the reduction) */
static double
tuned_chain(const struct model *M, double m, double extra)
{
	double n = M->s->n, seg = m < TUNED_SEGMENT_BYTES ? m : TUNED_SEGMENT_BYTES;
	return (n - 1) * ring_round(M) + (m + (n - 2) * seg) * (M->b[worst_link(M)] + extra);
}

static double
tuned_bcast(const struct model *M, double m)
{
	double n = M->s->n;
	double sag = oblivious_latency(M) + (n - 1) * ring_round(M) + 2 * m * bottleneck_b(M);
	double tree = oblivious_tree(M, m, 0), chain = tuned_chain(M, m, 0);
	double t = tree < sag ? tree : sag;
	return t < chain ? t : chain;
}

static double
ml_bcast(const struct model *M, double m)
{
	return wan_flat(M, m) + site_tree(M, m, 0);
}

static double
tuned_reduce(const struct model *M, double m)
{
	double n = M->s->n;
	double rsg = oblivious_latency(M) + (n - 1) * ring_round(M) + 2 * m * bottleneck_b(M) +
	    m * M->g;
	double tree = oblivious_tree(M, m, M->g), chain = tuned_chain(M, m, M->g);
	double t = tree < rsg ? tree : rsg;
	return t < chain ? t : chain;
}

static double
ml_reduce(const struct model *M, double m)
{
	return wan_flat(M, m) + (M->s->sites - 1) * m * M->g + site_tree(M, m, M->g);
}

static double
tuned_allreduce(const struct model *M, double m)
{
	double n = M->s->n, bot = bottleneck_b(M), w, l, nd;
	oblivious_rounds(M, &w, &l, &nd);
	/* recursive doubling: every round moves m, all ranks at once in the WAN rounds */
	double doubling = oblivious_tree(M, m, M->g) + w * m * (bot - M->b[QCG_LINK_WAN]);
	double rabenseifner = 2 * oblivious_latency(M) + 2 * m * bot + m * M->g;
	double ring = 2 * (n - 1) * ring_round(M) + 2 * m * bot + m * M->g;
	double t = doubling < rabenseifner ? doubling : rabenseifner;
	return t < ring ? t : ring;
}

static double
ml_allreduce(const struct model *M, double m)
{
	/* up the site, the site partials across the WAN (exchange: every holder serves S-1; or
	 * reduce to one site and back: two WAN steps), down the site */
	double wan = wan_flat(M, m) + (M->s->sites - 1) * m * M->g;
	if (m > EAGER_BYTES)
		wan = 2 * wan_flat(M, m) + (M->s->sites - 1) * m * M->g;
	return site_tree(M, m, M->g) + wan + site_tree(M, m, 0);
}

/*
 * The segmented allreduce (coll_qcg_allreduce_seg.c): the message is cut in S blocks, one per
 * site master, and in segments. Phase 1: the site trees reduce segment by segment (pipelined)
 * while each site master sends every finished segment to its owner: its line carries
 * (S-1)/S m out, one stream per peer at once, and it folds (S-1)/S of m received. Phase 2:
 * the owners' finals come back over the same lines ((S-1)/S m in) while the site trees pass
 * the result down. Each phase takes its latencies plus its busiest stage, the other stage
 * adding one segment.
 */
static double
seg_allreduce(const struct model *M, double m)
{
	double S = M->s->sites, seg = m < SEGMENT_BYTES ? m : SEGMENT_BYTES;
	double share = S > 1 ? (S - 1) / S * m : 0;
	double wan_lat = S > 1 ? M->a[QCG_LINK_WAN] + (S - 1) * M->o : 0;
	double site_up = site_tree(M, m, M->g), site_down = site_tree(M, m, 0);
	double wan_rs = share * (M->b[QCG_LINK_WAN] + M->g), wan_ag = share * M->b[QCG_LINK_WAN];
	double seg_wan = S > 1 ? seg * M->b[QCG_LINK_WAN] : 0;
	double up = site_up > wan_rs ? site_up + seg_wan : wan_rs + site_tree(M, seg, M->g);
	double down = site_down > wan_ag ? site_down + seg_wan : wan_ag + site_tree(M, seg, 0);
	return 2 * wan_lat + up + down;
}

/*
 * The segmented allgather (coll_qcg_allgather_seg.c): the site's blocks into the master, the
 * master's site range out to S-1 masters (one line per site carries S-1 copies of it), and
 * the whole result down the site's tree, all three at once in pieces: the busiest of the
 * three, the latencies of the master's two hops and one piece through each other stage.
 * Every piece is a message: small blocks pay that CPU cost n times per tree round.
 */
static double
seg_allgather(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double S = s->sites, k = s->site_ranks, total = (double)s->n * m;
	double seg = m < SEGMENT_BYTES ? m : SEGMENT_BYTES;
	double in = (k - 1) * (m * M->b[site_link(M)] + M->o);
	double wan = S > 1 ? (S - 1) * (k * m * M->b[QCG_LINK_WAN] + M->o) : 0;
	/* the tree forwards every piece as a message of its own: n ceil(m / seg) per child */
	double pieces = (double)s->n * (m > 0 ? ceil(m / SEGMENT_BYTES) : 1);
	double rounds = site_rounds(M, QCG_LINK_LAN) + site_rounds(M, QCG_LINK_HOST) +
	    site_rounds(M, QCG_LINK_NODE);
	double down = site_tree(M, total, 0) + pieces * rounds * M->o;
	double busiest = in > wan ? in : wan;
	busiest = busiest > down ? busiest : down;
	return M->a[site_link(M)] + (S > 1 ? M->a[QCG_LINK_WAN] : 0) + busiest +
	    seg * (M->b[QCG_LINK_WAN] + M->b[site_link(M)]);
}

/*
 * The spread allgather (coll_qcg_allgather_spread.c): every rank sends its block to one member
 * of each other site, so the site's line takes every other site's blocks at once, over as many
 * connections as there are senders (its total rate with all pairs, when measured; else one
 * pair's), and each rank's own connections one block each; meanwhile every rank passes the
 * blocks it holds (about n / k) to the k - 1 other members of its site, the ranks of a node
 * sharing its link. One latency of each, one block through each stage, a message per block.
 */
static double
spread_allgather(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double S = s->sites, k = s->site_ranks, n = s->n;
	if (S <= 1)
		return -1;
	double per_rank = ceil((n - k) / k), line = wan_b_many(M);
	double own = per_rank * m * M->b[QCG_LINK_WAN] / (per_rank < S - 1 ? per_rank : S - 1);
	double site_in = (n - k) * m * line;
	double wan = own > site_in ? own : site_in;
	double held = n / k, site = held * (k - 1) * m * M->b[site_link(M)] * s->node_ranks;
	double msgs = (per_rank + S - 1 + held * (k - 1) * 2) * M->o;
	return M->a[QCG_LINK_WAN] + M->a[site_link(M)] + (wan > site ? wan : site) +
	    m * (M->b[QCG_LINK_WAN] + M->b[site_link(M)]) + msgs;
}

/*
 * The spread allreduce (coll_qcg_allreduce_spread.c; equal sites of k members): a
 * reduce-scatter inside the site ((k-1)/k of the vector in and out of every rank, the ranks of
 * a node sharing its link), the site partials of each slice between the members of that slice
 * (S-1 slices of m/k on each rank's connections, (S-1) m into the site's line at its all-pairs
 * rate), an allgather inside the site; k-1 + S-1 folds of a slice.
 */
static double
spread_allreduce(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double S = s->sites, k = s->site_ranks;
	if (S <= 1 || !s->equal_sites || k < 1)
		return -1;
	double line = wan_b_many(M);
	double own = m / k * M->b[QCG_LINK_WAN], site_in = (S - 1) * m * line;
	double wan = own > site_in ? own : site_in;
	double inside = (k - 1) / k * m * M->b[site_link(M)] * s->node_ranks;
	return M->a[QCG_LINK_WAN] + 2 * (M->a[site_link(M)] + inside) + wan +
	    (k - 1 + S - 1) * (m / k * M->g + M->o) + 2 * (S - 1) * M->o;
}

static double
tuned_barrier(const struct model *M)
{
	return oblivious_latency(M) + lg(M->s->n) * M->o;
}

static double
ml_barrier(const struct model *M)
{
	return 2 * site_tree(M, 0, 0) + wan_flat(M, 0);
}

/* Gather and scatter of blocks of m: the root takes (or gives) every block. */
static double
tuned_gather(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double far = (double)(s->n - s->site_ranks) * m, near = (double)(s->site_ranks - 1) * m;
	double rdv = m * s->n > EAGER_BYTES ? 2 * M->a[worst_link(M)] : 0;
	return oblivious_latency(M) + far * M->b[QCG_LINK_WAN] * (s->sites > 1) +
	    near * M->b[site_link(M)] + (far + near) * M->g + rdv;
}

static double
ml_gather(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double site = (double)s->site_ranks * m, far = (double)(s->n - s->site_ranks) * m;
	/* funnel: the site holder collects its site, copies it once, forwards it over the WAN */
	return site_tree(M, site, 0) + site * M->b[site_link(M)] +
	    M->a[QCG_LINK_WAN] * (s->sites > 1) + far * (M->b[QCG_LINK_WAN] + M->g) +
	    (s->sites - 1) * M->o;
}

static double
tuned_allgather(const struct model *M, double m)
{
	double n = M->s->n, all = (n - 1) * m, bot = bottleneck_b(M);
	double ring = (n - 1) * ring_round(M) + all * bot;
	double doubling = oblivious_latency(M) + all * bot;
	return doubling < ring ? doubling : ring;
}

static double
ml_allgather(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double site = (double)s->site_ranks * m, total = (double)s->n * m;
	return site_tree(M, site, 0) + wan_flat(M, site) + total * M->g + site_tree(M, total, 0);
}

#define TUNED_ALLTOALL_LINEAR_MAX 3000.0 /* tuned posts every block at once up to about this */
#define TCP_INITIAL_WINDOW 14480.0 /* 10 segments of 1448 bytes (RFC 6928, Linux's default) */
#define TCP_RTO_MIN_US 200000.0    /* Linux's least retransmission timeout (TCP_RTO_MIN) */

/*
 * A TCP connection idle for longer than its retransmission timeout restarts from the initial
 * window (RFC 5681's restart window, Linux's tcp_slow_start_after_idle): a transfer of m bytes
 * on it waits one WAN round trip per doubling until the window reaches the flow's share of the
 * path (its bandwidth-delay product), or m. per_byte is the flow's time per byte with the
 * other flows of the line running. Where the WAN's round trip is microseconds this vanishes.
 */
static double
wan_restart(const struct model *M, double m, double per_byte)
{
	double rtt = 2 * M->a[QCG_LINK_WAN], bdp = per_byte > 0 ? rtt / per_byte : m;
	double window = m < bdp ? m : bdp;
	return M->s->sites > 1 && window > TCP_INITIAL_WINDOW ?
	    ceil(log2(window / TCP_INITIAL_WINDOW)) * rtt : 0;
}

static double
tuned_alltoall(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double own = (double)(s->n - 1) * m * M->b[site_link(M)];
	double wan = site_cross(M, m) / s->site_ranks * wan_b_shared(M);
	double bytes = own > wan ? own : wan;
	/* small: every message posted at once (one latency, n-1 messages of CPU); larger:
	 * pairwise, n-1 rounds each waiting for its slowest pair (and its rendezvous) */
	double linear = M->a[worst_link(M)] + 2 * (s->n - 1) * M->o + bytes;
	double pairwise = (s->n - 1) * (hop(M, worst_link(M), m) - m * M->b[worst_link(M)] +
	    M->o) + bytes;
	/* pairwise uses each connection once per call, in its own round: when the other rounds
	 * outlast the retransmission timeout, every round's WAN flows start from the initial
	 * window again, and every round waits for its slowest pair (5 ms testbed, 12 ranks,
	 * 1 MiB: 2,148 ms measured, 339 ms predicted without this) */
	if (pairwise * (s->n - 2) / (s->n - 1) > TCP_RTO_MIN_US)
		pairwise += (s->n - 1) * wan_restart(M, m, wan_b_shared(M));
	return m <= TUNED_ALLTOALL_LINEAR_MAX ? linear : pairwise;
}

static double
ml_alltoall(const struct model *M, double m)
{
	const struct qcg_shape *s = M->s;
	double cross = site_cross(M, m), local = (double)(s->site_ranks - 1) * m;
	/* A: blocks to the site master (the funnel: its link takes them in and gives them out;
	 * they land in place, no copy), B: one message per site pair, C: back out to the ranks;
	 * the site-local blocks go direct meanwhile */
	double funnel = cross * 2 * M->b[site_link(M)];
	/* the master handles, one after another, k-1 aggregates in and out, its k-1 site-local
	 * blocks each way and 2 (S-1) WAN messages: its CPU is the small message's critical path
	 * (on loopback 8 B blocks measured 1.6x tuned when this counted only k) */
	double k = s->site_ranks;
	double t = 2 * M->a[site_link(M)] + M->a[QCG_LINK_WAN] +
	    M->o * (4 * (k - 1) + 2 * (s->sites - 1)) + cross * wan_b_line(M) + funnel +
	    local * M->b[site_link(M)];
	/* the masters' connections are idle between calls too (as tuned's, above), but each
	 * carries one stream per call: one restart, to the whole line's window */
	double per_pair = s->sites > 1 ? cross / (s->sites - 1) : 0;
	return t > TCP_RTO_MIN_US ? t + wan_restart(M, per_pair, wan_b_line(M)) : t;
}

static double
tuned_scan(const struct model *M, double m)
{
	return oblivious_tree(M, m, M->g);
}

static double
ml_scan(const struct model *M, double m)
{
	return site_tree(M, m, M->g) + wan_flat(M, m) + (M->s->sites - 1) * m * M->g +
	    site_tree(M, m, M->g);
}

static double
predict(const struct model *M, int coll, int alg, double m)
{
	int ml = alg == QCG_ALG_MULTILEVEL;
	if (alg == QCG_ALG_SPREAD) /* the collectives that have one */
		return coll == QCG_COLL_ALLGATHER ? spread_allgather(M, m) :
		    coll == QCG_COLL_ALLREDUCE ? spread_allreduce(M, m) : -1;
	if (alg == QCG_ALG_SEGMENTED) /* the collectives that have one */
		return coll == QCG_COLL_ALLREDUCE ? seg_allreduce(M, m) :
		    coll == QCG_COLL_ALLGATHER ? seg_allgather(M, m) : -1;
	switch (coll) {
	case QCG_COLL_BCAST: return ml ? ml_bcast(M, m) : tuned_bcast(M, m);
	case QCG_COLL_REDUCE: return ml ? ml_reduce(M, m) : tuned_reduce(M, m);
	case QCG_COLL_ALLREDUCE:
	case QCG_COLL_REDUCE_SCATTER: return ml ? ml_allreduce(M, m) : tuned_allreduce(M, m);
	case QCG_COLL_BARRIER: return ml ? ml_barrier(M) : tuned_barrier(M);
	case QCG_COLL_GATHER:
	case QCG_COLL_SCATTER:
	case QCG_COLL_GATHERV:
	case QCG_COLL_SCATTERV: return ml ? ml_gather(M, m) : tuned_gather(M, m);
	case QCG_COLL_ALLGATHER:
	case QCG_COLL_ALLGATHERV: return ml ? ml_allgather(M, m) : tuned_allgather(M, m);
	case QCG_COLL_ALLTOALL:
	case QCG_COLL_ALLTOALLV: return ml ? ml_alltoall(M, m) : tuned_alltoall(M, m);
	case QCG_COLL_SCAN: return ml ? ml_scan(M, m) : tuned_scan(M, m);
	default: return -1;
	}
}

/*
 * A WAN that is not distinctly slower than the links inside a site (latency less than
 * QCG_LINK_DISTINCT_RATIO times theirs, bandwidth more than 1/ratio: discovery's rule for a new
 * level) is the same link measured twice: both take the better of the two measurements (noise
 * only adds time). On one host under load a probe's round trip may include a descheduling;
 * without this a topology file on loopback would look like a WAN of a few hundred microseconds.
 * The classes inside a site keep their own figures.
 */
static void
group_indistinct(struct model *M)
{
	int f = site_link(M), w = QCG_LINK_WAN;
	int distinct = M->a[w] >= QCG_LINK_DISTINCT_RATIO * M->a[f] ||
	    M->b[w] >= QCG_LINK_DISTINCT_RATIO * M->b[f];
	M->wan_distinct = distinct && M->s->sites > 1;
	if (distinct)
		return;
	double a = M->a[w] < M->a[f] ? M->a[w] : M->a[f];
	double b = M->b[w] < M->b[f] ? M->b[w] : M->b[f];
	M->a[w] = M->a[f] = a;
	M->b[w] = M->b[f] = b;
}

/* Fill the model; returns 0 when no link class is measured. */
static int
model_init(struct model *M, const struct qcg_shape *shape, const struct qcg_link_params *links)
{
	int any = 0;
	memset(M, 0, sizeof(*M));
	M->s = shape;
	/* an unmeasured class borrows the next faster measured one (a site of one cluster has no
	 * LAN pair, yet the model may ask), then the next slower one */
	for (int c = 0; c < QCG_NLINKS; c++) {
		int from = -1;
		for (int d = c; d < QCG_NLINKS && from < 0; d++)
			if (links[d].latency_us >= 0 && links[d].mb_per_s > 0)
				from = d;
		for (int d = c - 1; d >= 0 && from < 0; d--)
			if (links[d].latency_us >= 0 && links[d].mb_per_s > 0)
				from = d;
		if (from < 0)
			return 0;
		any = 1;
		M->a[c] = links[from].latency_us;
		M->b[c] = 1.0 / links[from].mb_per_s;
	}
	group_indistinct(M);
	M->shared_mbs = links[QCG_LINK_WAN].latency_us >= 0 ? links[QCG_LINK_WAN].shared_mb_per_s : -1;
	M->o = M->a[QCG_LINK_NODE];
	M->g = M->b[QCG_LINK_NODE];
	return any;
}

double
qcg_predict(int coll, int alg, size_t bytes, const struct qcg_shape *shape,
    const struct qcg_link_params *links)
{
	struct model M;
	if (alg <= QCG_ALG_AUTO || alg >= QCG_NALGS)
		return -1;
	if (coll < 0 || coll >= QCG_NCOLLS || shape == NULL || shape->n < 1 ||
	    !model_init(&M, shape, links))
		return -1;
	return predict(&M, coll, alg, bytes == QCG_BYTES_UNKNOWN ? 0 : (double)bytes);
}

int
qcg_decide(int coll, size_t bytes, const struct qcg_shape *shape,
    const struct qcg_link_params *links, double *predicted)
{
	int best = QCG_ALG_PREVIOUS;
	if (predicted != NULL)
		for (int a = 0; a < QCG_NALGS; a++)
			predicted[a] = -1;
	if (bytes == QCG_BYTES_UNKNOWN) {
		/* links alone: multilevel only if it is not slower (beyond the margin) at either
		 * end of the size range, and faster by the margin at one of them */
		double s[QCG_NALGS], l[QCG_NALGS];
		(void)qcg_decide(coll, 8, shape, links, s);
		(void)qcg_decide(coll, 1 << 20, shape, links, l);
		if (predicted != NULL)
			memcpy(predicted, l, sizeof(l));
		double sp = s[QCG_ALG_PREVIOUS], sm = s[QCG_ALG_MULTILEVEL];
		double lp = l[QCG_ALG_PREVIOUS], lm = l[QCG_ALG_MULTILEVEL];
		if (sp < 0 || sm < 0 || lp < 0 || lm < 0)
			return QCG_ALG_PREVIOUS;
		int never_slower = sm <= sp * (1 + QCG_MARGIN) && lm <= lp * (1 + QCG_MARGIN);
		int gains = sm < sp * (1 - QCG_MARGIN) || lm < lp * (1 - QCG_MARGIN);
		return never_slower && gains ? QCG_ALG_MULTILEVEL : QCG_ALG_PREVIOUS;
	}
	double t_best = -1;
	for (int a = QCG_ALG_PREVIOUS; a < QCG_NALGS; a++) {
		double t = qcg_predict(coll, a, bytes, shape, links);
		if (predicted != NULL)
			predicted[a] = t;
		/* qcg must earn its place: a candidate other than the previous component wins
		 * only if predicted QCG_MARGIN faster (the model's error is larger than that) */
		double need = a == QCG_ALG_PREVIOUS ? t_best : t_best * (1 - QCG_MARGIN);
		if (t >= 0 && (t_best < 0 || t < need)) {
			t_best = t;
			best = a;
		}
	}
	return best;
}

int
qcg_previous_everywhere(int coll, const struct qcg_shape *shape,
    const struct qcg_link_params *links)
{
	if (qcg_coll_size_unknown(coll))
		return qcg_decide(coll, QCG_BYTES_UNKNOWN, shape, links, NULL) == QCG_ALG_PREVIOUS;
	if (qcg_decide(coll, 0, shape, links, NULL) != QCG_ALG_PREVIOUS)
		return 0;
	for (int k = 0; k <= 40; k++) {
		size_t edge = (size_t)1 << k;
		if (qcg_decide(coll, edge, shape, links, NULL) != QCG_ALG_PREVIOUS ||
		    qcg_decide(coll, edge + edge / 2, shape, links, NULL) != QCG_ALG_PREVIOUS)
			return 0;
	}
	return 1;
}
