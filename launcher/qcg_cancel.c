/*
 * qcg_cancel.c: qcg-cancel [--broker URL] JOB: mark the job cancelled at the broker. Its
 * qcg-submit, wherever it runs, sees that within seconds and stops mpirun and every process on
 * every cluster (Release on each front-end). On the host where it was submitted, the job's
 * record (/tmp/qcg-jobs-<uid>/JOB/record) also lets us signal qcg-submit at once, or, when
 * qcg-submit is dead, stop its mpirun and Release every reservation it lists ourselves (first
 * removing the job's directory on every node it lists, when mpirun ran inside the job: the
 * delegated proxy is in one of them).
 * Exit codes: 0 cancelled, 1 the broker refused (no such job, already over, not yours) or a
 * Release failed, 3 authentication failed.
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
#include "proc_identity.h"
#include "remote_run.h"
#include "soap_client.h"
#include "user_client.h"

#define CANCEL_RECORD_PARTS 64 /* reservations a record may list (JOB_CLUSTERS_MAX) */
#define CANCEL_RECORD_NODES 2048 /* nodes (JOB_CLUSTERS_MAX x COALLOC_SLOTS_MAX) */

struct record {
	struct proc_identity submit, mpirun; /* start 0: unknown, never signalled */
	char url[CANCEL_RECORD_PARTS][1024], reservation[CANCEL_RECORD_PARTS][128];
	int count;
	char jobdir[256];                  /* mpirun inside the job: its directory on the nodes */
	int node_part[CANCEL_RECORD_NODES]; /* which reservation each node is under */
	char node[CANCEL_RECORD_NODES][64];
	int nodes;
};

/* The record qcg-submit left on this host for job; -1 if there is none. */
static int
read_record(const char *job, struct record *r)
{
	char path[512], line[1400];
	if (strchr(job, '/') != NULL || strlen(job) > 200)
		return -1;
	snprintf(path, sizeof(path), "/tmp/qcg-jobs-%u/%s/record", (unsigned)getuid(), job);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long pid;
		unsigned long long start = 0;
		if (sscanf(line, "pid %ld %llu", &pid, &start) >= 1) {
			r->submit = (struct proc_identity) { (pid_t)pid, start };
			continue;
		}
		if (sscanf(line, "mpirun %ld %llu", &pid, &start) >= 1) {
			r->mpirun = (struct proc_identity) { (pid_t)pid, start };
			continue;
		}
		if (sscanf(line, "jobdir %255s", r->jobdir) == 1)
			continue;
		if (r->nodes < CANCEL_RECORD_NODES && sscanf(line, "node %d %63s",
		    &r->node_part[r->nodes], r->node[r->nodes]) == 2) {
			if (r->node_part[r->nodes] >= 0 && r->node_part[r->nodes] < CANCEL_RECORD_PARTS)
				r->nodes++;
			continue;
		}
		if (r->count < CANCEL_RECORD_PARTS && sscanf(line, "reservation %1023s %127s",
		    r->url[r->count], r->reservation[r->count]) == 2)
			r->count++;
	}
	fclose(f);
	return 0;
}

/* rm -rf the job's directory on every node the record lists, while the reservations still
 * hold (a launch needs one); what cannot be removed is said. */
static void
remove_job_dirs(struct soap *soap, const char *job, const struct record *r)
{
	static char path[] = "PATH=/usr/bin:/bin";
	char *env[] = { path }, id[REMOTE_LAUNCH_ID_MAX], why[1024];
	char *argv[] = { "rm", "-rf", "--", (char *)r->jobdir };
	if (r->jobdir[0] != '/')
		return;
	for (int i = 0; i < r->nodes; i++) {
		int k = r->node_part[i];
		struct remote_command cmd = { r->url[k], r->reservation[k], r->node[i], argv, 4, env,
			1, "/" };
		struct remote_status st;
		why[0] = '\0';
		if (k >= r->count || remote_launch(soap, &cmd, id, why, sizeof(why)) != 0 ||
		    remote_stream(soap, r->url[k], id, NULL, stderr, stderr, &st, why,
			sizeof(why)) != 0 || remote_status_code(&st) != 0)
			fprintf(stderr, "qcg-cancel: job %s: could not remove %s on %s%s%s\n", job,
			    r->jobdir, r->node[i], k < r->count ? ": " : "", k < r->count ? why : "");
	}
}

/* qcg-submit is gone (killed, its host rebooted...): do its last steps ourselves. mpirun's
 * process group is stopped (or, inside the job, its directories removed), and each front-end
 * releases its reservation, which kills whatever still runs under it on the nodes. */
static int
finish_orphan(struct soap *soap, const char *job, const struct record *r)
{
	char why[512];
	int failed = 0;
	if (r->mpirun.pid > 1 && proc_identity_kill_group(&r->mpirun, SIGKILL) == 0)
		fprintf(stderr, "qcg-cancel: stopped mpirun (process group %ld)\n",
		    (long)r->mpirun.pid);
	remove_job_dirs(soap, job, r);
	for (int i = 0; i < r->count; i++) {
		struct _qf__Release req = { (char *)r->reservation[i] };
		struct _qf__ReleaseResponse resp;
		if (soap_call___qf__Release(soap, r->url[i], NULL, &req, &resp) != SOAP_OK) {
			soap_client_error(soap, why, sizeof(why));
			fprintf(stderr, "qcg-cancel: job %s: releasing %s at %s: %s\n", job,
			    r->reservation[i], r->url[i], why);
			failed++;
		} else
			fprintf(stderr, "qcg-cancel: job %s: released %s at %s\n", job,
			    r->reservation[i], r->url[i]);
		soap_client_reset(soap);
		soap_closesock(soap);
	}
	return failed;
}

/* On the submitting host: SIGTERM qcg-submit, which stops everything at once; or, if it is
 * dead, stop and release in its place. Elsewhere the broker's state is what qcg-submit sees. */
static int
stop_local(struct soap *soap, const char *job)
{
	static struct record r; /* large: not on the stack */
	memset(&r, 0, sizeof(r));
	if (read_record(job, &r) != 0)
		return 0;
	/* only while the pid is still that qcg-submit: a reused pid is someone else's process */
	if (r.submit.pid > 1 && proc_identity_alive(&r.submit) && kill(r.submit.pid, SIGTERM) == 0) {
		fprintf(stderr, "qcg-cancel: told qcg-submit (pid %ld) to stop\n", (long)r.submit.pid);
		return 0;
	}
	fprintf(stderr, "qcg-cancel: job %s: its qcg-submit (pid %ld) is gone; releasing its "
	    "reservations\n", job, (long)r.submit.pid);
	return finish_orphan(soap, job, &r);
}

int
main(int argc, char **argv)
{
	const char *broker = user_broker_url();
	struct user_creds creds = { 0 };
	char err[1024];
	int i = user_broker_option(argc, argv, &broker);
	if (argc - i != 1 || argv[i][0] == '-') {
		fprintf(stderr, "usage: qcg-cancel [--broker URL] JOB\n");
		return 2;
	}
	struct soap_client_settings settings = { 30, 30, 1024 * 1024 };
	struct soap *soap = user_client_open(&creds, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "qcg-cancel: %s\n", err);
		return 3;
	}
	int rc = broker_set_state(soap, broker, argv[i], JOB_CANCELLED, 143, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "qcg-cancel: %s\n", err);
	else {
		printf("job %s cancelled\n", argv[i]);
		rc = stop_local(soap, argv[i]);
	}
	soap_client_free(soap);
	return rc ? 1 : 0;
}
