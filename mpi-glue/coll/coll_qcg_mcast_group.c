/*
 * coll_qcg_mcast_group.c: a communicator's multicast group, set up once per communicator on its
 * hidden cluster communicator (never per call).
 *
 * Cluster rank 0 chooses: under the services (a helper socket in the environment) it asks the
 * broker, through its node's helper and the front-end, for a group no other job holds; without
 * them (plain mpirun), and only when coll_qcg_mcast is 1, it draws a group and a port at random
 * from coll_qcg_mcast_range with the kernel's CSPRNG (getrandom), the paper's own scheme, and
 * relies on the random 64-bit tag in every datagram to drop a colliding job's traffic. The
 * choice, the tag and the seed of the root-delay synchronization reach the cluster in one
 * broadcast; every member then opens its socket, and the cluster uses multicast only if every
 * member could (one allreduce), else the cluster's ordinary broadcast.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_qcg_mcast.h"
#include "random_bytes.h"

#define MCAST_PORT_MIN 20000 /* random ports: 20000..59999, clear of the usual ephemeral range */
#define MCAST_PORT_SPAN 40000

/* What rank 0 announces: all in network order, 32 bytes, memcpy'd (no padding issues). */
struct announce {
	int32_t source;   /* enum qcg_mcast_source; NONE: no multicast in this cluster */
	uint32_t address;
	uint32_t port;
	uint32_t spare;
	uint64_t tag;
	uint64_t seed;
};

/* A random group of coll_qcg_mcast_range and a random port; -1 with err. */
static int
random_group(struct announce *a, char *err, size_t errlen)
{
	uint32_t base;
	int bits;
	uint64_t r[2];
	if (qcg_mcast_parse_range(mca_coll_qcg_mcast_params.range, &base, &bits, err, errlen) != 0)
		return -1;
	if (random_bytes(r, sizeof(r)) != 0) {
		snprintf(err, errlen, "getrandom: %s", strerror(errno));
		return -1;
	}
	a->address = htonl(qcg_mcast_pick_group(base, bits, r[0]));
	a->port = htonl(MCAST_PORT_MIN + (uint32_t)(r[1] % MCAST_PORT_SPAN));
	a->source = QCG_GROUP_RANDOM;
	return 0;
}

/* Rank 0's choice of group, tag and seed. */
static void
choose(struct announce *a, int cluster_size)
{
	const struct qcg_mcast_params *p = &mca_coll_qcg_mcast_params;
	char err[256] = "";
	memset(a, 0, sizeof(*a));
	a->source = QCG_GROUP_NONE;
	if (p->mode == QCG_MCAST_AUTO && cluster_size <= 2)
		return; /* a ring of two is a plain send: nothing to gain */
	if (random_bytes(&a->tag, sizeof(a->tag)) != 0 ||
	    random_bytes(&a->seed, sizeof(a->seed)) != 0) {
		opal_output(0, "coll:qcg: mcast: getrandom: %s; no multicast", strerror(errno));
		return;
	}
	if (getenv("QCG_HELPER_SOCKET") != NULL) {
		if (qcg_mcast_broker_group(&a->address, &a->port, err, sizeof(err)) == 0) {
			a->source = QCG_GROUP_BROKER;
			return;
		}
		opal_output(0, "coll:qcg: mcast: no group from the broker: %s%s", err,
		    p->mode == QCG_MCAST_ON ? "; drawing one at random" : "; no multicast");
		if (p->mode != QCG_MCAST_ON)
			return;
	}
	if (p->mode == QCG_MCAST_ON && random_group(a, err, sizeof(err)) != 0)
		opal_output(0, "coll:qcg: mcast: %s; no multicast", err);
}

/* Open this member's socket; 1 if it could, 0 if not (said why). */
static int
open_member(struct qcg_mcast *mc, const struct announce *a)
{
	char err[256];
	memset(&mc->group, 0, sizeof(mc->group));
	mc->group.sin_family = AF_INET;
	mc->group.sin_addr.s_addr = a->address;
	mc->group.sin_port = htons((uint16_t)ntohl(a->port));
	mc->tag = a->tag, mc->seed = a->seed, mc->source = a->source;
	mc->dgram = malloc(QCG_MCAST_MAX_DGRAM);
	if (mc->dgram == NULL || random_bytes(&mc->drop_state, sizeof(mc->drop_state)) != 0) {
		opal_output(0, "coll:qcg: mcast: out of memory or randomness; no multicast");
		return 0;
	}
	mc->drop_state |= 1; /* xorshift must not start at 0 */
	if (qcg_mcast_transport_open(mc, err, sizeof(err)) != 0) {
		opal_output(0, "coll:qcg: mcast: %s; this cluster uses the ordinary broadcast", err);
		return 0;
	}
	return 1;
}

int
qcg_mcast_setup(struct qcg_mcast *mc, struct ompi_communicator_t *cl)
{
	struct announce a;
	int ok = 0, rc;
	mc->fd = -1;
	mc->verbs = NULL;
	mc->ready = -1;
	if (ompi_comm_size(cl) < 2)
		return OMPI_SUCCESS; /* a cluster of one process has nobody to multicast to */
	if (ompi_comm_rank(cl) == 0)
		choose(&a, ompi_comm_size(cl));
	rc = cl->c_coll->coll_bcast(&a, sizeof(a), MPI_BYTE, 0, cl, cl->c_coll->coll_bcast_module);
	if (rc != OMPI_SUCCESS || a.source == QCG_GROUP_NONE)
		return rc;
	ok = open_member(mc, &a);
	rc = cl->c_coll->coll_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, cl,
	    cl->c_coll->coll_allreduce_module);
	if (rc != OMPI_SUCCESS || !ok) {
		qcg_mcast_teardown(mc);
		mc->ready = -1;
		return rc;
	}
	mc->ready = 1;
	if (ompi_comm_rank(cl) == 0)
			QCG_VERBOSE(10, "mcast: cluster of %d: group %s port %u (%s)",
		    ompi_comm_size(cl), inet_ntoa(mc->group.sin_addr), ntohs(mc->group.sin_port),
		    a.source == QCG_GROUP_BROKER ? "from the broker" : "random");
	return OMPI_SUCCESS;
}

void
qcg_mcast_teardown(struct qcg_mcast *mc)
{
	qcg_mcast_transport_close(mc);
	free(mc->dgram);
	mc->dgram = NULL;
}
