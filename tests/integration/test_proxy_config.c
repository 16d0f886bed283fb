/*
 * test_proxy_config.c: qcg-proxy's text inputs without a running proxy: the control socket's
 * command lines (relay_control_parse) and the configuration file's lines (proxy_config_line).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
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

/* Apply lines as a file would; returns the first failure's index or -1 when all pass. */
static int
apply_lines(struct proxy_config *cfg, const char *const *lines, char *err, size_t errlen)
{
	bool in_section = true;
	char buf[PROXY_CONFIG_LINE_MAX];

	for (int i = 0; lines[i] != NULL; i++) {
		snprintf(buf, sizeof(buf), "%s", lines[i]);
		if (proxy_config_line(cfg, buf, &in_section, err, errlen) < 0)
			return i;
	}
	return -1;
}

static void
config_file_lines_set_the_relay(void)
{
	static const char *const lines[] = { "# qcg-proxy", "[proxy]", "listen = 10.1.2.3:7400",
		"  partner-timeout-ms=1500  ", "pipe-size = 65536", "accept-any-id = no",
		"; comment", "", "[soap]", "endpoint = ignored: another part's section",
		"[proxy]", "threads = 3", NULL };
	struct proxy_config cfg;
	char err[256] = "";

	proxy_config_defaults(&cfg);
	CHECK_INT_EQ(apply_lines(&cfg, lines, err, sizeof(err)), -1);
	CHECK_STR_EQ(cfg.relay.listen_host, "10.1.2.3");
	CHECK_INT_EQ(cfg.relay.listen_port, 7400);
	CHECK_INT_EQ(cfg.relay.partner_timeout_ms, 1500);
	CHECK_INT_EQ(cfg.relay.pipe_size, 65536);
	CHECK_INT_EQ(cfg.relay.threads, 3);
	CHECK(!cfg.relay.accept_any_id);
	CHECK_INT_EQ(relay_config_check(&cfg.relay, err, sizeof(err)), 0);
}

static void
listen_accepts_wildcard_and_ipv6(void)
{
	struct proxy_config cfg;
	char err[256];

	proxy_config_defaults(&cfg);
	CHECK_INT_EQ(proxy_config_set(&cfg, "listen", "*:0", err, sizeof(err)), 0);
	CHECK_STR_EQ(cfg.relay.listen_host, "");
	CHECK_INT_EQ(cfg.relay.listen_port, 0);
	CHECK_INT_EQ(proxy_config_set(&cfg, "listen", "[::1]:7300", err, sizeof(err)), 0);
	CHECK_STR_EQ(cfg.relay.listen_host, "::1");
	CHECK_INT_EQ(proxy_config_set(&cfg, "listen", "host-without-port", err, sizeof(err)), -1);
	CHECK_INT_EQ(proxy_config_set(&cfg, "listen", "h:70000", err, sizeof(err)), -1);
}

static void
bad_settings_are_refused_naming_the_key(void)
{
	struct proxy_config cfg;
	char err[256], line[64];
	bool in_section = true;

	proxy_config_defaults(&cfg);
	CHECK_INT_EQ(proxy_config_set(&cfg, "max-legs", "1", err, sizeof(err)), -1);
	CHECK(strstr(err, "max-legs") != NULL);
	CHECK_INT_EQ(proxy_config_set(&cfg, "pipe-size", "16777216", err, sizeof(err)), -1);
	CHECK(strstr(err, "pipe-size") != NULL);
	CHECK_INT_EQ(proxy_config_set(&cfg, "hello-timeout-ms", "-5", err, sizeof(err)), -1);
	CHECK_INT_EQ(proxy_config_set(&cfg, "accept-any-id", "maybe", err, sizeof(err)), -1);
	CHECK_INT_EQ(proxy_config_set(&cfg, "log-level", "loud", err, sizeof(err)), -1);
	CHECK_INT_EQ(proxy_config_set(&cfg, "max-leg", "5", err, sizeof(err)), -1);
	CHECK(strstr(err, "unknown setting 'max-leg'") != NULL);
	snprintf(line, sizeof(line), "no equals sign");
	CHECK_INT_EQ(proxy_config_line(&cfg, line, &in_section, err, sizeof(err)), -1);
	snprintf(line, sizeof(line), "[proxy");
	CHECK_INT_EQ(proxy_config_line(&cfg, line, &in_section, err, sizeof(err)), -1);
}

static void
config_file_errors_name_file_and_line(void)
{
	char path[] = "/tmp/qcg-proxy-conf.XXXXXX", err[512];
	struct proxy_config cfg;
	int fd = mkstemp(path);
	const char text[] = "[proxy]\nthreads = 2\nmax-legs = lots\n";

	CHECK(fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	proxy_config_defaults(&cfg);
	CHECK_INT_EQ(proxy_config_load(&cfg, path, err, sizeof(err)), -1);
	CHECK(strstr(err, path) != NULL && strstr(err, "line 3") != NULL);
	CHECK(strstr(err, "max-legs") != NULL);
	unlink(path);
	CHECK_INT_EQ(proxy_config_load(&cfg, path, err, sizeof(err)), -1); /* gone */
}

int
main(void)
{
	RUN(control_commands_parse);
	RUN(bad_control_commands_are_refused_with_a_reason);
	RUN(config_file_lines_set_the_relay);
	RUN(listen_accepts_wildcard_and_ipv6);
	RUN(bad_settings_are_refused_naming_the_key);
	RUN(config_file_errors_name_file_and_line);
	return check_exit();
}
