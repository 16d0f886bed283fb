/*
 * coll_qcg_component.c: the component: its MCA parameters (with the help text ompi_info shows)
 * and, when it opens, publishing this process's topology colors for its peers to read.
 */
#include "config.h"

#include "coll_qcg.h"
#include "coll_qcg_mcast.h"

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"

static int qcg_register(void);
static int qcg_open(void);
static int qcg_close(void);

mca_coll_qcg_component_t mca_coll_qcg_component = {
	.super = {
		.collm_version = {
			MCA_COLL_BASE_VERSION_2_0_0,
			.mca_component_name = "qcg",
			MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
			    OMPI_RELEASE_VERSION),
			.mca_open_component = qcg_open,
			.mca_close_component = qcg_close,
			.mca_register_component_params = qcg_register,
		},
		.collm_data = { MCA_BASE_METADATA_PARAM_NONE },
		.collm_init_query = mca_coll_qcg_init_query,
		.collm_comm_query = mca_coll_qcg_comm_query,
	},
	.priority = 40, /* above tuned (30): we only qualify where the topology matters */
	.output = -1,
};

static const mca_base_var_enum_value_t tree_alg_values[] = {
	{ QCG_TREE_FLAT, "flat" },
	{ QCG_TREE_BINOMIAL, "binomial" },
	{ QCG_TREE_KNOMIAL, "knomial" },
	{ 0, NULL },
};

/* Register one int parameter of the component at level 9 (all). */
void
mca_coll_qcg_register_var(const char *name, const char *help, mca_base_var_type_t type,
    mca_base_var_enum_t *en, void *storage)
{
	(void)mca_base_component_var_register(&mca_coll_qcg_component.super.collm_version, name,
	    help, type, en, 0, 0, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY, storage);
}

void
mca_coll_qcg_register_enum(const char *name, const char *help,
    const mca_base_var_enum_value_t *values, int *storage)
{
	mca_base_var_enum_t *en = NULL;
	if (OPAL_SUCCESS != mca_base_var_enum_create(name, values, &en))
		en = NULL; /* registered as a plain integer then */
	mca_coll_qcg_register_var(name, help, MCA_BASE_VAR_TYPE_INT, en, storage);
	if (en != NULL)
		OBJ_RELEASE(en);
}

static void
register_int(const char *name, const char *help, mca_base_var_enum_t *en, int *storage)
{
	mca_coll_qcg_register_var(name, help, MCA_BASE_VAR_TYPE_INT, en, storage);
}

static void
register_level_algorithms(void)
{
	static const char *const names[QCG_TOPO_LEVELS] = {
		"level0_algorithm", "level1_algorithm", "level2_algorithm"
	};
	static const char *const helps[QCG_TOPO_LEVELS] = {
		"Tree between site holders (WAN level) for bcast, reduce and barrier: flat (default: "
		"the source reaches every site in one WAN latency, postal model), binomial or "
		"knomial (radix coll_qcg_knomial_radix)",
		"Tree between the cluster holders of one site (LAN level) for bcast, reduce and "
		"barrier: binomial (default), knomial or flat",
		"Tree between the node holders of one cluster (host level) for bcast, reduce and "
		"barrier: binomial (default), knomial or flat",
	};
	for (int l = 0; l < QCG_TOPO_LEVELS; l++) {
		mca_coll_qcg_component.level_alg[l] = l == 0 ? QCG_TREE_FLAT : QCG_TREE_BINOMIAL;
		mca_coll_qcg_register_enum(names[l], helps[l], tree_alg_values,
		    &mca_coll_qcg_component.level_alg[l]);
	}
}

static void
register_double(const char *name, const char *help, double *storage)
{
	mca_coll_qcg_register_var(name, help, MCA_BASE_VAR_TYPE_DOUBLE, NULL, storage);
}

/* Knobs of the startup discovery (coll_qcg_discovery.c, mpi-glue/topo/README.md). */
static void
register_discovery(void)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	c->discovery = 1;
	register_int("discovery",
	    "When no rank has a topology ($QCG_TOPOLOGY_COLORS, coll_qcg_topology_file, "
	    "$QCG_TOPOLOGY_FILE), find it during MPI_Init: nodes by host name, clusters and sites "
	    "by grouping round-trip times measured between node leaders (1, default); 0 steps "
	    "aside instead", NULL, &c->discovery);
	c->discovery_pings = 5;
	register_int("discovery_pings",
	    "Timed 8-byte exchanges per pair of node leaders during discovery (after one warm-up "
	    "exchange); the minimum counts. 1..100", NULL, &c->discovery_pings);
	c->discovery_max_nodes = 256;
	register_int("discovery_max_nodes",
	    "Discovery measures all pairs of nodes, in (nodes-1) rounds; with more nodes than "
	    "this it measures nothing and puts every node in one cluster (qcg steps aside)",
	    NULL, &c->discovery_max_nodes);
	/* 200, not more: a site network of 1 ms round trip (--site-delay 0.5 on the testbed, a
	 * metro link) must close a level at the default ratio (4 x 200 < 1000). */
	c->discovery_floor_us = 200;
	register_double("discovery_floor_us",
	    "Discovery: node pairs whose round-trip time is at most this many microseconds are "
	    "in one cluster whatever the ratios between them (absorbs LAN noise)",
	    &c->discovery_floor_us);
	c->discovery_ratio = 4;
	register_double("discovery_ratio",
	    "Discovery groups nodes by increasing round-trip time (single linkage); a merge this "
	    "many times slower than the slowest merge before it (and than the floor) starts a new "
	    "level: the first such level is the clusters, the last the sites. Must be > 1",
	    &c->discovery_ratio);
}

static int
qcg_register(void)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	register_int("priority",
	    "Priority of the qcg coll component on communicators that span more than one cluster "
	    "(it never selects itself on others); 0 disables it", NULL, &c->priority);
	c->verbose = 0;
	register_int("verbose",
	    "Verbosity of coll qcg: 10 reports every selection decision (selected / stepping "
	    "aside, with the reason), 20 the setup of hidden communicators", NULL, &c->verbose);
	c->topology_file = NULL;
	mca_coll_qcg_register_var("topology_file",
	    "File giving every rank's place in the grid, one line 'rank site cluster node' "
	    "(integers, '#' comments). Used when $QCG_TOPOLOGY_COLORS (this rank's 'site,cluster,"
	    "node', set by the launcher) is absent; falls back to $QCG_TOPOLOGY_FILE",
	    MCA_BASE_VAR_TYPE_STRING, NULL, &c->topology_file);
	register_level_algorithms();
	c->knomial_radix = 4;
	register_int("knomial_radix",
	    "Radix of the knomial trees chosen by coll_qcg_level<N>_algorithm (2..64): each tree "
	    "round reaches radix-1 more holders per holder, so log_radix(k) rounds instead of "
	    "log2(k)", NULL, &c->knomial_radix);
	/* Below the TCP BTL's 64 KiB eager limit (headers included): a segment then goes out at
	 * once instead of waiting a round trip for the receiver's go-ahead, a WAN RTT each. */
	c->bcast_segsize = 32768;
	register_int("bcast_segsize",
	    "Bcast messages (and the distribution inside each site of allreduce and allgather(v)) "
	    "larger than this many bytes travel in segments of about this size: every rank posts "
	    "the receives of all segments at once and forwards each as soon as it lands, so lower "
	    "levels forward one segment while the WAN carries the next; 0 sends every message "
	    "whole", NULL, &c->bcast_segsize);
	c->allreduce_exchange_max = 65536;
	register_int("allreduce_exchange_max",
	    "Allreduce of at most this many bytes exchanges the site partial results between all "
	    "site holders (one WAN latency); larger ones reduce to one site and broadcast back "
	    "(half the WAN volume per site, two latencies)", NULL, &c->allreduce_exchange_max);
	c->alltoall_max = 1 << 20;
	register_int("alltoall_max",
	    "Alltoall blocks of at most this many bytes are aggregated per site pair (one WAN "
	    "message per pair of sites, through each site's master); larger ones are left to the "
	    "previous component", NULL, &c->alltoall_max);
	register_discovery();
	mca_coll_qcg_choice_register();
	mca_coll_qcg_mcast_register();
	c->tmp_max_mb = 1024;
	register_int("tmp_max_mb",
	    "Most temporary memory (MiB) one collective call may allocate; a call that would need "
	    "more is handed to the previous component, except gatherv, scatterv and alltoallv "
	    "(no rank knows every size, so no rank can decide for all): those fail with an "
	    "out-of-resource error", NULL, &c->tmp_max_mb);
	return OMPI_SUCCESS;
}

static int
qcg_open(void)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	c->output = opal_output_open(NULL);
	opal_output_set_verbosity(c->output, c->verbose);
	for (int l = 0; l < QCG_TOPO_LEVELS; l++)
		if (c->level_alg[l] != QCG_TREE_FLAT && c->level_alg[l] != QCG_TREE_BINOMIAL &&
		    c->level_alg[l] != QCG_TREE_KNOMIAL)
			c->level_alg[l] = QCG_TREE_BINOMIAL;
	if (c->knomial_radix < 2 || c->knomial_radix > 64) {
		opal_output(0, "coll:qcg: coll_qcg_knomial_radix %d is outside 2..64; using 4",
		    c->knomial_radix);
		c->knomial_radix = 4;
	}
	if (c->bcast_segsize < 0)
		c->bcast_segsize = 0;
	(void)mca_coll_qcg_mcast_check_params();
	mca_coll_qcg_choice_check();
	if (c->discovery_pings < 1 || c->discovery_pings > 100) {
		opal_output(0, "coll:qcg: coll_qcg_discovery_pings %d is outside 1..100; using 5",
		    c->discovery_pings);
		c->discovery_pings = 5;
	}
	/* Published before the modex fence of MPI_Init (coll opens before it), so that every peer
	 * can read our colors when it selects components for a communicator. */
	return mca_coll_qcg_publish_colors();
}

static int
qcg_close(void)
{
	free(mca_coll_qcg_component.world_colors);
	mca_coll_qcg_component.world_colors = NULL;
	mca_coll_qcg_component.world_size = 0;
	if (mca_coll_qcg_component.output >= 0)
		opal_output_close(mca_coll_qcg_component.output);
	mca_coll_qcg_component.output = -1;
	return OMPI_SUCCESS;
}
