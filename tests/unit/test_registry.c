/*
 * test_registry.c: the registry (db/) against real SQLite files in a private temporary
 * directory: migrations, every table's round trip, the ownership rules, the bounds on strings,
 * and that what was committed survives closing, reopening and a killed process.
 */
#include "config.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "migrations.h"
#include "registry.h"

#define DN_A "CN=frontend,OU=site-a,O=Grid"
#define DN_B "CN=frontend,OU=site-b,O=Grid"
#define USER_DN "CN=Jane Doe,O=Grid"
#define PROXY_DN_A "CN=host/proxy-a,O=Grid"
#define PROXY_DN_B "CN=host/proxy-b,O=Grid"
#define ADMIN_DN "CN=Grid Admin,O=Grid"

static char tmpdir[] = "/tmp/test_registry.XXXXXX";
static int db_serial;

/* A path for a new database file in the test's directory. */
static void
new_db_path(char *path, size_t size)
{
	snprintf(path, size, "%s/registry-%d.db", tmpdir, ++db_serial);
}

/* Open a new, empty registry; aborts the program if that fails (nothing else could run). */
static struct registry *
open_fresh(char *path, size_t size)
{
	struct registry *reg;
	char err[512];

	new_db_path(path, size);
	if (registry_open(path, &reg, err, sizeof(err)) != 0) {
		fprintf(stderr, "cannot open %s: %s\n", path, err);
		exit(1);
	}
	return reg;
}

/* Run one SQL statement on the file directly, around the registry (to set up odd states). */
static int
raw_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;
	int rc;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fprintf(stderr, "raw_sql: %s: %s\n", sql, msg ? msg : "?");
	sqlite3_free(msg);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static struct cluster
make_cluster(const char *name, enum cluster_policy policy)
{
	struct cluster c;

	memset(&c, 0, sizeof(c));
	snprintf(c.name, sizeof(c.name), "%s", name);
	c.policy = policy;
	if (policy == POLICY_PORT_RANGE) {
		c.port_min = 40000;
		c.port_max = 40100;
	}
	snprintf(c.public_address, sizeof(c.public_address), "198.51.100.7");
	snprintf(c.private_networks, sizeof(c.private_networks), "192.168.1.0/24,10.9.0.0/16");
	c.traversal_allowed = true;
	snprintf(c.frontend_endpoint, sizeof(c.frontend_endpoint), "https://gw.%s:8443/", name);
	return c;
}

static struct job
make_job(const char *id, int64_t submitted)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	snprintf(j.id, sizeof(j.id), "%s", id);
	snprintf(j.owner_dn, sizeof(j.owner_dn), USER_DN);
	j.state = JOB_PENDING;
	j.submitted = submitted;
	return j;
}

static struct access_point
make_ap(const char *job, const char *cluster, const char *address, uint16_t port)
{
	struct access_point ap;

	memset(&ap, 0, sizeof(ap));
	snprintf(ap.job, sizeof(ap.job), "%s", job);
	snprintf(ap.cluster, sizeof(ap.cluster), "%s", cluster);
	snprintf(ap.node, sizeof(ap.node), "node-%u", (unsigned)port);
	snprintf(ap.address, sizeof(ap.address), "%s", address);
	ap.port = port;
	snprintf(ap.process, sizeof(ap.process), "1234.%u", (unsigned)port);
	return ap;
}

/* A registry with clusters "a" and "b" (both on 192.168.1.0/24) and jobs "j1", "j2". */
static struct registry *
open_with_two_clusters_and_jobs(char *path, size_t size)
{
	struct registry *reg = open_fresh(path, size);
	struct cluster a = make_cluster("a", POLICY_NAT), b = make_cluster("b", POLICY_CLOSED);
	struct job j1 = make_job("j1", 100), j2 = make_job("j2", 200);

	CHECK_INT_EQ(registry_put_cluster(reg, &a, DN_A), 0);
	CHECK_INT_EQ(registry_put_cluster(reg, &b, DN_B), 0);
	CHECK_INT_EQ(registry_put_job(reg, &j1), 0);
	CHECK_INT_EQ(registry_put_job(reg, &j2), 0);
	return reg;
}

static void
migrations_bring_new_file_to_latest_and_second_open_applies_nothing(void)
{
	char path[256], err[512];
	struct registry *reg = open_fresh(path, sizeof(path));
	int latest = registry_schema_version(reg);

	CHECK(latest >= 1);
	CHECK_INT_EQ(registry_migrations_applied(reg), latest);
	registry_close(reg);

	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_migrations_applied(reg), 0);
	CHECK_INT_EQ(registry_schema_version(reg), latest);
	registry_close(reg);

	/* other modules' tests may use a private in-memory registry */
	CHECK_INT_EQ(registry_open(":memory:", &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_schema_version(reg), latest);
	registry_close(reg);
}

static void
database_from_a_newer_schema_is_refused(void)
{
	char path[256], err[512], sql[64];
	struct registry *reg = open_fresh(path, sizeof(path));
	int latest = registry_schema_version(reg);

	registry_close(reg);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", latest + 1);
	CHECK_INT_EQ(raw_sql(path, sql), 0);
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), -1);
	CHECK(reg == NULL);
	CHECK(strstr(err, "newer") != NULL);
	CHECK(strstr(err, path) != NULL);
}

static void
failed_migration_changes_nothing(void)
{
	char path[256], err[512];
	struct registry *reg;
	sqlite3 *db;
	sqlite3_stmt *st;

	/* A stray table makes 001_initial fail half-way; none of its other tables may remain. */
	new_db_path(path, sizeof(path));
	CHECK_INT_EQ(raw_sql(path, "CREATE TABLE jobs (x)"), 0);
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), -1);
	CHECK(strstr(err, "001_initial.sql") != NULL);
	CHECK(strstr(err, "jobs") != NULL);

	CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM sqlite_master), "
	    "(SELECT user_version FROM pragma_user_version)", -1, &st, NULL), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT_EQ(sqlite3_column_int(st, 0), 1);
	CHECK_INT_EQ(sqlite3_column_int(st, 1), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void
cluster_round_trips_every_field(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct cluster in = make_cluster("zeta", POLICY_PORT_RANGE), other = make_cluster("alpha",
	    POLICY_OPEN), out, *list = NULL;
	size_t n = 0;

	CHECK_INT_EQ(registry_put_cluster(reg, &in, DN_A), 0);
	CHECK_INT_EQ(registry_put_cluster(reg, &other, DN_B), 0);
	memset(&out, 0x5a, sizeof(out));
	CHECK_INT_EQ(registry_get_cluster(reg, "zeta", &out), 0);
	CHECK_STR_EQ(out.name, "zeta");
	CHECK_INT_EQ(out.policy, POLICY_PORT_RANGE);
	CHECK_INT_EQ(out.port_min, 40000);
	CHECK_INT_EQ(out.port_max, 40100);
	CHECK_STR_EQ(out.public_address, "198.51.100.7");
	CHECK_STR_EQ(out.private_networks, "192.168.1.0/24,10.9.0.0/16");
	CHECK(out.traversal_allowed);
	CHECK_STR_EQ(out.frontend_endpoint, "https://gw.zeta:8443/");
	CHECK_STR_EQ(out.frontend_dn, DN_A); /* the caller's DN, not whatever the struct said */

	CHECK_INT_EQ(registry_get_cluster(reg, "nowhere", &out), REGISTRY_NOT_FOUND);
	CHECK_INT_EQ(registry_list_clusters(reg, &list, &n), 0);
	CHECK_INT_EQ(n, 2);
	if (n == 2) {
		CHECK_STR_EQ(list[0].name, "alpha"); /* ordered by name */
		CHECK_INT_EQ(list[0].policy, POLICY_OPEN);
		CHECK_STR_EQ(list[0].frontend_dn, DN_B);
		CHECK_STR_EQ(list[1].name, "zeta");
		CHECK_INT_EQ(list[1].port_max, 40100);
	}
	free(list);
	registry_close(reg);
}

static void
cluster_belongs_to_the_dn_that_registered_it(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct cluster c = make_cluster("site-a", POLICY_NAT), out;

	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), 0);
	c.policy = POLICY_OPEN;
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_B), REGISTRY_DENIED);
	CHECK(strstr(registry_error(reg), "registry_put_cluster") != NULL);
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK_INT_EQ(out.policy, POLICY_NAT);
	CHECK_STR_EQ(out.frontend_dn, DN_A);

	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), 0); /* the owner may replace it */
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK_INT_EQ(out.policy, POLICY_OPEN);
	CHECK_INT_EQ(registry_put_cluster(reg, &c, ""), -1);

	CHECK_INT_EQ(registry_delete_cluster(reg, "site-a", DN_B), REGISTRY_DENIED);
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK_INT_EQ(registry_delete_cluster(reg, "site-a", DN_A), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), REGISTRY_NOT_FOUND);
	CHECK_INT_EQ(registry_delete_cluster(reg, "site-a", DN_A), REGISTRY_NOT_FOUND);
	registry_close(reg);
}

static void
cluster_constraints_reject_bad_values(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct cluster c = make_cluster("bad", POLICY_PORT_RANGE);

	c.port_min = 0;
	c.port_max = 0;
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), -1); /* port-range without a range */
	CHECK(strstr(registry_error(reg), "CHECK constraint") != NULL);
	c = make_cluster("bad", (enum cluster_policy)9);
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), -1);
	CHECK(strstr(registry_error(reg), "policy 9") != NULL);
	c = make_cluster("", POLICY_OPEN);
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), -1);
	registry_close(reg);
}

static struct proxy
make_proxy(const char *endpoint, int64_t load)
{
	struct proxy p;

	memset(&p, 0, sizeof(p));
	snprintf(p.endpoint, sizeof(p.endpoint), "%s", endpoint);
	snprintf(p.networks, sizeof(p.networks), "0.0.0.0/0");
	p.load = load;
	return p;
}

static void
proxies_put_list_and_load_floors_at_zero(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct proxy p1 = make_proxy("wan1:9000", 0), p2 = make_proxy("wan2:9000", 5), *list = NULL;
	int64_t id1 = 0, id2 = 0, again = 0;
	size_t n = 0;

	snprintf(p2.cluster, sizeof(p2.cluster), "site-c");
	snprintf(p1.control_endpoint, sizeof(p1.control_endpoint), "https://wan1:9001/");
	CHECK_INT_EQ(registry_put_proxy(reg, &p1, PROXY_DN_A, false, &id1), 0);
	CHECK_INT_EQ(registry_put_proxy(reg, &p2, PROXY_DN_A, false, &id2), 0);
	CHECK(id1 > 0 && id2 > 0 && id1 != id2);
	/* registering the same endpoint again keeps its id */
	snprintf(p1.networks, sizeof(p1.networks), "10.0.0.0/8");
	CHECK_INT_EQ(registry_put_proxy(reg, &p1, PROXY_DN_A, false, &again), 0);
	CHECK_INT_EQ(again, id1);

	CHECK_INT_EQ(registry_add_proxy_load(reg, "wan1:9000", 7), 0);
	CHECK_INT_EQ(registry_add_proxy_load(reg, "wan2:9000", -2), 0);
	CHECK_INT_EQ(registry_add_proxy_load(reg, "nowhere:1", 1), REGISTRY_NOT_FOUND);
	CHECK_INT_EQ(registry_list_proxies(reg, &list, &n), 0);
	CHECK_INT_EQ(n, 2);
	if (n == 2) { /* least loaded first */
		CHECK_STR_EQ(list[0].endpoint, "wan2:9000");
		CHECK_INT_EQ(list[0].load, 3);
		CHECK_INT_EQ(list[0].id, id2);
		CHECK_STR_EQ(list[0].cluster, "site-c");
		CHECK_STR_EQ(list[0].control_endpoint, ""); /* none registered */
		CHECK_STR_EQ(list[1].endpoint, "wan1:9000");
		CHECK_STR_EQ(list[1].control_endpoint, "https://wan1:9001/");
		CHECK_INT_EQ(list[1].load, 7);
		CHECK_STR_EQ(list[1].networks, "10.0.0.0/8");
	}
	free(list);

	CHECK_INT_EQ(registry_add_proxy_load(reg, "wan2:9000", -10), 0);
	CHECK_INT_EQ(registry_list_proxies(reg, &list, &n), 0);
	CHECK(n == 2 && list[0].load == 0 && strcmp(list[0].endpoint, "wan2:9000") == 0);
	free(list);

	CHECK_INT_EQ(registry_delete_proxy(reg, "wan2:9000", PROXY_DN_A, false), 0);
	CHECK_INT_EQ(registry_delete_proxy(reg, "wan2:9000", PROXY_DN_A, false), REGISTRY_NOT_FOUND);
	CHECK_INT_EQ(registry_list_proxies(reg, &list, &n), 0);
	CHECK_INT_EQ(n, 1);
	free(list);
	registry_close(reg);
}

/* Like clusters: the DN that registered an endpoint owns it; another proxy can neither take it
 * over nor remove it; an admin can do both and leaves the owner in place. */
static void
proxy_belongs_to_the_dn_that_registered_it(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct proxy p = make_proxy("relay-a:9000", 0), got;
	int64_t id = 0, again = 0;

	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, &id), 0);
	CHECK_INT_EQ(registry_get_proxy(reg, "relay-a:9000", &got), 0);
	CHECK_STR_EQ(got.owner_dn, PROXY_DN_A);
	CHECK_INT_EQ(got.id, id);
	/* the owner in the caller's struct is never taken: it comes from caller_dn */
	snprintf(p.owner_dn, sizeof(p.owner_dn), "%s", PROXY_DN_B);
	snprintf(p.networks, sizeof(p.networks), "10.66.0.0/16");
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_B, false, &again), REGISTRY_DENIED);
	CHECK(strstr(registry_error(reg), "another DN") != NULL);
	CHECK_INT_EQ(registry_delete_proxy(reg, "relay-a:9000", PROXY_DN_B, false), REGISTRY_DENIED);
	CHECK_INT_EQ(registry_get_proxy(reg, "relay-a:9000", &got), 0);
	CHECK_STR_EQ(got.networks, "0.0.0.0/0"); /* B's put changed nothing */
	CHECK_STR_EQ(got.owner_dn, PROXY_DN_A);
	CHECK_INT_EQ(registry_put_proxy(reg, &p, "", false, NULL), -1); /* no identity */
	CHECK_INT_EQ(registry_delete_proxy(reg, "nowhere:1", PROXY_DN_B, false), REGISTRY_NOT_FOUND);

	/* the owner re-registers at will; an admin may replace the row and keeps A as owner */
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, &again), 0);
	CHECK_INT_EQ(again, id);
	snprintf(p.networks, sizeof(p.networks), "10.77.0.0/16");
	CHECK_INT_EQ(registry_put_proxy(reg, &p, ADMIN_DN, true, NULL), 0);
	CHECK_INT_EQ(registry_get_proxy(reg, "relay-a:9000", &got), 0);
	CHECK_STR_EQ(got.networks, "10.77.0.0/16");
	CHECK_STR_EQ(got.owner_dn, PROXY_DN_A);
	CHECK_INT_EQ(registry_delete_proxy(reg, "relay-a:9000", ADMIN_DN, true), 0);
	CHECK_INT_EQ(registry_get_proxy(reg, "relay-a:9000", &got), REGISTRY_NOT_FOUND);

	/* once A is gone, the endpoint is free for B */
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_B, false, NULL), 0);
	CHECK_INT_EQ(registry_delete_proxy(reg, "relay-a:9000", PROXY_DN_A, false), REGISTRY_DENIED);
	CHECK_INT_EQ(registry_delete_proxy(reg, "relay-a:9000", PROXY_DN_B, false), 0);
	registry_close(reg);
}

/* A file at schema 2 (the two first migrations only, as a broker of the first release left it)
 * keeps its proxies through migration 3; they are unowned until registered again. */
static void
migration_from_schema_2_keeps_proxies_unowned_until_registered(void)
{
	char path[256], err[512];
	struct registry *reg;
	struct proxy p = make_proxy("old:7000", 0), *list = NULL;
	size_t n = 0;
	sqlite3 *db;

	new_db_path(path, sizeof(path));
	CHECK(registry_migration_count >= 3);
	CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t i = 0; i < 2; i++)
		CHECK_INT_EQ(sqlite3_exec(db, registry_migrations[i].sql, NULL, NULL, NULL),
		    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "INSERT INTO proxies (endpoint, networks, load, "
	    "control_endpoint) VALUES ('old:7000', '0.0.0.0/0', 3, 'https://old:7001/')",
	    NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_migrations_applied(reg), (int)registry_migration_count - 2);
	CHECK_INT_EQ(registry_list_proxies(reg, &list, &n), 0);
	CHECK_INT_EQ(n, 1);
	if (n == 1) {
		CHECK_STR_EQ(list[0].endpoint, "old:7000");
		CHECK_STR_EQ(list[0].control_endpoint, "https://old:7001/");
		CHECK_INT_EQ(list[0].load, 3);
		CHECK_STR_EQ(list[0].owner_dn, "");
		/* 004: its registration is its last sign of life, and it has two minutes to poll */
		CHECK(list[0].live.last_seen > 0 && list[0].live.withdrawn_at == 0);
		CHECK(list[0].live.lease_expires > (int64_t)time(NULL) + 60);
	}
	free(list);
	/* nobody but an admin removes an unowned row; its next registrant claims it */
	CHECK_INT_EQ(registry_delete_proxy(reg, "old:7000", PROXY_DN_B, false), REGISTRY_DENIED);
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, NULL), 0);
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_B, false, NULL), REGISTRY_DENIED);
	CHECK_INT_EQ(registry_delete_proxy(reg, "old:7000", PROXY_DN_A, false), 0);
	registry_close(reg);
}

/* Migration 005 rebuilds jobs for the 'queued' state: a schema-4 file keeps its jobs, their
 * access points and multicast groups (which reference jobs and would cascade away if jobs
 * were dropped under them), and takes 'queued' afterwards, which 4 refused. */
static void
migration_to_queued_state_keeps_jobs_and_what_references_them(void)
{
	char path[256], err[512];
	struct registry *reg;
	struct job out;
	sqlite3 *db;
	sqlite3_stmt *st;

	new_db_path(path, sizeof(path));
	CHECK(registry_migration_count >= 5);
	CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < 4; i++)
		CHECK_INT_EQ(sqlite3_exec(db, registry_migrations[i].sql, NULL, NULL, NULL),
		    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "INSERT INTO clusters (name, policy, frontend_dn) "
	    "VALUES ('old-c', 'open', 'CN=fe');"
	    "INSERT INTO jobs (id, owner_dn, state, submitted, exit_code) "
	    "VALUES ('old-job', 'CN=Jane', 'running', 17, 0);"
	    "INSERT INTO access_points (job, cluster, node, address, port) "
	    "VALUES ('old-job', 'old-c', 'n1', '10.0.0.1', 4242);"
	    "INSERT INTO multicast_groups (job, address, port, allocated) "
	    "VALUES ('old-job', '239.192.0.1', 7000, 17)", NULL, NULL, NULL), SQLITE_OK);
	/* schema 4 refuses the new state: the migration is what lets it in */
	CHECK(sqlite3_exec(db, "UPDATE jobs SET state = 'queued'", NULL, NULL, NULL) != SQLITE_OK);
	sqlite3_close(db);

	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_migrations_applied(reg), (int)registry_migration_count - 4);
	memset(&out, 0, sizeof(out));
	CHECK_INT_EQ(registry_get_job(reg, "old-job", &out), 0);
	CHECK_INT_EQ(out.state, JOB_RUNNING);
	CHECK_INT_EQ(out.submitted, 17);
	free(out.description);
	CHECK_INT_EQ(registry_set_job_state(reg, "old-job", JOB_QUEUED, 0, 20), 0);
	CHECK_INT_EQ(registry_get_job(reg, "old-job", &out), 0);
	CHECK_INT_EQ(out.state, JOB_QUEUED);
	free(out.description);
	registry_close(reg);

	CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM access_points WHERE "
	    "job = 'old-job' AND port = 4242), (SELECT count(*) FROM multicast_groups WHERE "
	    "job = 'old-job'), (SELECT count(*) FROM pragma_foreign_key_check)", -1, &st, NULL),
	    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT_EQ(sqlite3_column_int(st, 0), 1);
	CHECK_INT_EQ(sqlite3_column_int(st, 1), 1);
	CHECK_INT_EQ(sqlite3_column_int(st, 2), 0);
	sqlite3_finalize(st);
	/* the rebuilt references still cascade from jobs */
	CHECK_INT_EQ(sqlite3_exec(db, "DELETE FROM jobs WHERE id = 'old-job'", NULL, NULL, NULL),
	    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM access_points", -1, &st, NULL),
	    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT_EQ(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Migration 008 widens access_points' key to (job, address, port, cluster): a schema-7 file
 * keeps its rows (and their cascade from jobs), and then takes a second node's listener on the
 * same port, which 7 refused as a duplicate (job, port). */
static void
migration_to_listener_key_keeps_access_points(void)
{
	char path[256], err[512];
	struct registry *reg;
	struct access_point other = make_ap("old-job", "old-c", "10.0.0.2", 4242), out, *list = NULL;
	size_t n = 0;
	sqlite3 *db;

	new_db_path(path, sizeof(path));
	CHECK(registry_migration_count >= 8);
	CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < 7; i++)
		CHECK_INT_EQ(sqlite3_exec(db, registry_migrations[i].sql, NULL, NULL, NULL),
		    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "INSERT INTO clusters (name, policy, frontend_dn) "
	    "VALUES ('old-c', 'open', 'CN=fe');"
	    "INSERT INTO jobs (id, owner_dn, state, submitted, exit_code) "
	    "VALUES ('old-job', 'CN=Jane', 'running', 17, 0);"
	    "INSERT INTO access_points (job, cluster, node, address, port, process) "
	    "VALUES ('old-job', 'old-c', 'n1', '10.0.0.1', 4242, '99.1')", NULL, NULL, NULL),
	    SQLITE_OK);
	/* schema 7: the same port on another node is a duplicate */
	CHECK(sqlite3_exec(db, "INSERT INTO access_points (job, cluster, node, address, port) "
	    "VALUES ('old-job', 'old-c', 'n2', '10.0.0.2', 4242)", NULL, NULL, NULL) != SQLITE_OK);
	sqlite3_close(db);

	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_migrations_applied(reg), (int)registry_migration_count - 7);
	CHECK_INT_EQ(registry_find_access_point(reg, "old-job", "old-c", "10.0.0.1", 4242, &out), 0);
	CHECK_STR_EQ(out.node, "n1");
	CHECK_STR_EQ(out.process, "99.1");
	CHECK_INT_EQ(registry_put_access_point(reg, &other), 0);
	CHECK_INT_EQ(registry_list_access_points(reg, "old-job", &list, &n), 0);
	CHECK_INT_EQ(n, 2);
	free(list);
	registry_close(reg);
	/* the rebuilt table still cascades from jobs */
	CHECK_INT_EQ(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT_EQ(sqlite3_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM jobs", NULL, NULL,
	    NULL), SQLITE_OK);
	sqlite3_stmt *st;
	CHECK_INT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM access_points", -1, &st, NULL),
	    SQLITE_OK);
	CHECK_INT_EQ(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT_EQ(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Leases (migration 004): only the owner's poll renews one, and says when it brought a withdrawn
 * row back; withdrawal happens once; the sweep takes exactly the lapsed live rows, leaves a row
 * renewed in time, and writes nothing when none lapsed. */
static void
leases_renew_withdraw_and_lapse(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct cluster c = make_cluster("site-a", POLICY_NAT), out;
	struct proxy p = make_proxy("wan1:9000", 0), q = make_proxy("wan2:9000", 0);
	char (*names)[QCG_ENDPOINT_MAX] = NULL;
	bool back = true, done = false;
	size_t n = 9;

	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), 0);
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, NULL), 0);
	CHECK_INT_EQ(registry_put_proxy(reg, &q, PROXY_DN_A, false, NULL), 0);
	/* a new row has no lease yet: alive, never swept */
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK(out.live.last_seen == 0 && out.live.lease_expires == 0 && out.live.withdrawn_at == 0);
	CHECK_INT_EQ(registry_withdraw_expired(reg, REGISTRY_LEASE_CLUSTER, 1000, &names, &n), 0);
	CHECK(n == 0 && names == NULL);

	CHECK_INT_EQ(registry_renew_lease(reg, REGISTRY_LEASE_CLUSTER, "site-a", DN_A, 100, 130,
	    &back), 0);
	CHECK(!back);
	CHECK_INT_EQ(registry_renew_lease(reg, REGISTRY_LEASE_CLUSTER, "site-a", DN_B, 100, 130,
	    NULL), REGISTRY_NOT_FOUND); /* not the owner */
	CHECK_INT_EQ(registry_renew_lease(reg, REGISTRY_LEASE_PROXY, "wan1:9000", PROXY_DN_A, 100,
	    110, NULL), 0);
	CHECK_INT_EQ(registry_renew_lease(reg, REGISTRY_LEASE_PROXY, "wan2:9000", PROXY_DN_A, 100,
	    200, NULL), 0);
	CHECK_INT_EQ(registry_renew_lease(reg, REGISTRY_LEASE_PROXY, "wan2:9000", PROXY_DN_A, 100,
	    99, NULL), -1); /* ends before it starts */
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK(out.live.last_seen == 100 && out.live.lease_expires == 130);

	/* at 120 only wan1's lease (110) has lapsed */
	CHECK_INT_EQ(registry_withdraw_expired(reg, REGISTRY_LEASE_PROXY, 120, &names, &n), 0);
	CHECK_INT_EQ(n, 1);
	if (n == 1)
		CHECK_STR_EQ(names[0], "wan1:9000");
	free(names);
	CHECK_INT_EQ(registry_withdraw_expired(reg, REGISTRY_LEASE_PROXY, 120, &names, &n), 0);
	CHECK_INT_EQ(n, 0); /* withdrawn once */
	CHECK_INT_EQ(registry_withdraw_expired(reg, REGISTRY_LEASE_CLUSTER, 120, &names, &n), 0);
	CHECK_INT_EQ(n, 0);
	struct proxy row;
	CHECK_INT_EQ(registry_get_proxy(reg, "wan1:9000", &row), 0);
	CHECK_INT_EQ(row.live.withdrawn_at, 120);

	/* a closed poll withdraws at once, once */
	CHECK_INT_EQ(registry_withdraw(reg, REGISTRY_LEASE_CLUSTER, "site-a", 125, &done), 0);
	CHECK(done);
	CHECK_INT_EQ(registry_withdraw(reg, REGISTRY_LEASE_CLUSTER, "site-a", 126, &done), 0);
	CHECK(!done);
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK_INT_EQ(out.live.withdrawn_at, 125);

	/* the next poll brings it back, and says so */
	CHECK_INT_EQ(registry_renew_lease(reg, REGISTRY_LEASE_CLUSTER, "site-a", DN_A, 140, 170,
	    &back), 0);
	CHECK(back);
	CHECK_INT_EQ(registry_get_cluster(reg, "site-a", &out), 0);
	CHECK(out.live.withdrawn_at == 0 && out.live.last_seen == 140);
	registry_close(reg);
}

/* What Resolve relies on: reads between read_begin and read_end see one committed state while
 * another connection writes (WAL: the writer is not blocked), and no write gets in. */
static void
read_snapshot_sees_one_state_while_another_connection_writes(void)
{
	char path[256], err[512];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path)), *writer;
	struct cluster c, a = make_cluster("a", POLICY_OPEN);
	struct proxy p = make_proxy("snap:1", 0);

	CHECK_INT_EQ(registry_open(path, &writer, err, sizeof(err)), 0);
	if (writer == NULL)
		return;
	CHECK_INT_EQ(registry_read_begin(reg), 0);
	CHECK_INT_EQ(registry_read_begin(reg), -1); /* no nesting */
	CHECK_INT_EQ(registry_get_cluster(reg, "a", &c), 0);
	CHECK_INT_EQ(c.policy, POLICY_NAT);
	CHECK_INT_EQ(registry_put_cluster(writer, &a, DN_A), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "a", &c), 0);
	CHECK_INT_EQ(c.policy, POLICY_NAT); /* still the snapshot's */
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, NULL), -1);
	CHECK(strstr(registry_error(reg), "read snapshot") != NULL);
	CHECK_INT_EQ(registry_add_proxy_load(reg, "snap:1", 1), -1);
	CHECK(strstr(registry_error(reg), "read snapshot") != NULL);
	registry_read_end(reg);
	registry_read_end(reg); /* harmless */
	CHECK_INT_EQ(registry_get_cluster(reg, "a", &c), 0);
	CHECK_INT_EQ(c.policy, POLICY_OPEN);
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, NULL), 0);
	registry_close(writer);
	registry_close(reg);
}

/* Read the hot rows (cluster a, j1's access point at port 41000, the proxies) in a snapshot of
 * the database, which fills the row cache. */
static void
fill_row_cache(struct registry *reg)
{
	struct cluster c;
	struct access_point ap;
	struct proxy *list = NULL;
	size_t n = 0;

	CHECK_INT_EQ(registry_read_begin(reg), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "a", &c), 0);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "a", "192.168.1.10", 41000, &ap), 0);
	CHECK_INT_EQ(registry_list_proxies(reg, &list, &n), 0);
	free(list);
	registry_read_end(reg);
}

/* Whether a cache-only snapshot of reg serves cluster a, with its policy in *policy. */
static int
cached_cluster_a(struct registry *reg, enum cluster_policy *policy)
{
	struct cluster c;
	int rc;

	if ((rc = registry_read_begin_cached(reg)) != 0)
		return rc;
	rc = registry_get_cluster(reg, "a", &c);
	registry_read_end(reg);
	if (rc == 0)
		*policy = c.policy;
	return rc;
}

static void
row_cache_serves_only_rows_no_commit_has_changed_since(void)
{
	char path[256], err[512];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path)), *other, *mem;
	struct access_point ap = make_ap("j1", "a", "192.168.1.10", 41000), out;
	struct proxy p = make_proxy("cache:1", 0), *list = NULL;
	struct cluster a_open = make_cluster("a", POLICY_OPEN), c;
	enum cluster_policy policy = POLICY_CLOSED;
	size_t n = 0;

	CHECK_INT_EQ(registry_put_access_point(reg, &ap), 0);
	CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, NULL), 0);
	CHECK_INT_EQ(registry_open(path, &other, err, sizeof(err)), 0);
	if (other == NULL)
		return;

	/* Nothing read yet: a miss, not a guess. */
	CHECK_INT_EQ(cached_cluster_a(reg, &policy), REGISTRY_CACHE_MISS);
	/* Rows one connection read are served to another connection of the process. */
	fill_row_cache(reg);
	CHECK_INT_EQ(cached_cluster_a(other, &policy), 0);
	CHECK_INT_EQ(policy, POLICY_NAT);
	CHECK_INT_EQ(registry_read_begin_cached(other), 0);
	CHECK_INT_EQ(registry_find_access_point(other, "j1", "a", "192.168.1.10", 41000, &out), 0);
	CHECK_STR_EQ(out.cluster, "a");
	/* the address is part of the key, as in the query */
	CHECK_INT_EQ(registry_find_access_point(other, "j1", "a", "192.168.1.99", 41000, &out),
	    REGISTRY_CACHE_MISS);
	CHECK_INT_EQ(registry_get_cluster(other, "b", &c), REGISTRY_CACHE_MISS); /* never read */
	CHECK_INT_EQ(registry_list_proxies(other, &list, &n), 0);
	CHECK_INT_EQ((int)n, 1);
	if (n == 1)
		CHECK_STR_EQ(list[0].endpoint, "cache:1");
	free(list);
	/* a cache-only snapshot is a snapshot: no writes */
	CHECK_INT_EQ(registry_add_proxy_load(other, "cache:1", 1), -1);
	registry_read_end(other);

	/* A commit by another connection: nothing read before it is served after it. */
	CHECK_INT_EQ(registry_put_cluster(other, &a_open, DN_A), 0);
	CHECK_INT_EQ(cached_cluster_a(reg, &policy), REGISTRY_CACHE_MISS);
	CHECK_INT_EQ(registry_read_begin_cached(reg), 0);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "a", "192.168.1.10", 41000, &out),
	    REGISTRY_CACHE_MISS);
	CHECK_INT_EQ(registry_list_proxies(reg, &list, &n), REGISTRY_CACHE_MISS);
	registry_read_end(reg);
	fill_row_cache(reg);
	CHECK_INT_EQ(cached_cluster_a(reg, &policy), 0);
	CHECK_INT_EQ(policy, POLICY_OPEN);

	/* A commit by the reading connection itself, to another table, also ends them. */
	CHECK_INT_EQ(registry_add_proxy_load(reg, "cache:1", 1), 0);
	CHECK_INT_EQ(cached_cluster_a(reg, &policy), REGISTRY_CACHE_MISS);

	/* A snapshot that began before another connection's commit read the old state: that is
	 * never stored as current. */
	CHECK_INT_EQ(registry_read_begin(reg), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "b", &c), 0); /* the snapshot starts here */
	CHECK_INT_EQ(registry_put_cluster(other, &a_open, DN_A), 0);
	a_open.policy = POLICY_NAT;
	CHECK_INT_EQ(registry_put_cluster(other, &a_open, DN_A), 0); /* a is nat now */
	a_open.policy = POLICY_OPEN;
	CHECK_INT_EQ(registry_get_cluster(reg, "a", &c), 0);
	CHECK_INT_EQ(c.policy, POLICY_OPEN); /* the snapshot's */
	registry_read_end(reg);
	CHECK_INT_EQ(cached_cluster_a(reg, &policy), REGISTRY_CACHE_MISS);
	fill_row_cache(reg);
	CHECK_INT_EQ(cached_cluster_a(other, &policy), 0);
	CHECK_INT_EQ(policy, POLICY_NAT);

	/* An in-memory database has no cache: every cache-only snapshot misses at once. */
	CHECK_INT_EQ(registry_open(":memory:", &mem, err, sizeof(err)), 0);
	if (mem != NULL) {
		CHECK_INT_EQ(registry_read_begin_cached(mem), REGISTRY_CACHE_MISS);
		registry_close(mem);
	}
	registry_close(other);
	registry_close(reg);
}

static void
jobs_round_trip_change_state_and_list_newest_first(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct job a = make_job("job-a", 1000), b = make_job("job-b", 3000), c = make_job("job-c",
	    2000), out, *list = NULL;
	size_t n = 0;

	a.description = "<job><processes>4</processes></job>";
	CHECK_INT_EQ(registry_put_job(reg, &a), 0);
	CHECK_INT_EQ(registry_put_job(reg, &b), 0);
	CHECK_INT_EQ(registry_put_job(reg, &c), 0);

	CHECK_INT_EQ(registry_get_job(reg, "job-a", &out), 0);
	CHECK_STR_EQ(out.owner_dn, USER_DN);
	CHECK_INT_EQ(out.state, JOB_PENDING);
	CHECK_INT_EQ(out.submitted, 1000);
	CHECK_STR_EQ(out.description, a.description);
	free(out.description);
	CHECK_INT_EQ(registry_get_job(reg, "job-b", &out), 0);
	CHECK(out.description == NULL);

	CHECK_INT_EQ(registry_set_job_state(reg, "job-a", JOB_RUNNING, 0, 1010), 0);
	CHECK_INT_EQ(registry_set_job_state(reg, "job-a", JOB_DONE, 3, 1050), 0);
	CHECK_INT_EQ(registry_get_job(reg, "job-a", &out), 0);
	CHECK_INT_EQ(out.state, JOB_DONE);
	CHECK_INT_EQ(out.started, 1010);
	CHECK_INT_EQ(out.finished, 1050);
	CHECK_INT_EQ(out.exit_code, 3);
	free(out.description);
	/* a finished job stays finished */
	CHECK_INT_EQ(registry_set_job_state(reg, "job-a", JOB_CANCELLED, 0, 1060), REGISTRY_DENIED);
	CHECK_INT_EQ(registry_set_job_state(reg, "no-job", JOB_RUNNING, 0, 1), REGISTRY_NOT_FOUND);

	/* another owner cannot take over the id */
	snprintf(b.owner_dn, sizeof(b.owner_dn), "CN=Mallory,O=Grid");
	CHECK_INT_EQ(registry_put_job(reg, &b), REGISTRY_DENIED);

	CHECK_INT_EQ(registry_list_jobs(reg, 10, &list, &n), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK_STR_EQ(list[0].id, "job-b");
		CHECK_STR_EQ(list[1].id, "job-c");
		CHECK_STR_EQ(list[2].id, "job-a");
		CHECK_INT_EQ(list[2].state, JOB_DONE);
		CHECK(list[2].description == NULL);
	}
	free(list);
	CHECK_INT_EQ(registry_list_jobs(reg, 2, &list, &n), 0);
	CHECK_INT_EQ(n, 2);
	free(list);
	registry_close(reg);
}

static void
access_points_are_keyed_by_listener_not_by_port_alone(void)
{
	char path[256];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct cluster c = make_cluster("c", POLICY_OPEN);
	/* two nodes of cluster a on the same port (each node has its own port space) */
	struct access_point n1 = make_ap("j1", "a", "192.168.1.10", 41000),
	    n2 = make_ap("j1", "a", "192.168.1.11", 41000), out, *list = NULL;
	size_t n = 0;

	snprintf(n2.node, sizeof(n2.node), "node-2");
	CHECK_INT_EQ(registry_put_access_point(reg, &n1), 0);
	CHECK_INT_EQ(registry_put_access_point(reg, &n2), 0);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "b", "192.168.1.10", 41000, &out), 0);
	CHECK_STR_EQ(out.node, "node-41000");
	CHECK_STR_EQ(out.process, "1234.41000");
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "b", "192.168.1.11", 41000, &out), 0);
	CHECK_STR_EQ(out.node, "node-2");
	/* address and job scope everything */
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "b", "192.168.1.99", 41000, &out),
	    REGISTRY_NOT_FOUND);
	CHECK_INT_EQ(registry_find_access_point(reg, "j2", "b", "192.168.1.10", 41000, &out),
	    REGISTRY_NOT_FOUND);

	/* Cluster b uses the same private range: its 192.168.1.10:41000 is another listener. Each
	 * cluster's initiators reach their own; a third cluster cannot tell them apart. */
	struct access_point in_b = make_ap("j1", "b", "192.168.1.10", 41000);
	snprintf(in_b.node, sizeof(in_b.node), "b-node");
	CHECK_INT_EQ(registry_put_access_point(reg, &in_b), 0);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "a", "192.168.1.10", 41000, &out), 0);
	CHECK_STR_EQ(out.cluster, "a");
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "b", "192.168.1.10", 41000, &out), 0);
	CHECK_STR_EQ(out.cluster, "b");
	CHECK_STR_EQ(out.node, "b-node");
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), 0);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "c", "192.168.1.10", 41000, &out),
	    REGISTRY_AMBIGUOUS);
	CHECK(strstr(registry_error(reg), "'a' and 'b'") != NULL);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "c", "192.168.1.11", 41000, &out), 0);

	/* the same listener again replaces its row */
	n2.process[0] = 'X';
	CHECK_INT_EQ(registry_put_access_point(reg, &n2), 0);
	CHECK_INT_EQ(registry_list_access_points(reg, "j1", &list, &n), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3) {
		CHECK_STR_EQ(list[0].cluster, "a");
		CHECK_STR_EQ(list[1].address, "192.168.1.11");
		CHECK_STR_EQ(list[1].process, "X234.41000");
		CHECK_STR_EQ(list[2].cluster, "b");
	}
	free(list);

	/* access points belong to registered jobs and clusters */
	n1 = make_ap("no-such-job", "a", "192.168.1.10", 41000);
	CHECK_INT_EQ(registry_put_access_point(reg, &n1), REGISTRY_NOT_FOUND);
	CHECK(strstr(registry_error(reg), "not registered") != NULL);
	n1 = make_ap("j1", "a", "192.168.1.10", 0);
	CHECK_INT_EQ(registry_put_access_point(reg, &n1), -1);
	registry_close(reg);
}

static void
deleting_a_jobs_access_points_leaves_other_jobs(void)
{
	char path[256];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct access_point ap, *list = NULL;
	size_t n = 0, removed = 0;

	for (uint16_t port = 42000; port < 42005; port++) {
		ap = make_ap("j1", "a", "192.168.1.10", port);
		CHECK_INT_EQ(registry_put_access_point(reg, &ap), 0);
		ap = make_ap("j2", "b", "192.168.1.10", port); /* same ports, other job */
		CHECK_INT_EQ(registry_put_access_point(reg, &ap), 0);
	}
	CHECK_INT_EQ(registry_delete_job_access_points(reg, "j1", &removed), 0);
	CHECK_INT_EQ(removed, 5);
	CHECK_INT_EQ(registry_list_access_points(reg, "j1", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);
	CHECK_INT_EQ(registry_list_access_points(reg, "j2", &list, &n), 0);
	CHECK_INT_EQ(n, 5);
	free(list);
	CHECK_INT_EQ(registry_delete_job_access_points(reg, "j1", NULL), 0);
	registry_close(reg);
}

/* A prune larger than one batch removes every old row, across batches, and nothing newer. */
static void
prune_of_a_long_log_goes_through_every_batch(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct connection_record *list = NULL;
	size_t n = 0, removed = 0;

	registry_close(reg);
	/* 25 001 rows at times 1..25001 for job "old", and one at 100000 for job "new" */
	CHECK_INT_EQ(raw_sql(path, "WITH RECURSIVE t(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM t "
	    "WHERE i < 25001) INSERT INTO connections (job, from_cluster, from_node, to_cluster, "
	    "to_node, to_port, method, succeeded, setup_usec, at) SELECT 'old', 'a', 'n', 'b', 'm', "
	    "1, 'direct', 1, 0, i FROM t; INSERT INTO connections (job, from_cluster, from_node, "
	    "to_cluster, to_node, to_port, method, succeeded, setup_usec, at) VALUES ('new', 'a', "
	    "'n', 'b', 'm', 1, 'relay', 0, 5, 100000)"), 0);
	char err[512];
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_prune_connections(reg, 100000, &removed), 0);
	CHECK_INT_EQ(removed, 25001);
	CHECK_INT_EQ(registry_list_connections(reg, "old", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);
	CHECK_INT_EQ(registry_list_connections(reg, "new", &list, &n), 0);
	CHECK_INT_EQ(n, 1);
	free(list);
	CHECK_INT_EQ(registry_prune_connections(reg, 100000, &removed), 0);
	CHECK_INT_EQ(removed, 0);
	registry_close(reg);
}

static void
connection_log_round_trips_and_prunes_by_age(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct connection_record rec, *list = NULL;
	size_t n = 0;

	for (int i = 0; i <= METHOD_NONE; i++) {
		memset(&rec, 0, sizeof(rec));
		snprintf(rec.job, sizeof(rec.job), i % 2 ? "odd" : "even");
		snprintf(rec.from_cluster, sizeof(rec.from_cluster), "a");
		snprintf(rec.from_node, sizeof(rec.from_node), "a-n%d", i);
		snprintf(rec.to_cluster, sizeof(rec.to_cluster), "b");
		snprintf(rec.to_node, sizeof(rec.to_node), "b-n%d", i);
		rec.to_port = (uint16_t)(50000 + i);
		rec.method = (enum connect_method)i;
		rec.succeeded = i != METHOD_NONE;
		rec.setup_usec = 1000 * i + 7;
		rec.when = 500 - i; /* listed by time: reverse of insertion */
		CHECK_INT_EQ(registry_log_connection(reg, &rec), 0);
	}
	CHECK_INT_EQ(registry_list_connections(reg, "even", &list, &n), 0);
	CHECK_INT_EQ(n, 4); /* methods 0, 2, 4, 6 */
	if (n == 4) {
		CHECK_INT_EQ(list[0].method, METHOD_NONE);
		CHECK(!list[0].succeeded);
		CHECK_INT_EQ(list[0].when, 494);
		CHECK_INT_EQ(list[3].method, METHOD_DIRECT);
		CHECK(list[3].succeeded);
		CHECK_STR_EQ(list[3].from_node, "a-n0");
		CHECK_STR_EQ(list[3].to_cluster, "b");
		CHECK_STR_EQ(list[3].to_node, "b-n0");
		CHECK_INT_EQ(list[3].to_port, 50000);
		CHECK_INT_EQ(list[1].setup_usec, 4007);
	}
	free(list);

	size_t removed = 0;
	CHECK_INT_EQ(registry_prune_connections(reg, 497, &removed), 0);
	CHECK_INT_EQ(removed, 3); /* when 494, 495, 496 */
	CHECK_INT_EQ(registry_list_connections(reg, "even", &list, &n), 0);
	CHECK_INT_EQ(n, 2);
	if (n == 2)
		CHECK_INT_EQ(list[0].when, 498);
	free(list);

	rec.method = (enum connect_method)42;
	CHECK_INT_EQ(registry_log_connection(reg, &rec), -1);
	registry_close(reg);
}

/* A batch of the connection log is one transaction: logged whole, or (one bad record) not at
 * all, so a refused ReportOutcomes leaves nothing half-recorded. */
static void
connection_batch_logs_all_or_none(void)
{
	char path[256];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct connection_record recs[3], *list = NULL;
	size_t n = 0;

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 3; i++) {
		snprintf(recs[i].job, sizeof(recs[i].job), "batch");
		snprintf(recs[i].from_cluster, sizeof(recs[i].from_cluster), "a");
		snprintf(recs[i].from_node, sizeof(recs[i].from_node), "a-n%d", i);
		snprintf(recs[i].to_cluster, sizeof(recs[i].to_cluster), "b");
		snprintf(recs[i].to_node, sizeof(recs[i].to_node), "b-n%d", i);
		recs[i].to_port = (uint16_t)(40000 + i);
		recs[i].method = METHOD_DIRECT;
		recs[i].succeeded = true;
		recs[i].when = 100 + i;
	}
	recs[2].setup_usec = -1; /* refused: the whole batch must be */
	CHECK_INT_EQ(registry_log_connections(reg, recs, 3), -1);
	CHECK_INT_EQ(registry_list_connections(reg, "batch", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);

	recs[2].setup_usec = 5;
	CHECK_INT_EQ(registry_log_connections(reg, recs, 3), 0);
	CHECK_INT_EQ(registry_log_connections(reg, recs, 0), 0);
	CHECK_INT_EQ(registry_list_connections(reg, "batch", &list, &n), 0);
	CHECK_INT_EQ(n, 3);
	if (n == 3) { /* by time, oldest first */
		CHECK_INT_EQ(list[0].to_port, 40000);
		CHECK_INT_EQ(list[2].to_port, 40002);
	}
	free(list);
	registry_close(reg);
}

static void
multicast_groups_never_collide_and_are_reused_after_release(void)
{
	char path[256];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct multicast_group g1, g2, g3, g4, *list = NULL;
	size_t n = 0;

	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "j1", &g1), 0);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "j2", &g2), 0);
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "j1", &g3), 0);
	CHECK_STR_EQ(g1.address, "239.192.0.1");
	CHECK_STR_EQ(g2.address, "239.192.0.2");
	CHECK_STR_EQ(g3.address, "239.192.0.3");
	CHECK_INT_EQ(g1.port, 7000);
	CHECK_STR_EQ(g2.job, "j2");
	CHECK(g1.allocated > 0);

	CHECK_INT_EQ(registry_list_multicast_groups(reg, "j1", &list, &n), 0);
	CHECK_INT_EQ(n, 2);
	if (n == 2) {
		CHECK_STR_EQ(list[0].address, "239.192.0.1");
		CHECK_STR_EQ(list[1].address, "239.192.0.3");
		CHECK_INT_EQ(list[1].port, 7000);
	}
	free(list);

	CHECK_INT_EQ(registry_release_multicast_groups(reg, "j1"), 0);
	CHECK_INT_EQ(registry_list_multicast_groups(reg, "j1", &list, &n), 0);
	CHECK_INT_EQ(n, 0);
	free(list);
	/* the lowest freed group comes back first; j2's stays j2's */
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "j1", &g4), 0);
	CHECK_STR_EQ(g4.address, "239.192.0.1");
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "j1", &g4), 0);
	CHECK_STR_EQ(g4.address, "239.192.0.3");
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "no-such-job", &g4), -1);
	registry_close(reg);
}

/* Child of the concurrency test: allocate `count` groups for job on its own connection. */
static void
allocate_in_child(const char *path, const char *job, int count)
{
	struct registry *reg;
	struct multicast_group g;
	char err[512];

	if (registry_open(path, &reg, err, sizeof(err)) != 0)
		_exit(2);
	for (int i = 0; i < count; i++)
		if (registry_allocate_multicast_group(reg, job, &g) != 0) {
			fprintf(stderr, "child %s: %s\n", job, registry_error(reg));
			_exit(3);
		}
	registry_close(reg);
	_exit(0);
}

static void
concurrent_processes_never_get_the_same_multicast_group(void)
{
	enum { PER_CHILD = 100 };
	char path[256];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct multicast_group *g1 = NULL, *g2 = NULL;
	size_t n1 = 0, n2 = 0;
	pid_t pids[2];
	int status;

	registry_close(reg); /* SQLite connections must not cross fork() */
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			allocate_in_child(path, i ? "j2" : "j1", PER_CHILD);
		CHECK(pids[i] > 0);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(waitpid(pids[i], &status, 0) == pids[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	char err[512];
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_list_multicast_groups(reg, "j1", &g1, &n1), 0);
	CHECK_INT_EQ(registry_list_multicast_groups(reg, "j2", &g2, &n2), 0);
	CHECK_INT_EQ(n1, PER_CHILD);
	CHECK_INT_EQ(n2, PER_CHILD);
	for (size_t i = 0; i < n1; i++)
		for (size_t k = 0; k < n2; k++)
			CHECK(strcmp(g1[i].address, g2[k].address) != 0);
	/* together they hold exactly the lowest 2 * PER_CHILD groups */
	struct multicast_group next;
	CHECK_INT_EQ(registry_allocate_multicast_group(reg, "j1", &next), 0);
	CHECK_STR_EQ(next.address, "239.192.0.201");
	free(g1);
	free(g2);
	registry_close(reg);
}

static void
over_long_strings_are_rejected_not_truncated(void)
{
	char path[256], sql[512];
	struct registry *reg = open_fresh(path, sizeof(path));
	struct cluster c = make_cluster("long", POLICY_OPEN), out;
	struct job j = make_job("long-job", 1);
	char dn[QCG_DN_MAX + 8];
	char *desc;

	/* a field with no NUL inside it is too long for it */
	memset(c.public_address, 'x', sizeof(c.public_address));
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), -1);
	CHECK(strstr(registry_error(reg), "public_address is too long") != NULL);
	CHECK_INT_EQ(registry_get_cluster(reg, "long", &out), REGISTRY_NOT_FOUND);

	c = make_cluster("long", POLICY_OPEN);
	memset(dn, 'd', sizeof(dn) - 1);
	dn[sizeof(dn) - 1] = '\0';
	CHECK_INT_EQ(registry_put_cluster(reg, &c, dn), -1);
	CHECK(strstr(registry_error(reg), "caller DN is too long") != NULL);
	CHECK_INT_EQ(registry_get_cluster(reg, dn, &out), -1);

	desc = malloc(REGISTRY_DESCRIPTION_MAX + 2);
	if (desc != NULL) {
		memset(desc, 'x', REGISTRY_DESCRIPTION_MAX + 1);
		desc[REGISTRY_DESCRIPTION_MAX + 1] = '\0';
		j.description = desc;
		CHECK_INT_EQ(registry_put_job(reg, &j), -1);
		CHECK(strstr(registry_error(reg), "description is longer") != NULL);
		free(desc);
	}

	/* what another writer stored that does not fit the struct is an error on read */
	CHECK_INT_EQ(registry_put_cluster(reg, &c, DN_A), 0);
	snprintf(sql, sizeof(sql), "UPDATE clusters SET public_address = printf('%%.*c', %d, 'y') "
	    "WHERE name = 'long'", QCG_ADDR_MAX);
	CHECK_INT_EQ(raw_sql(path, sql), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "long", &out), -1);
	CHECK(strstr(registry_error(reg), "public_address") != NULL);
	snprintf(sql, sizeof(sql), "UPDATE clusters SET public_address = printf('%%.*c', %d, 'y') "
	    "WHERE name = 'long'", QCG_ADDR_MAX - 1);
	CHECK_INT_EQ(raw_sql(path, sql), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "long", &out), 0);
	CHECK_INT_EQ(strlen(out.public_address), QCG_ADDR_MAX - 1);
	registry_close(reg);
}

static void
data_survives_close_and_reopen(void)
{
	char path[256], err[512];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct access_point ap = make_ap("j1", "a", "192.168.1.10", 43000), out;
	struct cluster c;

	CHECK_INT_EQ(registry_put_access_point(reg, &ap), 0);
	registry_close(reg);
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_get_cluster(reg, "b", &c), 0);
	CHECK_INT_EQ(c.policy, POLICY_CLOSED);
	CHECK_INT_EQ(registry_find_access_point(reg, "j1", "a", "192.168.1.10", 43000, &out), 0);
	registry_close(reg);
}

static void
rows_committed_by_a_killed_process_stay_readable(void)
{
	char path[256], err[512];
	struct registry *reg;
	struct cluster c = make_cluster("killed", POLICY_NAT), out;
	pid_t pid;
	int status;

	new_db_path(path, sizeof(path));
	pid = fork();
	if (pid == 0) {
		/* write, then die as kill -9 would: no close, no checkpoint, no atexit */
		if (registry_open(path, &reg, err, sizeof(err)) != 0 ||
		    registry_put_cluster(reg, &c, DN_A) != 0)
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	CHECK(pid > 0);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK(access(path, F_OK) == 0);
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg == NULL)
		return;
	CHECK_INT_EQ(registry_migrations_applied(reg), 0);
	CHECK_INT_EQ(registry_get_cluster(reg, "killed", &out), 0);
	CHECK_STR_EQ(out.private_networks, c.private_networks);
	registry_close(reg);
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
writer_waits_for_another_processes_lock(void)
{
	char path[256], err[512];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct proxy p = make_proxy("held:1", 0);
	int ready[2];
	char byte;
	pid_t pid;
	double t0, waited;

	registry_close(reg);
	CHECK(pipe(ready) == 0);
	pid = fork();
	if (pid == 0) {
		sqlite3 *db;
		if (sqlite3_open(path, &db) != SQLITE_OK ||
		    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(2);
		if (write(ready[1], "x", 1) != 1)
			_exit(3);
		usleep(300 * 1000);
		_exit(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : 4);
	}
	CHECK(read(ready[0], &byte, 1) == 1);
	CHECK_INT_EQ(registry_open(path, &reg, err, sizeof(err)), 0);
	if (reg != NULL) {
		t0 = now_seconds();
		CHECK_INT_EQ(registry_put_proxy(reg, &p, PROXY_DN_A, false, NULL), 0); /* waits */
		waited = now_seconds() - t0;
		CHECK(waited > 0.1);
		printf("# write waited %.0f ms for a 300 ms lock held by another process\n",
		    waited * 1000);
		registry_close(reg);
	}
	CHECK(waitpid(pid, NULL, 0) == pid);
	close(ready[0]);
	close(ready[1]);
}

/* One round of the reads the broker's Resolve makes (owner check, access point, both
 * clusters, the proxies): the number of reads that failed, or -1 for a row cache miss. */
static int
resolve_reads(struct registry *reg, int i)
{
	struct access_point out;
	struct cluster c;
	struct proxy *list = NULL;
	size_t n;
	int rc[5];

	rc[0] = registry_get_cluster(reg, "a", &c);
	rc[1] = registry_find_access_point(reg, "j1", "a", "192.168.1.10",
	    (uint16_t)(20000 + (i * 7) % 2000), &out);
	rc[2] = registry_get_cluster(reg, "a", &c);
	rc[3] = registry_get_cluster(reg, "b", &c);
	rc[4] = registry_list_proxies(reg, &list, &n);
	if (rc[4] == 0)
		free(list);
	int failed = 0;
	for (int k = 0; k < 5; k++) {
		if (rc[k] == REGISTRY_CACHE_MISS)
			return -1;
		failed += rc[k] != 0;
	}
	return failed;
}

enum resolve_reads_mode { READS_SEPARATELY, READS_IN_SNAPSHOT, READS_FROM_CACHE };

/* Seconds for 2000 rounds of Resolve's reads: each its own read transaction, in one read
 * snapshot, or as the broker makes them (from the row cache, in a snapshot on a miss). */
static double
resolve_reads_seconds(struct registry *reg, enum resolve_reads_mode mode, int *failures)
{
	double t0 = now_seconds();

	for (int i = 0; i < 2000; i++) {
		int r = -1;
		if (mode == READS_FROM_CACHE && registry_read_begin_cached(reg) == 0) {
			r = resolve_reads(reg, i);
			registry_read_end(reg);
		}
		if (r >= 0) {
			*failures += r;
			continue;
		}
		if (mode != READS_SEPARATELY)
			*failures += registry_read_begin(reg) != 0;
		r = resolve_reads(reg, i);
		*failures += r < 0 ? 1 : r;
		if (mode != READS_SEPARATELY)
			registry_read_end(reg);
	}
	return now_seconds() - t0;
}

/* Not a proof, a number: how long the broker's hot-path calls take on this machine. */
static void
hot_path_calls_are_fast(void)
{
	enum { N = 2000 };
	char path[256];
	struct registry *reg = open_with_two_clusters_and_jobs(path, sizeof(path));
	struct access_point ap, out;
	double t0, put, find;
	int failures = 0;

	t0 = now_seconds();
	for (int i = 0; i < N; i++) {
		ap = make_ap("j1", i % 2 ? "a" : "b", "192.168.1.10", (uint16_t)(20000 + i));
		failures += registry_put_access_point(reg, &ap) != 0;
	}
	put = (now_seconds() - t0) / N;
	t0 = now_seconds();
	for (int i = 0; i < N; i++)
		failures += registry_find_access_point(reg, "j1", "a", "192.168.1.10",
		    (uint16_t)(20000 + (i * 7) % N), &out) != 0;
	find = (now_seconds() - t0) / N;
	CHECK_INT_EQ(failures, 0);
	printf("# put_access_point %.1f us/call (one commit each), find_access_point %.1f us/call\n",
	    put * 1e6, find * 1e6);
	/* Resolve's five reads, each its own read transaction and then in one snapshot */
	double one_each = resolve_reads_seconds(reg, READS_SEPARATELY, &failures) / N;
	double snapshot = resolve_reads_seconds(reg, READS_IN_SNAPSHOT, &failures) / N;
	double cached = resolve_reads_seconds(reg, READS_FROM_CACHE, &failures) / N;
	CHECK_INT_EQ(failures, 0);
	printf("# Resolve's 5 reads: %.1f us separately, %.1f us in one read snapshot (%.2fx), "
	    "%.2f us from the row cache (%.1fx)\n", one_each * 1e6, snapshot * 1e6,
	    one_each / snapshot, cached * 1e6, one_each / cached);
	registry_close(reg);
}

static void
remove_tmpdir(void)
{
	char path[300];
	const char *suffix[] = { "", "-wal", "-shm", "-journal" };

	for (int i = 1; i <= db_serial; i++)
		for (size_t s = 0; s < sizeof(suffix) / sizeof(suffix[0]); s++) {
			snprintf(path, sizeof(path), "%s/registry-%d.db%s", tmpdir, i, suffix[s]);
			unlink(path);
		}
	rmdir(tmpdir);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	RUN(migrations_bring_new_file_to_latest_and_second_open_applies_nothing);
	RUN(database_from_a_newer_schema_is_refused);
	RUN(failed_migration_changes_nothing);
	RUN(cluster_round_trips_every_field);
	RUN(cluster_belongs_to_the_dn_that_registered_it);
	RUN(cluster_constraints_reject_bad_values);
	RUN(proxies_put_list_and_load_floors_at_zero);
	RUN(proxy_belongs_to_the_dn_that_registered_it);
	RUN(migration_from_schema_2_keeps_proxies_unowned_until_registered);
	RUN(migration_to_queued_state_keeps_jobs_and_what_references_them);
	RUN(migration_to_listener_key_keeps_access_points);
	RUN(leases_renew_withdraw_and_lapse);
	RUN(read_snapshot_sees_one_state_while_another_connection_writes);
	RUN(row_cache_serves_only_rows_no_commit_has_changed_since);
	RUN(jobs_round_trip_change_state_and_list_newest_first);
	RUN(access_points_are_keyed_by_listener_not_by_port_alone);
	RUN(deleting_a_jobs_access_points_leaves_other_jobs);
	RUN(connection_log_round_trips_and_prunes_by_age);
	RUN(connection_batch_logs_all_or_none);
	RUN(prune_of_a_long_log_goes_through_every_batch);
	RUN(multicast_groups_never_collide_and_are_reused_after_release);
	RUN(concurrent_processes_never_get_the_same_multicast_group);
	RUN(over_long_strings_are_rejected_not_truncated);
	RUN(data_survives_close_and_reopen);
	RUN(rows_committed_by_a_killed_process_stay_readable);
	RUN(writer_waits_for_another_processes_lock);
	RUN(hot_path_calls_are_fast);
	remove_tmpdir();
	return check_exit();
}
