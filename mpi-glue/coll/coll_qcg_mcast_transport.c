/*
 * coll_qcg_mcast_transport.c: which transport carries a communicator's multicast datagrams,
 * chosen by coll_qcg_mcast_transport: the UDP socket (coll_qcg_mcast_socket.c) or, where
 * rdma-core is built in and the node has an RDMA device, an InfiniBand UD queue pair joined
 * to the same group (coll_qcg_mcast_verbs.c). Both carry whole, unreliable datagrams; the
 * broadcast above does not know which one it has.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "coll_qcg_mcast.h"
#ifdef HAVE_RDMA
#include "coll_qcg_mcast_verbs.h"
#endif

#ifdef HAVE_RDMA
/* The IB transport, or -1 with err (the caller falls back as for any failed open). */
static int
open_verbs(struct qcg_mcast *mc, char *err, size_t errlen)
{
	struct in_addr ifaddr;
	if (qcg_mcast_interface_addr(&ifaddr, err, errlen) != 0)
		return -1;
	mc->verbs = qcg_mcast_verbs_open(&mc->group, &ifaddr, err, errlen);
	if (mc->verbs == NULL)
		return -1;
	size_t need = QCG_MCAST_HDR_BYTES + (size_t)mca_coll_qcg_mcast_params.frag_size;
	if (qcg_mcast_verbs_max_dgram(mc->verbs) < need) {
		snprintf(err, errlen, "the InfiniBand MTU carries %zu bytes a datagram, a fragment "
		    "needs %zu: set coll_qcg_mcast_frag_size to at most %zu",
		    qcg_mcast_verbs_max_dgram(mc->verbs), need,
		    qcg_mcast_verbs_max_dgram(mc->verbs) - QCG_MCAST_HDR_BYTES);
		qcg_mcast_verbs_close(mc->verbs);
		mc->verbs = NULL;
		return -1;
	}
	return 0;
}
#endif

int
qcg_mcast_transport_open(struct qcg_mcast *mc, char *err, size_t errlen)
{
	int transport = mca_coll_qcg_mcast_params.transport;
	mc->fd = -1;
	mc->verbs = NULL;
#ifdef HAVE_RDMA
	if (transport == QCG_TRANSPORT_VERBS ||
	    (transport == QCG_TRANSPORT_AUTO && qcg_mcast_verbs_devices() > 0 &&
	    mca_coll_qcg_mcast_params.interface[0] != '\0'))
		return open_verbs(mc, err, errlen);
#else
	if (transport == QCG_TRANSPORT_VERBS) {
		snprintf(err, errlen, "coll_qcg_mcast_transport=verbs, but this build has no "
		    "rdma-core (configure found no libibverbs/librdmacm)");
		return -1;
	}
#endif
	mc->fd = qcg_mcast_socket_open(&mc->group, err, errlen);
	return mc->fd < 0 ? -1 : 0;
}

int
qcg_mcast_send(struct qcg_mcast *mc, const void *d, size_t len)
{
#ifdef HAVE_RDMA
	if (mc->verbs != NULL)
		return qcg_mcast_verbs_send(mc->verbs, d, len);
#endif
	return qcg_mcast_socket_send(mc->fd, &mc->group, d, len);
}

long
qcg_mcast_recv(struct qcg_mcast *mc, void *buf, size_t len)
{
#ifdef HAVE_RDMA
	if (mc->verbs != NULL)
		return qcg_mcast_verbs_recv(mc->verbs, buf, len);
#endif
	return qcg_mcast_socket_recv(mc->fd, buf, len);
}

void
qcg_mcast_transport_close(struct qcg_mcast *mc)
{
#ifdef HAVE_RDMA
	qcg_mcast_verbs_close(mc->verbs);
#endif
	mc->verbs = NULL;
	if (mc->fd >= 0)
		close(mc->fd);
	mc->fd = -1;
}
