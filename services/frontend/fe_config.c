/*
 * fe_config.c: parse and validate qcg-frontend's configuration (see fe_config.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidr.h"
#include "config_file.h"
#include "fe_config.h"

/* A cluster or node name: what the XSD's Name allows, kept to characters that are safe in
 * logs, file names and the broker's queue names. */
static int
name_valid(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= QCG_NAME_MAX)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return 0;
	return 1;
}

/* https://host:port/ with a non-empty host and a numeric port. */
static int
url_valid(const char *url)
{
	if (strncmp(url, "https://", 8) != 0)
		return 0;
	const char *host = url + 8, *slash = strchr(host, '/');
	const char *colon = host[0] == '[' ? strstr(host, "]:") : strchr(host, ':');
	if (colon == NULL || colon == host || (slash && slash < colon))
		return 0;
	colon += host[0] == '[' ? 2 : 1;
	char *end;
	long port = strtol(colon, &end, 10);
	return end != colon && port > 0 && port <= 65535 && (*end == '\0' || *end == '/');
}

int
fe_node_parse(const char *name, const char *value, struct fe_node *out, char *err, size_t errlen)
{
	char url[QCG_ENDPOINT_MAX];
	int slots, used = 0;

	memset(out, 0, sizeof(*out));
	if (!name_valid(name)) {
		snprintf(err, errlen, "nodes.%s: a node name is 1-63 letters, digits, '-', '_' or '.'",
		    name);
		return -1;
	}
	strcpy(out->name, name);
	if (sscanf(value, "%255s %d %n", url, &slots, &used) < 2) {
		snprintf(err, errlen, "nodes.%s must be 'helper-URL slots [helper-DN]', got '%.80s'",
		    name, value);
		return -1;
	}
	if (!url_valid(url)) {
		snprintf(err, errlen, "nodes.%s: helper URL must be https://host:port/, got '%.80s'",
		    name, url);
		return -1;
	}
	if (slots < 1 || slots > FE_SLOTS_MAX) {
		snprintf(err, errlen, "nodes.%s: slots must be 1-%d, got %d", name, FE_SLOTS_MAX,
		    slots);
		return -1;
	}
	const char *dn = value + used;
	if (*dn != '\0' && *dn != '/') {
		snprintf(err, errlen, "nodes.%s: helper DN must start with '/', got '%.80s'", name, dn);
		return -1;
	}
	size_t dn_len = strlen(dn);
	if (dn_len >= sizeof(out->helper_dn)) {
		snprintf(err, errlen, "nodes.%s: helper DN is longer than %zu bytes", name,
		    sizeof(out->helper_dn) - 1);
		return -1;
	}
	memcpy(out->helper_dn, dn, dn_len + 1);
	strcpy(out->helper_url, url);
	out->slots = slots;
	return 0;
}

/* Every key of the [nodes] section, in file order; names must be unique (the INI keeps the
 * last value of a repeated key, so a duplicate is already merged: nothing to check). */
static int
parse_nodes(const struct config *cfg, struct fe_config *out, char *err, size_t errlen)
{
	out->node_count = 0;
	for (size_t i = 0; i < cfg->count; i++) {
		const char *key = cfg->entries[i].key;
		if (strncmp(key, "nodes.", 6) != 0)
			continue;
		if (out->node_count == FE_NODES_MAX) {
			snprintf(err, errlen, "more than %d nodes", FE_NODES_MAX);
			return -1;
		}
		if (fe_node_parse(key + 6, cfg->entries[i].value, &out->nodes[out->node_count], err,
			errlen) != 0)
			return -1;
		out->node_count++;
	}
	if (out->node_count == 0) {
		snprintf(err, errlen, "[nodes] must list at least one node (name = helper-URL slots)");
		return -1;
	}
	return 0;
}

static int
parse_cluster(const struct config *cfg, struct cluster *c, char *err, size_t errlen)
{
	const char *name = config_get(cfg, "frontend.cluster", NULL);
	const char *policy = config_get(cfg, "frontend.policy", NULL);
	const char *nets = config_get(cfg, "frontend.private_networks", NULL);
	char why[256];
	long lo, hi;

	memset(c, 0, sizeof(*c));
	if (name == NULL || !name_valid(name)) {
		snprintf(err, errlen, "frontend.cluster is required: 1-63 letters, digits, '-', '_' "
		    "or '.'%s%.64s", name ? ", got " : "", name ? name : "");
		return -1;
	}
	strcpy(c->name, name);
	if (policy == NULL || cluster_policy_parse(policy, &c->policy) != 0) {
		snprintf(err, errlen, "frontend.policy must be open, port-range, nat or closed%s%.32s",
		    policy ? ", got " : "", policy ? policy : "");
		return -1;
	}
	if (nets == NULL || cidr_list_parse(nets, NULL, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "frontend.private_networks: %s",
		    nets ? why : "is required (comma-separated CIDRs of the nodes)");
		return -1;
	}
	if (config_copy(cfg, "frontend.private_networks", NULL, c->private_networks,
	    sizeof(c->private_networks), err, errlen) != 0)
		return -1;
	if ((c->policy == POLICY_NAT ?
		config_copy_required(cfg, "frontend.public_address", NULL, c->public_address,
		    sizeof(c->public_address), err, errlen) :
		config_copy(cfg, "frontend.public_address", "", c->public_address,
		    sizeof(c->public_address), err, errlen)) != 0 ||
	    config_get_bool(cfg, "frontend.traversal_allowed", false, &c->traversal_allowed, err,
		errlen) != 0)
		return -1;
	if (c->policy != POLICY_PORT_RANGE)
		return 0;
	if (config_get_int(cfg, "frontend.port_min", 0, 1, 65535, &lo, err, errlen) != 0 ||
	    config_get_int(cfg, "frontend.port_max", 0, 1, 65535, &hi, err, errlen) != 0)
		return -1;
	if (lo == 0 || hi == 0 || lo > hi) {
		snprintf(err, errlen, "policy port-range needs 1 <= frontend.port_min <= "
		    "frontend.port_max <= 65535, got %ld-%ld", lo, hi);
		return -1;
	}
	c->port_min = (uint16_t)lo;
	c->port_max = (uint16_t)hi;
	return 0;
}

static int
parse_limits(const struct config *cfg, struct fe_config *out, char *err, size_t errlen)
{
	const struct {
		const char *key;
		long fallback, min, max;
		long *dst;
	} limits[] = {
		{ "frontend.cache_max_entries", 10000, 0, 1000000, &out->cache_max_entries },
		{ "frontend.cache_max_per_job", 1000, 0, 1000000, &out->cache_max_per_job },
		{ "frontend.reservation_timeout", 300, 1, 86400, &out->reservation_timeout },
		{ "frontend.reservation_timeout_max", 3600, 1, 86400, &out->reservation_timeout_max },
		{ "frontend.max_reservations", 1024, 1, 100000, &out->max_reservations },
		{ "frontend.max_launches", 4096, 1, 100000, &out->max_launches },
		{ "frontend.poll_timeout", 30, 1, 300, &out->poll_timeout },
		{ "frontend.broker_connections", 4, 1, 64, &out->broker_connections },
		{ "frontend.broker_timeout", 30, 1, 600, &out->broker_timeout },
		{ "frontend.helper_timeout", 10, 1, 600, &out->helper_timeout },
		{ "frontend.output_wait_max", 60, 0, 600, &out->output_wait_max },
		{ "frontend.job_end_grace", 30, 0, 3600, &out->job_end_grace },
		{ "frontend.stage_quota_mib", 4096, 0, 64L * 1024 * 1024, &out->stage_quota_mib },
		{ "frontend.stage_file_max_mib", 4096, 1, 1024L * 1024, &out->stage_file_max_mib },
	};
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (config_get_int(cfg, limits[i].key, limits[i].fallback, limits[i].min,
			limits[i].max, limits[i].dst, err, errlen) != 0)
			return -1;
	if (out->reservation_timeout > out->reservation_timeout_max) {
		snprintf(err, errlen, "frontend.reservation_timeout (%ld) exceeds "
		    "frontend.reservation_timeout_max (%ld)", out->reservation_timeout,
		    out->reservation_timeout_max);
		return -1;
	}
	return 0;
}

/* A partition, account or QOS name: letters, digits, '-', '_', '.'. */
static int
slurm_name_setting(const struct config *cfg, const char *key, char *dst, char *err,
    size_t errlen)
{
	const char *v = config_get(cfg, key, "");
	if (config_copy(cfg, key, "", dst, FE_SLURM_NAME_MAX, err, errlen) != 0)
		return -1;
	if (v[0] && !name_valid(v)) {
		snprintf(err, errlen, "%s must be a Slurm name (letters, digits, '-', '_', '.'), got "
		    "'%.64s'", key, v);
		return -1;
	}
	return 0;
}

/* [cluster]: the allocator and, for slurm, its settings. A Slurm setting under the builtin
 * allocator is a mistake the admin should hear about, not a silent no-op. */
static int
parse_allocator(const struct config *cfg, struct fe_config *out, char *err, size_t errlen)
{
	static const char *const slurm_keys[] = { "cluster.partition", "cluster.account",
		"cluster.qos", "cluster.slurm_conf", "cluster.pending_timeout",
		"cluster.command_timeout", "cluster.check_interval" };
	const char *kind = config_get(cfg, "cluster.allocator", "builtin");
	struct fe_slurm_config *s = &out->slurm;
	for (size_t i = 0; i < cfg->count; i++) {
		const char *key = cfg->entries[i].key;
		if (strncmp(key, "cluster.", 8) != 0 || strcmp(key, "cluster.allocator") == 0)
			continue;
		bool known = false;
		for (size_t k = 0; k < sizeof(slurm_keys) / sizeof(slurm_keys[0]); k++)
			known |= strcmp(key, slurm_keys[k]) == 0;
		if (!known) {
			snprintf(err, errlen, "%s: unknown setting (the [cluster] section takes "
			    "allocator, partition, account, qos, slurm_conf, pending_timeout, "
			    "command_timeout, check_interval)", key);
			return -1;
		}
		if (strcmp(kind, "slurm") != 0) {
			snprintf(err, errlen, "%s is set but cluster.allocator is %s: it applies to "
			    "cluster.allocator = slurm only", key, kind);
			return -1;
		}
	}
	if (strcmp(kind, "builtin") == 0) {
		out->allocator = FE_ALLOCATOR_BUILTIN;
		return 0;
	}
	if (strcmp(kind, "slurm") != 0) {
		snprintf(err, errlen, "cluster.allocator must be builtin or slurm, got '%.32s'", kind);
		return -1;
	}
	out->allocator = FE_ALLOCATOR_SLURM;
	if (slurm_name_setting(cfg, "cluster.partition", s->partition, err, errlen) != 0 ||
	    slurm_name_setting(cfg, "cluster.account", s->account, err, errlen) != 0 ||
	    slurm_name_setting(cfg, "cluster.qos", s->qos, err, errlen) != 0 ||
	    config_copy(cfg, "cluster.slurm_conf", "", s->slurm_conf, sizeof(s->slurm_conf), err,
		errlen) != 0 ||
	    config_get_int(cfg, "cluster.pending_timeout", 10, 1, FE_SLURM_PENDING_MAX,
		&s->pending_timeout, err, errlen) != 0 ||
	    config_get_int(cfg, "cluster.command_timeout", 20, 1, 300, &s->command_timeout, err,
		errlen) != 0 ||
	    config_get_int(cfg, "cluster.check_interval", 5, 1, 3600, &s->check_interval, err,
		errlen) != 0)
		return -1;
	if (s->slurm_conf[0] && s->slurm_conf[0] != '/') {
		snprintf(err, errlen, "cluster.slurm_conf must be an absolute path, got '%.80s'",
		    s->slurm_conf);
		return -1;
	}
	return 0;
}

/*
 * frontend.direct_networks: the networks a node of this cluster reaches directly and where no
 * other cluster of a job can listen under the same address: the cluster's own networks when
 * no other cluster of the grid uses them, and networks the policy declares directly
 * reachable. Helpers connect there at once, with no Resolve (helper_cluster.c). Empty by
 * default, because private ranges often repeat across sites (two sites on 192.168.1.0/24):
 * there the target's cluster is known only from the broker's access points.
 */
static int
parse_direct_networks(const struct config *cfg, struct fe_config *out, char *err, size_t errlen)
{
	char why[256];
	if (config_copy(cfg, "frontend.direct_networks", "", out->direct_networks,
	    sizeof(out->direct_networks), err, errlen) != 0)
		return -1;
	if (out->direct_networks[0] &&
	    cidr_list_parse(out->direct_networks, NULL, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "frontend.direct_networks: %s", why);
		return -1;
	}
	return config_get_bool(cfg, "frontend.pair_cache", true, &out->pair_cache, err, errlen);
}

int
fe_config_parse(const struct config *cfg, const char *listen_host, int listen_port,
    struct fe_config *out, char *err, size_t errlen)
{
	char endpoint[QCG_ENDPOINT_MAX];
	const char *broker = config_get(cfg, "frontend.broker", NULL);

	memset(out, 0, sizeof(*out));
	if (parse_cluster(cfg, &out->cluster, err, errlen) != 0)
		return -1;
	if (broker == NULL || !url_valid(broker)) {
		snprintf(err, errlen, "frontend.broker must be the broker's https://host:port/ URL%s%.80s",
		    broker ? ", got " : "", broker ? broker : "");
		return -1;
	}
	if (config_copy(cfg, "frontend.broker", NULL, out->broker_url, sizeof(out->broker_url), err,
	    errlen) != 0)
		return -1;
	/* With port 0 the port is known only once bound: the caller fills the default in then. */
	if (listen_port > 0)
		snprintf(endpoint, sizeof(endpoint), "https://%s:%d/", listen_host, listen_port);
	else
		endpoint[0] = '\0';
	if (config_copy(cfg, "frontend.endpoint", endpoint, out->cluster.frontend_endpoint,
		sizeof(out->cluster.frontend_endpoint), err, errlen) != 0 ||
	    config_copy_required(cfg, "frontend.acl", "/etc/qcg/frontend.acl", out->acl_path,
		sizeof(out->acl_path), err, errlen) != 0 ||
	    config_copy_required(cfg, "frontend.gridmap", "/etc/grid-security/grid-mapfile",
		out->gridmap_path, sizeof(out->gridmap_path), err, errlen) != 0)
		return -1;
	if (out->cluster.frontend_endpoint[0] && !url_valid(out->cluster.frontend_endpoint)) {
		snprintf(err, errlen, "frontend.endpoint must be https://host:port/, got '%.80s'",
		    out->cluster.frontend_endpoint);
		return -1;
	}
	if (parse_limits(cfg, out, err, errlen) != 0 ||
	    parse_allocator(cfg, out, err, errlen) != 0 ||
	    parse_direct_networks(cfg, out, err, errlen) != 0)
		return -1;
	return parse_nodes(cfg, out, err, errlen);
}

/* Whether dn is the one configured for node, or (none configured) ends in /CN=host/<node>. */
static int
dn_is_nodes_helper(const struct fe_node *node, const char *dn)
{
	if (node->helper_dn[0])
		return strcmp(node->helper_dn, dn) == 0;
	char suffix[QCG_NAME_MAX + 16];
	snprintf(suffix, sizeof(suffix), "/CN=host/%s", node->name);
	size_t n = strlen(dn), m = strlen(suffix);
	return n >= m && strcmp(dn + n - m, suffix) == 0;
}

const struct fe_node *
fe_config_node_of_dn(const struct fe_config *cfg, const char *dn)
{
	for (size_t i = 0; i < cfg->node_count; i++)
		if (dn_is_nodes_helper(&cfg->nodes[i], dn))
			return &cfg->nodes[i];
	return NULL;
}

const struct fe_node *
fe_config_node(const struct fe_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->node_count; i++)
		if (strcmp(cfg->nodes[i].name, name) == 0)
			return &cfg->nodes[i];
	return NULL;
}
