/*
 * coll_qcg.h: the qcg coll component: multilevel, topology-aware collectives (MPICH-G2's scheme)
 * for one Open MPI job that spans several sites and clusters.
 *
 * Layout (after coll/han): coll_qcg_component.c MCA parameters and publishing this process's
 * colors; coll_qcg_module.c selection and the saved previous functions; coll_qcg_topo.c the
 * colors of a communicator's members; coll_qcg_subcomms.c the hidden node and cluster
 * communicators; coll_qcg_tree.c point-to-point trees between unit holders; one file per
 * collective. Levels, slowest first: 0 WAN (sites), 1 LAN (clusters of a site), 2 host (nodes of
 * a cluster); below that the processes of one node, handled by the hidden node communicator.
 */
#ifndef MCA_COLL_QCG_H
#define MCA_COLL_QCG_H

#include "ompi_config.h"

#include <stdint.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/util/output.h"

#include "qcg_topo_fold.h"
#include "qcg_topo_layout.h"
#include "coll_qcg_decision.h"

/* How the holders of the units of one level exchange data. */
enum qcg_tree_alg {
	QCG_TREE_FLAT = 0,     /* the source talks to every other holder: one latency (postal) */
	QCG_TREE_BINOMIAL = 1, /* log2(k) rounds: fewer messages per holder, more latencies */
	QCG_TREE_KNOMIAL = 2,  /* log_radix(k) rounds, radix-1 children per round */
};

typedef struct mca_coll_qcg_component_t {
	mca_coll_base_component_2_0_0_t super;
	int priority;               /* selection priority when the communicator qualifies */
	int verbose;                /* verbosity of our own output stream */
	int output;                 /* that stream */
	char *topology_file;        /* coll_qcg_topology_file */
	int level_alg[QCG_TOPO_LEVELS]; /* enum qcg_tree_alg per level for bcast/reduce trees */
	int knomial_radix;          /* radix of QCG_TREE_KNOMIAL trees (2..64) */
	int bcast_segsize;          /* bytes per pipelined bcast segment; 0 disables segmenting */
	int allreduce_exchange_max; /* largest allreduce (bytes) whose WAN step is an exchange */
	int alltoall_max;           /* largest alltoall block (bytes) aggregated per site pair */
	int tmp_max_mb;             /* bound on temporary memory one collective may allocate */
	int origin;                 /* enum qcg_topo_origin of this process's colors */
	struct qcg_topo_path path;  /* this process's path (any depth) when origin is ENV or FILE */
	int discovery;              /* discover the topology when none is configured */
	int discovery_pings;        /* timed exchanges per pair of node leaders */
	int discovery_max_nodes;    /* more nodes than this are not measured */
	double discovery_floor_us;  /* RTTs up to this are one cluster whatever their ratios */
	double discovery_ratio;     /* a merge this many times slower starts a new level */
	int origin_broken;          /* a configured topology source was unusable here */
	int discovery_done;         /* discovery ran (or was ruled out) for this job */
	int links_probe;            /* measure the links when a collective first needs a choice */
	int links_probe_kb;         /* bytes of one bandwidth probe message (KiB) */
	int verify_bytes;           /* calls this large have the model's choice measured; 0: never */
	int verify_margin;          /* ... and smaller unrooted ones whose predicted gain over the
	                             * previous component is under this many percent; 0: not they */
	int links_known;            /* links[] holds this process's latest probe's figures */
	struct qcg_link_params links[QCG_NLINKS]; /* per link class (coll_qcg_links.c) */
	double discovered_rtt_us[QCG_NLINKS]; /* world rank 0, origin DISCOVERED: the least
	                            * round trip discovery timed per link class (-1: none) */
	int alg_forced[QCG_NCOLLS]; /* coll_qcg_<coll>_algorithm: enum qcg_alg, AUTO = model */
	int *world_colors;          /* origin DISCOVERED: colors of every world rank */
	int world_size;             /*   ... and how many */
} mca_coll_qcg_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_qcg_component_t mca_coll_qcg_component;

/* The previous module's function for one collective: what we fall back to. */
#define QCG_PREV(name)                                                                             \
	mca_coll_base_module_##name##_fn_t previous_##name;                                        \
	mca_coll_base_module_t *previous_##name##_module

typedef struct mca_coll_qcg_module_t {
	mca_coll_base_module_t super;
	struct qcg_topo_layout layout; /* units of every level of this communicator */
	int rank;                      /* our rank in the communicator */
	ompi_communicator_t *node_comm;    /* hidden: the members on our node, rank order */
	ompi_communicator_t *cluster_comm; /* hidden: the members in our cluster, rank order */
	bool in_setup;                 /* building hidden communicators: use previous functions */
	int *holders;                  /* scratch: the holders of one level's units (n entries) */
	struct qcg_mcast *mcast;       /* coll_qcg_mcast.c: multicast state, NULL until used */
	int cid;                       /* the communicator's context id, for verbose output */
	struct qcg_shape shape;        /* the layout as the cost model sees it */
	uint64_t logged[QCG_NCOLLS];   /* size classes whose choice was printed, per collective */
	ompi_communicator_t *comm;     /* the communicator this module serves (the lazy probe's) */
	int links_agreed;              /* the members agreed on links[] (coll_qcg_links.c) */
	int links_known;               /* ... and links[] holds figures (else: hand every call down) */
	struct qcg_link_params links[QCG_NLINKS]; /* identical on every member: the model's input */
	struct {
		size_t bytes; /* the size of this collective's last call that took a final choice */
		int alg;      /* its choice; -1: none yet */
	} memo[QCG_NCOLLS];
	struct qcg_verify {    /* coll_qcg_verify.c: the model's large choices, measured */
		int cls;           /* the size class on trial; -1: none */
		int alg;           /* the model's choice for it */
		int calls;         /* trial calls started: even ones ran alg, odd ones tuned */
		int running;       /* a trial call is under way */
		double start_us;   /* when it started */
		double best[2];    /* least time seen of alg, of tuned (this rank) */
		uint64_t done;     /* size classes settled */
		uint64_t overruled; /* ... of them, those where tuned was faster */
	} verify[QCG_NCOLLS];
	QCG_PREV(allgather);
	QCG_PREV(allgatherv);
	QCG_PREV(allreduce);
	QCG_PREV(alltoall);
	QCG_PREV(barrier);
	QCG_PREV(bcast);
	QCG_PREV(gather);
	QCG_PREV(reduce);
	QCG_PREV(reduce_scatter);
	QCG_PREV(reduce_scatter_block);
	QCG_PREV(scatter);
	QCG_PREV(gatherv);
	QCG_PREV(scatterv);
	QCG_PREV(alltoallv);
	QCG_PREV(scan);
	QCG_PREV(exscan);
} mca_coll_qcg_module_t;

OBJ_CLASS_DECLARATION(mca_coll_qcg_module_t);

/* coll_qcg_component.c: register one of the component's MCA parameters (level 9, read-only;
 * ompi_info shows its help). */
void mca_coll_qcg_register_var(const char *name, const char *help, mca_base_var_type_t type,
    mca_base_var_enum_t *en, void *storage);
/* An int parameter taking the names of values (ompi_info lists them); the same, level 9. */
void mca_coll_qcg_register_enum(const char *name, const char *help,
    const mca_base_var_enum_value_t *values, int *storage);

/* coll_qcg_module.c */
int mca_coll_qcg_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_qcg_comm_query(struct ompi_communicator_t *comm, int *priority);

/* coll_qcg_topo.c */
int mca_coll_qcg_publish_colors(void);
int mca_coll_qcg_comm_colors(struct ompi_communicator_t *comm, int *colors);
int mca_coll_qcg_comm_published(struct ompi_communicator_t *comm);

/* coll_qcg_discovery.c: collective over MPI_COMM_WORLD, during its selection. The patient
 * point-to-point helpers spin briefly, then poll with naps (ranks often outnumber cores). */
int mca_coll_qcg_discover(struct ompi_communicator_t *world);
int mca_coll_qcg_patient_wait(ompi_request_t **reqs, int n);
int mca_coll_qcg_patient_xfer(int sending, void *buf, int count, struct ompi_datatype_t *dt,
    int peer, struct ompi_communicator_t *comm);
int mca_coll_qcg_patient_bcast(void *buf, int count, struct ompi_datatype_t *dt,
    struct ompi_communicator_t *comm);

/* coll_qcg_links.c: each link class's latency and bandwidth, identical on every member of a
 * communicator (its rank 0's numbers). The probe is collective over comm; links_agree runs at
 * the first call of a communicator's collective that needs a choice (every member gets there)
 * and probes only when the communicator's rank 0 has no figures from an earlier probe. */
int mca_coll_qcg_links_probe(struct ompi_communicator_t *comm,
    const struct qcg_topo_layout *lay, struct qcg_link_params *out);
void mca_coll_qcg_links_agree(mca_coll_qcg_module_t *m);

/* coll_qcg_choice.c: the algorithm of one call (enum qcg_alg, never AUTO); bytes per rank as
 * coll_qcg_decision.h counts them, QCG_BYTES_UNKNOWN for the v-collectives. Every rank of a
 * communicator gets the same answer for the same call. */
int mca_coll_qcg_choose(mca_coll_qcg_module_t *m, int coll, size_t bytes);

/* coll_qcg_module.c: give the communicator's slot(s) of one collective back to the previous
 * module, for good (the choice is the previous component's at every size). */
void mca_coll_qcg_hand_over(mca_coll_qcg_module_t *m, int coll);
void mca_coll_qcg_choice_shape(mca_coll_qcg_module_t *m);
size_t mca_coll_qcg_bytes(struct ompi_datatype_t *dtype, int count); /* signature bytes */
void mca_coll_qcg_choice_register(void);
void mca_coll_qcg_choice_check(void);

/*
 * coll_qcg_verify.c: the algorithm a call of size class cls runs when the model chose alg
 * (predicted: the model's times per algorithm, or NULL; *final: the same for every later call
 * of that class); the module's slots of the verified collectives, which time their trial calls.
 */
int mca_coll_qcg_verify_alg(mca_coll_qcg_module_t *m, int coll, int cls, size_t bytes, int alg,
    const double *predicted, int *final);
void mca_coll_qcg_verify_reset(mca_coll_qcg_module_t *m);
int mca_coll_qcg_allreduce_verified(const void *sbuf, void *rbuf, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_allgather_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_alltoall_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_allgatherv_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, const int *rcounts, const int *displs, struct ompi_datatype_t *rdtype,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_alltoallv_verified(const void *sbuf, const int *scounts, const int *sdispls,
    struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts, const int *rdispls,
    struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_bcast_verified(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_reduce_verified(const void *sbuf, void *rbuf, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_gather_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_scatter_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

/* Whether a call goes to the previous component by the choice (after qcg's own checks). */
#define QCG_HAND_DOWN(m, coll, bytes)                                                              	(mca_coll_qcg_choose((m), (coll), (bytes)) == QCG_ALG_PREVIOUS)

/* coll_qcg_subcomms.c */
int mca_coll_qcg_subcomms_ensure(struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
/* Frees them (MPI_COMM_SELF, which stands for a level of one-member units, is not ours). */
void mca_coll_qcg_subcomms_free(mca_coll_qcg_module_t *m);

/* coll_qcg_tree.c: buffers and the point-to-point steps between unit holders. */
void *mca_coll_qcg_tmp_alloc(struct ompi_datatype_t *dtype, int count, char **base);
int mca_coll_qcg_tmp_allowed(size_t bytes);
size_t mca_coll_qcg_span(struct ompi_datatype_t *dtype, int count);
int mca_coll_qcg_holders(const mca_coll_qcg_module_t *m, int l, int U, int root, int *list,
    int *my_index, int *src_index);
int mca_coll_qcg_tree_bcast(void *buf, int count, struct ompi_datatype_t *dtype, const int *list,
    int k, int me, int src, int alg, int tag, struct ompi_communicator_t *comm);
int mca_coll_qcg_tree_reduce(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, const int *list, int k, int me, int dst, int alg, int tag,
    struct ompi_communicator_t *comm);
int mca_coll_qcg_tree_links(int k, int me, int src, int alg, int *parent, int *child);
int mca_coll_qcg_tree_fanin(const int *list, int k, int me, int dst, int alg, int tag,
    struct ompi_communicator_t *comm);

/* coll_qcg_exchange.c: every holder of a level sends to every other (one latency). */
int mca_coll_qcg_exchange_typed(void *const *sbuf, const int *scount, void *const *rbuf,
    const int *rcount, struct ompi_datatype_t *dtype, const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm);
int mca_coll_qcg_exchange_signal(const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm);
int mca_coll_qcg_exchange_bytes(char *full, const size_t *offset, const int *len,
    const int *list, int k, int me, int tag, struct ompi_communicator_t *comm);
int mca_coll_qcg_exchange_reduce(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm);
int mca_coll_qcg_exchange_prefix(void *total, void *prefix, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, const int *list, int k, int me, int tag,
    struct ompi_communicator_t *comm);
int mca_coll_qcg_op_commutative(struct ompi_op_t *op);


/* coll_qcg_chunks.c: byte ranges as eager-sized messages (no rendezvous round trip). */
int mca_coll_qcg_nchunks(size_t len, int wan);
int mca_coll_qcg_post_chunks(int sending, int wan, char *buf, size_t len, int peer, int tag,
    struct ompi_communicator_t *comm, ompi_request_t **reqs, int *rc);
int mca_coll_qcg_move_chunks(int sending, int wan, char *buf, size_t len, int peer, int tag,
    struct ompi_communicator_t *comm);

/* coll_qcg_blocks.c: per-rank blocks in (site, cluster, rank) order between holders. */
int mca_coll_qcg_blocks_collect(char *buf, int base, int l, int U, int root, size_t B, int tag,
    struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
int mca_coll_qcg_blocks_distribute(char *buf, int base, int l, int U, int root, size_t B,
    int tag, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
int mca_coll_qcg_blocks_top(const mca_coll_qcg_module_t *m, int root, int *level, int *base,
    int *len);
int mca_coll_qcg_blocks_user(char *packed, size_t B, char *user, int ucount,
    struct ompi_datatype_t *udtype, int skip_rank, int unpacking, mca_coll_qcg_module_t *m);

/* One file per collective. */
int mca_coll_qcg_bcast(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_bcast_tree(const mca_coll_qcg_module_t *m, int root, int from_level, int *parent,
    int *child, int *nchild);
int mca_coll_qcg_bcast_levels(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    int from_level, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
int mca_coll_qcg_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_reduce_levels(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, int to_level, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m);
int mca_coll_qcg_reduce_pipelined(const mca_coll_qcg_module_t *m, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op);
int mca_coll_qcg_reduce_pipe(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
int mca_coll_qcg_allreduce(const void *sbuf, void *rbuf, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_allreduce_spread_allowed(const mca_coll_qcg_module_t *m, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op);
int mca_coll_qcg_allreduce_spread(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
int mca_coll_qcg_allreduce_seg_allowed(const mca_coll_qcg_module_t *m, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op);
int mca_coll_qcg_allreduce_seg(void *acc, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_qcg_module_t *m);
int mca_coll_qcg_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
    int rcount, struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_allgather_seg(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    char *full, size_t B, int in_place_direct, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m);
int mca_coll_qcg_allgather_spread(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    char *full, size_t B, int in_place_direct, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m);

int mca_coll_qcg_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, const int *rcounts, const int *displs, struct ompi_datatype_t *rdtype,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);

int mca_coll_qcg_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, const int *rcounts, const int *displs, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_scatterv(const void *sbuf, const int *scounts, const int *displs,
    struct ompi_datatype_t *sdtype, void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
    int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
    struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts, const int *rdispls,
    struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module);
int mca_coll_qcg_scan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_qcg_exscan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
    struct ompi_op_t *op, struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

/* Verbose output on our own stream, prefixed so tests and users can grep it. */
#define QCG_VERBOSE(level, ...)                                                                    \
	opal_output_verbose((level), mca_coll_qcg_component.output, "coll:qcg: " __VA_ARGS__)

#endif
