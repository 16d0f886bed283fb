/*
 * broker_jobs.c: the launcher's broker calls (broker_jobs.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "broker_jobs.h"
#include "coalloc.h"
#include "soap_client.h"
#include "soap_model.h"

/* Describe the failed call in err; returns -1. */
static int
call_failed(struct soap *soap, const char *what, int *auth, char *err, size_t errlen)
{
	char why[512];
	int a = soap_client_error(soap, why, sizeof(why));
	if (auth)
		*auth = a || strstr(why, "not authorized") != NULL;
	snprintf(err, errlen, "broker: %s: %s", what, why);
	soap_client_reset(soap);
	return -1;
}

int
broker_record_job(struct soap *soap, const char *url, const char *id, const char *summary,
    int *auth, char *err, size_t errlen)
{
	struct job job = { .state = JOB_PENDING, .description = (char *)summary };
	if (snprintf(job.id, sizeof(job.id), "%s", id) >= (int)sizeof(job.id)) {
		if (auth)
			*auth = 0;
		snprintf(err, errlen, "broker: RecordJob: job id %.80s is longer than %d bytes", id,
		    QCG_NAME_MAX - 1);
		return -1;
	}
	struct _qb__RecordJob req = { soap_model_job_record_new(soap, &job) };
	struct _qb__RecordJobResponse resp;
	if (req.job == NULL || soap_call___qb__RecordJob(soap, url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "RecordJob", auth, err, errlen);
	soap_client_reset(soap);
	return 0;
}

/* SetJobState with the job's clusters (n of them, none for a state change alone). */
static int
set_job_state(struct soap *soap, const char *url, const char *id, enum job_state state,
    int exit_code, const struct job_cluster_record *clusters, size_t n, char *err,
    size_t errlen)
{
	struct _qb__SetJobState req = { (char *)id, soap_model_job_state_out(state), &exit_code,
		(int)n, n ? soap_model_job_clusters_new(soap, clusters, n) : NULL };
	struct _qb__SetJobStateResponse resp;
	if ((n && req.cluster == NULL) ||
	    soap_call___qb__SetJobState(soap, url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "SetJobState", NULL, err, errlen);
	soap_client_reset(soap);
	return 0;
}

int
broker_set_state(struct soap *soap, const char *url, const char *id, enum job_state state,
    int exit_code, char *err, size_t errlen)
{
	return set_job_state(soap, url, id, state, exit_code, NULL, 0, err, errlen);
}

int
broker_set_running(struct soap *soap, const char *url, const char *id,
    const struct coalloc *c, char *err, size_t errlen)
{
	struct job_cluster_record clusters[JOB_CLUSTERS_MAX];
	size_t n = 0;
	for (int i = 0; i < c->count && i < JOB_CLUSTERS_MAX; i++, n++) {
		snprintf(clusters[n].cluster, sizeof(clusters[n].cluster), "%s",
		    c->part[i].cluster->name);
		snprintf(clusters[n].batch_job_id, sizeof(clusters[n].batch_job_id), "%s",
		    c->part[i].batch_job_id);
	}
	return set_job_state(soap, url, id, JOB_RUNNING, 0, clusters, n, err, errlen);
}

int
broker_get_state(struct soap *soap, const char *url, const char *id, enum job_state *state,
    char *err, size_t errlen)
{
	struct _qb__GetJob req = { (char *)id };
	struct _qb__GetJobResponse resp;
	if (soap_call___qb__GetJob(soap, url, NULL, &req, &resp) != SOAP_OK || resp.job == NULL)
		return call_failed(soap, "GetJob", NULL, err, errlen);
	*state = soap_model_job_state_in(resp.job->state);
	soap_client_reset(soap);
	return 0;
}

/* The open port range of cluster name, if it is a port-range cluster. */
static void
ports_of(const struct _qb__ListClustersResponse *r, const char *name, struct coalloc_part *p)
{
	for (int i = 0; i < r->__sizecluster; i++)
		if (strcmp(r->cluster[i].name, name) == 0 && r->cluster[i].portMin &&
		    r->cluster[i].portMax && *r->cluster[i].portMin <= *r->cluster[i].portMax) {
			p->port_min = *r->cluster[i].portMin;
			p->port_max = *r->cluster[i].portMax;
		}
}

/* The URL for cluster name: the environment's, else the registered endpoint (or NULL). */
static const char *
frontend_of(const struct _qb__ListClustersResponse *r, const char *name)
{
	char var[QCG_NAME_MAX + 32];
	snprintf(var, sizeof(var), "QCG_FRONTEND_URL_%s", name);
	for (char *p = var; *p; p++)
		if (*p == '-' || *p == '.')
			*p = '_';
	if (getenv(var) && getenv(var)[0])
		return getenv(var);
	for (int i = 0; i < r->__sizecluster; i++)
		if (strcmp(r->cluster[i].name, name) == 0)
			return r->cluster[i].frontendEndpoint;
	return NULL;
}

int
broker_find_frontends(struct soap *soap, const char *url, const char *origin,
    struct coalloc *c, int *auth, char *err, size_t errlen)
{
	struct _qb__ListClusters req;
	struct _qb__ListClustersResponse resp;
	memset(&req, 0, sizeof(req));
	if (soap_call___qb__ListClusters(soap, url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "ListClusters", auth, err, errlen);
	int rc = 0;
	for (int i = 0; i < c->count && rc == 0; i++) {
		const char *fe = frontend_of(&resp, c->part[i].cluster->name);
		if (fe == NULL || strlen(fe) >= sizeof(c->part[i].frontend_url)) {
			snprintf(err, errlen, "%s:%d: cluster %s is not registered with the broker "
			    "(qcg-query clusters lists those that are)", origin,
			    c->part[i].cluster->line, c->part[i].cluster->name);
			rc = BROKER_UNKNOWN_CLUSTER;
		} else {
			snprintf(c->part[i].frontend_url, sizeof(c->part[i].frontend_url), "%s", fe);
			ports_of(&resp, c->part[i].cluster->name, &c->part[i]);
		}
	}
	soap_client_reset(soap);
	return rc;
}
