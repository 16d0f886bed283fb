/*
 * test_helper_units.c: qcg-helper's plain modules without sockets or processes: the bounded
 * output buffer, token-file lines, launch request checks and account rules, the [helper]
 * configuration, and the endpoint splitter.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "config_file.h"
#include "helper_config.h"
#include "helper_jobs.h"
#include "helper_net.h"
#include "launch.h"
#include "launch_output.h"

static void
output_buffer_is_bounded_and_acknowledged_by_offset(void)
{
	struct launch_output o;
	char err[256];
	uint8_t chunk[100];
	memset(chunk, 'x', sizeof(chunk));
	launch_output_init(&o, 250);
	CHECK_INT_EQ(launch_output_append(&o, chunk, 100), 0);
	CHECK_INT_EQ(launch_output_append(&o, chunk, 100), 0);
	CHECK_INT_EQ(launch_output_space(&o), 50);
	CHECK_INT_EQ(launch_output_append(&o, chunk, 51), -1); /* never past the cap */
	CHECK_INT_EQ(launch_output_ack(&o, 120, "out", err, sizeof(err)), 0);
	CHECK_INT_EQ(o.base, 120);
	CHECK_INT_EQ(o.len, 80);
	CHECK_INT_EQ(launch_output_space(&o), 170);
	CHECK_INT_EQ(launch_output_end(&o), 200);
	CHECK_INT_EQ(launch_output_ack(&o, 100, "out", err, sizeof(err)), -1);
	CHECK(strstr(err, "out offset 100 was read and dropped already") != NULL);
	CHECK_INT_EQ(launch_output_ack(&o, 201, "out", err, sizeof(err)), -1);
	CHECK(strstr(err, "beyond the 200 bytes written") != NULL);
	CHECK_INT_EQ(launch_output_ack(&o, 200, "out", err, sizeof(err)), 0);
	CHECK_INT_EQ(o.len, 0);
	launch_output_free(&o);
}

static void
token_lines_parse_or_say_why(void)
{
	char job[QCG_NAME_MAX], token[HELPER_TOKEN_MAX + 1], account[64], err[256];
	CHECK_INT_EQ(helper_token_line_parse("  # comment", job, token, account, err, sizeof(err)), 1);
	CHECK_INT_EQ(helper_token_line_parse("\n", job, token, account, err, sizeof(err)), 1);
	CHECK_INT_EQ(helper_token_line_parse("job-1 0123456789abcdef jane\n", job, token, account,
	    err, sizeof(err)), 0);
	CHECK_STR_EQ(job, "job-1");
	CHECK_STR_EQ(token, "0123456789abcdef");
	CHECK_STR_EQ(account, "jane");
	CHECK_INT_EQ(helper_token_line_parse("job-1 short jane", job, token, account, err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "bad length") != NULL);
	CHECK_INT_EQ(helper_token_line_parse("job-1 0123456789abcdef", job, token, account, err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "JOB TOKEN ACCOUNT") != NULL);
	CHECK_INT_EQ(helper_token_line_parse("a 0123456789abcdef b c", job, token, account, err,
	    sizeof(err)), -1);
	CHECK(strstr(err, "more than three fields") != NULL);
}

static void
launch_requests_are_checked_before_any_fork(void)
{
	char err[256];
	char *argv[] = { "/bin/true", "x" };
	char *env[] = { "A=1", "=bad" };
	struct launch_request r = { .job = "j", .account = "nobody", .argv = argv, .argc = 2,
		.env = env, .envc = 1 };
	CHECK_INT_EQ(launch_request_check(&r, err, sizeof(err)), 0);
	r.envc = 2;
	CHECK_INT_EQ(launch_request_check(&r, err, sizeof(err)), -1);
	CHECK(strstr(err, "environment entry 1") != NULL);
	r.envc = 1;
	r.workdir = "relative";
	CHECK_INT_EQ(launch_request_check(&r, err, sizeof(err)), -1);
	CHECK(strstr(err, "must be absolute") != NULL);
	r.workdir = NULL;
	r.argc = 0;
	CHECK_INT_EQ(launch_request_check(&r, err, sizeof(err)), -1);
	char *empty[] = { "" };
	r.argv = empty;
	r.argc = 1;
	CHECK_INT_EQ(launch_request_check(&r, err, sizeof(err)), -1);
	CHECK(strstr(err, "argument 0") != NULL);
}

static void
accounts_follow_the_root_rules(void)
{
	struct launch_identity id;
	char err[256];
	CHECK_INT_EQ(launch_identity_of("root", 0, false, &id, err, sizeof(err)), -1);
	CHECK(strstr(err, "allow_root_launch") != NULL);
	CHECK_INT_EQ(launch_identity_of("root", 0, true, &id, err, sizeof(err)), 0);
	CHECK_INT_EQ(id.uid, 0);
	CHECK_INT_EQ(launch_identity_of("nobody", 0, false, &id, err, sizeof(err)), 0);
	CHECK_INT_EQ(id.uid, 65534);
	/* a helper that is not root may start processes only as itself */
	CHECK_INT_EQ(launch_identity_of("nobody", 1000, false, &id, err, sizeof(err)), -1);
	CHECK(strstr(err, "runs as uid 1000") != NULL);
	CHECK_INT_EQ(launch_identity_of("nobody", 65534, false, &id, err, sizeof(err)), 0);
	CHECK_INT_EQ(launch_identity_of("no-such-account-x", 0, false, &id, err, sizeof(err)), -1);
	CHECK(strstr(err, "no local account 'no-such-account-x'") != NULL);
}

static int
load(const char *text, struct helper_config *out, char *err)
{
	static struct config cfg;
	config_init(&cfg);
	if (config_load_text(&cfg, text, "t.conf", err, 256) != 0)
		return -2;
	return helper_config_load(&cfg, out, err, 256);
}

static void
configuration_requires_identity_and_checks_values(void)
{
	struct helper_config c;
	char err[256];
	const char *base = "[helper]\nnode = n1\ncluster = a\naddress = 10.0.0.1\n"
			   "frontend = https://gw:8444/\n";
	CHECK_INT_EQ(load(base, &c, err), 0);
	CHECK_STR_EQ(c.socket_path, "/run/qcg/helper.sock");
	CHECK_INT_EQ(c.socket_mode, 0660);
	CHECK_INT_EQ(c.output_cap, 16 * 1024 * 1024);
	CHECK(!c.allow_root_launch);
	CHECK_INT_EQ(load("[helper]\ncluster = a\naddress = x\nfrontend = y\n", &c, err), -1);
	CHECK_STR_EQ(err, "helper.node is required");
	char text[512];
	snprintf(text, sizeof(text), "%ssocket_mode = 0999\n", base);
	CHECK_INT_EQ(load(text, &c, err), -1);
	CHECK(strstr(err, "helper.socket_mode must be octal") != NULL);
	snprintf(text, sizeof(text), "%ssocket = relative.sock\n", base);
	CHECK_INT_EQ(load(text, &c, err), -1);
	CHECK(strstr(err, "absolute path") != NULL);
	snprintf(text, sizeof(text), "%soutput_cap = 10\n", base);
	CHECK_INT_EQ(load(text, &c, err), -1);
	CHECK(strstr(err, "helper.output_cap") != NULL);
}

/* helper.topology_xml: auto (beside the socket), off, or an absolute path; anything else is
 * refused with the values it takes. */
static void
topology_file_is_auto_off_or_absolute(void)
{
	struct helper_config c;
	char err[256], text[640];
	const char *base = "[helper]\nnode = n1\ncluster = a\naddress = 10.0.0.1\n"
			   "frontend = https://gw:8444/\nsocket = /run/q/h.sock\n";
	CHECK_INT_EQ(load(base, &c, err), 0);
	CHECK_STR_EQ(c.topology_xml, "/run/q/h.sock.topology.xml");
	snprintf(text, sizeof(text), "%stopology_xml = auto\n", base);
	CHECK_INT_EQ(load(text, &c, err), 0);
	CHECK_STR_EQ(c.topology_xml, "/run/q/h.sock.topology.xml");
	snprintf(text, sizeof(text), "%stopology_xml = off\n", base);
	CHECK_INT_EQ(load(text, &c, err), 0);
	CHECK_STR_EQ(c.topology_xml, "");
	snprintf(text, sizeof(text), "%stopology_xml = /var/lib/qcg/node.xml\n", base);
	CHECK_INT_EQ(load(text, &c, err), 0);
	CHECK_STR_EQ(c.topology_xml, "/var/lib/qcg/node.xml");
	snprintf(text, sizeof(text), "%stopology_xml = node.xml\n", base);
	CHECK_INT_EQ(load(text, &c, err), -1);
	CHECK(strstr(err, "helper.topology_xml must be auto, off or an absolute path, got "
	    "'node.xml'") != NULL);
	snprintf(text, sizeof(text), "%stopology_xml = Off\n", base);
	CHECK_INT_EQ(load(text, &c, err), -1);
}

static void
endpoints_split_at_the_last_colon(void)
{
	char host[QCG_ADDR_MAX], err[256];
	uint16_t port;
	CHECK_INT_EQ(helper_net_split_endpoint("10.0.0.9:7000", host, &port, err, sizeof(err)), 0);
	CHECK_STR_EQ(host, "10.0.0.9");
	CHECK_INT_EQ(port, 7000);
	CHECK_INT_EQ(helper_net_split_endpoint("10.0.0.9", host, &port, err, sizeof(err)), -1);
	CHECK_INT_EQ(helper_net_split_endpoint("h:0", host, &port, err, sizeof(err)), -1);
	CHECK_INT_EQ(helper_net_split_endpoint("h:70000", host, &port, err, sizeof(err)), -1);
	CHECK_INT_EQ(helper_net_split_endpoint(":80", host, &port, err, sizeof(err)), -1);
	CHECK(strstr(err, "is not host:port") != NULL);
}

int
main(void)
{
	RUN(output_buffer_is_bounded_and_acknowledged_by_offset);
	RUN(token_lines_parse_or_say_why);
	RUN(launch_requests_are_checked_before_any_fork);
	RUN(accounts_follow_the_root_rules);
	RUN(configuration_requires_identity_and_checks_values);
	RUN(topology_file_is_auto_off_or_absolute);
	RUN(endpoints_split_at_the_last_colon);
	return check_exit();
}
