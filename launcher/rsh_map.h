/*
 * rsh_map.h: the hosts map that qcg-submit writes and qcg-rsh reads (QCG_RSH_MAP=FILE).
 *
 * One line per host, fields separated by blanks:
 *
 *     HOST FRONTEND-URL RESERVATION-ID [NAME=VALUE ...]
 *
 * HOST is the node name as the hostfile gives it to mpirun (and the front-end's [nodes] name),
 * FRONTEND-URL the https:// URL of that node's cluster front-end, RESERVATION-ID the committed
 * reservation qcg-rsh launches under. The optional NAME=VALUE words are that node's own
 * environment (values without blanks), which the launcher's cannot give: the node's helper
 * socket (QCG_HELPER_SOCKET), its window of listening ports (QCG_NET_PORTS=MIN-MAX, unique
 * in the job, inside the cluster's open range for port-range clusters) and its place in the
 * job's topology (QCG_TOPOLOGY_COLORS=SITE,CLUSTER,NODE, job_topology.h). Blank lines and lines
 * starting with '#' are ignored. A host appears at most once. Parsing works on a buffer, so it
 * is tested without files.
 *
 * rsh_map_node_env() builds what qcg-rsh sends with orted: the launcher's carried environment
 * less its node-local variables (mpirun's own helper socket and port window, which must never
 * reach another node), the host's NAME=VALUE words, and Open MPI's port parameters for the
 * node's window. mpirun itself never gets those parameters (mpi-glue/net/README.md).
 */
#ifndef QCG_RSH_MAP_H
#define QCG_RSH_MAP_H

#include <stddef.h>

#include "model.h"

#define RSH_MAP_FILE_MAX (1024 * 1024) /* bytes of a map file */
#define RSH_MAP_LINE_MAX 2048          /* bytes of one line */
#define RSH_MAP_URL_MAX 1024
#define RSH_MAP_RESERVATION_MAX 128
#define RSH_MAP_ENV_MAX 16   /* NAME=VALUE words on one line */
#define RSH_MAP_ENV_LEN 512  /* bytes of one, with its NUL */
#define RSH_NODE_ENV_DERIVED 3 /* Open MPI port parameters made from QCG_NET_PORTS */

struct rsh_target {
	char host[QCG_NAME_MAX];
	char frontend_url[RSH_MAP_URL_MAX];
	char reservation[RSH_MAP_RESERVATION_MAX];
	int envc;                                   /* NAME=VALUE words of the line */
	char env[RSH_MAP_ENV_MAX][RSH_MAP_ENV_LEN];
};

/* Room for what rsh_map_node_env() makes from QCG_NET_PORTS (owned by the caller). */
struct rsh_node_derived {
	char entry[RSH_NODE_ENV_DERIVED][96];
};

/* Find host in the map text (len bytes; origin names it in errors). Returns 0 and fills out,
 * 1 when the map is well formed but has no such host, -1 with err ("origin:line: why") when
 * the map is malformed (the whole map is checked, not only the lines before host). */
int rsh_map_find(const char *text, size_t len, const char *origin, const char *host,
    struct rsh_target *out, char *err, size_t errlen);

/* Read path (at most RSH_MAP_FILE_MAX bytes) and find host in it; as rsh_map_find. */
int rsh_map_lookup(const char *path, const char *host, struct rsh_target *out, char *err,
    size_t errlen);

/* One map line for t (host, URL, reservation; not its env), with its newline, into buf; -1 if a
 * field has blanks or is too long. */
int rsh_map_format(const struct rsh_target *t, char *buf, size_t len);

/* The same with t's envc NAME=VALUE words after the reservation (t->envc must be set). */
int rsh_map_format_env(const struct rsh_target *t, char *buf, size_t len);

/* Whether entry ("NAME=value") describes the launching host only and so is never carried from
 * the launcher to a node: QCG_HELPER_SOCKET, QCG_HELPER_TOKEN_FILE, QCG_NET_PORTS,
 * QCG_NET_ADDRESS, QCG_USER_CLUSTER, QCG_TOPOLOGY_COLORS (the host's place in the job's
 * topology) and Open MPI's port parameters. */
int rsh_env_node_local(const char *entry);

/*
 * Fill out (at most max pointers) with the environment for host t: the carried entries (n, the
 * launcher's allow-listed ones) that are not node-local and not set by t, then t's words, then,
 * when t sets QCG_NET_PORTS=MIN-MAX, btl_tcp_port_min_v4, btl_tcp_port_range_v4 and
 * oob_tcp_dynamic_ipv4_ports as OMPI_MCA_ variables (written into *derived), unless t sets them.
 * Returns the count, or -1 with err (a bad QCG_NET_PORTS, more than max entries).
 */
int rsh_map_node_env(const struct rsh_target *t, char *const *carried, int n, char **out,
    size_t max, struct rsh_node_derived *derived, char *err, size_t errlen);

#endif
