/*
 * test_soap_model.c: the model's enums against the XML that gSOAP writes and reads for them
 * (wsdl/soap_model.c). The static asserts there tie the numbers; this ties the wire strings:
 * every model value goes out as the name lib/model.c gives it and comes back as itself, and
 * the XSD has no value past the model's last (gSOAP writes an unknown value as its number).
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
	static const char *const wire[] = { "connect", "job-ended", "relay" };
	for (int k = EVENT_CONNECT; k <= EVENT_RELAY; k++) {
		enum qcg__EventKind back;
		const char *xml = soap_qcg__EventKind2s(soap, soap_model_event_kind_out(k));
		CHECK_STR_EQ(xml, wire[k]);
		CHECK_STR_EQ(event_kind_name(k), wire[k]);
		CHECK_INT_EQ(soap_s2qcg__EventKind(soap, xml, &back), SOAP_OK);
		CHECK_INT_EQ(soap_model_event_kind_in(back), k);
	}
	CHECK(is_number(soap_qcg__EventKind2s(soap, (enum qcg__EventKind)(EVENT_RELAY + 1))));
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
	soap_end(soap);
	soap_free(soap);
	return check_exit();
}
