/*
 * test_soap_model.c: the model's enums against the XML that gSOAP writes and reads for them
 * (wsdl/soap_model.c). The static asserts there tie the numbers; this ties the wire strings:
 * every model value goes out as the name lib/model.c gives it and comes back as itself, and
 * the XSD has no value past the model's last (gSOAP writes an unknown value as its number).
 * Then each struct conversion (soap_model_request.c, soap_model_client.c): out and back in
 * unchanged, what a registration leaves to the broker left out, and every limit refused with
 * the field's name.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "soap_model.h"

static struct soap *soap;

/* Whether gSOAP wrote the value as a bare number: the XSD has no name for it. */
static int
is_number(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void
test_policies_round_trip_under_their_model_names(void)
{
	for (int p = POLICY_OPEN; p <= POLICY_CLOSED; p++) {
		enum qcg__Policy back;
		const char *xml = soap_qcg__Policy2s(soap, soap_model_policy_out(p));
		CHECK_STR_EQ(xml, cluster_policy_name(p));
		CHECK_INT_EQ(soap_s2qcg__Policy(soap, xml, &back), SOAP_OK);
		CHECK_INT_EQ(soap_model_policy_in(back), p);
	}
	CHECK(is_number(soap_qcg__Policy2s(soap, (enum qcg__Policy)(POLICY_CLOSED + 1))));
}

static void
test_methods_round_trip_under_their_model_names(void)
{
	for (int m = METHOD_DIRECT; m <= METHOD_NONE; m++) {
		enum qcg__Method back;
		const char *xml = soap_qcg__Method2s(soap, soap_model_method_out(m));
		CHECK_STR_EQ(xml, connect_method_name(m));
		CHECK_INT_EQ(soap_s2qcg__Method(soap, xml, &back), SOAP_OK);
		CHECK_INT_EQ(soap_model_method_in(back), m);
		CHECK(soap_model_method_valid(back));
	}
	CHECK(is_number(soap_qcg__Method2s(soap, (enum qcg__Method)(METHOD_NONE + 1))));
	CHECK(!soap_model_method_valid((enum qcg__Method)(METHOD_NONE + 1)));
	CHECK(!soap_model_method_valid((enum qcg__Method)-1));
}

static void
test_job_states_round_trip_under_their_model_names(void)
{
	for (int s = JOB_PENDING; s <= JOB_QUEUED; s++) {
		enum qcg__JobState back;
		const char *xml = soap_qcg__JobState2s(soap, soap_model_job_state_out(s));
		CHECK_STR_EQ(xml, job_state_name(s));
		CHECK_INT_EQ(soap_s2qcg__JobState(soap, xml, &back), SOAP_OK);
		CHECK_INT_EQ(soap_model_job_state_in(back), s);
	}
	CHECK(is_number(soap_qcg__JobState2s(soap, (enum qcg__JobState)(JOB_QUEUED + 1))));
}

/* The event kinds keep the strings they had as xs:string: "connect", "job-ended", "relay". */
static void
test_event_kinds_keep_their_old_strings_on_the_wire(void)
{
	static const char *const wire[] = { "connect", "job-ended", "relay", "policy-changed" };
	for (int k = EVENT_CONNECT; k <= EVENT_POLICY_CHANGED; k++) {
		enum qcg__EventKind back;
		const char *xml = soap_qcg__EventKind2s(soap, soap_model_event_kind_out(k));
		CHECK_STR_EQ(xml, wire[k]);
		CHECK_STR_EQ(event_kind_name(k), wire[k]);
		CHECK_INT_EQ(soap_s2qcg__EventKind(soap, xml, &back), SOAP_OK);
		CHECK_INT_EQ(soap_model_event_kind_in(back), k);
	}
	CHECK(is_number(soap_qcg__EventKind2s(soap, (enum qcg__EventKind)(EVENT_POLICY_CHANGED + 1))));
	enum event_kind k;
	CHECK_INT_EQ(event_kind_parse("job-ended", &k), 0);
	CHECK_INT_EQ(k, EVENT_JOB_ENDED);
	CHECK_INT_EQ(event_kind_parse("job_ended", &k), -1);
}

/* A job's clusters as SetJobState brings them: kept with their batch jobs; a nameless or
 * repeated cluster, an over-long batch job id and too many clusters are refused. */
static void
test_job_clusters_in_keeps_batch_jobs_and_refuses_bad_lists(void)
{
	struct qcg__JobCluster in[2];
	struct job_cluster_record out[QCG_JOB_CLUSTERS_MAX];
	char long_id[QCG_BATCH_JOB_ID_MAX + 1];
	memset(in, 0, sizeof(in));
	in[0].name = "a";
	in[0].batchJobId = "12";
	in[1].name = "b";
	CHECK_INT_EQ(soap_model_request_job_clusters_in(soap, 2, in, out), SOAP_OK);
	CHECK_STR_EQ(out[0].cluster, "a");
	CHECK_STR_EQ(out[0].batch_job_id, "12");
	CHECK_STR_EQ(out[1].cluster, "b");
	CHECK_STR_EQ(out[1].batch_job_id, "");
	in[1].name = "a";
	CHECK(soap_model_request_job_clusters_in(soap, 2, in, out) != SOAP_OK);
	in[1].name = NULL;
	CHECK(soap_model_request_job_clusters_in(soap, 2, in, out) != SOAP_OK);
	in[1].name = "b";
	memset(long_id, '7', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	in[1].batchJobId = long_id;
	CHECK(soap_model_request_job_clusters_in(soap, 2, in, out) != SOAP_OK);
	CHECK(soap_model_request_job_clusters_in(soap, QCG_JOB_CLUSTERS_MAX + 1, in, out) != SOAP_OK);
	CHECK(soap_model_request_job_clusters_in(soap, -1, in, out) != SOAP_OK);
}

/* A string of n 'x' (n < 1024), for the limits. */
static const char *
long_text(size_t n)
{
	static char buf[1024];
	memset(buf, 'x', n);
	buf[n] = '\0';
	return buf;
}

/* ListClusters: a cluster and its lease go out and come back as they were, the ages taken at
 * the broker's now; an open cluster has no range; a name over the limit is refused by name. */
static void
test_cluster_listing_round_trips_with_its_lease(void)
{
	struct cluster c = { .name = "site-b", .policy = POLICY_PORT_RANGE, .port_min = 30000,
		.port_max = 30100, .public_address = "172.31.0.3", .private_networks = "10.2.0.0/24",
		.traversal_allowed = true, .frontend_endpoint = "https://gw-b:8443/",
		.frontend_dn = "/O=Grid/CN=gw-b" };
	struct liveness live = { .last_seen = 100, .lease_expires = 200 };
	struct qcg__Cluster out[2];
	char err[256];
	soap_model_cluster_out(soap, &c, &out[0]);
	soap_model_liveness_out(soap, &live, 130, &out[0].liveness);
	struct cluster open = { .name = "site-a", .policy = POLICY_OPEN };
	struct liveness gone = { .last_seen = 100, .withdrawn_at = 110 };
	soap_model_cluster_out(soap, &open, &out[1]);
	soap_model_liveness_out(soap, &gone, 130, &out[1].liveness);
	struct cluster_listing *back = soap_model_clusters_in(soap, out, 2, err, sizeof(err));
	CHECK(back != NULL);
	if (back == NULL)
		return;
	CHECK_STR_EQ(back[0].cluster.name, "site-b");
	CHECK_INT_EQ(back[0].cluster.policy, POLICY_PORT_RANGE);
	CHECK_INT_EQ(back[0].cluster.port_min, 30000);
	CHECK_INT_EQ(back[0].cluster.port_max, 30100);
	CHECK_STR_EQ(back[0].cluster.public_address, "172.31.0.3");
	CHECK_STR_EQ(back[0].cluster.private_networks, "10.2.0.0/24");
	CHECK(back[0].cluster.traversal_allowed);
	CHECK_STR_EQ(back[0].cluster.frontend_endpoint, "https://gw-b:8443/");
	CHECK_STR_EQ(back[0].cluster.frontend_dn, "/O=Grid/CN=gw-b");
	CHECK(back[0].state.known && back[0].state.alive);
	CHECK_INT_EQ(back[0].state.last_seen, 100);
	CHECK_INT_EQ(back[0].state.seen_ago, 30);
	CHECK_INT_EQ(back[0].state.withdrawn_ago, -1);
	CHECK_INT_EQ(back[1].cluster.port_min, 0);
	CHECK_INT_EQ(back[1].cluster.port_max, 0);
	CHECK(back[1].state.known && !back[1].state.alive);
	CHECK_INT_EQ(back[1].state.withdrawn_ago, 20);
	out[1].liveness = NULL; /* a broker from before leases */
	back = soap_model_clusters_in(soap, out, 2, err, sizeof(err));
	CHECK(back != NULL && !back[1].state.known && back[1].state.seen_ago == -1);
	out[1].name = (char *)long_text(QCG_NAME_MAX);
	CHECK(soap_model_clusters_in(soap, out, 2, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "cluster.name") != NULL);
	CHECK(soap_model_clusters_in(soap, out, -1, err, sizeof(err)) == NULL);
	CHECK(soap_model_clusters_in(soap, out, 0, err, sizeof(err)) != NULL);
}

/* A registration carries what the broker takes from the caller, nothing it sets itself. */
static void
test_registrations_leave_out_what_the_broker_sets(void)
{
	struct cluster c = { .name = "site-a", .policy = POLICY_OPEN,
		.frontend_dn = "/O=Grid/CN=spoofed" };
	struct qcg__Cluster *rc = soap_model_cluster_registration_new(soap, &c);
	CHECK(rc != NULL && rc->frontendDN == NULL && strcmp(rc->name, "site-a") == 0 &&
	    rc->portMin == NULL);
	struct proxy p = { .endpoint = "172.31.0.9:7000", .networks = "0.0.0.0/0", .load = 7 };
	struct qcg__Proxy *rp = soap_model_proxy_registration_new(soap, &p);
	CHECK(rp != NULL && rp->load == NULL && rp->cluster == NULL && rp->controlEndpoint == NULL);
	CHECK(rp != NULL && strcmp(rp->endpoint, "172.31.0.9:7000") == 0);
	struct job j = { .id = "job-1", .state = JOB_PENDING, .owner_dn = "/O=Grid/CN=x",
		.submitted = 5, .description = "run" };
	struct qcg__Job *rj = soap_model_job_record_new(soap, &j);
	CHECK(rj != NULL && rj->ownerDN == NULL && rj->submitted == NULL && rj->exitCode == NULL);
	CHECK(rj != NULL && strcmp(rj->id, "job-1") == 0 && strcmp(rj->description, "run") == 0 &&
	    soap_model_job_state_in(rj->state) == JOB_PENDING);
	enum qcg__Method *after = soap_model_method_new(soap, METHOD_TRAVERSAL);
	CHECK(after != NULL && soap_model_method_in(*after) == METHOD_TRAVERSAL);
}

/* ListProxies: a proxy and its lease; "" for a cluster or control service left out. */
static void
test_proxy_listing_round_trips(void)
{
	struct proxy p[2] = { { .endpoint = "172.31.0.9:7000", .networks = "0.0.0.0/0",
		.cluster = "site-a", .load = 3, .control_endpoint = "https://p:9000/" },
		{ .endpoint = "h:1", .networks = "10.0.0.0/8" } };
	struct qcg__Proxy out[2];
	struct liveness live = { .last_seen = 10 };
	char err[256];
	for (int i = 0; i < 2; i++) {
		soap_model_proxy_out(soap, &p[i], &out[i]);
		soap_model_liveness_out(soap, &live, 10, &out[i].liveness);
	}
	struct proxy_listing *back = soap_model_proxies_in(soap, out, 2, err, sizeof(err));
	CHECK(back != NULL);
	if (back == NULL)
		return;
	CHECK_STR_EQ(back[0].proxy.endpoint, "172.31.0.9:7000");
	CHECK_STR_EQ(back[0].proxy.networks, "0.0.0.0/0");
	CHECK_STR_EQ(back[0].proxy.cluster, "site-a");
	CHECK_INT_EQ(back[0].proxy.load, 3);
	CHECK_STR_EQ(back[0].proxy.control_endpoint, "https://p:9000/");
	CHECK(back[0].state.alive && back[0].state.seen_ago == 0);
	CHECK_STR_EQ(back[1].proxy.cluster, "");
	CHECK_STR_EQ(back[1].proxy.control_endpoint, "");
	out[1].networks = (char *)long_text(QCG_NETWORKS_MAX);
	CHECK(soap_model_proxies_in(soap, out, 2, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "proxy.networks") != NULL);
}

/* ListJobs and GetJob: a job with its exit code (final states only), description and
 * clusters; a builtin cluster has no batch job; more clusters than the model holds are
 * refused. */
static void
test_job_listing_round_trips(void)
{
	struct job j = { .id = "job-3", .owner_dn = "/O=Grid/CN=Jane", .state = JOB_FAILED,
		.submitted = 1, .started = 2, .finished = 3, .exit_code = 9, .description = "d" };
	struct job_cluster_record cl[2] = { { "site-a", "4711" }, { "site-b", "" } };
	struct qcg__Job out[2];
	char err[256];
	soap_model_job_out(soap, &j, &out[0]);
	soap_model_job_clusters_out(soap, cl, 2, &out[0]);
	struct job pending = { .id = "job-4", .state = JOB_PENDING, .exit_code = 5 };
	soap_model_job_out(soap, &pending, &out[1]);
	struct job_listing *back = soap_model_jobs_in(soap, out, 2, err, sizeof(err));
	CHECK(back != NULL);
	if (back == NULL)
		return;
	CHECK_STR_EQ(back[0].job.id, "job-3");
	CHECK_STR_EQ(back[0].job.owner_dn, "/O=Grid/CN=Jane");
	CHECK_INT_EQ(back[0].job.state, JOB_FAILED);
	CHECK_INT_EQ(back[0].job.submitted, 1);
	CHECK_INT_EQ(back[0].job.started, 2);
	CHECK_INT_EQ(back[0].job.finished, 3);
	CHECK(back[0].has_exit_code && back[0].job.exit_code == 9);
	CHECK_STR_EQ(back[0].job.description, "d");
	CHECK_INT_EQ(back[0].cluster_count, 2);
	CHECK_STR_EQ(back[0].cluster[0].cluster, "site-a");
	CHECK_STR_EQ(back[0].cluster[0].batch_job_id, "4711");
	CHECK_STR_EQ(back[0].cluster[1].cluster, "site-b");
	CHECK_STR_EQ(back[0].cluster[1].batch_job_id, "");
	CHECK(out[0].cluster[1].batchJobId == NULL); /* left out on the wire, as before */
	CHECK(!back[1].has_exit_code && back[1].job.description == NULL);
	CHECK_INT_EQ(back[1].job.submitted, 0);
	out[0].__sizecluster = QCG_JOB_CLUSTERS_MAX + 1;
	CHECK(soap_model_jobs_in(soap, out, 2, err, sizeof(err)) == NULL);
	out[0].__sizecluster = 2;
	out[0].cluster[0].batchJobId = (char *)long_text(QCG_BATCH_JOB_ID_MAX);
	CHECK(soap_model_jobs_in(soap, out, 2, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "batchJobId") != NULL);
}

/* ListAccessPoints and the registrations: access points out and back, the process optional. */
static void
test_access_points_round_trip(void)
{
	static struct access_point ap[2] = {
		{ "job-1", "site-a", "a1", "10.1.0.5", 4000, "mpirun pid 1" },
		{ "job-1", "site-b", "b1", "10.2.0.5", 30001, "" } };
	char err[256];
	struct qcg__AccessPoint *out = soap_model_access_points_new(soap, ap, 2);
	CHECK(out != NULL);
	if (out == NULL)
		return;
	struct access_point *back = soap_model_access_points_in(soap, out, 2, err, sizeof(err));
	CHECK(back != NULL && memcmp(back, ap, sizeof(ap)) == 0);
	out[1].process = "a\nb";
	CHECK(soap_model_access_points_in(soap, out, 2, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "control characters") != NULL);
	struct access_point any;
	CHECK(soap_model_request_any_access_point_in(soap, NULL, &any) != SOAP_OK);
	out[1].process = NULL;
	out[1].node = NULL; /* a helper may leave it for its front-end */
	CHECK_INT_EQ(soap_model_request_any_access_point_in(soap, &out[1], &any), SOAP_OK);
	CHECK_STR_EQ(any.node, "");
}

/* ListConnections and the outcome reports: records out and back; a report by address leaves
 * the target's names to the broker, and says toAddress on the wire. */
static void
test_connections_and_reports_round_trip(void)
{
	/* static: zero padding, so that memcmp compares the fields */
	static struct connection_report r[2] = {
		{ { "job-1", "site-a", "a1", "site-b", "b1", 30001, METHOD_REVERSAL, true, 1234, 99 },
		  "" },
		{ { "job-1", "site-a", "a2", "", "", 4000, METHOD_DIRECT, false, 17, 0 },
		  "10.1.0.5" } };
	char err[256];
	struct qcg__Connection *out = soap_model_reports_new(soap, r, 2);
	CHECK(out != NULL);
	if (out == NULL)
		return;
	CHECK(out[0].toAddress == NULL);
	CHECK(out[1].toAddress != NULL && strcmp(out[1].toAddress, "10.1.0.5") == 0);
	struct connection_record *back = soap_model_connections_in(soap, out, 1, err, sizeof(err));
	CHECK(back != NULL && memcmp(back, &r[0].rec, sizeof(r[0].rec)) == 0);
	struct connection_report in;
	CHECK_INT_EQ(soap_model_request_report_in(soap, &out[1], 1, &in), SOAP_OK);
	CHECK(memcmp(&in, &r[1], sizeof(in)) == 0);
	out[1].toAddress = NULL; /* then the target's names are required */
	CHECK(soap_model_request_report_in(soap, &out[1], 1, &in) != SOAP_OK);
	out[1].toAddress = "10.1.0.5";
	out[1].fromCluster = NULL; /* a front-end fills it in; the broker needs it */
	CHECK_INT_EQ(soap_model_request_report_in(soap, &out[1], 0, &in), SOAP_OK);
	CHECK(soap_model_request_report_in(soap, &out[1], 1, &in) != SOAP_OK);
	CHECK(soap_model_request_report_in(soap, NULL, 0, &in) != SOAP_OK);
	out[0].method = (enum qcg__Method)(METHOD_NONE + 1);
	CHECK(soap_model_connections_in(soap, out, 1, err, sizeof(err)) == NULL);
}

/* ListConnections' relay resumes (issue 14): out and back field for field; a name too long for
 * the model is refused, naming the field. */
static void
test_relay_resumes_round_trip(void)
{
	static struct relay_resume r = { 1764160000, "0123456789abcdef0123456789abcdef",
		"fedcba9876543210fedcba9876543210", "10.0.0.9:7000", "10.0.0.10:7000", "site-c",
		"c1", "site-b", "b2", 30007, 5242880 };
	char err[256];
	struct qcg__RelayResume out;
	soap_model_relay_resume_out(soap, &r, &out);
	struct relay_resume *back = soap_model_relay_resumes_in(soap, &out, 1, err, sizeof(err));
	CHECK(back != NULL && memcmp(back, &r, sizeof(r)) == 0);
	char longname[QCG_NAME_MAX + 8];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	out.toNode = longname;
	CHECK(soap_model_relay_resumes_in(soap, &out, 1, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "resume.toNode") != NULL);
	CHECK(soap_model_relay_resumes_in(soap, &out, -1, err, sizeof(err)) == NULL);
}

/* ReadOutput: the bytes, and how the launch ended (signal or exit code, only once ended). */
static void
test_output_round_trips(void)
{
	static const uint8_t o[] = "out", e[] = "err!";
	struct output_chunk in = { o, e, 3, 4, true, true, 15, 0 }, back;
	struct qcg__Output *out = soap_model_output_new(soap, &in);
	CHECK(out != NULL);
	if (out == NULL)
		return;
	soap_model_output_in(out, &back);
	CHECK(back.out_len == 3 && memcmp(back.out, "out", 3) == 0);
	CHECK(back.err_len == 4 && memcmp(back.err, "err!", 4) == 0);
	CHECK(back.exited && back.signaled && back.term_signal == 15 && out->exitCode == NULL);
	in.signaled = false;
	in.exit_code = 3;
	soap_model_output_in(soap_model_output_new(soap, &in), &back);
	CHECK(back.exited && !back.signaled && back.exit_code == 3);
	struct output_chunk running = { NULL, NULL, 0, 0, false, false, 0, 0 };
	out = soap_model_output_new(soap, &running);
	CHECK(out != NULL && out->exitCode == NULL && out->termSignal == NULL);
	if (out)
		soap_model_output_in(out, &back);
	CHECK(!back.exited && back.out == NULL && back.out_len == 0);
}

/* An event for a helper, and the broker's multicast group, come back as they went out. */
static void
test_event_and_group_round_trip(void)
{
	struct qcg_event ev = { .sequence = 42, .kind = EVENT_CONNECT, .job = "job-1",
		.node = "b1", .has_port = true, .port = 30001 }, back;
	char err[256];
	struct qcg__Event *out = soap_model_event_new(soap, &ev);
	CHECK(out != NULL);
	if (out == NULL)
		return;
	CHECK_INT_EQ(soap_model_event_in(out, &back, err, sizeof(err)), 0);
	CHECK(back.sequence == 42 && back.kind == EVENT_CONNECT && back.port == 30001);
	CHECK_STR_EQ(back.node, "b1");
	struct multicast_group g = { "job-1", "239.192.0.17", 5000, 0 }, gb;
	struct qcg__MulticastGroup mg;
	soap_model_multicast_out(soap, &g, &mg);
	CHECK_INT_EQ(soap_model_multicast_in(&mg, &gb, err, sizeof(err)), 0);
	CHECK(strcmp(gb.address, g.address) == 0 && gb.port == 5000);
	CHECK(soap_model_multicast_in(NULL, &gb, err, sizeof(err)) != 0);
	mg.address = (char *)long_text(QCG_ADDR_MAX);
	CHECK(soap_model_multicast_in(&mg, &gb, err, sizeof(err)) != 0);
}

int
main(void)
{
	soap = soap_new1(SOAP_XML_STRICT);
	if (soap == NULL) {
		fprintf(stderr, "soap_new failed\n");
		return 1;
	}
	soap_set_namespaces(soap, namespaces); /* all services' table, wsdl/qcg_namespaces.c */
	RUN(test_policies_round_trip_under_their_model_names);
	RUN(test_methods_round_trip_under_their_model_names);
	RUN(test_job_states_round_trip_under_their_model_names);
	RUN(test_event_kinds_keep_their_old_strings_on_the_wire);
	RUN(test_job_clusters_in_keeps_batch_jobs_and_refuses_bad_lists);
	RUN(test_cluster_listing_round_trips_with_its_lease);
	RUN(test_registrations_leave_out_what_the_broker_sets);
	RUN(test_proxy_listing_round_trips);
	RUN(test_job_listing_round_trips);
	RUN(test_access_points_round_trip);
	RUN(test_connections_and_reports_round_trip);
	RUN(test_relay_resumes_round_trip);
	RUN(test_output_round_trips);
	RUN(test_event_and_group_round_trip);
	soap_end(soap);
	soap_free(soap);
	return check_exit();
}
