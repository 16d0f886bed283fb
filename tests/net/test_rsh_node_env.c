/*
 * test_rsh_node_env.c: the qcg-rsh hosts map's per-node variables (launcher/rsh_map.h): the
 * NAME=VALUE words of a host's line are parsed and checked, and the environment sent with
 * orted is the launcher's less its node-local variables, plus the node's own and Open MPI's
 * port parameters for the node's window (never mpirun's).
 */
#include "config.h"

#include <string.h>

#include "check.h"
#include "rsh_map.h"

#define URL "https://gw-b:8444/"

static int
find(const char *text, const char *host, struct rsh_target *t, char *err)
{
	return rsh_map_find(text, strlen(text), "map", host, t, err, 256);
}

/* Whether out[0..n) holds exactly entry. */
static int
has(char **out, int n, const char *entry)
{
	for (int i = 0; i < n; i++)
		if (strcmp(out[i], entry) == 0)
			return 1;
	return 0;
}

static void
node_words_are_parsed_after_the_reservation(void)
{
	struct rsh_target t;
	char err[256];
	CHECK_INT_EQ(find("b1 " URL " r1 QCG_NET_PORTS=20016-20031 QCG_HELPER_SOCKET=/r/h.sock\n"
	    "b2 " URL " r1\n", "b1", &t, err), 0);
	CHECK_INT_EQ(t.envc, 2);
	CHECK_STR_EQ(t.env[0], "QCG_NET_PORTS=20016-20031");
	CHECK_STR_EQ(t.env[1], "QCG_HELPER_SOCKET=/r/h.sock");
	CHECK_INT_EQ(find("b1 " URL " r1\nb2 " URL " r1\n", "b2", &t, err), 0);
	CHECK_INT_EQ(t.envc, 0);
}

static void
bad_node_words_are_refused_with_the_line(void)
{
	struct rsh_target t;
	char err[256];
	CHECK_INT_EQ(find("b1 " URL " r1 junk\n", "b1", &t, err), -1);
	CHECK(strstr(err, "map:1: expected NAME=VALUE") != NULL);
	CHECK_INT_EQ(find("b1 " URL " r1 A=1\nb2 " URL " r1 1X=2\n", "b1", &t, err), -1);
	CHECK(strstr(err, "map:2:") != NULL);
	CHECK_INT_EQ(find("b1 " URL " r1 A=1 A=2\n", "b1", &t, err), -1);
	CHECK(strstr(err, "A is set twice") != NULL);
	char many[2048] = "b1 " URL " r1";
	for (int i = 0; i <= RSH_MAP_ENV_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), " V%d=x", i);
	CHECK_INT_EQ(find(many, "b1", &t, err), -1);
	CHECK(strstr(err, "more than 16 NAME=VALUE") != NULL);
}

static void
format_env_writes_a_line_that_parses_back(void)
{
	struct rsh_target t, back;
	char line[RSH_MAP_LINE_MAX], err[256];
	memset(&t, 0, sizeof(t));
	strcpy(t.host, "d1");
	strcpy(t.frontend_url, "https://gw-d:8444/");
	strcpy(t.reservation, "res-7");
	t.envc = 1;
	strcpy(t.env[0], "QCG_NET_PORTS=20096-20111");
	CHECK_INT_EQ(rsh_map_format_env(&t, line, sizeof(line)), 0);
	CHECK_STR_EQ(line, "d1 https://gw-d:8444/ res-7 QCG_NET_PORTS=20096-20111\n");
	CHECK_INT_EQ(find(line, "d1", &back, err), 0);
	CHECK_STR_EQ(back.env[0], "QCG_NET_PORTS=20096-20111");
	strcpy(t.env[0], "BAD VALUE=1");
	CHECK_INT_EQ(rsh_map_format_env(&t, line, sizeof(line)), -1);
}

static void
orted_gets_its_node_window_and_never_mpiruns(void)
{
	struct rsh_target t;
	struct rsh_node_derived d;
	char err[256], *out[32];
	char *carried[] = { "LD_PRELOAD=/lib/libqcgnet.so", "QCG_NET=1", "QCG_JOB_ID=j1",
		"QCG_JOB_TOKEN=0123456789abcdef", "QCG_HELPER_SOCKET=/run/helper-user.sock",
		"QCG_NET_PORTS=20000-20015", "QCG_HELPER_TOKEN_FILE=/etc/tokens",
		"OMPI_MCA_btl_tcp_port_min_v4=20000", "OMPI_MCA_plm_rsh_agent=qcg-rsh" };
	CHECK_INT_EQ(find("b1 " URL " r1 QCG_NET_PORTS=20016-20031 QCG_HELPER_SOCKET=/r/b1.sock\n",
	    "b1", &t, err), 0);
	int n = rsh_map_node_env(&t, carried, 9, out, 32, &d, err, sizeof(err));
	CHECK_INT_EQ(n, 10);
	CHECK(has(out, n, "LD_PRELOAD=/lib/libqcgnet.so"));
	CHECK(has(out, n, "QCG_JOB_TOKEN=0123456789abcdef"));
	CHECK(has(out, n, "OMPI_MCA_plm_rsh_agent=qcg-rsh"));
	CHECK(has(out, n, "QCG_NET_PORTS=20016-20031"));
	CHECK(has(out, n, "QCG_HELPER_SOCKET=/r/b1.sock"));
	CHECK(has(out, n, "OMPI_MCA_btl_tcp_port_min_v4=20016"));
	CHECK(has(out, n, "OMPI_MCA_btl_tcp_port_range_v4=16"));
	CHECK(has(out, n, "OMPI_MCA_oob_tcp_dynamic_ipv4_ports=20016-20031"));
	CHECK(!has(out, n, "QCG_NET_PORTS=20000-20015"));
	CHECK(!has(out, n, "QCG_HELPER_SOCKET=/run/helper-user.sock"));
	CHECK(!has(out, n, "QCG_HELPER_TOKEN_FILE=/etc/tokens"));
	CHECK(!has(out, n, "OMPI_MCA_btl_tcp_port_min_v4=20000"));
}

static void
a_node_without_words_gets_no_launcher_local_variables(void)
{
	struct rsh_target t;
	struct rsh_node_derived d;
	char err[256], *out[8];
	char *carried[] = { "QCG_NET=1", "QCG_NET_PORTS=20000-20015",
		"QCG_HELPER_SOCKET=/run/helper-user.sock" };
	CHECK_INT_EQ(find("a1 " URL " r1\n", "a1", &t, err), 0);
	int n = rsh_map_node_env(&t, carried, 3, out, 8, &d, err, sizeof(err));
	CHECK_INT_EQ(n, 1);
	CHECK_STR_EQ(out[0], "QCG_NET=1");
}

static void
a_bad_window_or_too_many_variables_is_an_error(void)
{
	struct rsh_target t;
	struct rsh_node_derived d;
	char err[256], *out[2];
	char *carried[] = { "QCG_NET=1", "QCG_JOB_ID=j" };
	CHECK_INT_EQ(find("c1 " URL " r1 QCG_NET_PORTS=30000-20000\n", "c1", &t, err), 0);
	CHECK_INT_EQ(rsh_map_node_env(&t, carried, 2, out, 2, &d, err, sizeof(err)), -1);
	CHECK(strstr(err, "host c1: QCG_NET_PORTS must be MIN-MAX") != NULL);
	CHECK_INT_EQ(find("c1 " URL " r1 QCG_X=1\n", "c1", &t, err), 0);
	CHECK_INT_EQ(rsh_map_node_env(&t, carried, 2, out, 2, &d, err, sizeof(err)), -1);
	CHECK(strstr(err, "more than 2 environment variables") != NULL);
}

int
main(void)
{
	RUN(node_words_are_parsed_after_the_reservation);
	RUN(bad_node_words_are_refused_with_the_line);
	RUN(format_env_writes_a_line_that_parses_back);
	RUN(orted_gets_its_node_window_and_never_mpiruns);
	RUN(a_node_without_words_gets_no_launcher_local_variables);
	RUN(a_bad_window_or_too_many_variables_is_an_error);
	return check_exit();
}
