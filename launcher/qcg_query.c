/*
 * qcg_query.c: qcg-query, a command-line client for the broker's state.
 *
 *   qcg-query [--broker URL] [--json] clusters|proxies|jobs|job ID|contacts JOB|connections JOB|health
 *
 * `proxies` also asks each proxy's control service (the URL it registered) for its live
 * statistics: LEGS, ACTIVE (relays) and BYTES (forwarded) columns, "-" with a note on stderr
 * when a proxy does not answer; --json adds a "statistics" object (or null and
 * "statisticsError").
 *
 * Credentials are found the grid way (lib/tls.c: X509_USER_PROXY, /tmp/x509up_u<uid>,
 * ~/.globus) unless --cert/--key name them; the broker is $QCG_BROKER_URL or --broker.
 * Exit codes: 0 success, 1 the broker refused or failed the query, 2 bad usage,
 * 3 authentication failed, 4 the broker could not be reached.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "json_write.h"
#include "model.h"
#include "soap_client.h"
#include "soap_model.h"

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_AUTH = 3, EXIT_UNREACHABLE = 4 };

struct query_options {
	const char *broker_url;
	bool json;
	struct tls_settings tls;
	int timeout;
};

static void
usage(FILE *out)
{
	fprintf(out,
	    "usage: qcg-query [OPTIONS] clusters|proxies|jobs|job ID|contacts JOB|connections JOB|health\n"
	    "  --broker URL     the broker (default $QCG_BROKER_URL, else https://localhost:8443/)\n"
	    "  --json           machine-readable output\n"
	    "  --cert FILE --key FILE --ca-dir DIR\n"
	    "                   credentials and trust (default: X509_USER_PROXY, /tmp/x509up_u<uid>,\n"
	    "                   ~/.globus/user{cert,key}.pem; X509_CERT_DIR or\n"
	    "                   /etc/grid-security/certificates)\n"
	    "  --timeout SEC    connect and I/O timeout (default 30)\n");
}

/* A field the broker leaves out when it is empty, as the answer held it (NULL for absent). */
static const char *
absent_if_empty(const char *s) { return s[0] ? s : NULL; }

static void
format_time(int64_t t, char *buf, size_t len)
{
	if (t == 0) {
		snprintf(buf, len, "-");
		return;
	}
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A service's last sign of life as one phrase: "alive, seen 2 s ago", "withdrawn 40 s ago
 * (seen 45 s ago)"; "-" from a broker that does not say. */
static const char *
liveness_text(const struct liveness_report *l, char *buf, size_t len)
{
	char seen[48] = "";
	if (!l->known)
		return "-";
	if (l->seen_ago >= 0)
		snprintf(seen, sizeof(seen), "seen %lld s ago", (long long)l->seen_ago);
	if (l->alive)
		snprintf(buf, len, "alive%s%s", seen[0] ? ", " : "", seen);
	else if (l->withdrawn_ago >= 0)
		snprintf(buf, len, "withdrawn %lld s ago%s%s%s", (long long)l->withdrawn_ago,
		    seen[0] ? " (" : "", seen, seen[0] ? ")" : "");
	else
		snprintf(buf, len, "withdrawn");
	return buf;
}

static void
json_liveness(struct json_writer *w, const struct liveness_report *l)
{
	if (!l->known)
		return;
	json_object_open(w, "liveness");
	json_bool(w, "alive", l->alive);
	if (l->last_seen)
		json_int(w, "lastSeen", l->last_seen);
	if (l->seen_ago >= 0)
		json_int(w, "secondsSinceSeen", l->seen_ago);
	if (l->withdrawn_ago >= 0)
		json_int(w, "withdrawnSecondsAgo", l->withdrawn_ago);
	json_object_close(w);
}

static void
print_clusters(const struct cluster_listing *rows, int n, bool json)
{
	struct json_writer w;
	if (json) {
		json_begin(&w, stdout);
		json_array_open(&w, NULL);
	} else
		printf("%-16s %-11s %-13s %-18s %-24s %-9s %-28s %s\n", "CLUSTER", "POLICY",
		    "PORTS", "PUBLIC ADDRESS", "PRIVATE NETWORKS", "TRAVERSAL", "FRONT-END",
		    "FRONT-END STATE");
	for (int i = 0; i < n; i++) {
		const struct cluster *c = &rows[i].cluster;
		/* the broker says the range only for a port-range cluster, whose ports are not 0 */
		bool has_range = c->port_min != 0 || c->port_max != 0;
		char ports[16] = "-";
		if (has_range)
			snprintf(ports, sizeof(ports), "%u-%u", c->port_min, c->port_max);
		if (!json) {
			char state[96];
			printf("%-16s %-11s %-13s %-18s %-24s %-9s %-28s %s\n", c->name,
			    cluster_policy_name(c->policy), ports, c->public_address,
			    c->private_networks, c->traversal_allowed ? "yes" : "no",
			    c->frontend_endpoint, liveness_text(&rows[i].state, state, sizeof(state)));
			continue;
		}
		json_object_open(&w, NULL);
		json_string(&w, "name", c->name);
		json_string(&w, "policy", cluster_policy_name(c->policy));
		if (has_range) {
			json_int(&w, "portMin", c->port_min);
			json_int(&w, "portMax", c->port_max);
		}
		json_string(&w, "publicAddress", c->public_address);
		json_string(&w, "privateNetworks", c->private_networks);
		json_bool(&w, "traversalAllowed", c->traversal_allowed);
		json_string(&w, "frontendEndpoint", c->frontend_endpoint);
		json_string(&w, "frontendDN", c->frontend_dn);
		json_liveness(&w, &rows[i].state);
		json_object_close(&w);
	}
	if (json) {
		json_array_close(&w);
		json_end(&w);
	}
}

/* A proxy's live statistics from its control service (wsdl/proxy.wsdl), when it answered. */
struct proxy_live {
	bool ok;
	struct _qp__GetStatisticsResponse st;
	char why[600]; /* when !ok: no control service, or why the query failed */
};

#define PROXY_STATS_TIMEOUT 5 /* seconds per proxy: a dead one must not stall the listing */

/* Ask every proxy that registered a control URL for its statistics, on a context of its own
 * (the broker's answer lives in the other one's memory). */
static void
fetch_proxy_stats(const struct query_options *o, const struct proxy_listing *rows, int n,
    struct proxy_live *live)
{
	int t = o->timeout < PROXY_STATS_TIMEOUT ? o->timeout : PROXY_STATS_TIMEOUT;
	struct soap_client_settings settings = { t, t, 1024 * 1024 };
	char err[512];
	struct soap *soap = soap_client_new(&o->tls, &settings, err, sizeof(err));

	for (int i = 0; i < n; i++) {
		const char *url = absent_if_empty(rows[i].proxy.control_endpoint);
		struct _qp__GetStatistics req;
		memset(&req, 0, sizeof(req));
		if (url == NULL || soap == NULL) {
			snprintf(live[i].why, sizeof(live[i].why), "%s",
			    url == NULL ? "it registered no control service" : err);
			continue;
		}
		/* A withdrawn proxy is gone as far as the broker knows: asking would only cost
		 * the timeout (a vanished host) for an answer that is known. */
		if (rows[i].state.known && !rows[i].state.alive) {
			snprintf(live[i].why, sizeof(live[i].why), "withdrawn by the broker");
			continue;
		}
		if (soap_call___qp__GetStatistics(soap, url, NULL, &req, &live[i].st) == SOAP_OK)
			live[i].ok = true;
		else
			soap_client_error(soap, live[i].why, sizeof(live[i].why));
		soap_client_reset(soap);
		soap_closesock(soap); /* the next proxy is another host */
	}
	soap_client_free(soap);
}

static void
print_proxy_stats_json(struct json_writer *w, const struct proxy_live *live)
{
	if (!live->ok) {
		json_string(w, "statistics", NULL);
		json_string(w, "statisticsError", live->why);
		return;
	}
	json_object_open(w, "statistics");
	json_int(w, "legs", live->st.legs);
	json_int(w, "activeRelays", live->st.activeRelays);
	json_int(w, "pendingLegs", live->st.pendingLegs);
	json_int(w, "relaysCompleted", live->st.relaysCompleted);
	json_int(w, "bytesForwarded", live->st.bytesForwarded);
	json_int(w, "rejectedHellos", live->st.rejectedHellos);
	json_int(w, "timeouts", live->st.timeouts);
	json_object_close(w);
}

static void
print_proxies(const struct proxy_listing *rows, int n, const struct proxy_live *live, bool json)
{
	struct json_writer w;
	if (json) {
		json_begin(&w, stdout);
		json_array_open(&w, NULL);
	} else
		printf("%-28s %-36s %-16s %5s %8s %8s %14s  %s\n", "ENDPOINT", "NETWORKS",
		    "CLUSTER", "LOAD", "LEGS", "ACTIVE", "BYTES", "STATE");
	for (int i = 0; i < n; i++) {
		const struct proxy *p = &rows[i].proxy;
		long long load = p->load;
		if (!json) {
			printf("%-28s %-36s %-16s %5lld ", p->endpoint, p->networks,
			    p->cluster[0] ? p->cluster : "-", load);
			char state[96];
			if (live[i].ok)
				printf("%8lld %8lld %14lld", (long long)live[i].st.legs,
				    (long long)live[i].st.activeRelays,
				    (long long)live[i].st.bytesForwarded);
			else
				printf("%8s %8s %14s", "-", "-", "-");
			printf("  %s\n", liveness_text(&rows[i].state, state, sizeof(state)));
			continue;
		}
		json_object_open(&w, NULL);
		json_string(&w, "endpoint", p->endpoint);
		json_string(&w, "networks", p->networks);
		json_string(&w, "cluster", absent_if_empty(p->cluster));
		json_int(&w, "load", load);
		json_string(&w, "controlEndpoint", absent_if_empty(p->control_endpoint));
		print_proxy_stats_json(&w, &live[i]);
		json_liveness(&w, &rows[i].state);
		json_object_close(&w);
	}
	if (json) {
		json_array_close(&w);
		json_end(&w);
		return;
	}
	for (int i = 0; i < n; i++)
		if (!live[i].ok)
			fprintf(stderr, "note: %s: no statistics: %s\n", rows[i].proxy.endpoint,
			    live[i].why);
}

static void
print_job_json(struct json_writer *w, const struct job_listing *l)
{
	const struct job *j = &l->job;
	json_object_open(w, NULL);
	json_string(w, "id", j->id);
	json_string(w, "owner", j->owner_dn);
	json_string(w, "state", job_state_name(j->state));
	json_int(w, "submitted", j->submitted);
	json_int(w, "started", j->started);
	json_int(w, "finished", j->finished);
	if (l->has_exit_code)
		json_int(w, "exitCode", j->exit_code);
	if (j->description)
		json_string(w, "description", j->description);
	if (l->cluster_count > 0) {
		json_array_open(w, "clusters");
		for (size_t i = 0; i < l->cluster_count; i++) {
			json_object_open(w, NULL);
			json_string(w, "name", l->cluster[i].cluster);
			if (l->cluster[i].batch_job_id[0])
				json_string(w, "batchJobId", l->cluster[i].batch_job_id);
			json_object_close(w);
		}
		json_array_close(w);
	}
	json_object_close(w);
}

static void
print_jobs(const struct job_listing *jobs, int n, bool json, bool one)
{
	struct json_writer w;
	if (json) {
		json_begin(&w, stdout);
		if (!one)
			json_array_open(&w, NULL);
		for (int i = 0; i < n; i++)
			print_job_json(&w, &jobs[i]);
		if (!one)
			json_array_close(&w);
		json_end(&w);
		return;
	}
	printf("%-24s %-10s %-20s %-20s %-20s %-5s %s\n", "JOB", "STATE", "SUBMITTED", "STARTED",
	    "FINISHED", "EXIT", "OWNER");
	for (int i = 0; i < n; i++) {
		const struct job_listing *l = &jobs[i];
		const struct job *j = &l->job;
		char sub[32], start[32], fin[32], code[12] = "-";
		format_time(j->submitted, sub, sizeof(sub));
		format_time(j->started, start, sizeof(start));
		format_time(j->finished, fin, sizeof(fin));
		if (l->has_exit_code)
			snprintf(code, sizeof(code), "%d", j->exit_code);
		printf("%-24s %-10s %-20s %-20s %-20s %-5s %s\n", j->id, job_state_name(j->state),
		    sub, start, fin, code, j->owner_dn);
		/* One job asked for: its clusters too, each with the batch job holding its nodes. */
		for (size_t k = 0; one && k < l->cluster_count; k++)
			printf("  cluster %-16s %s%s\n", l->cluster[k].cluster,
			    l->cluster[k].batch_job_id[0] ? "batch job " : "no batch job (builtin)",
			    l->cluster[k].batch_job_id);
	}
}

static void
print_contacts(const struct access_point *rows, int n, bool json)
{
	struct json_writer w;
	if (json) {
		json_begin(&w, stdout);
		json_array_open(&w, NULL);
	} else
		printf("%-16s %-16s %-18s %-6s %s\n", "CLUSTER", "NODE", "ADDRESS", "PORT", "PROCESS");
	for (int i = 0; i < n; i++) {
		const struct access_point *a = &rows[i];
		if (!json) {
			printf("%-16s %-16s %-18s %-6u %s\n", a->cluster, a->node, a->address, a->port,
			    a->process);
			continue;
		}
		json_object_open(&w, NULL);
		json_string(&w, "cluster", a->cluster);
		json_string(&w, "node", a->node);
		json_string(&w, "address", a->address);
		json_int(&w, "port", a->port);
		json_string(&w, "process", a->process);
		json_object_close(&w);
	}
	if (json) {
		json_array_close(&w);
		json_end(&w);
	}
}

/* A relayed connection's resumes (issue 14), after the connection table: when the broker
 * moved the relay, from which proxy to which, and the bytes the ends sent again. (Text only:
 * the JSON form stays the array of connections it always was.) */
static void
print_resumes(const struct relay_resume *rows, int n)
{
	for (int i = 0; rows && i < n; i++) {
		const struct relay_resume *x = &rows[i];
		char when[32];
		format_time(x->when, when, sizeof(when));
		printf("resume %s %s/%s -> %s/%s:%u: relay %s via %s -> %s via %s, %lld bytes "
		    "replayed\n", when, x->from_cluster, x->from_node, x->to_cluster, x->to_node,
		    x->to_port, x->old_relay_id, x->from_proxy, x->new_relay_id, x->to_proxy,
		    (long long)x->bytes_replayed);
	}
}

static void
print_connections(const struct connection_record *rows, int n,
    const struct relay_resume *resumes, int resume_count, bool json)
{
	struct json_writer w;
	if (json) {
		json_begin(&w, stdout);
		json_array_open(&w, NULL);
	} else
		printf("%-28s %-28s %-12s %-8s %s\n", "FROM", "TO", "METHOD", "OUTCOME", "SETUP(us)");
	for (int i = 0; i < n; i++) {
		const struct connection_record *c = &rows[i];
		if (!json) {
			char from[64], to[72];
			snprintf(from, sizeof(from), "%s/%s", c->from_cluster, c->from_node);
			snprintf(to, sizeof(to), "%s/%s:%u", c->to_cluster, c->to_node, c->to_port);
			printf("%-28s %-28s %-12s %-8s %lld\n", from, to,
			    connect_method_name(c->method), c->succeeded ? "ok" : "failed",
			    (long long)c->setup_usec);
			continue;
		}
		json_object_open(&w, NULL);
		json_string(&w, "fromCluster", c->from_cluster);
		json_string(&w, "fromNode", c->from_node);
		json_string(&w, "toCluster", c->to_cluster);
		json_string(&w, "toNode", c->to_node);
		json_int(&w, "toPort", c->to_port);
		json_string(&w, "method", connect_method_name(c->method));
		json_bool(&w, "succeeded", c->succeeded);
		json_int(&w, "setupMicroseconds", c->setup_usec);
		json_int(&w, "when", c->when);
		json_object_close(&w);
	}
	if (json) {
		json_array_close(&w);
		json_end(&w);
	} else
		print_resumes(resumes, resume_count);
}

static void
print_health(const struct _qb__GetHealthResponse *r, bool json)
{
	if (!json) {
		printf("version %s\nuptime %llds\nclusters %d\nproxies %d\nevents %d\nyou are %s\n",
		    r->version, (long long)r->uptimeSeconds, r->clusters, r->proxies,
		    r->pendingEvents, r->callerDN);
		return;
	}
	struct json_writer w;
	json_begin(&w, stdout);
	json_object_open(&w, NULL);
	json_string(&w, "version", r->version);
	json_int(&w, "uptimeSeconds", r->uptimeSeconds);
	json_int(&w, "clusters", r->clusters);
	json_int(&w, "proxies", r->proxies);
	json_int(&w, "pendingEvents", r->pendingEvents);
	json_string(&w, "callerDN", r->callerDN);
	json_object_close(&w);
	json_end(&w);
}

/* rows read from an answer (soap_model_*_in), or stop saying why the answer is unusable. */
static void *
answer_rows(void *rows, const char *why)
{
	if (rows == NULL) {
		fprintf(stderr, "qcg-query: the broker's answer: %s\n", why[0] ? why : "out of memory");
		exit(EXIT_REFUSED);
	}
	return rows;
}

/* Run one query; returns SOAP_OK or gSOAP's error code. */
static int
run_query(struct soap *soap, const struct query_options *o, const char *what, char *arg)
{
	const char *url = o->broker_url;
	char why[512] = "";
	if (strcmp(what, "clusters") == 0) {
		struct _qb__ListClusters req = {};
		struct _qb__ListClustersResponse resp;
		int rc = soap_call___qb__ListClusters(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			print_clusters(answer_rows(soap_model_clusters_in(soap, resp.cluster,
			    resp.__sizecluster, why, sizeof(why)), why), resp.__sizecluster, o->json);
		return rc;
	}
	if (strcmp(what, "proxies") == 0) {
		struct _qb__ListProxies req = {};
		struct _qb__ListProxiesResponse resp;
		int rc = soap_call___qb__ListProxies(soap, url, NULL, &req, &resp);
		if (rc != SOAP_OK)
			return rc;
		const struct proxy_listing *rows = answer_rows(soap_model_proxies_in(soap, resp.proxy,
		    resp.__sizeproxy, why, sizeof(why)), why);
		struct proxy_live *live = calloc((size_t)resp.__sizeproxy + 1, sizeof(*live));
		if (live == NULL) {
			fprintf(stderr, "qcg-query: out of memory\n");
			exit(EXIT_REFUSED);
		}
		fetch_proxy_stats(o, rows, resp.__sizeproxy, live);
		print_proxies(rows, resp.__sizeproxy, live, o->json);
		free(live);
		return rc;
	}
	if (strcmp(what, "jobs") == 0) {
		struct _qb__ListJobs req = { 0 };
		struct _qb__ListJobsResponse resp;
		int rc = soap_call___qb__ListJobs(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			print_jobs(answer_rows(soap_model_jobs_in(soap, resp.job, resp.__sizejob, why,
			    sizeof(why)), why), resp.__sizejob, o->json, false);
		return rc;
	}
	if (strcmp(what, "job") == 0) {
		struct _qb__GetJob req = { arg };
		struct _qb__GetJobResponse resp;
		int rc = soap_call___qb__GetJob(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			print_jobs(answer_rows(soap_model_jobs_in(soap, resp.job, resp.job ? 1 : 0, why,
			    sizeof(why)), why), resp.job ? 1 : 0, o->json, true);
		return rc;
	}
	if (strcmp(what, "contacts") == 0) {
		struct _qb__ListAccessPoints req = { arg };
		struct _qb__ListAccessPointsResponse resp;
		int rc = soap_call___qb__ListAccessPoints(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			print_contacts(answer_rows(soap_model_access_points_in(soap, resp.accessPoint,
			    resp.__sizeaccessPoint, why, sizeof(why)), why), resp.__sizeaccessPoint,
			    o->json);
		return rc;
	}
	if (strcmp(what, "connections") == 0) {
		struct _qb__ListConnections req = { arg };
		struct _qb__ListConnectionsResponse resp;
		int rc = soap_call___qb__ListConnections(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			print_connections(answer_rows(soap_model_connections_in(soap, resp.connection,
			    resp.__sizeconnection, why, sizeof(why)), why), resp.__sizeconnection,
			    answer_rows(soap_model_relay_resumes_in(soap, resp.resume,
			    resp.__sizeresume, why, sizeof(why)), why), resp.__sizeresume, o->json);
		return rc;
	}
	struct _qb__GetHealth req = {};
	struct _qb__GetHealthResponse resp;
	int rc = soap_call___qb__GetHealth(soap, url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		print_health(&resp, o->json);
	return rc;
}

/* Whether what is a known query, and whether it takes an argument. */
static int
query_arity(const char *what)
{
	static const char *const bare[] = { "clusters", "proxies", "jobs", "health" };
	static const char *const with_arg[] = { "job", "contacts", "connections" };
	for (size_t i = 0; i < 4; i++)
		if (strcmp(what, bare[i]) == 0)
			return 0;
	for (size_t i = 0; i < 3; i++)
		if (strcmp(what, with_arg[i]) == 0)
			return 1;
	return -1;
}

static int
copy_option(char *dst, const char *src)
{
	if (strlen(src) >= PATH_MAX) {
		fprintf(stderr, "qcg-query: path too long: %.64s...\n", src);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

static int
parse_options(int argc, char **argv, struct query_options *o)
{
	static const struct option options[] = {
		{ "broker", required_argument, NULL, 'b' }, { "json", no_argument, NULL, 'j' },
		{ "cert", required_argument, NULL, 'c' }, { "key", required_argument, NULL, 'k' },
		{ "ca-dir", required_argument, NULL, 'd' }, { "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt;
	o->broker_url = getenv("QCG_BROKER_URL") ? getenv("QCG_BROKER_URL") : "https://localhost:8443/";
	o->timeout = 30;
	o->tls.crl_required = true;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case 'b': o->broker_url = optarg; break;
		case 'j': o->json = true; break;
		case 'c': if (copy_option(o->tls.cert_file, optarg)) return -1; break;
		case 'k': if (copy_option(o->tls.key_file, optarg)) return -1; break;
		case 'd': if (copy_option(o->tls.ca_dir, optarg)) return -1; break;
		case 't':
			o->timeout = atoi(optarg);
			if (o->timeout <= 0 || o->timeout > 3600) {
				fprintf(stderr, "qcg-query: --timeout must be 1-3600 seconds\n");
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: return -1;
		}
	}
	if (o->tls.cert_file[0] && !o->tls.key_file[0])
		strcpy(o->tls.key_file, o->tls.cert_file); /* a proxy file holds both */
	return 0;
}

int
main(int argc, char **argv)
{
	struct query_options o = { 0 };
	char err[1024];

	if (parse_options(argc, argv, &o) != 0 || optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *what = argv[optind];
	int arity = query_arity(what);
	if (arity < 0 || argc - optind - 1 != arity) {
		fprintf(stderr, "qcg-query: %s\n", arity < 0 ? "unknown query" : "wrong number of arguments");
		usage(stderr);
		return EXIT_USAGE;
	}
	tls_global_init();
	if (tls_find_user_credentials(&o.tls, err, sizeof(err)) != 0) {
		fprintf(stderr, "qcg-query: %s\n", err);
		return EXIT_AUTH;
	}
	struct soap_client_settings settings = { o.timeout, o.timeout, 64 * 1024 * 1024 };
	struct soap *soap = soap_client_new(&o.tls, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "qcg-query: %s\n", err);
		return EXIT_AUTH;
	}
	int status = 0;
	if (run_query(soap, &o, what, arity ? argv[optind + 1] : NULL) != SOAP_OK) {
		int auth = soap_client_error(soap, err, sizeof(err));
		fprintf(stderr, "qcg-query: %s: %s\n", o.broker_url, err);
		status = auth ? EXIT_AUTH
		    : (soap->error == SOAP_TCP_ERROR ? EXIT_UNREACHABLE : EXIT_REFUSED);
	}
	soap_client_free(soap);
	return status;
}
