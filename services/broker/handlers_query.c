/*
 * handlers_query.c: the broker's state queries, for qcg-query, qcg-status and any SOAP client.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "soapH.h"
#include "broker.h"
#include "soap_model.h"
#include "registry.h"
#include "soap_server.h"

/* Allocate a response array of n elements (at least one, so the pointer is never NULL). */
static void *
array_out(struct soap *soap, size_t n, size_t size)
{
	return soap_malloc(soap, (n ? n : 1) * size);
}

int
__qb__ListClusters(struct soap *soap, struct _qb__ListClusters *req,
    struct _qb__ListClustersResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct cluster *rows = NULL;
	size_t n = 0;
	int rc;

	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = broker_registry_fault(soap, &call, registry_list_clusters(call.reg, &rows, &n),
		 "ListClusters")))
		return rc;
	resp->cluster = array_out(soap, n, sizeof(*resp->cluster));
	for (size_t i = 0; resp->cluster && i < n; i++) {
		soap_model_cluster_out(soap, &rows[i], &resp->cluster[i]);
		soap_model_liveness_out(soap, &rows[i].live, (int64_t)time(NULL),
		    &resp->cluster[i].liveness);
	}
	resp->__sizecluster = resp->cluster ? (int)n : 0;
	free(rows);
	return SOAP_OK;
}

int
__qb__ListProxies(struct soap *soap, struct _qb__ListProxies *req,
    struct _qb__ListProxiesResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct proxy *rows = NULL;
	size_t n = 0;
	int rc;

	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = broker_registry_fault(soap, &call, registry_list_proxies(call.reg, &rows, &n),
		 "ListProxies")))
		return rc;
	resp->proxy = array_out(soap, n, sizeof(*resp->proxy));
	for (size_t i = 0; resp->proxy && i < n; i++) {
		soap_model_proxy_out(soap, &rows[i], &resp->proxy[i]);
		soap_model_liveness_out(soap, &rows[i].live, (int64_t)time(NULL),
		    &resp->proxy[i].liveness);
	}
	resp->__sizeproxy = resp->proxy ? (int)n : 0;
	free(rows);
	return SOAP_OK;
}

int
__qb__ListJobs(struct soap *soap, struct _qb__ListJobs *req, struct _qb__ListJobsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct job *rows = NULL;
	size_t n = 0;
	int rc;

	/* limit is the only element and optional: a nil ListJobs (SOAP::Lite's call without
	 * arguments) asks for the default, as an empty one does */
	size_t limit = req && req->limit && *req->limit > 0 && *req->limit < BROKER_LIST_MAX
	    ? (size_t)*req->limit : 100;
	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_list_jobs(call.reg, limit, &rows, &n), "ListJobs")))
		return rc;
	resp->job = array_out(soap, n, sizeof(*resp->job));
	for (size_t i = 0; resp->job && i < n; i++)
		soap_model_job_out(soap, &rows[i], &resp->job[i]);
	resp->__sizejob = resp->job ? (int)n : 0;
	free(rows);
	return SOAP_OK;
}

int
__qb__GetJob(struct soap *soap, struct _qb__GetJob *req, struct _qb__GetJobResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct job job;
	int rc;

	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = soap_require_body(soap, req, "GetJob")) ||
	    (rc = soap_require_name(soap, req->id, QCG_NAME_MAX, "GetJob: id")))
		return rc;
	rc = registry_get_job(call.reg, req->id, &job);
	if (rc == REGISTRY_NOT_FOUND)
		return soap_fault_client(soap, "no job '%s'", req->id);
	if ((rc = broker_registry_fault(soap, &call, rc, "GetJob")))
		return rc;
	struct job_cluster_record *clusters = NULL;
	size_t cluster_count = 0;
	if ((rc = broker_registry_fault(soap, &call,
	    registry_get_job_clusters(call.reg, req->id, &clusters, &cluster_count), "GetJob"))) {
		free(job.description);
		return rc;
	}
	resp->job = soap_malloc(soap, sizeof(*resp->job));
	if (resp->job) {
		soap_model_job_out(soap, &job, resp->job);
		soap_model_job_clusters_out(soap, clusters, cluster_count, resp->job);
	}
	free(clusters);
	free(job.description);
	return resp->job ? SOAP_OK : soap_fault_server(soap, "out of memory");
}

int
__qb__ListAccessPoints(struct soap *soap, struct _qb__ListAccessPoints *req,
    struct _qb__ListAccessPointsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct access_point *rows = NULL;
	size_t n = 0;
	int rc;

	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = soap_require_body(soap, req, "ListAccessPoints")) ||
	    (rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "ListAccessPoints: job")) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_list_access_points(call.reg, req->job, &rows, &n), "ListAccessPoints")))
		return rc;
	resp->accessPoint = array_out(soap, n, sizeof(*resp->accessPoint));
	for (size_t i = 0; resp->accessPoint && i < n; i++)
		soap_model_access_point_out(soap, &rows[i], &resp->accessPoint[i]);
	resp->__sizeaccessPoint = resp->accessPoint ? (int)n : 0;
	free(rows);
	return SOAP_OK;
}

/* The job's relay resumes (issue 14) after its connections: when, from which proxy to which. */
static int
list_resumes(struct soap *soap, struct broker_call *call, const char *job,
    struct _qb__ListConnectionsResponse *resp)
{
	struct relay_record *rows = NULL;
	size_t n = 0;
	int rc = broker_registry_fault(soap, call, registry_list_resumes(call->reg, job, &rows, &n),
	    "ListConnections: resumes");
	if (rc)
		return rc;
	resp->resume = array_out(soap, n, sizeof(*resp->resume));
	for (size_t i = 0; resp->resume && i < n; i++) {
		const struct relay_record *r = &rows[i];
		struct relay_record old;
		/* the proxy it came from is the replaced relay's (gone when pruned) */
		bool have_old = registry_get_relay(call->reg, r->resumed_from, &old) == 0;
		struct relay_resume m = { .when = r->decided_at, .to_port = r->to_port,
			.bytes_replayed = r->bytes_replayed };
		snprintf(m.old_relay_id, sizeof(m.old_relay_id), "%s", r->resumed_from);
		snprintf(m.new_relay_id, sizeof(m.new_relay_id), "%s", r->id);
		snprintf(m.from_proxy, sizeof(m.from_proxy), "%s", have_old ? old.proxy[0] : "?");
		snprintf(m.to_proxy, sizeof(m.to_proxy), "%s", r->proxy[0]);
		snprintf(m.from_cluster, sizeof(m.from_cluster), "%s", r->from_cluster);
		snprintf(m.from_node, sizeof(m.from_node), "%s", r->from_node);
		snprintf(m.to_cluster, sizeof(m.to_cluster), "%s", r->to_cluster);
		snprintf(m.to_node, sizeof(m.to_node), "%s", r->to_node);
		soap_model_relay_resume_out(soap, &m, &resp->resume[i]);
	}
	resp->__sizeresume = resp->resume ? (int)n : 0;
	free(rows);
	return SOAP_OK;
}

int
__qb__ListConnections(struct soap *soap, struct _qb__ListConnections *req,
    struct _qb__ListConnectionsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct connection_record *rows = NULL;
	size_t n = 0;
	int rc;

	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = soap_require_body(soap, req, "ListConnections")) ||
	    (rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "ListConnections: job")) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_list_connections(call.reg, req->job, &rows, &n), "ListConnections")))
		return rc;
	resp->connection = array_out(soap, n, sizeof(*resp->connection));
	for (size_t i = 0; resp->connection && i < n; i++)
		soap_model_connection_out(soap, &rows[i], &resp->connection[i]);
	resp->__sizeconnection = resp->connection ? (int)n : 0;
	free(rows);
	return list_resumes(soap, &call, req->job, resp);
}

int
__qb__GetHealth(struct soap *soap, struct _qb__GetHealth *req, struct _qb__GetHealthResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct cluster *clusters = NULL;
	struct proxy *proxies = NULL;
	size_t nc = 0, np = 0;
	int rc;

	if ((rc = broker_require_reader(soap, &call)) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_list_clusters(call.reg, &clusters, &nc), "GetHealth")) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_list_proxies(call.reg, &proxies, &np), "GetHealth")))
		goto done;
	resp->version = soap_strdup(soap, PACKAGE_VERSION);
	resp->uptimeSeconds = (LONG64)(time(NULL) - call.broker->started);
	resp->clusters = (int)nc;
	resp->proxies = (int)np;
	resp->pendingEvents = (int)events_count(call.broker->events);
	resp->callerDN = soap_strdup(soap, call.caller_dn);
done:
	free(clusters);
	free(proxies);
	return rc;
}
