/*
 * test_node_env.c: node_env.h without a grid: port windows unique in the job and inside a
 * port-range cluster's range, a range too small is refused, the hosts-map words, the token;
 * and how ranks are placed and bound (job_files.h, submit_run.h): the hostfile's order and
 * slots, its per-rank form when the launcher runs on a later node, mpirun's words; and the
 * topology (job_topology.h): every node's colors on its hosts-map line, mpirun's node's own,
 * none carried from the launcher to another node.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "job_files.h"
#include "job_topology.h"
#include "node_env.h"
#include "rsh_map.h"
#include "submit_run.h"

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
	    "QCG_HELPER_SOCKET=/run/tb/helper-a1.sock QCG_NET_PORTS=20000-20015 "
	    "QCG_TOPOLOGY_COLORS=0,0,0\n") != NULL);
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

/* The hostfile of a coalloc with the given slots per node (parts of 2 nodes). */
static char *
hostfile_of(struct coalloc *c, enum job_files_form form)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK_INT_EQ(job_files_hostfile(f, c, form), 0);
	fclose(f);
	return text;
}

static void
hostfile_lists_every_node_once_with_its_slots_in_rank_order(void)
{
	struct coalloc c;
	int nodes[] = { 2, 1, 2 };
	int ranges[][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
	setup(&c, nodes, ranges, 3);
	c.part[0].node[0].count = 3;
	c.part[2].node[1].count = 4;
	/* Grant order within a cluster is the front-end's, not the names' order. */
	snprintf(c.part[2].node[0].name, QCG_NAME_MAX, "c9");
	char *text = hostfile_of(&c, JOB_FILES_SLOTS);
	CHECK_STR_EQ(text, "a1 slots=3\na2 slots=1\nb1 slots=1\nc9 slots=1\nc2 slots=4\n");
	CHECK(strstr(text, "slot=") == NULL); /* what pinned every rank to core 0 */
	free(text);
	CHECK_INT_EQ(job_files_form(&c, "user"), JOB_FILES_SLOTS);
	CHECK_INT_EQ(job_files_form(&c, "a1"), JOB_FILES_SLOTS);     /* first anyway */
	CHECK_INT_EQ(job_files_form(&c, "a1.site-a.org"), JOB_FILES_SLOTS);
	CHECK_STR_EQ(job_files_map_by(JOB_FILES_SLOTS), "slot");
}

static void
a_launcher_on_a_later_node_gets_one_line_per_rank(void)
{
	struct coalloc c;
	int nodes[] = { 1, 2 };
	int ranges[][2] = { { 0, 0 }, { 0, 0 } };
	setup(&c, nodes, ranges, 2);
	c.part[0].node[0].count = 2;
	c.part[1].node[1].count = 3;
	CHECK_INT_EQ(job_files_form(&c, "b2"), JOB_FILES_SEQ);
	CHECK_INT_EQ(job_files_form(&c, "b1.example.org"), JOB_FILES_SEQ);
	CHECK_INT_EQ(job_files_form(&c, "b"), JOB_FILES_SLOTS);      /* a prefix is no match */
	char *text = hostfile_of(&c, JOB_FILES_SEQ);
	CHECK_STR_EQ(text, "a1\na1\nb1\nb2\nb2\nb2\n");
	free(text);
	CHECK_STR_EQ(job_files_map_by(JOB_FILES_SEQ), "seq");
}

/* argv[i..] holds the words a, b in a row. */
static int
has_pair(char **argv, int argc, const char *a, const char *b)
{
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], a) == 0 && strcmp(argv[i + 1], b) == 0)
			return 1;
	return 0;
}

static void
mpirun_gets_the_hostfile_its_mapping_and_the_descriptions_binding(void)
{
	static struct job_desc job;
	static char *argv[SUBMIT_ARGV_MAX];
	snprintf(job.executable.text, sizeof(job.executable.text), "/bin/p");
	struct submit_plan p = { .job = &job, .dir = "/tmp/j", .mpirun = "mpirun", .rsh = "qcg-rsh",
		.processes = 4, .form = JOB_FILES_SLOTS };
	int argc = submit_mpirun_argv(&p, argv);
	CHECK(has_pair(argv, argc, "--hostfile", "/tmp/j/hostfile"));
	CHECK(has_pair(argv, argc, "--map-by", "slot"));
	CHECK(has_pair(argv, argc, "--bind-to", "none"));
	int bind_words = 0; /* one --bind-to: a second would override the description's */
	for (int i = 0; i < argc; i++) {
		CHECK(strcmp(argv[i], "--rankfile") != 0);
		bind_words += strcmp(argv[i], "--bind-to") == 0;
	}
	CHECK_INT_EQ(bind_words, 1);
	job.binding = JOB_BIND_CORE;
	p.form = JOB_FILES_SEQ;
	argc = submit_mpirun_argv(&p, argv);
	CHECK(has_pair(argv, argc, "--bind-to", "core"));
	CHECK(has_pair(argv, argc, "--map-by", "seq"));
	CHECK_STR_EQ(argv[argc - 1], "/bin/p");
	/* Every rank is told the job has a topology; no file on this host is named to them. */
	CHECK(has_pair(argv, argc, "-x", "QCG_TOPOLOGY_REQUIRED=1"));
	for (int i = 0; i < argc; i++)
		CHECK(strstr(argv[i], "QCG_TOPOLOGY_FILE") == NULL);
}

/* Sites s1, s2, s1 for parts a (2 nodes), b, c: colors a1 0,0,0 a2 0,0,1 b1 1,0,0 c1 0,1,0. */
static void
every_node_gets_its_colors_on_its_hosts_map_line_without_a_port_window(void)
{
	struct coalloc c;
	char *text = NULL;
	size_t len = 0;
	int nodes[] = { 2, 1, 1 };
	int ranges[][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
	setup(&c, nodes, ranges, 3);
	snprintf(clusters[0].site, sizeof(clusters[0].site), "s1");
	snprintf(clusters[1].site, sizeof(clusters[1].site), "s2");
	snprintf(clusters[2].site, sizeof(clusters[2].site), "s1");
	c.job_id = "j";
	for (int i = 0; i < 3; i++) {
		snprintf(c.part[i].frontend_url, sizeof(c.part[i].frontend_url), "https://gw:8444/");
		snprintf(c.part[i].reservation, sizeof(c.part[i].reservation), "r%d", i);
	}
	FILE *f = open_memstream(&text, &len);
	CHECK_INT_EQ(job_files_hosts(f, &c), 0);
	fclose(f);
	CHECK(strstr(text, "\na1 https://gw:8444/ r0 QCG_TOPOLOGY_COLORS=0,0,0\n") != NULL);
	CHECK(strstr(text, "\na2 https://gw:8444/ r0 QCG_TOPOLOGY_COLORS=0,0,1\n") != NULL);
	CHECK(strstr(text, "\nb1 https://gw:8444/ r1 QCG_TOPOLOGY_COLORS=1,0,0\n") != NULL);
	CHECK(strstr(text, "\nc1 https://gw:8444/ r2 QCG_TOPOLOGY_COLORS=0,1,0\n") != NULL);
	free(text);
	/* The record agrees with the words, rank by rank. */
	text = NULL;
	f = open_memstream(&text, &len);
	CHECK_INT_EQ(job_files_topology(f, &c), 0);
	fclose(f);
	CHECK(strstr(text, "\n0 0 0 0\n1 0 0 1\n2 1 0 0\n3 0 1 0\n") != NULL);
	free(text);
	/* What qcg-rsh sends a1: its own word, not the launcher's. */
	struct rsh_target t;
	struct rsh_node_derived derived;
	char err[256], *out[16];
	const char *line = "a2 https://gw:8444/ r0 QCG_TOPOLOGY_COLORS=0,0,1\n";
	CHECK_INT_EQ(rsh_map_find(line, strlen(line), "m", "a2", &t, err, sizeof(err)), 0);
	char *carried[] = { "QCG_TOPOLOGY_COLORS=9,9,9", "QCG_JOB_ID=j" };
	int n = rsh_map_node_env(&t, carried, 2, out, 16, &derived, err, sizeof(err));
	CHECK_INT_EQ(n, 2);
	CHECK_STR_EQ(out[0], "QCG_JOB_ID=j");
	CHECK_STR_EQ(out[1], "QCG_TOPOLOGY_COLORS=0,0,1");
	/* A line without the word (an older map) gets none from the launcher either. */
	line = "a2 https://gw:8444/ r0\n";
	CHECK_INT_EQ(rsh_map_find(line, strlen(line), "m", "a2", &t, err, sizeof(err)), 0);
	n = rsh_map_node_env(&t, carried, 2, out, 16, &derived, err, sizeof(err));
	CHECK_INT_EQ(n, 1);
	CHECK_STR_EQ(out[0], "QCG_JOB_ID=j");
}

static void
mpiruns_own_node_gets_its_colors_and_another_host_none(void)
{
	struct coalloc c;
	char word[JOB_TOPOLOGY_WORD_MAX];
	int nodes[] = { 2, 2 };
	int ranges[][2] = { { 0, 0 }, { 0, 0 } };
	setup(&c, nodes, ranges, 2);
	snprintf(clusters[0].site, sizeof(clusters[0].site), "s1");
	snprintf(clusters[1].site, sizeof(clusters[1].site), "s2");
	CHECK_INT_EQ(job_topology_local_word(&c, "b2.example.org", word, sizeof(word)), 1);
	CHECK_STR_EQ(word, "QCG_TOPOLOGY_COLORS=1,0,1");
	CHECK_INT_EQ(job_topology_local_word(&c, "user", word, sizeof(word)), 0);
	CHECK_STR_EQ(word, "");
}

int
main(void)
{
	RUN(windows_are_unique_and_inside_a_port_range_clusters_range);
	RUN(a_node_with_more_ranks_gets_a_wider_window_that_overlaps_none);
	RUN(a_range_without_room_is_refused_with_the_cluster_and_node);
	RUN(hosts_map_lines_carry_the_socket_and_window);
	RUN(tokens_are_hex_of_the_right_length_and_differ);
	RUN(hostfile_lists_every_node_once_with_its_slots_in_rank_order);
	RUN(a_launcher_on_a_later_node_gets_one_line_per_rank);
	RUN(mpirun_gets_the_hostfile_its_mapping_and_the_descriptions_binding);
	RUN(every_node_gets_its_colors_on_its_hosts_map_line_without_a_port_window);
	RUN(mpiruns_own_node_gets_its_colors_and_another_host_none);
	return check_exit();
}
