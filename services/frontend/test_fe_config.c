/*
 * test_fe_config.c: qcg-frontend's configuration: a complete file parses into the cluster,
 * nodes and limits it declares, and every malformed setting is refused with its key named.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config_file.h"
#include "fe_config.h"

static const char *const base =
    "[frontend]\n"
    "broker = https://broker.example:8443/\n"
    "cluster = site-a\n"
    "policy = port-range\n"
    "port_min = 30000\n"
    "port_max = 30100\n"
    "private_networks = 10.1.0.0/24,fd00::/8\n"
    "public_address = 192.0.2.10\n"
    "traversal_allowed = yes\n"
    "[nodes]\n"
    "n01 = https://n01.site-a:8445/ 8 /O=Grid/OU=qcg-ompi/CN=host/n01.site-a\n"
    "n02 = https://[fd00::2]:8445/ 4\n";

/* Parse base plus extra lines (applied as overrides "section.key=value"). */
static int
parse(const char *const *overrides, struct fe_config *out, char *err, size_t errlen)
{
	static struct config cfg;
	config_init(&cfg);
	if (config_load_text(&cfg, base, "test.conf", err, errlen) != 0)
		return -2;
	for (size_t i = 0; overrides && overrides[i]; i++)
		if (config_apply_override(&cfg, overrides[i], err, errlen) != 0)
			return -2;
	return fe_config_parse(&cfg, "127.0.0.1", 8444, out, err, errlen);
}

static void
complete_file_declares_cluster_nodes_and_defaults(void)
{
	static struct fe_config c;
	char err[256] = "";
	CHECK_INT_EQ(parse(NULL, &c, err, sizeof(err)), 0);
	CHECK_STR_EQ(c.cluster.name, "site-a");
	CHECK_INT_EQ(c.cluster.policy, POLICY_PORT_RANGE);
	CHECK_INT_EQ(c.cluster.port_min, 30000);
	CHECK_INT_EQ(c.cluster.port_max, 30100);
	CHECK(c.cluster.traversal_allowed);
	CHECK_STR_EQ(c.cluster.frontend_endpoint, "https://127.0.0.1:8444/");
	CHECK_INT_EQ(c.node_count, 2);
	CHECK_STR_EQ(c.nodes[0].helper_dn, "/O=Grid/OU=qcg-ompi/CN=host/n01.site-a");
	CHECK_INT_EQ(c.nodes[1].slots, 4);
	CHECK_STR_EQ(c.nodes[1].helper_url, "https://[fd00::2]:8445/");
	CHECK_INT_EQ(c.reservation_timeout, 300);
	CHECK_INT_EQ(c.cache_max_entries, 10000);
}

static void
helper_dn_maps_to_its_node_explicitly_or_by_host_name(void)
{
	static struct fe_config c;
	char err[256];
	CHECK_INT_EQ(parse(NULL, &c, err, sizeof(err)), 0);
	const struct fe_node *n = fe_config_node_of_dn(&c, "/O=Grid/OU=qcg-ompi/CN=host/n01.site-a");
	CHECK(n != NULL && n == &c.nodes[0]);
	/* n01's DN is configured: its bare host name is not enough */
	CHECK(fe_config_node_of_dn(&c, "/O=Grid/OU=qcg-ompi/CN=host/n01") == NULL);
	n = fe_config_node_of_dn(&c, "/O=Grid/OU=qcg-ompi/CN=host/n02");
	CHECK(n != NULL && n == &c.nodes[1]);
	CHECK(fe_config_node_of_dn(&c, "/O=Grid/OU=qcg-ompi/CN=host/xn02") == NULL);
	CHECK(fe_config_node_of_dn(&c, "/O=Grid/OU=qcg-ompi/CN=Jane Doe") == NULL);
}

/* Each bad setting is refused and err contains the expected words. */
static void
expect_refusal(const char *override, const char *words)
{
	static struct fe_config c;
	const char *const ov[] = { override, NULL };
	char err[256] = "";
	int rc = parse(ov, &c, err, sizeof(err));
	CHECK_INT_EQ(rc, -1);
	if (rc != -1 || strstr(err, words) == NULL)
		fprintf(stderr, "  override %s: got '%s', want '%s'\n", override, err, words);
	CHECK(strstr(err, words) != NULL);
}

static void
malformed_settings_are_refused_with_their_key(void)
{
	expect_refusal("frontend.cluster=", "frontend.cluster is required");
	expect_refusal("frontend.cluster=site a", "frontend.cluster");
	expect_refusal("frontend.policy=wide-open", "frontend.policy must be");
	expect_refusal("frontend.port_min=31000", "frontend.port_min <= frontend.port_max");
	expect_refusal("frontend.port_max=70000", "frontend.port_max");
	expect_refusal("frontend.private_networks=10.1.0.0", "has no /PREFIX");
	expect_refusal("frontend.direct_networks=10.1.0.1/24", "frontend.direct_networks: host bits");
	expect_refusal("frontend.private_networks=10.1.0.0/33", "prefix 33 out of range");
	expect_refusal("frontend.private_networks=10.1.0.300/24", "not an IPv4 or IPv6 address");
	/* The reader trims the value's ends; inside the list, a space is an error (as at the
	 * broker and the proxy), and so is an address with host bits set. */
	expect_refusal("frontend.private_networks=10.1.0.0/24, 10.2.0.0/24", "white space");
	expect_refusal("frontend.private_networks=10.1.0.1/24", "host bits set in 10.1.0.1/24");
	expect_refusal("frontend.broker=http://broker:8443/", "frontend.broker must be");
	expect_refusal("frontend.broker=https://broker/", "frontend.broker must be");
	expect_refusal("frontend.endpoint=gw:8444", "frontend.endpoint must be");
	expect_refusal("frontend.traversal_allowed=perhaps", "frontend.traversal_allowed");
	expect_refusal("frontend.reservation_timeout=0", "frontend.reservation_timeout");
	expect_refusal("frontend.reservation_timeout=7200", "exceeds frontend.reservation_timeout_max");
	expect_refusal("frontend.poll_timeout=301", "frontend.poll_timeout");
	expect_refusal("nodes.n03=https://n03:8445/", "nodes.n03 must be 'helper-URL slots");
	expect_refusal("nodes.n03=https://n03:8445/ 0", "nodes.n03: slots must be 1-4096");
	expect_refusal("nodes.n03=https://n03:8445/ 2 CN=x", "nodes.n03: helper DN must start");
	expect_refusal("nodes.n03=n03:8445 2", "nodes.n03: helper URL must be");
	expect_refusal("nodes.n 03=https://n03:8445/ 2", "a node name is");
}

static void
nat_needs_public_address_and_nodes_are_required(void)
{
	static struct config cfg;
	static struct fe_config c;
	char err[256] = "";
	config_init(&cfg);
	CHECK_INT_EQ(config_load_text(&cfg,
	    "[frontend]\nbroker = https://b:1/\ncluster = c\npolicy = nat\n"
	    "private_networks = 10.0.0.0/8\n[nodes]\nn = https://n:2/ 1\n", "t", err, sizeof(err)), 0);
	CHECK_INT_EQ(fe_config_parse(&cfg, "0.0.0.0", 0, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "frontend.public_address is required") != NULL);
	config_set(&cfg, "frontend.public_address", "192.0.2.1", err, sizeof(err));
	CHECK_INT_EQ(fe_config_parse(&cfg, "0.0.0.0", 0, &c, err, sizeof(err)), 0);
	CHECK_STR_EQ(c.cluster.frontend_endpoint, ""); /* port 0: filled in once bound */
	config_init(&cfg);
	config_load_text(&cfg, "[frontend]\nbroker = https://b:1/\ncluster = c\npolicy = open\n"
	    "private_networks = 10.0.0.0/8\n", "t", err, sizeof(err));
	CHECK_INT_EQ(fe_config_parse(&cfg, "0.0.0.0", 1, &c, err, sizeof(err)), -1);
	CHECK(strstr(err, "[nodes] must list at least one node") != NULL);
}

/* A broker URL longer than its field was copied with strcpy past the field's end; now it is a
 * configuration error naming the file and line. */
static void
a_value_longer_than_its_field_is_refused_with_file_and_line(void)
{
	static struct config cfg;
	static struct fe_config c;
	char err[512] = "", text[1024], path[600];

	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	snprintf(text, sizeof(text), "[frontend]\ncluster = c\npolicy = open\n"
	    "private_networks = 10.0.0.0/8\nbroker = https://b:1/%s\n[nodes]\nn = https://n:2/ 1\n",
	    path);
	config_init(&cfg);
	CHECK_INT_EQ(config_load_text(&cfg, text, "fe.conf", err, sizeof(err)), 0);
	CHECK_INT_EQ(fe_config_parse(&cfg, "0.0.0.0", 1, &c, err, sizeof(err)), -1);
	CHECK_STR_EQ(err, "fe.conf:5: frontend.broker: value longer than 255 bytes");
}

static void
allocator_is_builtin_by_default_and_slurm_settings_are_checked(void)
{
	static struct fe_config c;
	char err[256] = "";
	CHECK_INT_EQ(parse(NULL, &c, err, sizeof(err)), 0);
	CHECK_INT_EQ(c.allocator, FE_ALLOCATOR_BUILTIN);
	const char *slurm[] = { "cluster.allocator=slurm", "cluster.partition=grid",
		"cluster.account=qcg", "cluster.slurm_conf=/etc/slurm/site-a.conf", NULL };
	CHECK_INT_EQ(parse(slurm, &c, err, sizeof(err)), 0);
	CHECK_INT_EQ(c.allocator, FE_ALLOCATOR_SLURM);
	CHECK_STR_EQ(c.slurm.partition, "grid");
	CHECK_STR_EQ(c.slurm.account, "qcg");
	CHECK_STR_EQ(c.slurm.qos, "");
	CHECK_STR_EQ(c.slurm.slurm_conf, "/etc/slurm/site-a.conf");
	CHECK_INT_EQ(c.slurm.pending_timeout, 10);
	CHECK_INT_EQ(c.slurm.command_timeout, 20);
	const struct {
		const char *set[3];
		const char *want;
	} bad[] = {
		{ { "cluster.allocator=pbs", NULL }, "cluster.allocator must be builtin or slurm" },
		{ { "cluster.partition=grid", NULL }, "cluster.partition is set but cluster.allocator "
		    "is builtin" },
		{ { "cluster.allocator=slurm", "cluster.partition=a b", NULL }, "cluster.partition "
		    "must be a Slurm name" },
		{ { "cluster.allocator=slurm", "cluster.pending_timeout=26", NULL },
		    "cluster.pending_timeout" },
		{ { "cluster.allocator=slurm", "cluster.pending_timeout=0", NULL },
		    "cluster.pending_timeout" },
		{ { "cluster.allocator=slurm", "cluster.slurm_conf=slurm.conf", NULL },
		    "cluster.slurm_conf must be an absolute path" },
		{ { "cluster.allocator=slurm", "cluster.partion=grid", NULL }, "cluster.partion: "
		    "unknown setting" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK_INT_EQ(parse(bad[i].set, &c, err, sizeof(err)), -1);
		if (strstr(err, bad[i].want) == NULL)
			printf("  case %zu: got '%s'\n", i, err);
		CHECK(strstr(err, bad[i].want) != NULL);
	}
}

int
main(void)
{
	RUN(complete_file_declares_cluster_nodes_and_defaults);
	RUN(helper_dn_maps_to_its_node_explicitly_or_by_host_name);
	RUN(malformed_settings_are_refused_with_their_key);
	RUN(nat_needs_public_address_and_nodes_are_required);
	RUN(a_value_longer_than_its_field_is_refused_with_file_and_line);
	RUN(allocator_is_builtin_by_default_and_slurm_settings_are_checked);
	return check_exit();
}
