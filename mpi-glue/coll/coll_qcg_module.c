/*
 * coll_qcg_module.c: whether qcg runs a communicator's collectives, and the previous
 * component's functions it falls back to.
 *
 * Selection rule (documented in mpi-glue/topo/README.md): qcg is selected on an intra-
 * communicator of two or more members iff every member has published colors and the members
 * span at least two clusters (two distinct (site, cluster) pairs). A communicator inside one
 * cluster, let alone one node, gains nothing from a WAN/LAN-aware schedule: qcg returns NULL
 * there and tuned/han keep it. The decision uses only data all members read identically.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_qcg.h"
#include "coll_qcg_mcast.h"

static int qcg_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);
static int qcg_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);

#define QCG_RELEASE_PREV(m, name)                                                                  \
	do {                                                                                       \
		if (NULL != (m)->previous_##name##_module)                                         \
			OBJ_RELEASE((m)->previous_##name##_module);                                \
		(m)->previous_##name##_module = NULL;                                              \
		(m)->previous_##name = NULL;                                                       \
	} while (0)

static void
qcg_release_previous(mca_coll_qcg_module_t *m)
{
	QCG_RELEASE_PREV(m, allgather);
	QCG_RELEASE_PREV(m, allgatherv);
	QCG_RELEASE_PREV(m, allreduce);
	QCG_RELEASE_PREV(m, alltoall);
	QCG_RELEASE_PREV(m, barrier);
	QCG_RELEASE_PREV(m, bcast);
	QCG_RELEASE_PREV(m, gather);
	QCG_RELEASE_PREV(m, reduce);
	QCG_RELEASE_PREV(m, reduce_scatter);
	QCG_RELEASE_PREV(m, reduce_scatter_block);
	QCG_RELEASE_PREV(m, scatter);
	QCG_RELEASE_PREV(m, gatherv);
	QCG_RELEASE_PREV(m, scatterv);
	QCG_RELEASE_PREV(m, alltoallv);
	QCG_RELEASE_PREV(m, scan);
	QCG_RELEASE_PREV(m, exscan);
}

static void
qcg_module_construct(mca_coll_qcg_module_t *m)
{
	memset(&m->layout, 0, sizeof(m->layout));
	m->rank = -1;
	m->node_comm = NULL;
	m->cluster_comm = NULL;
	m->in_setup = false;
	m->previous_allgather_module = m->previous_allreduce_module = NULL;
	m->previous_alltoall_module = m->previous_allgatherv_module = NULL;
	m->previous_reduce_scatter_module = m->previous_reduce_scatter_block_module = NULL;
	m->previous_barrier_module = m->previous_bcast_module = NULL;
	m->previous_gather_module = m->previous_reduce_module = NULL;
	m->previous_scatter_module = NULL;
	m->previous_gatherv_module = m->previous_scatterv_module = NULL;
	m->previous_alltoallv_module = NULL;
	m->previous_scan_module = m->previous_exscan_module = NULL;
	m->holders = NULL;
	m->mcast = NULL;
	m->cid = -1;
	memset(&m->shape, 0, sizeof(m->shape));
	memset(m->logged, 0, sizeof(m->logged));
	m->comm = NULL;
	m->links_agreed = m->links_known = 0;
	for (int k = 0; k < QCG_NCOLLS; k++)
		m->memo[k].alg = -1;
	mca_coll_qcg_verify_reset(m);
}

static void
qcg_module_destruct(mca_coll_qcg_module_t *m)
{
	mca_coll_qcg_mcast_free(m);
	mca_coll_qcg_subcomms_free(m);
	qcg_release_previous(m);
	free(m->holders);
	qcg_topo_layout_free(&m->layout);
}

OBJ_CLASS_INSTANCE(mca_coll_qcg_module_t, mca_coll_base_module_t, qcg_module_construct,
    qcg_module_destruct);

int
mca_coll_qcg_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
	return OMPI_SUCCESS;
}

/* Why qcg does not take this communicator, or NULL if it does; fills the layout if it does. */
static const char *
qcg_refusal(struct ompi_communicator_t *comm, struct qcg_topo_layout *lay)
{
	static char why[128];
	if (OMPI_COMM_IS_INTER(comm))
		return "intercommunicator";
	if (ompi_comm_size(comm) < 2)
		return "fewer than two members";
	if (mca_coll_qcg_component.priority <= 0)
		return "coll_qcg_priority is 0";
	int n = ompi_comm_size(comm);
	int *colors = malloc((size_t)n * QCG_TOPO_LEVELS * sizeof(int));
	if (colors == NULL)
		return "out of memory";
	int missing = mca_coll_qcg_comm_colors(comm, colors);
	if (missing >= 0) {
		free(colors);
		snprintf(why, sizeof(why), "rank %d has no topology colors", missing);
		return why;
	}
	int rc = qcg_topo_layout_build(lay, n, colors);
	free(colors);
	if (rc < 0)
		return "out of memory";
	if (lay->nunits[1] < 2) {
		snprintf(why, sizeof(why), "single cluster (%d node%s)", lay->nunits[2],
		    lay->nunits[2] == 1 ? "" : "s");
		qcg_topo_layout_free(lay);
		return why;
	}
	return NULL;
}

/*
 * On MPI_COMM_WORLD, once per job: discover the topology when no rank was given one. Every rank
 * takes the same branch (the MCA parameters are the job's, and whether any member published
 * colors or the broken marker reads the same from the modex everywhere), so either all ranks
 * run the collective discovery or none does.
 */
static void
maybe_discover(struct ompi_communicator_t *comm)
{
	mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	if (comm != &ompi_mpi_comm_world.comm || c->discovery_done)
		return;
	c->discovery_done = 1;
	if (!c->discovery || c->priority <= 0 || c->origin != QCG_TOPO_NONE ||
	    c->origin_broken || ompi_comm_size(comm) < 2)
		return;
	int others = mca_coll_qcg_comm_published(comm);
	if (others > 0) {
		opal_output(0, "coll:qcg: %d rank(s) have a topology configured and this one has "
		    "none: not discovering (qcg will not be selected)", others);
		return;
	}
	(void)mca_coll_qcg_discover(comm);
}

mca_coll_base_module_t *
mca_coll_qcg_comm_query(struct ompi_communicator_t *comm, int *priority)
{
	struct qcg_topo_layout lay;
	maybe_discover(comm);
	const char *why = qcg_refusal(comm, &lay);
	if (why != NULL) {
		QCG_VERBOSE(10, "comm %s (cid %d): stepping aside: %s", comm->c_name,
		    comm->c_contextid, why);
		return NULL;
	}
	mca_coll_qcg_module_t *m = OBJ_NEW(mca_coll_qcg_module_t);
	if (m == NULL) {
		qcg_topo_layout_free(&lay);
		return NULL;
	}
	m->layout = lay;
	m->rank = ompi_comm_rank(comm);
	m->cid = (int)comm->c_contextid;
	mca_coll_qcg_choice_shape(m);
	/* the links are measured at the first call that needs a choice, not here: a job that
	 * never calls a collective across sites pays nothing (mca_coll_qcg_links_agree) */
	m->comm = comm;
	m->holders = malloc((size_t)lay.n * sizeof(int));
	if (m->holders == NULL) {
		OBJ_RELEASE(m);
		return NULL;
	}
	m->super.coll_module_enable = qcg_module_enable;
	m->super.coll_module_disable = qcg_module_disable;
	m->super.ft_event = NULL;
	/* Collectives left NULL keep the previous component's function. */
	m->super.coll_allgather = mca_coll_qcg_allgather_verified;
	m->super.coll_allgatherv = mca_coll_qcg_allgatherv_verified;
	m->super.coll_allreduce = mca_coll_qcg_allreduce_verified;
	m->super.coll_alltoall = mca_coll_qcg_alltoall_verified;
	m->super.coll_barrier = mca_coll_qcg_barrier;
	m->super.coll_bcast = mca_coll_qcg_bcast_verified;
	m->super.coll_gather = mca_coll_qcg_gather_verified;
	m->super.coll_reduce = mca_coll_qcg_reduce_verified;
	m->super.coll_reduce_scatter = mca_coll_qcg_reduce_scatter;
	m->super.coll_reduce_scatter_block = mca_coll_qcg_reduce_scatter_block;
	m->super.coll_scatter = mca_coll_qcg_scatter_verified;
	m->super.coll_gatherv = mca_coll_qcg_gatherv;
	m->super.coll_scatterv = mca_coll_qcg_scatterv;
	m->super.coll_alltoallv = mca_coll_qcg_alltoallv_verified;
	m->super.coll_scan = mca_coll_qcg_scan;
	m->super.coll_exscan = mca_coll_qcg_exscan;
	*priority = mca_coll_qcg_component.priority;
	QCG_VERBOSE(10, "comm %s (cid %d): selected: %d sites, %d clusters, %d nodes, %s ranks",
	    comm->c_name, comm->c_contextid, lay.nunits[0], lay.nunits[1], lay.nunits[2],
	    lay.contiguous ? "contiguous" : "interleaved");
	return &m->super;
}

#define QCG_SAVE_PREV(m, comm, name)                                                               \
	do {                                                                                       \
		if (NULL == (comm)->c_coll->coll_##name || NULL == (comm)->c_coll->coll_##name##_module) \
			goto fail;                                                                 \
		(m)->previous_##name = (comm)->c_coll->coll_##name;                                \
		(m)->previous_##name##_module = (comm)->c_coll->coll_##name##_module;              \
		OBJ_RETAIN((m)->previous_##name##_module);                                         \
	} while (0)

/* Runs before our functions replace the previous ones: save those to fall back to. */
static int
qcg_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
	mca_coll_qcg_module_t *m = (mca_coll_qcg_module_t *)module;
	QCG_SAVE_PREV(m, comm, allgather);
	QCG_SAVE_PREV(m, comm, allgatherv);
	QCG_SAVE_PREV(m, comm, allreduce);
	QCG_SAVE_PREV(m, comm, alltoall);
	QCG_SAVE_PREV(m, comm, barrier);
	QCG_SAVE_PREV(m, comm, bcast);
	QCG_SAVE_PREV(m, comm, gather);
	QCG_SAVE_PREV(m, comm, reduce);
	QCG_SAVE_PREV(m, comm, reduce_scatter);
	QCG_SAVE_PREV(m, comm, reduce_scatter_block);
	QCG_SAVE_PREV(m, comm, scatter);
	QCG_SAVE_PREV(m, comm, gatherv);
	QCG_SAVE_PREV(m, comm, scatterv);
	QCG_SAVE_PREV(m, comm, alltoallv);
	QCG_SAVE_PREV(m, comm, scan);
	QCG_SAVE_PREV(m, comm, exscan);
	return OMPI_SUCCESS;
fail:
	QCG_VERBOSE(1, "comm %s (cid %d): a collective has no previous implementation; "
	    "disqualifying", comm->c_name, comm->c_contextid);
	qcg_release_previous(m);
	return OMPI_ERROR;
}

/*
 * The communicator's slot for one collective goes back to the previous module itself, so a
 * call no longer passes through coll/qcg at all (han does the same with its fallbacks). The
 * slot's reference moves from our module to the previous one; ours cannot reach zero here,
 * as the communicator's module list holds it until the communicator is freed.
 */
#define QCG_HAND_OVER(m, comm, name)                                                               \
	do {                                                                                       \
		mca_coll_base_module_t *self = &(m)->super;                                        \
		if ((comm)->c_coll->coll_##name##_module == self &&                                \
		    (m)->previous_##name##_module != NULL) {                                       \
			OBJ_RETAIN((m)->previous_##name##_module);                                 \
			(comm)->c_coll->coll_##name = (m)->previous_##name;                        \
			(comm)->c_coll->coll_##name##_module = (m)->previous_##name##_module;      \
			OBJ_RELEASE(self);                                                         \
		}                                                                                  \
	} while (0)

void
mca_coll_qcg_hand_over(mca_coll_qcg_module_t *m, int coll)
{
	struct ompi_communicator_t *comm = m->comm;
	switch (coll) {
	case QCG_COLL_BCAST: QCG_HAND_OVER(m, comm, bcast); break;
	case QCG_COLL_REDUCE: QCG_HAND_OVER(m, comm, reduce); break;
	case QCG_COLL_ALLREDUCE: QCG_HAND_OVER(m, comm, allreduce); break;
	case QCG_COLL_BARRIER: QCG_HAND_OVER(m, comm, barrier); break;
	case QCG_COLL_GATHER: QCG_HAND_OVER(m, comm, gather); break;
	case QCG_COLL_SCATTER: QCG_HAND_OVER(m, comm, scatter); break;
	case QCG_COLL_ALLGATHER: QCG_HAND_OVER(m, comm, allgather); break;
	case QCG_COLL_ALLTOALL: QCG_HAND_OVER(m, comm, alltoall); break;
	case QCG_COLL_REDUCE_SCATTER:
		QCG_HAND_OVER(m, comm, reduce_scatter);
		QCG_HAND_OVER(m, comm, reduce_scatter_block);
		break;
	case QCG_COLL_SCAN:
		QCG_HAND_OVER(m, comm, scan);
		QCG_HAND_OVER(m, comm, exscan);
		break;
	case QCG_COLL_GATHERV: QCG_HAND_OVER(m, comm, gatherv); break;
	case QCG_COLL_SCATTERV: QCG_HAND_OVER(m, comm, scatterv); break;
	case QCG_COLL_ALLGATHERV: QCG_HAND_OVER(m, comm, allgatherv); break;
	case QCG_COLL_ALLTOALLV: QCG_HAND_OVER(m, comm, alltoallv); break;
	}
}

static int
qcg_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
	qcg_release_previous((mca_coll_qcg_module_t *)module);
	return OMPI_SUCCESS;
}
