/*
 * test_proxy_config.c: qcg-proxy's text inputs without a running proxy: the control socket's
 * command lines (relay_control_parse) and its settings (proxy_config_read over lib/config_file).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config_file.h"
#include "log.h"
#include "proxy_config.h"
#include "relay_control.h"

#define ID_HEX "00112233445566778899aabbccddeeff"

static void
control_commands_parse(void)
{
	struct relay_control_command cmd;
	char err[256];

	CHECK_INT_EQ(relay_control_parse("expect " ID_HEX " 30", &cmd, err, sizeof(err)), 0);
	CHECK_INT_EQ(cmd.verb, RELAY_CONTROL_EXPECT);
	CHECK_INT_EQ(cmd.ttl_s, 30);
	CHECK_INT_EQ(cmd.id.bytes[15], 0xff);
	CHECK_INT_EQ(relay_control_parse("forward " ID_HEX " 10.0.0.1:7300 5", &cmd, err,
	    sizeof(err)), 0);
	CHECK_INT_EQ(cmd.verb, RELAY_CONTROL_FORWARD);
	CHECK_STR_EQ(cmd.next_hop, "10.0.0.1:7300");
	CHECK_INT_EQ(relay_control_parse("stats", &cmd, err, sizeof(err)), 0);
	CHECK_INT_EQ(cmd.verb, RELAY_CONTROL_STATS);
}

static void
bad_control_commands_are_refused_with_a_reason(void)
{
	struct relay_control_command cmd;
	char err[256], longline[RELAY_CONTROL_LINE_MAX + 10];

	CHECK_INT_EQ(relay_control_parse("expect nothex 30", &cmd, err, sizeof(err)), -1);
	CHECK(strstr(err, "hex") != NULL);
	CHECK_INT_EQ(relay_control_parse("expect " ID_HEX " 0", &cmd, err, sizeof(err)), -1);
	CHECK(strstr(err, "ttl") != NULL);
	CHECK_INT_EQ(relay_control_parse("expect " ID_HEX " 999999", &cmd, err, sizeof(err)), -1);
	CHECK_INT_EQ(relay_control_parse("expect " ID_HEX " 3x", &cmd, err, sizeof(err)), -1);
	CHECK_INT_EQ(relay_control_parse("expect " ID_HEX, &cmd, err, sizeof(err)), -1);
	CHECK_INT_EQ(relay_control_parse("drop " ID_HEX " 3", &cmd, err, sizeof(err)), -1);
	CHECK_INT_EQ(relay_control_parse("", &cmd, err, sizeof(err)), -1);
	CHECK_INT_EQ(relay_control_parse("stats a b c d e f", &cmd, err, sizeof(err)), -1);
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	CHECK_INT_EQ(relay_control_parse(longline, &cmd, err, sizeof(err)), -1);
	CHECK(strstr(err, "longer") != NULL);
}

/* Read text as a configuration file and then the proxy's settings; returns what
 * proxy_config_read returns (-2 when the text itself does not parse). */
static int
read_text(const char *text, struct proxy_config *out, char *err, size_t errlen)
{
	static struct config file;

	config_init(&file);
	if (config_load_text(&file, text, "test.conf", err, errlen) != 0)
		return -2;
	return proxy_config_read(&file, out, err, errlen);
}

static void
config_file_sets_the_relay_and_ignores_other_sections(void)
{
	static struct proxy_config cfg;
	char err[256] = "";

	CHECK_INT_EQ(read_text("# qcg-proxy\n[proxy]\nlisten = 10.1.2.3:7400\n"
	    "  partner_timeout_ms=1500  \npipe_size = 65536\naccept_any_id = no\n; comment\n\n"
	    "[soap]\nendpoint = ignored: another part's section\n[proxy]\nthreads = 3\n", &cfg, err,
	    sizeof(err)), 0);
	CHECK_STR_EQ(cfg.relay.listen_host, "10.1.2.3");
	CHECK_INT_EQ(cfg.relay.listen_port, 7400);
	CHECK_INT_EQ(cfg.relay.partner_timeout_ms, 1500);
	CHECK_INT_EQ(cfg.relay.pipe_size, 65536);
	CHECK_INT_EQ(cfg.relay.threads, 3);
	CHECK(!cfg.relay.accept_any_id);
	CHECK(!cfg.control_enabled);
	CHECK_STR_EQ(cfg.broker_url, "");
	CHECK_STR_EQ(cfg.networks, "0.0.0.0/0");
	CHECK_STR_EQ(cfg.advertise_host, "10.1.2.3"); /* defaults to listen's host */
	CHECK_INT_EQ(relay_config_check(&cfg.relay, err, sizeof(err)), 0);
}

static void
broker_and_control_keys_are_read(void)
{
	static struct proxy_config cfg;
	char err[256] = "";

	CHECK_INT_EQ(read_text("[proxy]\nlisten = *:0\nbroker = https://broker:8443/\n"
	    "advertise = 172.31.0.101\nnetworks = 10.3.0.0/24,0.0.0.0/0\ncluster = c\n"
	    "control_listen = 127.0.0.1:0\nacl = /etc/qcg/proxy.acl\nid_ttl = 90\n"
	    "broker_wait = 20\n[control]\nworkers = 2\n[tls]\ncert = /c.pem\nkey = /k.pem\n"
	    "ca_dir = /ca\n", &cfg, err, sizeof(err)), 0);
	CHECK_STR_EQ(err, "");
	CHECK_STR_EQ(cfg.relay.listen_host, "");
	CHECK_STR_EQ(cfg.broker_url, "https://broker:8443/");
	CHECK_STR_EQ(cfg.advertise_host, "172.31.0.101");
	CHECK_INT_EQ(cfg.advertise_port, 0); /* the bound relay port */
	CHECK_STR_EQ(cfg.networks, "10.3.0.0/24,0.0.0.0/0");
	CHECK_STR_EQ(cfg.cluster, "c");
	CHECK(cfg.control_enabled);
	CHECK_STR_EQ(cfg.control.host, "127.0.0.1");
	CHECK_INT_EQ(cfg.control.port, 0);
	CHECK_INT_EQ(cfg.id_ttl_s, 90);
	CHECK_INT_EQ(cfg.broker_wait_s, 20);
}

/* The hyphenated keys of the earlier release are read for one more release (with a warning,
 * tests/integration/test_daemon_check.sh); when both spellings are set, the new one wins. */
static void
old_spellings_are_still_read(void)
{
	static struct proxy_config cfg;
	char err[256] = "";

	CHECK_INT_EQ(read_text("[proxy]\nlisten = 127.0.0.1:0\nmax-legs = 40\npipe-size = 65536\n"
	    "ready-file = /run/p.ready\nlog-level = debug\nstats-interval = 0\nid-ttl = 7\n"
	    "hello-timeout-ms = 200\nmax_ids = 9\nmax-ids = 8\n", &cfg, err, sizeof(err)), 0);
	CHECK_STR_EQ(err, "");
	CHECK_INT_EQ(cfg.relay.max_legs, 40);
	CHECK_INT_EQ(cfg.relay.pipe_size, 65536);
	CHECK_STR_EQ(cfg.port_file, "/run/p.ready");
	CHECK_INT_EQ(cfg.log_level, LOG_LEVEL_DEBUG);
	CHECK_INT_EQ(cfg.stats_interval_s, 0);
	CHECK_INT_EQ(cfg.id_ttl_s, 7);
	CHECK_INT_EQ(cfg.relay.hello_timeout_ms, 200);
	CHECK_INT_EQ(cfg.relay.max_ids, 9); /* the new spelling wins */
}

static void
host_port_accepts_wildcard_ipv6_and_optional_port(void)
{
	char host[64], err[256];
	uint16_t port = 1;

	CHECK_INT_EQ(proxy_parse_hostport("listen", "*:0", false, host, sizeof(host), &port, err,
	    sizeof(err)), 0);
	CHECK_STR_EQ(host, "");
	CHECK_INT_EQ(port, 0);
	CHECK_INT_EQ(proxy_parse_hostport("listen", "[::1]:7300", false, host, sizeof(host), &port,
	    err, sizeof(err)), 0);
	CHECK_STR_EQ(host, "::1");
	CHECK_INT_EQ(port, 7300);
	CHECK_INT_EQ(proxy_parse_hostport("advertise", "gw-a", true, host, sizeof(host), &port, err,
	    sizeof(err)), 0);
	CHECK_STR_EQ(host, "gw-a");
	CHECK_INT_EQ(port, 0);
	CHECK_INT_EQ(proxy_parse_hostport("listen", "host-without-port", false, host, sizeof(host),
	    &port, err, sizeof(err)), -1);
	CHECK_INT_EQ(proxy_parse_hostport("listen", "h:70000", false, host, sizeof(host), &port, err,
	    sizeof(err)), -1);
	CHECK_INT_EQ(proxy_parse_hostport("listen", "::1:7300", false, host, sizeof(host), &port,
	    err, sizeof(err)), -1);
	CHECK(strstr(err, "brackets") != NULL);
	CHECK_INT_EQ(proxy_parse_hostport("listen", "[::1", false, host, sizeof(host), &port, err,
	    sizeof(err)), -1);
}

/* Each text must be refused by proxy_config_read with `needle` in the reason. */
static void
check_refused(const char *text, const char *needle)
{
	static struct proxy_config cfg;
	char err[256] = "";

	if (read_text(text, &cfg, err, sizeof(err)) != -1 || strstr(err, needle) == NULL) {
		fprintf(stderr, "text %s\ngave '%s', want a refusal naming '%s'\n", text, err, needle);
		CHECK(!"refused with the reason");
	}
}

static void
bad_settings_are_refused_naming_the_key(void)
{
	check_refused("[proxy]\nmax_legs = 1\n", "proxy.max_legs");
	check_refused("[proxy]\npipe_size = 16777216\n", "proxy.pipe_size");
	check_refused("[proxy]\nhello_timeout_ms = -5\n", "proxy.hello_timeout_ms");
	check_refused("[proxy]\naccept_any_id = maybe\n", "proxy.accept_any_id");
	check_refused("[proxy]\nlog_level = loud\n", "proxy.log_level");
	check_refused("[proxy]\nmax_leg = 5\n", "unknown setting 'proxy.max_leg'");
	check_refused("[proxy]\nid_ttl = 0\n", "proxy.id_ttl");
	check_refused("[proxy]\nbroker_wait = 301\n", "proxy.broker_wait");
	/* the old spelling's errors name what was written */
	check_refused("[proxy]\nmax-legs = 1\n", "proxy.max-legs");
	check_refused("[proxy]\nlog-level = loud\n", "proxy.log-level");
	check_refused("[proxy]\nadvertise = [::1\n", "advertise");
}

static void
unsafe_or_incomplete_combinations_are_refused(void)
{
	static const char tls[] = "[tls]\ncert = /c\nkey = /k\nca_dir = /ca\n";
	char text[512];

	snprintf(text, sizeof(text), "[proxy]\nlisten = *:7300\nbroker = https://b/\n%s", tls);
	check_refused(text, "proxy.advertise");
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nbroker = https://b/\n"
	    "accept_any_id = yes\n%s", tls);
	check_refused(text, "accept_any_id");
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nbroker = https://b/\n"
	    "networks =\n%s", tls);
	check_refused(text, "proxy.networks");
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nbroker = https://b/\n"
	    "networks = 10.3.0.0/24, 0.0.0.0/0\n%s", tls);
	check_refused(text, "test.conf:4: proxy.networks: ' 0.0.0.0/0': white space");
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nbroker = https://b/\n"
	    "networks = 10.0.0.1/8\n%s", tls);
	check_refused(text, "test.conf:4: proxy.networks: host bits set in 10.0.0.1/8");
	/* Without a broker the list is unused, and still checked: it is the same mistake. */
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nnetworks = 10.0.0.1/8\n%s",
	    tls);
	check_refused(text, "test.conf:3: proxy.networks: host bits set in 10.0.0.1/8");
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nbroker = https://b/\n"
	    "networks = 10.3.0.0/33\n%s", tls);
	check_refused(text, "proxy.networks: prefix 33 out of range");
	snprintf(text, sizeof(text), "[proxy]\nlisten = 127.0.0.1:0\nbroker = https://b/\n"
	    "networks = 10.3.0.0/24,,0.0.0.0/0\n%s", tls);
	check_refused(text, "proxy.networks");
	snprintf(text, sizeof(text), "[proxy]\ncontrol_listen = 127.0.0.1:0\n%s", tls);
	check_refused(text, "proxy.acl or proxy.gridmap");
	check_refused("[proxy]\ncontrol_listen = nowhere\nacl = /a\n", "control_listen");
}

static void
config_file_errors_name_file_and_line(void)
{
	char path[] = "/tmp/qcg-proxy-conf.XXXXXX", err[512];
	static struct config file;
	int fd = mkstemp(path);
	const char text[] = "[proxy]\nthreads = 2\nmax-legs lots\n";

	CHECK(fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	config_init(&file);
	CHECK_INT_EQ(config_load_file(&file, path, err, sizeof(err)), -1);
	CHECK(strstr(err, path) != NULL && strstr(err, ":3:") != NULL);
	unlink(path);
	CHECK_INT_EQ(config_load_file(&file, path, err, sizeof(err)), -1); /* gone */
}

int
main(void)
{
	RUN(control_commands_parse);
	RUN(bad_control_commands_are_refused_with_a_reason);
	RUN(config_file_sets_the_relay_and_ignores_other_sections);
	RUN(broker_and_control_keys_are_read);
	RUN(old_spellings_are_still_read);
	RUN(host_port_accepts_wildcard_ipv6_and_optional_port);
	RUN(bad_settings_are_refused_naming_the_key);
	RUN(unsafe_or_incomplete_combinations_are_refused);
	RUN(config_file_errors_name_file_and_line);
	return check_exit();
}
