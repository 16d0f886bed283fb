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
	struct qcg__Job job;
	memset(&job, 0, sizeof(job));
	job.id = (char *)id;
	job.state = qcg__JobState__pending;
	job.description = (char *)summary;
	struct _qb__RecordJob req = { &job };
	struct _qb__RecordJobResponse resp;
	if (soap_call___qb__RecordJob(soap, url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "RecordJob", auth, err, errlen);
	soap_client_reset(soap);
	return 0;
}

int
broker_set_state(struct soap *soap, const char *url, const char *id, enum job_state state,
    int exit_code, char *err, size_t errlen)
{
	struct _qb__SetJobState req = { (char *)id, soap_model_job_state_out(state), &exit_code, 0, NULL };
	struct _qb__SetJobStateResponse resp;
	if (soap_call___qb__SetJobState(soap, url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "SetJobState", NULL, err, errlen);
	soap_client_reset(soap);
	return 0;
}

int
broker_set_running(struct soap *soap, const char *url, const char *id,
    const struct coalloc *c, char *err, size_t errlen)
{
	struct qcg__JobCluster clusters[JOB_CLUSTERS_MAX];
	int exit_code = 0, n = 0;
	for (int i = 0; i < c->count && i < JOB_CLUSTERS_MAX; i++, n++) {
		clusters[n].name = (char *)c->part[i].cluster->name;
		clusters[n].batchJobId = c->part[i].batch_job_id[0] ?
		    (char *)c->part[i].batch_job_id : NULL;
	}
	struct _qb__SetJobState req = { (char *)id, soap_model_job_state_out(JOB_RUNNING), &exit_code, n,
		clusters };
	struct _qb__SetJobStateResponse resp;
	if (soap_call___qb__SetJobState(soap, url, NULL, &req, &resp) != SOAP_OK)
		return call_failed(soap, "SetJobState", NULL, err, errlen);
	soap_client_reset(soap);
	return 0;
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
