/*
 * coll_qcg_mcast_verbs.h: the multicast broadcast's InfiniBand transport (paper 001 used IB
 * hardware multicast): an unreliable-datagram queue pair joined to the communicator's group
 * through librdmacm, which maps the IPv4 group address onto an IB multicast GID and registers
 * the join with the subnet manager. Same contract as the UDP socket (coll_qcg_mcast_socket.c):
 * whole datagrams, unreliable, non-blocking receive; the ring stage repairs any loss.
 *
 * Built only with rdma-core (configure's HAVE_RDMA). It needs an RDMA device with an IPoIB
 * interface, whose IPv4 address coll_qcg_mcast_interface names.
 */
#ifndef COLL_QCG_MCAST_VERBS_H
#define COLL_QCG_MCAST_VERBS_H

#include <netinet/in.h>
#include <stddef.h>

#define QCG_VERBS_RECV_SLOTS 512  /* receives posted at once: one message of fragments */
#define QCG_VERBS_SEND_SLOTS 64   /* sends in flight */
#define QCG_VERBS_GRH_BYTES 40    /* the global route header every UD receive starts with */
#define QCG_VERBS_CM_TIMEOUT_MS 5000 /* address resolution and the subnet manager's join */

struct qcg_mcast_verbs;

/* How many RDMA devices this host has (0: the transport cannot be used here). */
int qcg_mcast_verbs_devices(void);

/* Join group (its port is not used: an IB group has none) through the RDMA device that owns
 * the IPv4 address ifaddr. NULL with err naming the step that failed. */
struct qcg_mcast_verbs *qcg_mcast_verbs_open(const struct sockaddr_in *group,
    const struct in_addr *ifaddr, char *err, size_t errlen);

/* The largest datagram the group carries (the path MTU the join reported). */
size_t qcg_mcast_verbs_max_dgram(const struct qcg_mcast_verbs *v);

/* 0 sent, 1 no send slot came free in time (a lost datagram, like any other), -1 error
 * (including len above qcg_mcast_verbs_max_dgram). */
int qcg_mcast_verbs_send(struct qcg_mcast_verbs *v, const void *d, size_t len);

/* One datagram into buf: its length (len + 1 when it did not fit), 0 when none is waiting,
 * -1 on error. */
long qcg_mcast_verbs_recv(struct qcg_mcast_verbs *v, void *buf, size_t len);

/* Leave the group and free everything. */
void qcg_mcast_verbs_close(struct qcg_mcast_verbs *v);

#endif
