/*
 * coll_qcg_verify.c: the cost model proposes, a measurement decides. For a large call
 * (coll_qcg_verify_bytes and up), or a smaller unrooted one whose predicted margin is thin
 * (qcg_verify_worth), whose model choice is not the previous component, the first
 * calls of that collective and size class alternate the model's choice and the previous
 * component, VERIFY_ROUNDS times each, timed on every rank; one allreduce of the times (the
 * slowest rank's, the least of each candidate's rounds) then settles the class for the rest of
 * the communicator's life. coll/qcg thus never stays slower than what it replaces where the
 * model was wrong: the model is fitted to the links it measured, and a WAN whose capacity grows
 * with the number of flows (many sites, a fast line, several proxies) can beat any figure a
 * probe of one or two pairs gives it.
 *
 * Every member makes the same calls with the same sizes, so every member's state machine takes
 * the same steps, and the verdict, from one allreduce, is the same everywhere. The extra
 * allreduce costs about one call of the class, once per class and communicator.
 */
#include "config.h"

#include <float.h>
#include <time.h>

#include "coll_qcg.h"


/* Timed calls of each candidate per class: the least counts (noise only adds time). */
#define VERIFY_ROUNDS 2

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/*
 * The collectives whose module slot is a *_verified function below (their calls end here);
 * which calls are measured is qcg_verify_worth's (coll_qcg_decision.h). In allreduce,
 * allgather and alltoall no rank can leave before every rank's data reached it, so a rank's own
 * time spans the call. A rooted call's leaves may return as soon as their data is sent (a tuned
 * gather of 8 B measured 0.1 ms on its slowest rank across a 5 ms WAN), so their own times
 * would favour whichever algorithm waits least locally, not the faster one: a trial call of
 * bcast, reduce, gather or scatter therefore runs between two barriers of the previous
 * component, and is timed from the first to the end of the second. Both candidates pay the
 * same barriers, so the comparison stays fair; the barriers cost a few WAN round trips, four
 * times per size class, once. fence() is that barrier: a failed one only blurs the timing, the
 * call itself goes on.
 */
static void
fence(mca_coll_qcg_module_t *m, int coll)
{
	if (qcg_coll_rooted(coll))
		(void)m->previous_barrier(m->comm, m->previous_barrier_module);
}

void
mca_coll_qcg_verify_reset(mca_coll_qcg_module_t *m)
{
	for (int k = 0; k < QCG_NCOLLS; k++) {
		struct qcg_verify *v = &m->verify[k];
		v->cls = -1;
		v->running = 0;
		v->done = v->overruled = 0;
	}
}

int
mca_coll_qcg_verify_alg(mca_coll_qcg_module_t *m, int coll, int cls, size_t bytes, int alg,
    const double *predicted, int *final)
{
	struct qcg_verify *v = &m->verify[coll];
	uint64_t bit = 1ull << (cls > 63 ? 63 : cls);
	const mca_coll_qcg_component_t *c = &mca_coll_qcg_component;
	*final = 1;
	if (!qcg_verify_worth(coll, bytes, alg, predicted, c->verify_bytes, c->verify_margin))
		return alg;
	if (v->done & bit)
		return v->overruled & bit ? QCG_ALG_PREVIOUS : alg;
	*final = 0;
	if (v->cls < 0) { /* a trial of this class starts */
		v->cls = cls;
		v->alg = alg;
		v->calls = 0;
		v->best[0] = v->best[1] = DBL_MAX;
	} else if (v->cls != cls) {
		return alg; /* one trial at a time: this class waits for its next call */
	}
	v->running = 1;
	fence(m, coll);
	v->start_us = now_us();
	return v->calls++ % 2 == 0 ? v->alg : QCG_ALG_PREVIOUS;
}

/* Every member: the slowest rank's least time of each candidate, and the verdict. */
static void
verify_settle(mca_coll_qcg_module_t *m, int coll, struct qcg_verify *v)
{
	double worst[2] = { v->best[0], v->best[1] };
	uint64_t bit = 1ull << (v->cls > 63 ? 63 : v->cls);
	int rc = m->previous_allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, m->comm,
	    m->previous_allreduce_module);
	v->done |= bit;
	/* Without an agreed measurement every member keeps the model's choice, as before. */
	if (rc == OMPI_SUCCESS && worst[1] < worst[0])
		v->overruled |= bit;
	if (m->rank == 0)
		QCG_VERBOSE(10, "choice: comm %d %s size class %d: verified: %s %.1f us, tuned "
		    "%.1f us (slowest rank, least of %d calls each%s)%s: %s from now on", m->cid,
		    qcg_coll_name(coll), v->cls, qcg_alg_name(v->alg), worst[0], worst[1],
		    VERIFY_ROUNDS, qcg_coll_rooted(coll) ? ", between barriers" : "",
		    rc == OMPI_SUCCESS ? "" : " (the allreduce failed)",
		    v->overruled & bit ? "tuned" : qcg_alg_name(v->alg));
	v->cls = -1;
}

/* After a call of `coll` on m's communicator returned: time a trial call, settle the last. */
static void
verify_end(mca_coll_qcg_module_t *m, int coll)
{
	struct qcg_verify *v = &m->verify[coll];
	if (!v->running)
		return;
	v->running = 0;
	fence(m, coll);
	double t = now_us() - v->start_us;
	int which = (v->calls - 1) % 2;
	if (t < v->best[which])
		v->best[which] = t;
	if (v->calls == 2 * VERIFY_ROUNDS)
		verify_settle(m, coll, v);
}

/*
 * The module's slots of the collectives that are verified: each call, then its end. (The
 * collectives' own files stay as they are; a slot handed over to the previous component for
 * good no longer passes here.)
 */
int
mca_coll_qcg_allreduce_verified(const void *sbuf, void *rbuf, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_allreduce(sbuf, rbuf, count, dtype, op, comm, module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_ALLREDUCE);
	return rc;
}

int
mca_coll_qcg_allgather_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
	    module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_ALLGATHER);
	return rc;
}

int
mca_coll_qcg_alltoall_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_ALLTOALL);
	return rc;
}

int
mca_coll_qcg_allgatherv_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, const int *rcounts, const int *displs, struct ompi_datatype_t *rdtype,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_allgatherv(sbuf, scount, sdtype, rbuf, rcounts, displs, rdtype, comm,
	    module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_ALLGATHERV);
	return rc;
}

int
mca_coll_qcg_alltoallv_verified(const void *sbuf, const int *scounts, const int *sdispls,
    struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts, const int *rdispls,
    struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
    mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_alltoallv(sbuf, scounts, sdispls, sdtype, rbuf, rcounts, rdispls,
	    rdtype, comm, module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_ALLTOALLV);
	return rc;
}

int
mca_coll_qcg_bcast_verified(void *buf, int count, struct ompi_datatype_t *dtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_bcast(buf, count, dtype, root, comm, module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_BCAST);
	return rc;
}

int
mca_coll_qcg_reduce_verified(const void *sbuf, void *rbuf, int count,
    struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_reduce(sbuf, rbuf, count, dtype, op, root, comm, module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_REDUCE);
	return rc;
}

int
mca_coll_qcg_gather_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_gather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
	    module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_GATHER);
	return rc;
}

int
mca_coll_qcg_scatter_verified(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
    void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
    struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
	int rc = mca_coll_qcg_scatter(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
	    module);
	verify_end((mca_coll_qcg_module_t *)module, QCG_COLL_SCATTER);
	return rc;
}
