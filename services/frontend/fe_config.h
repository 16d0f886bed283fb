/*
 * fe_config.h: qcg-frontend's configuration: the cluster it declares to the broker, the nodes it
 * serves (each with its helper's URL, slot count and certificate DN) and its limits. Parsing is
 * separate from I/O so that every validation rule is unit-tested (services/frontend/test_fe_config.c).
 *
 *   [frontend]
 *   listen = 0.0.0.0:8444            ; plus workers, queue, io_timeout, ... (lib/soap_server.h)
 *   broker = https://broker.example:8443/
 *   cluster = site-a
 *   policy = open | port-range | nat | closed
 *   port_min = 30000                  ; port-range only
 *   port_max = 30999
 *   private_networks = 10.1.0.0/24    ; comma-separated CIDRs (lib/cidr: no spaces, no host bits)
 *   public_address = 192.0.2.10
 *   traversal_allowed = no
 *   direct_networks = 10.1.0.0/24     ; CIDRs the nodes connect to directly, decided on the node
 *                                     ; without a Resolve (default: none; see fe_config.c)
 *   pair_cache = yes                  ; reuse a direct or port-range decision for every listener
 *                                     ; of the job's pair of clusters (pair_cache.h); no: one
 *                                     ; broker Resolve per target (bench/scale's "before")
 *   endpoint = https://gw.site-a:8444/ ; what the broker records (default: https://listen/)
 *   acl = /etc/qcg/frontend.acl       ; helpers (role helper)
 *   gridmap = /etc/grid-security/grid-mapfile
 *   ...limits, see fe_config.c
 *   [cluster]                         ; who allocates the nodes (allocator.h)
 *   allocator = builtin | slurm       ; builtin (default): the [nodes] slots below
 *   partition = grid                  ; slurm only: where, charged to whom, at which QOS
 *   account = grid
 *   qos = normal
 *   slurm_conf = /etc/slurm/slurm.conf ; SLURM_CONF for the Slurm commands (default: Slurm's)
 *   pending_timeout = 10              ; seconds Reserve waits for a pending allocation
 *   command_timeout = 20              ; seconds any other Slurm command may take
 *   check_interval = 5                ; seconds between checks of the jobs and their nodes
 *   [nodes]
 *   ; node = helper-URL slots [helper certificate DN]
 *   n01 = https://n01.site-a:8445/ 8 /O=Grid/OU=qcg-ompi/CN=host/n01
 */
#ifndef QCG_FE_CONFIG_H
#define QCG_FE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

struct config;

#define FE_NODES_MAX 200    /* nodes one front-end serves (the INI holds 256 settings) */
#define FE_SLOTS_MAX 4096   /* slots on one node */

struct fe_node {
	char name[QCG_NAME_MAX];
	char helper_url[QCG_ENDPOINT_MAX]; /* https://host:port/ of its qcg-helper */
	int slots;                         /* processes it may run at once */
	char helper_dn[QCG_DN_MAX];        /* its helper's certificate DN; "" = any DN that ends
					      in /CN=host/<name> */
};

enum fe_allocator_kind {
	FE_ALLOCATOR_BUILTIN = 0, /* the static [nodes] list */
	FE_ALLOCATOR_SLURM = 1,   /* the site's Slurm (allocator_slurm.c) */
};

#define FE_SLURM_NAME_MAX 64 /* a partition, account or QOS name */
/* Reserve waits for a pending allocation inside the launcher's call, which qcg-submit gives
 * 30 s (launcher/qcg_submit.c): the wait must end well before, so that the launcher hears
 * Busy, releases the other clusters and retries within its own reserve timeout. */
#define FE_SLURM_PENDING_MAX 25

struct fe_slurm_config {
	char partition[FE_SLURM_NAME_MAX]; /* "" = Slurm's default partition */
	char account[FE_SLURM_NAME_MAX];   /* "" = the service user's default account */
	char qos[FE_SLURM_NAME_MAX];       /* "" = the account's default QOS */
	char slurm_conf[1024];             /* SLURM_CONF for the commands; "" = Slurm's default */
	long pending_timeout;              /* seconds Reserve waits for a pending allocation */
	long command_timeout;              /* seconds scancel, squeue, sinfo, scontrol may take */
	long check_interval;               /* seconds between checks of live allocations */
};

struct fe_config {
	enum fe_allocator_kind allocator;
	struct fe_slurm_config slurm;      /* with allocator slurm */
	struct cluster cluster;            /* what RegisterCluster declares (frontend_dn unused) */
	char broker_url[QCG_ENDPOINT_MAX];
	char acl_path[1024];
	char gridmap_path[1024];
	struct fe_node nodes[FE_NODES_MAX];
	size_t node_count;
	long cache_max_entries;            /* cached resolutions, all jobs */
	long cache_max_per_job;            /* cached resolutions of one job */
	long reservation_timeout;          /* seconds, when Reserve asks for 0 */
	long reservation_timeout_max;      /* seconds; longer requests are refused */
	long max_reservations;             /* live reservations at once */
	long max_launches;                 /* launches tracked at once */
	long poll_timeout;                 /* seconds a WaitEvents long poll may last */
	long broker_connections;           /* kept-alive connections handlers share (broker_pool.h) */
	long broker_timeout;               /* seconds per broker send/receive (not the long poll) */
	long helper_timeout;               /* seconds per helper connect/send/receive */
	long output_wait_max;              /* seconds a ReadOutput long poll may last */
	long job_end_grace;                /* seconds an ended job's reservations are kept for
					      its launcher to release them (walltime.h) */
	char direct_networks[QCG_NETWORKS_MAX]; /* where helpers connect without a Resolve;
					      "" = nowhere (GetConnectInfo) */
	bool pair_cache;                   /* decisions cached per cluster pair (pair_cache.h) */
	long stage_quota_mib;              /* MiB one user may have staged onto this cluster's
					      nodes for live jobs (stage_quota.h) */
	long stage_file_max_mib;           /* MiB of one staged file */
};

/* Read and validate everything but [tls] and the server settings; err names the key and the
 * reason. listen_host/listen_port give the default endpoint. */
int fe_config_parse(const struct config *cfg, const char *listen_host, int listen_port,
    struct fe_config *out, char *err, size_t errlen);

/* Parse one [nodes] line "URL SLOTS [DN]" for node name; err names what is wrong. */
int fe_node_parse(const char *name, const char *value, struct fe_node *out, char *err,
    size_t errlen);

/* The node whose helper presents dn, or NULL. */
const struct fe_node *fe_config_node_of_dn(const struct fe_config *cfg, const char *dn);
/* The node called name, or NULL. */
const struct fe_node *fe_config_node(const struct fe_config *cfg, const char *name);

#endif
