/*
 * helper_config.h: qcg-helper's settings, read from the [helper] section of its INI file (see
 * doc/qcg-helper.conf.example); [tls] and the SOAP server's keys are read by lib/.
 */
#ifndef QCG_HELPER_CONFIG_H
#define QCG_HELPER_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>

#include "model.h"

struct config;

struct helper_config {
	char node[QCG_NAME_MAX];              /* this node's name, as the front-end knows it */
	char cluster[QCG_NAME_MAX];           /* its cluster (the front-end overrides it) */
	char address[QCG_ADDR_MAX];           /* the node's address: rendezvous and traversal bind it */
	char frontend_url[QCG_ENDPOINT_MAX];  /* https://gateway:port/ */
	char acl_path[PATH_MAX];              /* who may call us: role frontend (or admin) */
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	mode_t socket_mode;                   /* permissions of the socket file */
	char socket_group[64];                /* its group, or "" to leave it */
	char token_file[PATH_MAX];            /* "JOB TOKEN ACCOUNT" lines, or "" */
	int max_clients;                      /* local API connections at once */
	int client_io_ms;                     /* a started message must arrive within this */
	int max_setups;                       /* reversal/traversal/relay set-ups in flight */
	int rendezvous_ms;                    /* how long the other side of a set-up may take */
	uint16_t rendezvous_port_min;         /* helper.rendezvous_ports MIN-MAX: where reversal */
	uint16_t rendezvous_port_max;         /* listens (a port-range cluster's open range); 0: any */
	int park_ms;                          /* how long an inbound socket waits for WAIT_INBOUND */
	int register_window_ms;               /* a REGISTER batch waits this long for more */
	bool pair_cache;                      /* helper.pair_cache: decisions kept per cluster
	                                       * pair on the node (helper_paircache.h) */
	int frontend_timeout;                 /* seconds for a front-end call */
	int max_launches;                     /* launched processes alive at once */
	size_t output_cap;                    /* bytes buffered per stream per launch */
	bool allow_root_launch;               /* may Launch run processes as root */
	char user[64];                        /* service account the network half drops to when
	                                       * started as root ("": no separation) */
	char grid_mapfile[PATH_MAX];          /* the launcher starts only its accounts */
	char topology_xml[PATH_MAX];          /* helper.topology_xml: the node's topology for
	                                       * the job's processes (node_topology.h), "" off */
};

/* Fill out from cfg; -1 with err naming the key and the reason. */
int helper_config_load(const struct config *cfg, struct helper_config *out, char *err,
    size_t errlen);

#endif
