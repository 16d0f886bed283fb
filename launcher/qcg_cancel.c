/*
 * qcg_cancel.c: qcg-cancel [--broker URL] JOB: mark the job cancelled at the broker. Its
 * qcg-submit, wherever it runs, sees that within seconds and stops mpirun and every process on
 * every cluster (Release on each front-end). On the host where it was submitted, the job's
 * record (/tmp/qcg-jobs-<uid>/JOB/record) also lets us signal qcg-submit at once.
 * Exit codes: 0 cancelled, 1 the broker refused (no such job, already over, not yours),
 * 3 authentication failed.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soapH.h"
#include "broker_jobs.h"
#include "soap_client.h"
#include "user_creds.h"

/* SIGTERM the local qcg-submit of job, if its record is here. */
static void
signal_local_submit(const char *job)
{
	char path[512], line[256];
	long pid = 0;
	if (strchr(job, '/') != NULL)
		return;
	snprintf(path, sizeof(path), "/tmp/qcg-jobs-%u/%s/record", (unsigned)getuid(), job);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "pid %ld", &pid) == 1)
			break;
	if (f)
		fclose(f);
	if (pid > 1 && kill((pid_t)pid, SIGTERM) == 0)
		fprintf(stderr, "qcg-cancel: told qcg-submit (pid %ld) to stop\n", pid);
}

int
main(int argc, char **argv)
{
	const char *broker = getenv("QCG_BROKER_URL") ? getenv("QCG_BROKER_URL")
	    : "https://localhost:8443/";
	struct user_creds creds = { 0 };
	char err[1024];
	int i = 1;
	if (argc > 2 && strcmp(argv[1], "--broker") == 0) {
		broker = argv[2];
		i = 3;
	}
	if (argc - i != 1 || argv[i][0] == '-') {
		fprintf(stderr, "usage: qcg-cancel [--broker URL] JOB\n");
		return 2;
	}
	tls_global_init();
	creds.tls.crl_required = true;
	struct soap_client_settings settings = { 30, 30, 1024 * 1024 };
	struct soap *soap = NULL;
	if (user_creds_load(&creds, time(NULL), err, sizeof(err)) != 0 ||
	    (soap = soap_client_new(&creds.tls, &settings, err, sizeof(err))) == NULL) {
		fprintf(stderr, "qcg-cancel: %s\n", err);
		return 3;
	}
	int rc = broker_set_state(soap, broker, argv[i], JOB_CANCELLED, 143, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "qcg-cancel: %s\n", err);
	else {
		printf("job %s cancelled\n", argv[i]);
		signal_local_submit(argv[i]);
	}
	soap_client_free(soap);
	return rc ? 1 : 0;
}
