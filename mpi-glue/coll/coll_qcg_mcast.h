/*
 * coll_qcg_mcast.h: the multicast broadcast (paper 001, Hoefler, Siebert, Rehm) inside one
 * cluster: unreliable UDP/IP multicast of the whole message, then a fragmented chain along a
 * virtual ring over MPI point-to-point that repairs whatever the multicast lost.
 *
 * Files: coll_qcg_mcast_wire.c the datagram header and group ranges (no MPI);
 * coll_qcg_mcast_socket.c the UDP socket (join, send, receive); coll_qcg_mcast_verbs.c the
 * InfiniBand UD transport; coll_qcg_mcast_transport.c which of the two a communicator uses; coll_qcg_mcast_group.c where a
 * communicator's group comes from (the broker through the node's helper, or random from a
 * range) and its set-up, once per communicator; coll_qcg_mcast_params.c the MCA parameters;
 * coll_qcg_mcast.c the two stages and the hook into the multilevel broadcast.
 */
#ifndef COLL_QCG_MCAST_H
#define COLL_QCG_MCAST_H

#include <netinet/in.h>
#include <stdint.h>

#include "coll_qcg.h"
#include "coll_qcg_mcast_wire.h"

enum qcg_mcast_mode {
	QCG_MCAST_OFF = 0,   /* never */
	QCG_MCAST_ON = 1,    /* always (group from the broker if there is one, else random) */
	QCG_MCAST_AUTO = 2,  /* only with a broker-allocated group and more than 2 per cluster */
};

enum qcg_mcast_transport {
	QCG_TRANSPORT_UDP = 0,   /* UDP/IP multicast on the LAN */
	QCG_TRANSPORT_VERBS = 1, /* InfiniBand UD multicast (rdma-core) */
	QCG_TRANSPORT_AUTO = 2,  /* verbs where an RDMA device and coll_qcg_mcast_interface exist */
};

enum qcg_mcast_delay {
	QCG_DELAY_NONE = 0,  /* the root multicasts at once */
	QCG_DELAY_FIXED = 1, /* the root sleeps root_delay_us first */
	QCG_DELAY_SYNC = 2,  /* the root waits for one pseudo-randomly chosen receiver */
};

struct qcg_mcast_params {
	int mode;          /* enum qcg_mcast_mode */
	int min_bytes;     /* smaller broadcasts keep the tree */
	int max_bytes;     /* larger ones too */
	int frag_size;     /* payload bytes per datagram */
	int ring_bytes;    /* bytes per ring message (a whole number of fragments) */
	int delay;         /* enum qcg_mcast_delay */
	int root_delay_us; /* QCG_DELAY_FIXED: how long */
	char *range;       /* "A.B.C.D/bits" random groups are drawn from */
	char *interface;   /* IPv4 address of the interface to join/send on; empty: the route */
	int drop_percent;  /* test knob: the root drops this share of its datagrams */
	int rcvbuf_kb;     /* SO_RCVBUF asked for the socket */
	int transport;     /* enum qcg_mcast_transport */
};

extern struct qcg_mcast_params mca_coll_qcg_mcast_params;

/* Where a communicator's group came from. */
enum qcg_mcast_source { QCG_GROUP_NONE = 0, QCG_GROUP_BROKER = 1, QCG_GROUP_RANDOM = 2 };

struct qcg_mcast_verbs;

/* One communicator's multicast state (module field m->mcast). */
struct qcg_mcast {
	int ready;                 /* 1 usable, 0 not set up yet, -1 unavailable: tree fallback */
	int fd;                    /* the UDP socket, or -1 */
	struct qcg_mcast_verbs *verbs; /* the InfiniBand transport instead, or NULL */
	int source;                /* enum qcg_mcast_source */
	struct sockaddr_in group;  /* address and port, network order */
	uint64_t tag;              /* random, in every datagram */
	uint64_t seed;             /* QCG_DELAY_SYNC: picks the receiver the root waits for */
	uint32_t seq;              /* broadcasts so far on this communicator */
	uint32_t drop_state;       /* drop_percent's generator */
	uint8_t *dgram;            /* one datagram, QCG_MCAST_MAX_DGRAM bytes */
	uint64_t calls, by_mcast, by_ring, sent, dropped, rejected; /* counters for verbose 10 */
};

/* coll_qcg_mcast_params.c */
void mca_coll_qcg_mcast_register(void);
int mca_coll_qcg_mcast_check_params(void);

/* coll_qcg_mcast_socket.c */
int qcg_mcast_interface_addr(struct in_addr *ifaddr, char *err, size_t errlen);
int qcg_mcast_socket_open(const struct sockaddr_in *group, char *err, size_t errlen);
int qcg_mcast_socket_send(int fd, const struct sockaddr_in *group, const void *d, size_t len);
long qcg_mcast_socket_recv(int fd, void *buf, size_t len);

/* coll_qcg_mcast_transport.c: open the transport coll_qcg_mcast_transport picks (0, or -1
 * with err), send (0 sent, 1 lost, -1 error), receive (length, 0 none waiting, -1 error). */
int qcg_mcast_transport_open(struct qcg_mcast *mc, char *err, size_t errlen);
int qcg_mcast_send(struct qcg_mcast *mc, const void *d, size_t len);
long qcg_mcast_recv(struct qcg_mcast *mc, void *buf, size_t len);
void qcg_mcast_transport_close(struct qcg_mcast *mc);

/* coll_qcg_mcast_group.c: collective over the cluster communicator, once per communicator. */
int qcg_mcast_setup(struct qcg_mcast *mc, struct ompi_communicator_t *cluster);
void qcg_mcast_teardown(struct qcg_mcast *mc);

/* coll_qcg_mcast_broker.c: a group from the broker through the helper (network order). */
int qcg_mcast_broker_group(uint32_t *address, uint32_t *port, char *err, size_t errlen);

/* coll_qcg_mcast.c: the hooks of coll_qcg_bcast.c and coll_qcg_module.c. */
int mca_coll_qcg_mcast_wanted(const mca_coll_qcg_module_t *m, size_t nbytes);
int mca_coll_qcg_mcast_bcast(char *buf, int nbytes, int root, struct ompi_communicator_t *comm,
    mca_coll_qcg_module_t *m);
void mca_coll_qcg_mcast_free(mca_coll_qcg_module_t *m);

#endif
