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
when(int64_t t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = (time_t)t;
	if (tt == 0 || gmtime_r(&tt, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ",
	    &tm) == 0)
		snprintf(buf, len, "-");
}

static void
show(const struct job_listing *l)
{
	const struct job *j = &l->job;
	char sub[32], start[32], fin[32];
	when(j->submitted, sub, sizeof(sub));
	when(j->started, start, sizeof(start));
	when(j->finished, fin, sizeof(fin));
	printf("job %s\n  state     %s\n  submitted %s\n  started   %s\n  finished  %s\n", j->id,
	    job_state_name(j->state), sub, start, fin);
	if (l->has_exit_code && job_state_is_final(j->state))
		printf("  exit code %d\n", j->exit_code);
	for (size_t i = 0; i < l->cluster_count; i++)
		printf("  cluster   %s: %s%s\n", l->cluster[i].cluster[0] ? l->cluster[i].cluster : "-",
		    l->cluster[i].batch_job_id[0] ? "batch job " : "no batch job (builtin allocator)",
		    l->cluster[i].batch_job_id);
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
	int rc, n = 0;
	struct job_listing *jobs = NULL; /* the answer, read into the model in soap's memory */
	char why[512] = "";
	if (argc > i) {
		struct _qb__GetJob req = { argv[i] };
		struct _qb__GetJobResponse resp;
		if ((rc = soap_call___qb__GetJob(soap, broker, NULL, &req, &resp)) == SOAP_OK) {
			n = resp.job ? 1 : 0;
			jobs = soap_model_jobs_in(soap, resp.job, n, why, sizeof(why));
		}
	} else {
		struct _qb__ListJobs req;
		struct _qb__ListJobsResponse resp;
		memset(&req, 0, sizeof(req));
		if ((rc = soap_call___qb__ListJobs(soap, broker, NULL, &req, &resp)) == SOAP_OK) {
			n = resp.__sizejob;
			jobs = soap_model_jobs_in(soap, resp.job, n, why, sizeof(why));
		}
	}
	if (rc == SOAP_OK && jobs == NULL) {
		fprintf(stderr, "qcg-status: %s: the broker's answer: %s\n", broker,
		    why[0] ? why : "out of memory");
		rc = 1;
	} else if (rc == SOAP_OK) {
		for (int k = 0; k < n; k++)
			show(&jobs[k]);
	} else {
		int auth = soap_client_error(soap, err, sizeof(err));
		fprintf(stderr, "qcg-status: %s: %s\n", broker, err);
		rc = auth ? 3 : 1;
	}
	soap_client_free(soap);
	return rc;
}
