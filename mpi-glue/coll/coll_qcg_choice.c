/*
 * coll_qcg_choice.c: where a collective call asks which algorithm runs it. The cost model is
 * coll_qcg_decision.c (pure C); this file feeds it the communicator's shape and the job's
 * links (coll_qcg_links.c), applies the MCA parameters that force a choice, and says at
 * verbosity 10 what was chosen and why, once per communicator, collective and size class.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "coll_qcg.h"

#include "opal/mca/base/mca_base_var_enum.h"

/* The parameters' values: every enum qcg_alg by its qcg_alg_name, so a new candidate is
 * accepted as soon as it has a name. */
static mca_base_var_enum_value_t alg_values[QCG_NALGS + 1];

/* The collectives that have their own parameter (the others share one: see qcg_coll_name). */
void
mca_coll_qcg_choice_register(void)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	for (int a = 0; a < QCG_NALGS; a++)
		alg_values[a] = (mca_base_var_enum_value_t){ a, qcg_alg_name(a) };
	alg_values[QCG_NALGS] = (mca_base_var_enum_value_t){ 0, NULL };
	for (int k = 0; k < QCG_NCOLLS; k++) {
		char name[64], help[1024];
		c->alg_forced[k] = QCG_ALG_AUTO;
		snprintf(name, sizeof(name), "%s_algorithm", qcg_coll_name(k));
		/* the collectives with a segmented form for large messages (issue 20) */
		const char *seg = k == QCG_COLL_ALLREDUCE ? ", or segmented (large messages, "
		    "commutative operations: reduce-scatter + allgather between the site masters, "
		    "segment by segment, every site pair at once, overlapped with the site's reduce "
		    "and broadcast), or spread (large messages, commutative operations, sites of equal "
		    "size: reduce-scatter inside the site, each slice between the members that hold "
		    "it across the WAN, allgather inside the site)" : k == QCG_COLL_ALLGATHER ? ", or segmented (large blocks: the "
		    "site's gather, the site masters' WAN streams and the site's broadcast overlapped, "
		    "piece by piece), or spread (large blocks: every rank's block to one member of each "
		    "other site, on as many WAN connections as a site has members, then passed on "
		    "inside the site)" : "";
		snprintf(help, sizeof(help), "Algorithm of %s%s on communicators qcg took: auto "
		    "(default: the least predicted time from the links, measured at the first call that "
		    "needs a choice, "
		    "coll_qcg_verbose 10 shows the predictions), tuned (hand every call down to the "
		    "previous component), multilevel (coll/qcg's own, aggregating at site masters)%s%s",
		    qcg_coll_name(k), k == QCG_COLL_REDUCE_SCATTER ? " and reduce_scatter_block" :
		    k == QCG_COLL_SCAN ? " and exscan" : "", seg, qcg_coll_size_unknown(k) ?
		    ". Sizes differ between ranks here: auto decides on the links alone" : "");
		mca_coll_qcg_register_enum(name, help, alg_values, &c->alg_forced[k]);
	}
	c->links_probe = 1;
	mca_coll_qcg_register_var("links_probe",
	    "Measure each link class's latency and bandwidth (WAN, LAN, host, node) for the auto "
	    "choice of algorithm (1, default): once per job, at the first collective call that "
	    "needs a choice (later communicators take those figures); 0 measures nothing, and "
	    "auto then hands every collective to the previous component",
	    MCA_BASE_VAR_TYPE_INT, NULL, &c->links_probe);
	c->verify_bytes = 65536;
	mca_coll_qcg_register_var("verify_bytes",
	    "Calls of allreduce, allgather, alltoall, bcast, reduce, gather and scatter of at "
	    "least this many bytes per rank (default 65536), where auto chose one of qcg's "
	    "algorithms, have that choice measured: the first four calls of each size class "
	    "alternate it and tuned (rooted ones between barriers), and the faster (the slowest "
	    "rank's time) runs every later call of that class; 0 trusts the model without "
	    "measuring", MCA_BASE_VAR_TYPE_INT, NULL, &c->verify_bytes);
	c->verify_margin = 25;
	mca_coll_qcg_register_var("verify_margin",
	    "Smaller calls of allreduce, allgather and alltoall have auto's choice measured the "
	    "same way when the model predicts it less than this many percent faster than tuned "
	    "(default 25): a thin margin is within the model's error. 0: only calls of "
	    "verify_bytes and up", MCA_BASE_VAR_TYPE_INT, NULL, &c->verify_margin);
	c->links_probe_kb = 1024;
	mca_coll_qcg_register_var("links_probe_kb",
	    "Size in KiB of the bandwidth probe's message (16..65536)", MCA_BASE_VAR_TYPE_INT,
	    NULL, &c->links_probe_kb);
}

/* Checked when the component opens. */
void
mca_coll_qcg_choice_check(void)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	for (int k = 0; k < QCG_NCOLLS; k++)
		if (c->alg_forced[k] < QCG_ALG_AUTO || c->alg_forced[k] >= QCG_NALGS) {
			opal_output(0, "coll:qcg: coll_qcg_%s_algorithm %d is not auto, tuned, "
			    "multilevel, segmented or spread; using auto", qcg_coll_name(k),
			    c->alg_forced[k]);
			c->alg_forced[k] = QCG_ALG_AUTO;
		}
	if (c->links_probe_kb < 16 || c->links_probe_kb > 65536) {
		opal_output(0, "coll:qcg: coll_qcg_links_probe_kb %d is outside 16..65536; using "
		    "1024", c->links_probe_kb);
		c->links_probe_kb = 1024;
	}
}

/* Bytes of count elements as the type signature counts them: equal on every rank of a call
 * (unlike the extent, which each rank's own datatype decides). */
size_t
mca_coll_qcg_bytes(struct ompi_datatype_t *dtype, int count)
{
	size_t type_size;
	ompi_datatype_type_size(dtype, &type_size);
	return count > 0 ? type_size * (size_t)count : 0;
}

void
mca_coll_qcg_choice_shape(mca_coll_qcg_module_t *m)
{
	const struct qcg_topo_layout *lay = &m->layout;
	struct qcg_shape *s = &m->shape;
	memset(s, 0, sizeof(*s));
	s->n = lay->n;
	s->sites = lay->nunits[0];
	s->contiguous = lay->contiguous;
	s->equal_sites = 1;
	for (int u = 0; u < lay->nunits[0]; u++) {
		if (lay->usize[0][u] > s->site_ranks)
			s->site_ranks = lay->usize[0][u];
		if (lay->usize[0][u] != lay->usize[0][0])
			s->equal_sites = 0;
		if (qcg_topo_nchildren(lay, 1, u) > s->site_clusters)
			s->site_clusters = qcg_topo_nchildren(lay, 1, u);
	}
	for (int u = 0; u < lay->nunits[1]; u++)
		if (qcg_topo_nchildren(lay, 2, u) > s->cluster_nodes)
			s->cluster_nodes = qcg_topo_nchildren(lay, 2, u);
	for (int u = 0; u < lay->nunits[2]; u++)
		if (lay->usize[2][u] > s->node_ranks)
			s->node_ranks = lay->usize[2][u];
}

/*
 * Once the links are agreed, every collective that goes to the previous component at every
 * size (forced so, or so chosen by the model) is handed over for good: its calls then go
 * straight to that component, and cost exactly what they cost without coll/qcg. On one host
 * that is every collective. Every member holds the same links and shape, so all agree; one
 * that did not would still hand each call down to the same algorithm.
 */
static void
step_aside(mca_coll_qcg_module_t *m)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	for (int k = 0; k < QCG_NCOLLS; k++) {
		int forced = c->alg_forced[k];
		if (forced != QCG_ALG_PREVIOUS && (forced != QCG_ALG_AUTO || (m->links_known &&
		    !qcg_previous_everywhere(k, &m->shape, m->links))))
			continue;
		mca_coll_qcg_hand_over(m, k);
		if (m->rank != 0 || mca_coll_qcg_component.verbose < 10)
			continue; /* the predictions below are only for the verbose line */
		/* what the other size classes will not say now: the predictions behind it */
		char why[256];
		if (forced == QCG_ALG_PREVIOUS)
			snprintf(why, sizeof(why), "forced by coll_qcg_%s_algorithm", qcg_coll_name(k));
		else if (!m->links_known)
			snprintf(why, sizeof(why), "no link measurements: coll_qcg_links_probe 0 or "
			    "the probe failed");
		else if (qcg_coll_size_unknown(k)) {
			double t[QCG_NALGS];
			(void)qcg_decide(k, QCG_BYTES_UNKNOWN, &m->shape, m->links, t);
			snprintf(why, sizeof(why), "sizes differ by rank: links alone; predicted at "
			    "1 MiB per rank: tuned %.1f us, multilevel %.1f us", t[QCG_ALG_PREVIOUS],
			    t[QCG_ALG_MULTILEVEL]);
		} else {
			static const size_t at[] = { 8, 65536, 1 << 20 };
			int nat = k == QCG_COLL_BARRIER ? 1 : 3; /* a barrier has no size */
			size_t used = 0;
			for (int i = 0; i < nat && used < sizeof(why); i++) {
				double t[QCG_NALGS];
				(void)qcg_decide(k, at[i], &m->shape, m->links, t);
				char size[32] = "";
				if (nat > 1)
					snprintf(size, sizeof(size), " at %zu B", at[i]);
				used += (size_t)snprintf(why + used, sizeof(why) - used, "%spredicted%s: "
				    "tuned %.1f us, multilevel %.1f us", i > 0 ? "; " : "", size,
				    t[QCG_ALG_PREVIOUS], t[QCG_ALG_MULTILEVEL]);
			}
		}
		QCG_VERBOSE(10, "choice: comm %d %s: tuned at every size, its calls go to it "
		    "directly from now on (%s)", m->cid, qcg_coll_name(k), why);
	}
}

int
mca_coll_qcg_choose(mca_coll_qcg_module_t *m, int coll, size_t bytes)
{
	/* A loop calls one collective with one size again and again: its last choice again, with
	 * nothing else read. Where qcg steps aside, this check is all it adds to the previous
	 * component's call; on a host of oversubscribed ranks, whose caches every switch cools,
	 * the model's code and data cost microseconds per call (issue 22's 8 B cells). */
	if (m->memo[coll].alg >= 0 && m->memo[coll].bytes == bytes)
		return m->memo[coll].alg;
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	int forced = c->alg_forced[coll], cls = bytes == QCG_BYTES_UNKNOWN ? 64 :
	    qcg_size_class(bytes);
	/* one bit per size class (65 classes: 0..63 and the unknown size, folded onto 63) */
	uint64_t bit = 1ull << (cls > 63 ? 63 : cls);
	int log = m->rank == 0 && !(m->logged[coll] & bit);
	m->logged[coll] |= bit;
	if (forced != QCG_ALG_AUTO) {
		if (log)
			QCG_VERBOSE(10, "choice: comm %d %s size class %d: %s (forced by "
			    "coll_qcg_%s_algorithm)", m->cid, qcg_coll_name(coll), cls,
			    qcg_alg_name(forced), qcg_coll_name(coll));
		m->memo[coll].bytes = bytes, m->memo[coll].alg = forced;
		return forced;
	}
	double t[QCG_NALGS];
	if (!m->links_agreed) { /* every member's first call that needs a choice: collective */
		mca_coll_qcg_links_agree(m);
		step_aside(m);
	}
	int model = m->links_known ? qcg_decide(coll, bytes, &m->shape, m->links, t) :
	    QCG_ALG_PREVIOUS, final;
	int alg = mca_coll_qcg_verify_alg(m, coll, cls, bytes, model, m->links_known ? t : NULL,
	    &final);
	if (final) /* the links are agreed, the class settled */
		m->memo[coll].bytes = bytes, m->memo[coll].alg = alg;
	if (!log)
		return alg;
	/* the model's choice (a trial, if any, says its own verdict when it settles) */
	if (!m->links_known)
		QCG_VERBOSE(10, "choice: comm %d %s size class %d: tuned (no link measurements: "
		    "coll_qcg_links_probe 0 or the probe failed)", m->cid, qcg_coll_name(coll), cls);
	else if (bytes == QCG_BYTES_UNKNOWN)
		QCG_VERBOSE(10, "choice: comm %d %s (sizes differ by rank: links alone): %s; "
		    "predicted at 1 MiB per rank: tuned %.1f us, multilevel %.1f us", m->cid,
		    qcg_coll_name(coll), qcg_alg_name(model), t[QCG_ALG_PREVIOUS],
		    t[QCG_ALG_MULTILEVEL]);
	else {
		char seg[96] = ""; /* only the collectives that have these forms */
		if (t[QCG_ALG_SEGMENTED] >= 0)
			snprintf(seg, sizeof(seg), ", segmented %.1f us", t[QCG_ALG_SEGMENTED]);
		if (t[QCG_ALG_SPREAD] >= 0)
			snprintf(seg + strlen(seg), sizeof(seg) - strlen(seg), ", spread %.1f us",
			    t[QCG_ALG_SPREAD]);
		QCG_VERBOSE(10, "choice: comm %d %s %zu B (class %d): %s; predicted tuned %.1f us, "
		    "multilevel %.1f us%s", m->cid, qcg_coll_name(coll), bytes, cls,
		    qcg_alg_name(model), t[QCG_ALG_PREVIOUS], t[QCG_ALG_MULTILEVEL], seg);
	}
	return alg;
}
