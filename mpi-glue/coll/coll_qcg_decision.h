/*
 * coll_qcg_decision.h: which algorithm runs a collective call, from a cost model of the links.
 *
 * Pure C (no MPI), so that tests/coll/test_coll_decision checks it on its own. Given the
 * communicator's shape (how many sites, clusters, nodes and ranks per node) and each link
 * level's one-way latency and bandwidth (agreed by every rank at set-up: coll_qcg_links.c),
 * qcg_decide predicts the time of every candidate algorithm for one collective and one
 * message size with a P-LogP-style model and returns the least. Every rank of a communicator
 * holds the same inputs, so every rank takes the same decision.
 *
 * Adding a candidate (e.g. issue 20's segmented WAN algorithms): add its value to enum
 * qcg_alg (and its name to qcg_alg_name), write its predicted time as one function of
 * (shape, links, bytes) in coll_qcg_decision.c and call it from that collective's case in
 * predict(); the collective's file then runs it when mca_coll_qcg_choose returns it. The MCA
 * parameter coll_qcg_<coll>_algorithm accepts the new name at once (coll_qcg_choice.c builds
 * its values from qcg_alg_name).
 */
#ifndef COLL_QCG_DECISION_H
#define COLL_QCG_DECISION_H

#include <stddef.h>

/* Link classes: the highest level at which two ranks differ. */
enum qcg_link {
	QCG_LINK_WAN = 0,  /* different sites */
	QCG_LINK_LAN = 1,  /* same site, different clusters */
	QCG_LINK_HOST = 2, /* same cluster, different nodes */
	QCG_LINK_NODE = 3, /* same node (shared memory) */
	QCG_NLINKS = 4,
};

/* One link class: one-way latency of a small message and bandwidth of a large one. */
struct qcg_link_params {
	double latency_us; /* < 0: no pair of ranks of the job is linked this way (not measured) */
	double mb_per_s;   /* one pair alone: bytes per microsecond, i.e. MB/s */
	double shared_mb_per_s; /* every pair of two units at once, in total (the WAN link of a
	                         * site is often one line): <= 0 if not measured */
};

/* What the model needs of a communicator's layout (the maxima: the slowest unit decides). */
struct qcg_shape {
	int n;            /* ranks */
	int sites;        /* units of level 0 */
	int site_ranks;   /* most ranks in one site */
	int site_clusters; /* most clusters in one site */
	int cluster_nodes; /* most nodes in one cluster */
	int node_ranks;   /* most ranks on one node */
	int contiguous;   /* every unit is a contiguous range of ranks */
	int equal_sites;  /* every site has site_ranks members */
};

enum qcg_coll {
	QCG_COLL_BCAST,
	QCG_COLL_REDUCE,
	QCG_COLL_ALLREDUCE,
	QCG_COLL_BARRIER,
	QCG_COLL_GATHER,
	QCG_COLL_SCATTER,
	QCG_COLL_ALLGATHER,
	QCG_COLL_ALLTOALL,
	QCG_COLL_REDUCE_SCATTER, /* reduce_scatter and reduce_scatter_block */
	QCG_COLL_SCAN,           /* scan and exscan */
	QCG_COLL_GATHERV,
	QCG_COLL_SCATTERV,
	QCG_COLL_ALLGATHERV,
	QCG_COLL_ALLTOALLV,
	QCG_NCOLLS,
};

/* Candidates. QCG_ALG_AUTO is not one: it asks for the model's choice. */
enum qcg_alg {
	QCG_ALG_AUTO = 0,
	QCG_ALG_PREVIOUS = 1,   /* hand the call down to the previous component (tuned) */
	QCG_ALG_MULTILEVEL = 2, /* coll/qcg's multilevel algorithm (aggregation at site masters) */
	QCG_ALG_SEGMENTED = 3,  /* large messages: segmented WAN stage, every site pair at once
	                         * (allreduce: reduce-scatter + allgather between site masters) */
	QCG_ALG_SPREAD = 4,     /* the WAN stage spread over every member (a site's line over many
	                         * connections): allgather, every rank's block to one member of
	                         * each other site; allreduce (equal sites), reduce-scatter in the
	                         * site, slice j between the members j, allgather in the site */
	QCG_NALGS = 5,
};

/* Message size no rank can know for all (the v-collectives): decide on the links alone. */
#define QCG_BYTES_UNKNOWN ((size_t)-1)

const char *qcg_alg_name(int alg);
const char *qcg_coll_name(int coll);

/* The collectives whose byte count differs between ranks (decided on links alone). */
int qcg_coll_size_unknown(int coll);

/*
 * Predicted time (microseconds) of alg for coll moving `bytes` per rank (the message for
 * bcast, reduce, allreduce and scan; one block for the others; 0 for barrier); a negative
 * value when alg is not a candidate for coll. links[QCG_NLINKS] may hold unmeasured classes.
 */
double qcg_predict(int coll, int alg, size_t bytes, const struct qcg_shape *shape,
    const struct qcg_link_params *links);

/*
 * The candidate with the least predicted time (one other than the previous component only if
 * predicted at least 5 % faster: the model is not that exact); the predictions into predicted[QCG_NALGS]
 * (-1 where not a candidate) when predicted is not NULL. For QCG_BYTES_UNKNOWN, multilevel is
 * chosen only if it is predicted no slower (within the margin) both at 8 bytes and at 1 MiB
 * per rank, and faster by the margin at one of them; predicted then holds the 1 MiB figures. With no
 * measured link, the previous component runs (qcg has nothing to base a choice on).
 */
int qcg_decide(int coll, size_t bytes, const struct qcg_shape *shape,
    const struct qcg_link_params *links, double *predicted);

/*
 * 1 when qcg_decide gives the previous component this collective at every size: for a
 * collective whose sizes differ by rank (qcg_coll_size_unknown), its links-alone choice; else
 * at 0 bytes and at 2^k and 1.5 * 2^k bytes for k = 0..40 (every size class at its edge and
 * its middle: the predictions are smooth in the size, so no window of another choice hides
 * between two of these). coll/qcg then takes itself out of that collective's calls.
 */
int qcg_previous_everywhere(int coll, const struct qcg_shape *shape,
    const struct qcg_link_params *links);

/* The rooted collectives whose calls coll/qcg can verify: bcast, reduce, gather, scatter. */
int qcg_coll_rooted(int coll);

/*
 * Whether the model's choice alg (predicted: qcg_decide's times, or NULL) for a call of `bytes`
 * per rank is worth measuring against the previous component (coll_qcg_verify.c): allreduce,
 * allgather, alltoall and the rooted four when bytes >= verify_bytes (0: never), and the
 * unrooted three below that when the model predicts alg less than margin_pct percent faster
 * (0: not they). A thin margin is within the model's error: the spread allgather of 8 B on
 * three tiers was predicted at 6.2 ms against tuned's 6.8 and measured at 7.5 against 6.5
 * (bench/coll, session 15). Small rooted calls stay with the model: the barriers around their
 * trial calls would take most of the time measured. Allgatherv is verified as allgather (its
 * bytes per rank, the mean, are known everywhere); alltoallv, whose sizes differ by rank
 * (QCG_BYTES_UNKNOWN, one class for every call), at its first calls whatever their size: the
 * model decides it from the links alone, and LAMMPS's transposes ran 5 % slower with it.
 */
int qcg_verify_worth(int coll, size_t bytes, int alg, const double *predicted,
    long verify_bytes, int margin_pct);

/* The size class of a byte count: 0 for 0 bytes, else 1 + floor(log2(bytes)), at most 63. */
int qcg_size_class(size_t bytes);

#endif
