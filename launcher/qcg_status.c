/*
 * qcg_status.c: qcg-status [--broker URL] [JOB]: a job's state, clusters, times and exit code as
 * the broker recorded them (all of the caller's jobs without JOB). Exit codes: 0 shown, 1 the
 * broker refused or has no such job, 3 authentication failed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "model.h"
#include "soap_client.h"
#include "soap_model.h"
#include "user_client.h"

static void
when(const LONG64 *t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = t ? (time_t)*t : 0;
	if (tt == 0 || gmtime_r(&tt, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ",
	    &tm) == 0)
		snprintf(buf, len, "-");
}

static void
show(const struct qcg__Job *j)
{
	char sub[32], start[32], fin[32];
	when(j->submitted, sub, sizeof(sub));
	when(j->started, start, sizeof(start));
	when(j->finished, fin, sizeof(fin));
	printf("job %s\n  state     %s\n  submitted %s\n  started   %s\n  finished  %s\n", j->id,
	    job_state_name(soap_model_job_state_in(j->state)), sub, start, fin);
	if (j->exitCode && (j->state == qcg__JobState__done || j->state == qcg__JobState__failed ||
	    j->state == qcg__JobState__cancelled))
		printf("  exit code %d\n", *j->exitCode);
	for (int i = 0; i < j->__sizecluster; i++)
		printf("  cluster   %s: %s%s\n", j->cluster[i].name ? j->cluster[i].name : "-",
		    j->cluster[i].batchJobId ? "batch job " : "no batch job (builtin allocator)",
		    j->cluster[i].batchJobId ? j->cluster[i].batchJobId : "");
	if (j->description)
		printf("  %s\n", j->description);
}

int
main(int argc, char **argv)
{
	const char *broker = user_broker_url();
	struct user_creds creds = { 0 };
	char err[1024];
	int i = user_broker_option(argc, argv, &broker);
	if (argc - i > 1 || (argc > i && argv[i][0] == '-')) {
		fprintf(stderr, "usage: qcg-status [--broker URL] [JOB]\n");
		return 2;
	}
	struct soap_client_settings settings = { 30, 30, 64 * 1024 * 1024 };
	struct soap *soap = user_client_open(&creds, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "qcg-status: %s\n", err);
		return 3;
	}
	int rc;
	if (argc > i) {
		struct _qb__GetJob req = { argv[i] };
		struct _qb__GetJobResponse resp;
		if ((rc = soap_call___qb__GetJob(soap, broker, NULL, &req, &resp)) == SOAP_OK)
			show(resp.job);
	} else {
		struct _qb__ListJobs req;
		struct _qb__ListJobsResponse resp;
		memset(&req, 0, sizeof(req));
		if ((rc = soap_call___qb__ListJobs(soap, broker, NULL, &req, &resp)) == SOAP_OK)
			for (int k = 0; k < resp.__sizejob; k++)
				show(&resp.job[k]);
	}
	if (rc != SOAP_OK) {
		int auth = soap_client_error(soap, err, sizeof(err));
		fprintf(stderr, "qcg-status: %s: %s\n", broker, err);
		rc = auth ? 3 : 1;
	}
	soap_client_free(soap);
	return rc;
}
