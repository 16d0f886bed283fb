/*
 * coll_qcg_mcast_verbs.c: InfiniBand UD multicast for the multicast broadcast
 * (coll_qcg_mcast_verbs.h), with rdma-core's librdmacm and libibverbs.
 *
 * One rdma_cm_id in the UDP port space per communicator: it resolves the IPoIB address to its
 * device and port, owns a UD queue pair, and joins the group (librdmacm derives the MGID from
 * the IPv4 group and asks the subnet manager). Receives are posted into fixed slots of one
 * registered buffer; a completed one is copied out and posted again. Sends are copied into a
 * ring of registered slots, so the caller's buffer is never registered (it may be anything MPI
 * hands to a broadcast).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "coll_qcg_mcast_verbs.h"

#define SEND_WAIT_NS 1000000L /* how long a send waits for a free slot: 1 ms */

struct qcg_mcast_verbs {
	struct rdma_event_channel *channel;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_mr *mr;
	uint8_t *buf;                 /* QCG_VERBS_RECV_SLOTS receive slots, then the send slots */
	size_t slot;                  /* bytes per slot: GRH + MTU */
	size_t mtu;                   /* largest datagram */
	struct ibv_ah *ah;            /* to the group */
	uint32_t remote_qpn, remote_qkey;
	struct sockaddr_in group;
	int joined;
	unsigned send_next;           /* next send slot to use */
	unsigned sends_posted;        /* not yet completed */
};

int
qcg_mcast_verbs_devices(void)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (list == NULL)
		return 0;
	ibv_free_device_list(list);
	return n;
}

/* Wait (up to QCG_VERBS_CM_TIMEOUT_MS) for the next connection-manager event, which must be
 * want; the caller acks it. NULL with err saying what came instead. */
static struct rdma_cm_event *
cm_wait(struct qcg_mcast_verbs *v, enum rdma_cm_event_type want, char *err, size_t errlen)
{
	struct pollfd p = { .fd = v->channel->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int rc;
	do
		rc = poll(&p, 1, QCG_VERBS_CM_TIMEOUT_MS);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0) {
		snprintf(err, errlen, "no %s from the RDMA connection manager within %d ms",
		    rdma_event_str(want), QCG_VERBS_CM_TIMEOUT_MS);
		return NULL;
	}
	if (rdma_get_cm_event(v->channel, &ev) != 0) {
		snprintf(err, errlen, "rdma_get_cm_event: %s", strerror(errno));
		return NULL;
	}
	if (ev->event != want) {
		snprintf(err, errlen, "expected %s, the connection manager said %s (status %d)",
		    rdma_event_str(want), rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

static int
post_recv(struct qcg_mcast_verbs *v, unsigned slot)
{
	struct ibv_sge sge = { (uintptr_t)(v->buf + (size_t)slot * v->slot), (uint32_t)v->slot,
		v->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;
	return ibv_post_recv(v->id->qp, &wr, &bad);
}

/* The port's active MTU in bytes, which bounds a UD message. */
static size_t
port_mtu(struct rdma_cm_id *id)
{
	struct ibv_port_attr attr;
	if (ibv_query_port(id->verbs, id->port_num, &attr) != 0)
		return 0;
	return (size_t)128 << attr.active_mtu; /* IBV_MTU_256 is 1 ... IBV_MTU_4096 is 5 */
}

/* Resolve ifaddr to its device and port; protection domain, completion queues, UD queue pair
 * and the registered slots; every receive slot posted. */
static int
verbs_resources(struct qcg_mcast_verbs *v, const struct in_addr *ifaddr, char *err,
    size_t errlen)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = *ifaddr };
	struct rdma_cm_event *ev;
	if (rdma_resolve_addr(v->id, (struct sockaddr *)&src, (struct sockaddr *)&v->group,
		QCG_VERBS_CM_TIMEOUT_MS) != 0) {
		snprintf(err, errlen, "rdma_resolve_addr from %s: %s (is it an IPoIB address?)",
		    inet_ntoa(*ifaddr), strerror(errno));
		return -1;
	}
	if ((ev = cm_wait(v, RDMA_CM_EVENT_ADDR_RESOLVED, err, errlen)) == NULL)
		return -1;
	rdma_ack_cm_event(ev);
	if ((v->mtu = port_mtu(v->id)) == 0) {
		snprintf(err, errlen, "ibv_query_port: %s", strerror(errno));
		return -1;
	}
	v->slot = QCG_VERBS_GRH_BYTES + v->mtu;
	size_t bytes = v->slot * (QCG_VERBS_RECV_SLOTS + QCG_VERBS_SEND_SLOTS);
	struct ibv_qp_init_attr qp = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = QCG_VERBS_SEND_SLOTS, .max_recv_wr = QCG_VERBS_RECV_SLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if ((v->pd = ibv_alloc_pd(v->id->verbs)) == NULL ||
	    (v->send_cq = ibv_create_cq(v->id->verbs, QCG_VERBS_SEND_SLOTS, NULL, NULL, 0)) ==
	    NULL ||
	    (v->recv_cq = ibv_create_cq(v->id->verbs, QCG_VERBS_RECV_SLOTS, NULL, NULL, 0)) ==
	    NULL ||
	    (v->buf = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096)) == NULL ||
	    (v->mr = ibv_reg_mr(v->pd, v->buf, bytes, IBV_ACCESS_LOCAL_WRITE)) == NULL) {
		snprintf(err, errlen, "verbs resources (%zu registered bytes): %s", bytes,
		    strerror(errno));
		return -1;
	}
	qp.send_cq = v->send_cq;
	qp.recv_cq = v->recv_cq;
	/* librdmacm brings a UD queue pair of the UDP port space to RTS itself. */
	if (rdma_create_qp(v->id, v->pd, &qp) != 0) {
		snprintf(err, errlen, "rdma_create_qp (UD): %s", strerror(errno));
		return -1;
	}
	for (unsigned i = 0; i < QCG_VERBS_RECV_SLOTS; i++)
		if (post_recv(v, i) != 0) {
			snprintf(err, errlen, "ibv_post_recv: %s", strerror(errno));
			return -1;
		}
	return 0;
}

/* Join the group and build the address handle its datagrams are sent with. */
static int
verbs_join(struct qcg_mcast_verbs *v, char *err, size_t errlen)
{
	struct rdma_cm_event *ev;
	if (rdma_join_multicast(v->id, (struct sockaddr *)&v->group, NULL) != 0) {
		snprintf(err, errlen, "rdma_join_multicast %s: %s", inet_ntoa(v->group.sin_addr),
		    strerror(errno));
		return -1;
	}
	v->joined = 1;
	if ((ev = cm_wait(v, RDMA_CM_EVENT_MULTICAST_JOIN, err, errlen)) == NULL)
		return -1;
	v->remote_qpn = ev->param.ud.qp_num;
	v->remote_qkey = ev->param.ud.qkey;
	v->ah = ibv_create_ah(v->pd, &ev->param.ud.ah_attr);
	rdma_ack_cm_event(ev);
	if (v->ah == NULL) {
		snprintf(err, errlen, "ibv_create_ah for group %s: %s", inet_ntoa(v->group.sin_addr),
		    strerror(errno));
		return -1;
	}
	return 0;
}

struct qcg_mcast_verbs *
qcg_mcast_verbs_open(const struct sockaddr_in *group, const struct in_addr *ifaddr, char *err,
    size_t errlen)
{
	struct qcg_mcast_verbs *v = calloc(1, sizeof(*v));
	if (v == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	v->group = *group;
	v->group.sin_port = 0;
	if (ifaddr->s_addr == htonl(INADDR_ANY)) {
		snprintf(err, errlen, "the verbs transport needs coll_qcg_mcast_interface: the IPv4 "
		    "address of this node's IPoIB interface");
		goto fail;
	}
	if ((v->channel = rdma_create_event_channel()) == NULL) {
		snprintf(err, errlen, "rdma_create_event_channel: %s (no RDMA device, or rdma_ucm "
		    "not loaded)", strerror(errno));
		goto fail;
	}
	if (fcntl(v->channel->fd, F_SETFL, fcntl(v->channel->fd, F_GETFL) | O_NONBLOCK) != 0 ||
	    rdma_create_id(v->channel, &v->id, v, RDMA_PS_UDP) != 0) {
		snprintf(err, errlen, "rdma_create_id: %s", strerror(errno));
		goto fail;
	}
	if (verbs_resources(v, ifaddr, err, errlen) != 0 || verbs_join(v, err, errlen) != 0)
		goto fail;
	return v;
fail:
	qcg_mcast_verbs_close(v);
	return NULL;
}

size_t
qcg_mcast_verbs_max_dgram(const struct qcg_mcast_verbs *v)
{
	return v->mtu;
}

/* Reap completed sends; -1 when one failed. */
static int
reap_sends(struct qcg_mcast_verbs *v)
{
	struct ibv_wc wc[16];
	int n;
	while ((n = ibv_poll_cq(v->send_cq, 16, wc)) > 0)
		for (int i = 0; i < n; i++) {
			v->sends_posted--;
			if (wc[i].status != IBV_WC_SUCCESS)
				return -1;
		}
	return n < 0 ? -1 : 0;
}

static long
elapsed_ns(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

int
qcg_mcast_verbs_send(struct qcg_mcast_verbs *v, const void *d, size_t len)
{
	struct timespec t0;
	if (len > v->mtu)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		if (reap_sends(v) != 0)
			return -1;
	while (v->sends_posted == QCG_VERBS_SEND_SLOTS && elapsed_ns(&t0) < SEND_WAIT_NS);
	if (v->sends_posted == QCG_VERBS_SEND_SLOTS)
		return 1;
	/* Slots are used in order and complete in order (one queue pair), so the next one is
	 * free whenever fewer than all are posted. */
	uint8_t *slot = v->buf + (QCG_VERBS_RECV_SLOTS + v->send_next) * v->slot;
	memcpy(slot, d, len);
	struct ibv_sge sge = { (uintptr_t)slot, (uint32_t)len, v->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = v->send_next, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = v->ah, .remote_qpn = v->remote_qpn, .remote_qkey = v->remote_qkey },
	}, *bad;
	if (ibv_post_send(v->id->qp, &wr, &bad) != 0)
		return -1;
	v->send_next = (v->send_next + 1) % QCG_VERBS_SEND_SLOTS;
	v->sends_posted++;
	return 0;
}

long
qcg_mcast_verbs_recv(struct qcg_mcast_verbs *v, void *buf, size_t len)
{
	struct ibv_wc wc;
	int n = ibv_poll_cq(v->recv_cq, 1, &wc);
	if (n <= 0)
		return n == 0 ? 0 : -1;
	unsigned slot = (unsigned)wc.wr_id;
	long got = -1;
	if (wc.status == IBV_WC_SUCCESS && wc.byte_len >= QCG_VERBS_GRH_BYTES) {
		size_t dlen = wc.byte_len - QCG_VERBS_GRH_BYTES;
		memcpy(buf, v->buf + (size_t)slot * v->slot + QCG_VERBS_GRH_BYTES,
		    dlen < len ? dlen : len);
		got = dlen > len ? (long)len + 1 : (long)dlen;
	}
	if (post_recv(v, slot) != 0)
		return -1;
	return got < 0 ? 0 : got; /* a failed receive is a lost datagram */
}

void
qcg_mcast_verbs_close(struct qcg_mcast_verbs *v)
{
	if (v == NULL)
		return;
	if (v->joined)
		rdma_leave_multicast(v->id, (struct sockaddr *)&v->group);
	if (v->ah)
		ibv_destroy_ah(v->ah);
	if (v->id && v->id->qp)
		rdma_destroy_qp(v->id);
	if (v->mr)
		ibv_dereg_mr(v->mr);
	if (v->send_cq)
		ibv_destroy_cq(v->send_cq);
	if (v->recv_cq)
		ibv_destroy_cq(v->recv_cq);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->id)
		rdma_destroy_id(v->id);
	if (v->channel)
		rdma_destroy_event_channel(v->channel);
	free(v->buf);
	free(v);
}
