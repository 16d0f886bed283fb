/*
 * test_node_env.c: node_env.h without a grid: port windows unique in the job and inside a
 * port-range cluster's range, a range too small is refused, the hosts-map words, the token.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "job_files.h"
#include "node_env.h"

static struct job_cluster clusters[3];

/* parts: nodes per part; ranges: port_min/max per part (0: none). */
static void
setup(struct coalloc *c, const int *nodes, const int (*ranges)[2], int parts)
{
	memset(c, 0, sizeof(*c));
	c->count = parts;
	for (int i = 0; i < parts; i++) {
		snprintf(clusters[i].name, sizeof(clusters[i].name), "%c", 'a' + i);
		c->part[i].cluster = &clusters[i];
		c->part[i].node_count = nodes[i];
		c->part[i].port_min = ranges[i][0];
		c->part[i].port_max = ranges[i][1];
		for (int n = 0; n < nodes[i]; n++) {
			snprintf(c->part[i].node[n].name, QCG_NAME_MAX, "%c%d", 'a' + i, n + 1);
			c->part[i].node[n].count = 1;
		}
	}
}

static void
windows_are_unique_and_inside_a_port_range_clusters_range(void)
{
	struct coalloc c;
	char err[256];
	int nodes[] = { 2, 2, 1 }, launcher = 0;
	int ranges[][2] = { { 0, 0 }, { 20000, 20999 }, { 0, 0 } };
	setup(&c, nodes, ranges, 3);
	CHECK_INT_EQ(node_env_assign(&c, &launcher, err, sizeof(err)), 0);
	int starts[6], k = 0;
	for (int i = 0; i < 3; i++)
		for (int n = 0; n < c.part[i].node_count; n++)
			starts[k++] = c.part[i].node[n].port_min;
	starts[k++] = launcher;
	for (int i = 0; i < k; i++)
		for (int j = i + 1; j < k; j++)
			CHECK(abs(starts[i] - starts[j]) >= NODE_ENV_WINDOW);
	CHECK(c.part[1].node[0].port_min >= 20000 && c.part[1].node[0].port_min + 15 <= 20999);
	CHECK(c.part[1].node[1].port_min >= 20000 && c.part[1].node[1].port_min + 15 <= 20999);
	CHECK(c.part[0].node[0].port_min >= NODE_ENV_PORT_BASE);
}

static void
a_node_with_more_ranks_gets_a_wider_window_that_overlaps_none(void)
{
	struct coalloc c;
	char err[256];
	int nodes[] = { 2 }, launcher = 0;
	int ranges[][2] = { { 0, 0 } };
	setup(&c, nodes, ranges, 1);
	c.part[0].node[0].count = 4;
	CHECK_INT_EQ(node_env_assign(&c, &launcher, err, sizeof(err)), 0);
	CHECK_INT_EQ(c.part[0].node[0].port_count, NODE_ENV_WINDOW + 3 * NODE_ENV_PER_PROCESS);
	CHECK_INT_EQ(c.part[0].node[1].port_count, NODE_ENV_WINDOW);
	CHECK(c.part[0].node[1].port_min >= c.part[0].node[0].port_min + c.part[0].node[0].port_count);
	CHECK(launcher >= c.part[0].node[1].port_min + NODE_ENV_WINDOW);
}

static void
a_range_without_room_is_refused_with_the_cluster_and_node(void)
{
	struct coalloc c;
	char err[256] = "";
	int nodes[] = { 2 }, launcher = 0;
	int ranges[][2] = { { 30000, 30020 } };
	setup(&c, nodes, ranges, 1);
	CHECK_INT_EQ(node_env_assign(&c, &launcher, err, sizeof(err)), -1);
	CHECK(strstr(err, "cluster a: its open ports 30000-30020 hold no window") != NULL);
	CHECK(strstr(err, "node a2") != NULL);
}

static void
hosts_map_lines_carry_the_socket_and_window(void)
{
	struct coalloc c;
	char err[256], *text = NULL;
	size_t len = 0;
	int nodes[] = { 1 }, launcher = 0;
	int ranges[][2] = { { 0, 0 } };
	setup(&c, nodes, ranges, 1);
	snprintf(c.part[0].frontend_url, sizeof(c.part[0].frontend_url), "https://gw-a:8444/");
	snprintf(c.part[0].reservation, sizeof(c.part[0].reservation), "r1");
	c.job_id = "j";
	c.helper_socket = "/run/tb/helper-%h.sock";
	CHECK_INT_EQ(node_env_assign(&c, &launcher, err, sizeof(err)), 0);
	FILE *f = open_memstream(&text, &len);
	CHECK_INT_EQ(job_files_hosts(f, &c), 0);
	fclose(f);
	CHECK(strstr(text, "\na1 https://gw-a:8444/ r1 QCG_NET=1 "
	    "QCG_HELPER_SOCKET=/run/tb/helper-a1.sock QCG_NET_PORTS=20000-20015\n") != NULL);
	free(text);
	struct rsh_target t;
	memset(&t, 0, sizeof(t));
	CHECK_INT_EQ(node_env_words(&c.part[0].node[0], "/run/my dir/%h.sock", &t), -1);
	CHECK_INT_EQ(node_env_words(&c.part[0].node[0], NULL, &t), 0);
	CHECK_STR_EQ(t.env[1], "QCG_HELPER_SOCKET=/run/qcg/helper.sock");
}

static void
tokens_are_hex_of_the_right_length_and_differ(void)
{
	char a[NODE_ENV_TOKEN_LEN + 1], b[NODE_ENV_TOKEN_LEN + 1];
	CHECK_INT_EQ(node_env_token(a), 0);
	CHECK_INT_EQ(node_env_token(b), 0);
	CHECK_INT_EQ((int)strlen(a), NODE_ENV_TOKEN_LEN);
	CHECK((int)strspn(a, "0123456789abcdef") == NODE_ENV_TOKEN_LEN);
	CHECK(strcmp(a, b) != 0);
}

int
main(void)
{
	RUN(windows_are_unique_and_inside_a_port_range_clusters_range);
	RUN(a_node_with_more_ranks_gets_a_wider_window_that_overlaps_none);
	RUN(a_range_without_room_is_refused_with_the_cluster_and_node);
	RUN(hosts_map_lines_carry_the_socket_and_window);
	RUN(tokens_are_hex_of_the_right_length_and_differ);
	return check_exit();
}
