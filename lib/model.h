/*
 * model.h: the grid's domain types, shared by the registry (db/), the broker's decision and
 * the SOAP handlers. Plain fixed-size structs: they cross module boundaries by value, and every
 * string field has a hard length limit that parsers enforce before copying.
 */
#ifndef QCG_MODEL_H
#define QCG_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define QCG_NAME_MAX 64       /* cluster, node, job names (bytes, with the NUL) */
#define QCG_ADDR_MAX 64       /* an IPv4/IPv6 address or host name */
#define QCG_ENDPOINT_MAX 256  /* a URL such as https://gw.site-a:8443/ */
#define QCG_NETWORKS_MAX 512  /* comma-separated CIDR list */
#define QCG_DN_MAX 512        /* an X.509 distinguished name, one-line RFC 2253 form */
#define QCG_PROCESS_MAX 128   /* a process identity, e.g. Open MPI's "jobid.vpid" */
#define QCG_RELAY_ID_BYTES 16 /* relay ids are 128 bits */

/* How a cluster's firewall treats connections from outside (DESIGN.md section 3). */
enum cluster_policy {
	POLICY_OPEN = 0,       /* every port of every node is reachable from outside */
	POLICY_PORT_RANGE = 1, /* only ports in [port_min, port_max] are reachable */
	POLICY_NAT = 2,        /* nodes may connect out (NAT); nothing comes in unsolicited */
	POLICY_CLOSED = 3,     /* nodes reach only their own gateway */
};

/* Connection methods, best first; the order is the fall-through order. */
enum connect_method {
	METHOD_DIRECT = 0,
	METHOD_PORT_RANGE = 1,
	METHOD_REVERSAL = 2,
	METHOD_TRAVERSAL = 3,
	METHOD_RELAY = 4,       /* through one proxy */
	METHOD_RELAY_CHAIN = 5, /* through two proxies */
	METHOD_NONE = 6,        /* nothing can connect these two */
};
#define METHOD_COUNT 6 /* number of real methods (NONE excluded) */

/* A long-polling service's sign of life (db/migrations/004_liveness.sql); unix seconds, 0 for
 * never. Set by the registry, never taken from the wire. */
struct liveness {
	int64_t last_seen;     /* the last WaitEvents poll (or registration) */
	int64_t lease_expires; /* alive until then without another poll; 0: no lease yet */
	int64_t withdrawn_at;  /* when it was withdrawn; 0 while alive */
};

struct cluster {
	char name[QCG_NAME_MAX];
	enum cluster_policy policy;
	uint16_t port_min, port_max;           /* the open range, for POLICY_PORT_RANGE */
	char public_address[QCG_ADDR_MAX];     /* the gateway's address on the WAN */
	char private_networks[QCG_NETWORKS_MAX]; /* the nodes' networks, "10.1.0.0/24,..." */
	bool traversal_allowed;                /* may its nodes take part in TCP traversal */
	char frontend_endpoint[QCG_ENDPOINT_MAX];
	char frontend_dn[QCG_DN_MAX];          /* who registered it; only they may change it */
	struct liveness live;                  /* its front-end's lease */
};

struct proxy {
	int64_t id;                       /* registry row id */
	char endpoint[QCG_ENDPOINT_MAX];  /* "host:port" of its relay (data) port */
	char networks[QCG_NETWORKS_MAX];  /* served networks; "0.0.0.0/0" means the WAN */
	char cluster[QCG_NAME_MAX];       /* the cluster whose gateway hosts it, or "" */
	int64_t load;                     /* relays handed out and not yet reported done */
	char control_endpoint[QCG_ENDPOINT_MAX]; /* https URL of its SOAP control service
	                                          * (statistics), or "" */
	char owner_dn[QCG_DN_MAX];        /* the DN that registered it (set by the registry, never
	                                   * taken from the wire); "" for a row of schema 2 not
	                                   * registered since */
	struct liveness live;             /* its lease: a withdrawn proxy relays nothing */
};

/* A relay id: 128 opaque bits that the two halves of a reversal, traversal or relay (and the
 * proxies) match on. A struct so that it is copied and compared by value; it is text (32 hex
 * digits, lib/relay_id.h) only at the edges: SOAP and logs. */
struct relay_id {
	uint8_t bytes[QCG_RELAY_ID_BYTES];
};

enum job_state {
	JOB_PENDING = 0, /* reserved, not yet started */
	JOB_RUNNING = 1,
	JOB_DONE = 2,
	JOB_FAILED = 3,
	JOB_CANCELLED = 4,
	JOB_QUEUED = 5,  /* recorded, waiting for nodes other jobs hold (after the others so
	                  * that the numbers on the wire and in old clients stay) */
};

/* What a broker event asks of its receiver (the WSDL's EventKind; the numbers are tied to the
 * generated enum by static asserts in wsdl/soap_model.c). */
enum event_kind {
	EVENT_CONNECT = 0,   /* the target side must take part in a connection */
	EVENT_JOB_ENDED = 1, /* forget a job's cached resolutions, tokens and waiting sockets */
	EVENT_RELAY = 2,     /* a proxy must expect (and maybe forward) a relay id */
	EVENT_POLICY_CHANGED = 3, /* cluster `node` declared another policy: forget the decisions
	                           * cached for cluster pairs with it (job is "*") */
};

struct job {
	char id[QCG_NAME_MAX];
	char owner_dn[QCG_DN_MAX];
	enum job_state state;
	int64_t submitted, started, finished; /* unix seconds; 0 = not yet */
	int exit_code;
	char *description;                    /* heap, owned by the struct's user; may be NULL */
};

/* One cluster of a co-allocated job and the batch system's job that holds its nodes. */
#define QCG_BATCH_JOB_ID_MAX 32 /* a batch job id such as Slurm's "12345" (with the NUL) */
#define QCG_JOB_CLUSTERS_MAX 32 /* clusters recorded per job (the launcher's own limit) */
struct job_cluster_record {
	char cluster[QCG_NAME_MAX];
	char batch_job_id[QCG_BATCH_JOB_ID_MAX]; /* "" for the builtin allocator */
};

struct access_point {
	char job[QCG_NAME_MAX];
	char cluster[QCG_NAME_MAX];
	char node[QCG_NAME_MAX];
	char address[QCG_ADDR_MAX];
	uint16_t port;
	char process[QCG_PROCESS_MAX];
};

struct connection_record {
	char job[QCG_NAME_MAX];
	char from_cluster[QCG_NAME_MAX], from_node[QCG_NAME_MAX];
	char to_cluster[QCG_NAME_MAX], to_node[QCG_NAME_MAX];
	uint16_t to_port;
	enum connect_method method;
	bool succeeded;
	int64_t setup_usec;   /* time from resolve to an established connection */
	int64_t when;         /* unix seconds */
};

/* A relayed connection's resume (issue 14), as ListConnections reports it: when the broker
 * moved the relay, from which proxy to which, and the bytes the ends sent again. Relay ids in
 * hex (32 digits): a listing shows them, nothing connects with them. */
struct relay_resume {
	int64_t when;                       /* unix seconds */
	char old_relay_id[2 * QCG_RELAY_ID_BYTES + 1], new_relay_id[2 * QCG_RELAY_ID_BYTES + 1];
	char from_proxy[QCG_ENDPOINT_MAX], to_proxy[QCG_ENDPOINT_MAX];
	char from_cluster[QCG_NAME_MAX], from_node[QCG_NAME_MAX];
	char to_cluster[QCG_NAME_MAX], to_node[QCG_NAME_MAX];
	uint16_t to_port;
	int64_t bytes_replayed;
};

struct multicast_group {
	char job[QCG_NAME_MAX];
	char address[QCG_ADDR_MAX]; /* e.g. "239.192.0.17" */
	uint16_t port;
	int64_t allocated;          /* unix seconds */
};

/* How one process reaches another: what the broker decides, the front-end caches and passes
 * on, and the initiator's helper carries out (the WSDL's Decision). For direct and port range
 * the initiator connects to the target's published address; for reversal the target side
 * connects to the initiator's helper; for traversal both sides open simultaneously to each
 * other's public mapping; for relays both sides connect to proxy[0] (and for a chain, proxy[0]
 * forwards to proxy[1], the target's side). */
struct decision {
	enum connect_method method;
	struct relay_id relay_id;     /* fresh and random for every method that needs the target
	                               * side; zero for direct and port range */
	size_t proxy_count;           /* 0, 1 or 2 */
	struct proxy proxy[2];        /* [0]: the initiator's proxy, [1]: the target's */
	bool has_target;              /* the answer names the target (Resolve's answer does; an
	                               * event's decision, sent to the target side, does not) */
	struct access_point target;   /* the peer's registered access point */
	char target_public_address[QCG_ADDR_MAX]; /* its cluster's public address, or "" */
	bool resumable;               /* a relay both ends keep in the resumable stream, so that
	                               * it can be resumed on another proxy (issue 14) */
};

/* A notification from the broker, as a front-end receives it and passes it on to a helper (the
 * WSDL's Event). */
struct qcg_event {
	int64_t sequence;
	enum event_kind kind;
	char job[QCG_NAME_MAX];
	char node[QCG_NAME_MAX];      /* the target node, for EVENT_CONNECT */
	bool has_port;
	uint16_t port;                /* the target port, for EVENT_CONNECT */
	bool has_initiator;
	struct access_point initiator; /* who connects, for EVENT_CONNECT */
	char initiator_public_address[QCG_ADDR_MAX];
	bool has_decision;
	struct decision decision;     /* for EVENT_CONNECT and EVENT_RELAY; names no target */
};

/* A lease as the state queries report it (the WSDL's Liveness): ages at the broker's clock, so
 * that a client needs no clock of its own. */
struct liveness_report {
	bool known;            /* the broker said (one that predates leases does not) */
	bool alive;
	int64_t last_seen;     /* unix seconds; 0: not said */
	int64_t seen_ago;      /* seconds since last_seen; -1: not said */
	int64_t withdrawn_ago; /* seconds since the withdrawal; -1: not said */
};

/* One row of ListClusters and ListProxies, as a client reads it. */
struct cluster_listing {
	struct cluster cluster;     /* no liveness: the report below says it */
	struct liveness_report state;
};
struct proxy_listing {
	struct proxy proxy;         /* id and owner_dn are not listed: 0 and "" */
	struct liveness_report state;
};

/* One row of ListJobs (or GetJob's answer), as a client reads it: the job (exit_code means
 * something only in a final state, the only ones the broker sends it for; description borrowed
 * from the answer's memory, or NULL) and its clusters. */
struct job_listing {
	struct job job;
	bool has_exit_code;         /* the answer said one */
	size_t cluster_count;
	struct job_cluster_record cluster[QCG_JOB_CLUSTERS_MAX];
};

/* A connection outcome as a node reports it: when the node knows the target only by address
 * (a connect decided on the node), rec's to_cluster and to_node are "" and to_address names it;
 * the broker looks the access point up. */
struct connection_report {
	struct connection_record rec;
	char to_address[QCG_ADDR_MAX]; /* "" when rec names the target */
};
/* Records in one ReportOutcomes call at most (the WSDLs' maxOccurs, broker and front-end): at
 * most about 640 bytes of XML each with the longest names, so a call stays under the services'
 * 1 MiB max_message; and an all-to-all job of P ranks costs about P^2 / 1024 calls. */
#define QCG_OUTCOMES_PER_CALL 1024

/* What a launch wrote since the offsets asked for, and whether and how it ended (the WSDL's
 * Output). The bytes are borrowed: from the helper's buffers, or from the SOAP answer's memory. */
struct output_chunk {
	const uint8_t *out, *err;
	size_t out_len, err_len;
	bool exited;     /* ended, and this holds the last of its output */
	bool signaled;   /* when exited: ended by term_signal, else with exit_code */
	int term_signal, exit_code;
};

/* Whether the helper sets a method's socket up itself and hands it to the process (reversal,
 * traversal), rather than the process connecting (direct, port range, relays). */
static inline bool
method_hands_off(enum connect_method m)
{
	return m == METHOD_REVERSAL || m == METHOD_TRAVERSAL;
}

/* Whether a job's state is final (it has an exit code). */
static inline bool
job_state_is_final(enum job_state s)
{
	return s == JOB_DONE || s == JOB_FAILED || s == JOB_CANCELLED;
}

/* Names as they appear in configuration, the WSDL and the registry. */
const char *cluster_policy_name(enum cluster_policy policy);
int cluster_policy_parse(const char *name, enum cluster_policy *out);
const char *connect_method_name(enum connect_method method);
int connect_method_parse(const char *name, enum connect_method *out);
const char *job_state_name(enum job_state state);
int job_state_parse(const char *name, enum job_state *out);
const char *event_kind_name(enum event_kind kind);
int event_kind_parse(const char *name, enum event_kind *out);

#endif
