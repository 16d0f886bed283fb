/*
 * handlers_registration.c: SOAP operations that change the registry: clusters, proxies,
 * access points, jobs and multicast groups. Thin: authorize, convert, call the registry.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "broker.h"
#include "soap_model.h"
#include "liveness.h"
#include "log.h"
#include "registry.h"
#include "soap_server.h"

/* A registration is a sign of life: the service is alive (again) for a short lease, which
 * its first poll, right after, extends. Failing to record it is logged, not refused: the
 * poll renews it anyway. */
static void
register_lease(struct broker_call *call, enum registry_lease_kind kind, const char *name)
{
	int64_t now = (int64_t)time(NULL);
	int rc = registry_renew_lease(call->reg, kind, name, call->caller_dn, now,
	    now + liveness_register_lease(call->broker->liveness), NULL);
	if (rc != 0 && rc != REGISTRY_NOT_FOUND) /* not found: an admin registered it */
		log_warn("%s: recording the registration as a sign of life failed: %s", name,
		    registry_error(call->reg));
}

/* Whether what a decision reads of a cluster differs between two rows of it. */
static bool
decision_inputs_differ(const struct cluster *a, const struct cluster *b)
{
	return a->policy != b->policy || a->port_min != b->port_min || a->port_max != b->port_max ||
	    a->traversal_allowed != b->traversal_allowed ||
	    strcmp(a->public_address, b->public_address) != 0;
}

/* Tell every cluster's front-end that decisions involving cluster `name` may no longer hold
 * (it declared another policy, or left), so that they drop the decisions they cached for
 * cluster pairs with it (issue 15). One event per queue, not per job: "*" names every job. */
static void
post_policy_changed(struct broker_call *call, const char *name)
{
	struct cluster *clusters;
	size_t n;

	if (registry_list_clusters(call->reg, &clusters, &n) != 0) {
		log_warn("cluster %s changed, but the clusters to tell could not be listed: %s", name,
		    registry_error(call->reg));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct broker_event ev = { .event.kind = EVENT_POLICY_CHANGED };
		snprintf(ev.queue, sizeof(ev.queue), "%s", clusters[i].name);
		snprintf(ev.event.job, sizeof(ev.event.job), "*");
		snprintf(ev.event.node, sizeof(ev.event.node), "%s", name);
		events_post(call->broker->events, &ev);
	}
	free(clusters);
	log_info("cluster %s changed: %zu front-ends told to drop their cached pair decisions "
	    "with it", name, n);
}

int
__qb__RegisterCluster(struct soap *soap, struct _qb__RegisterCluster *req,
    struct _qb__RegisterClusterResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct cluster c, before;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, req, "RegisterCluster")) ||
	    (rc = soap_model_request_cluster_in(soap, req->cluster, &c)))
		return rc;
	/* not found, or unreadable: nothing was decided with a row we cannot compare */
	bool known = registry_get_cluster(call.reg, c.name, &before) == 0;
	if ((rc = broker_registry_fault(soap, &call,
		 registry_put_cluster(call.reg, &c, call.caller_dn), "RegisterCluster")))
		return rc;
	if (known && decision_inputs_differ(&before, &c))
		post_policy_changed(&call, c.name);
	register_lease(&call, REGISTRY_LEASE_CLUSTER, c.name);
	log_info("cluster %s registered (%s) by %s", c.name, cluster_policy_name(c.policy),
	    call.caller_dn);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__UnregisterCluster(struct soap *soap, struct _qb__UnregisterCluster *req,
    struct _qb__UnregisterClusterResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, req, "UnregisterCluster")) ||
	    (rc = soap_require_name(soap, req->name, QCG_NAME_MAX, "UnregisterCluster: name")))
		return rc;
	if ((rc = broker_registry_fault(soap, &call,
		 registry_delete_cluster(call.reg, req->name, call.caller_dn), "UnregisterCluster")))
		return rc;
	log_info("cluster %s unregistered by %s", req->name, call.caller_dn);
	post_policy_changed(&call, req->name);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__RegisterProxy(struct soap *soap, struct _qb__RegisterProxy *req,
    struct _qb__RegisterProxyResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct proxy p;
	int64_t id;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_PROXY)) ||
	    (rc = soap_require_body(soap, req, "RegisterProxy")) ||
	    (rc = soap_model_request_proxy_in(soap, req->proxy, &p)) ||
	    (rc = broker_registry_fault(soap, &call, registry_put_proxy(call.reg, &p,
		 call.caller_dn, broker_is_admin(&call), &id), "RegisterProxy")))
		return rc;
	register_lease(&call, REGISTRY_LEASE_PROXY, p.endpoint);
	log_info("proxy %s registered (networks %s) by %s", p.endpoint, p.networks, call.caller_dn);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__UnregisterProxy(struct soap *soap, struct _qb__UnregisterProxy *req,
    struct _qb__UnregisterProxyResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_PROXY)) ||
	    (rc = soap_require_body(soap, req, "UnregisterProxy")))
		return rc;
	if (req->endpoint == NULL)
		return soap_fault_client(soap, "UnregisterProxy: endpoint is missing");
	if (soap_has_control_char(req->endpoint))
		return soap_fault_client(soap, "UnregisterProxy: endpoint must not hold control "
		    "characters");
	if ((rc = broker_registry_fault(soap, &call, registry_delete_proxy(call.reg, req->endpoint,
		 call.caller_dn, broker_is_admin(&call)), "UnregisterProxy")))
		return rc;
	log_info("proxy %s unregistered by %s", req->endpoint, call.caller_dn);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__RegisterAccessPoint(struct soap *soap, struct _qb__RegisterAccessPoint *req,
    struct _qb__RegisterAccessPointResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct access_point ap;
	int rc;

	if ((rc = broker_require_role(soap, &call, ACL_ROLE_FRONTEND)) ||
	    (rc = soap_require_body(soap, req, "RegisterAccessPoint")) ||
	    (rc = soap_model_request_access_point_in(soap, req->accessPoint, &ap)) ||
	    (rc = broker_require_cluster_owner(soap, &call, ap.cluster)))
		return rc;
	/* The cluster is there (its owner is checked), so a missing row is a job nobody recorded:
	 * the client's mistake, a Client fault that says so (the broker's SOAP fuzz target found it
	 * answered as a "registry error"). */
	if ((rc = registry_put_access_point(call.reg, &ap)) == REGISTRY_NOT_FOUND)
		return soap_fault_client(soap, "RegisterAccessPoint: %s", registry_error(call.reg));
	if ((rc = broker_registry_fault(soap, &call, rc, "RegisterAccessPoint")))
		return rc;
	log_debug("job %s: %s/%s listens on %s:%u", ap.job, ap.cluster, ap.node, ap.address,
	    ap.port);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

/* Tell every cluster's front-end that a job is over, so that they drop its cached answers and
 * release what it still holds. */
static void
post_job_ended(struct broker_call *call, const char *job)
{
	struct cluster *clusters;
	size_t n;

	if (registry_list_clusters(call->reg, &clusters, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct broker_event ev = { .event.kind = EVENT_JOB_ENDED };
		snprintf(ev.queue, sizeof(ev.queue), "%s", clusters[i].name);
		snprintf(ev.event.job, sizeof(ev.event.job), "%s", job);
		events_post(call->broker->events, &ev);
	}
	free(clusters);
}

/* 1 when s may be XML 1.0 character data: no control character but tab, newline and carriage
 * return (a description is free text of several lines, a name is not). */
static int
xml_text_allowed(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			return 0;
	return 1;
}

/* Whether the job's recorded description names the cluster. qcg-submit records every job with
 * the summary "clusters NAME@SITE:N ... file=PATH" (summary() in launcher/qcg_submit.c), written
 * by the job's owner before any process runs: the clusters the owner sent the job to. */
static int
description_names_cluster(const char *description, const char *cluster)
{
	static const char prefix[] = "clusters ";
	size_t name_len = strlen(cluster);

	if (description == NULL || strncmp(description, prefix, sizeof(prefix) - 1) != 0)
		return 0;
	for (const char *p = description + sizeof(prefix) - 1; *p && *p != '\n';) {
		size_t len = strcspn(p, " \n");
		if (strncmp(p, "file=", 5) == 0)
			break; /* the path, not a cluster: the list is over */
		if (len > name_len && strncmp(p, cluster, name_len) == 0 && p[name_len] == '@')
			return 1;
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

/* Whether the caller's front-end has a part in the job: one of the job's access points is in a
 * cluster it registered, or the job's description (what its owner recorded, see
 * description_names_cluster) names such a cluster. The second is the only evidence before the
 * job's processes listen, when a process of the job may already ask for a multicast group. */
static int
caller_has_part_in_job(struct broker_call *call, const char *job_id, const char *description,
    int *part)
{
	struct access_point *aps;
	struct cluster *clusters;
	size_t n;
	int rc;

	*part = 0;
	if ((rc = registry_list_access_points(call->reg, job_id, &aps, &n)) != 0)
		return rc;
	for (size_t i = 0; i < n && !*part; i++) {
		struct cluster c;
		if (registry_get_cluster(call->reg, aps[i].cluster, &c) == 0 &&
		    strcmp(c.frontend_dn, call->caller_dn) == 0)
			*part = 1;
	}
	free(aps);
	if (*part || description == NULL)
		return 0;
	if ((rc = registry_list_clusters(call->reg, &clusters, &n)) != 0)
		return rc;
	for (size_t i = 0; i < n && !*part; i++)
		if (strcmp(clusters[i].frontend_dn, call->caller_dn) == 0 &&
		    description_names_cluster(description, clusters[i].name))
			*part = 1;
	free(clusters);
	return 0;
}

/* A front-end with a part in the job (caller_has_part_in_job), or a fault. */
static int
require_frontend_with_part(struct soap *soap, struct broker_call *call, const struct job *job,
    const char *operation)
{
	int rc, part;

	if ((rc = broker_require_role(soap, call, ACL_ROLE_FRONTEND)))
		return rc;
	if ((rc = caller_has_part_in_job(call, job->id, job->description, &part)) != 0)
		return broker_registry_fault(soap, call, rc, "access point lookup");
	if (!part)
		return soap_fault_client(soap, "not authorized: %s: job '%s' has no access point in, "
		    "and was not sent to, a cluster of yours", operation, job->id);
	return SOAP_OK;
}

/* A job's owner, an admin, or a front-end with a part in the job may act on the job's
 * registrations: removing access points cuts the job off and announces it ended to every
 * front-end, and a job's multicast groups are its own; no other front-end may take or give
 * them back. The job (NULL when the element was nil or missing) is checked first: who may call
 * depends on it. */
static int
require_job_owner_or_part(struct soap *soap, struct broker_call *call, const char *job_id,
    const char *operation)
{
	char what[64];
	struct job job;
	int rc;

	snprintf(what, sizeof(what), "%s: job", operation);
	if ((rc = soap_require_name(soap, job_id, QCG_NAME_MAX, what)))
		return rc;
	rc = registry_get_job(call->reg, job_id, &job);
	if (rc != 0)
		return broker_registry_fault(soap, call, rc, "job");
	if (strcmp(job.owner_dn, call->caller_dn) == 0 || broker_is_admin(call))
		rc = SOAP_OK;
	else
		rc = require_frontend_with_part(soap, call, &job, operation);
	free(job.description);
	return rc;
}

int
__qb__RemoveJobAccessPoints(struct soap *soap, struct _qb__RemoveJobAccessPoints *req,
    struct _qb__RemoveJobAccessPointsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	size_t removed = 0;
	int rc;

	if ((rc = soap_require_body(soap, req, "RemoveJobAccessPoints")) ||
	    (rc = require_job_owner_or_part(soap, &call, req->job, "RemoveJobAccessPoints")) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_delete_job_access_points(call.reg, req->job, &removed),
		 "RemoveJobAccessPoints")))
		return rc;
	post_job_ended(&call, req->job);
	resp->removed = (int)removed;
	return SOAP_OK;
}

int
__qb__RecordJob(struct soap *soap, struct _qb__RecordJob *req, struct _qb__RecordJobResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct job job;
	int rc;

	if ((rc = broker_require_submitter(soap, &call)) ||
	    (rc = soap_require_body(soap, req, "RecordJob")) ||
	    (rc = soap_model_request_job_in(soap, req->job, &job)))
		return rc;
	if (job.description && strlen(job.description) > REGISTRY_DESCRIPTION_MAX)
		return soap_fault_client(soap, "job.description is longer than %d bytes",
		    REGISTRY_DESCRIPTION_MAX);
	if (job.description && !xml_text_allowed(job.description))
		return soap_fault_client(soap, "job.description holds a control character other than "
		    "tab, newline or carriage return (GetJob could not return it as XML)");
	snprintf(job.owner_dn, sizeof(job.owner_dn), "%s", call.caller_dn);
	job.submitted = (int64_t)time(NULL);
	if ((rc = broker_registry_fault(soap, &call, registry_put_job(call.reg, &job), "RecordJob")))
		return rc;
	log_info("job %s recorded for %s", job.id, call.caller_dn);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__SetJobState(struct soap *soap, struct _qb__SetJobState *req,
    struct _qb__SetJobStateResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct job_cluster_record clusters[QCG_JOB_CLUSTERS_MAX];
	struct job job;
	int rc;

	if ((rc = broker_require_user(soap, &call)) ||
	    (rc = soap_require_body(soap, req, "SetJobState")) ||
	    (rc = soap_require_name(soap, req->id, QCG_NAME_MAX, "SetJobState: id")) ||
	    (rc = soap_model_request_job_clusters_in(soap, req->__sizecluster, req->cluster,
		 clusters)) ||
	    (rc = broker_registry_fault(soap, &call, registry_get_job(call.reg, req->id, &job),
		 "SetJobState")))
		return rc;
	int owner = strcmp(job.owner_dn, call.caller_dn) == 0;
	free(job.description);
	if (!owner && !acl_allows(&call.broker->acl, call.caller_dn, ACL_ROLE_ADMIN))
		return soap_fault_client(soap, "not authorized: job %s belongs to another user",
		    req->id);
	rc = registry_set_job_state(call.reg, req->id, soap_model_job_state_in(req->state),
	    req->exitCode ? *req->exitCode : 0, (int64_t)time(NULL));
	if ((rc = broker_registry_fault(soap, &call, rc, "SetJobState")))
		return rc;
	/* The clusters (with their Slurm jobs) come with the state that follows co-allocation. */
	if (req->__sizecluster > 0 &&
	    (rc = broker_registry_fault(soap, &call, registry_set_job_clusters(call.reg, req->id,
		 clusters, (size_t)req->__sizecluster), "SetJobState")))
		return rc;
	log_info("job %s is now %s", req->id, job_state_name(soap_model_job_state_in(req->state)));
	/* An ended job's reservations must not outlive it, even when its launcher is gone (a
	 * qcg-cancel from another host): the front-ends release them after a grace. */
	enum job_state state = soap_model_job_state_in(req->state);
	if (job_state_is_final(state))
		post_job_ended(&call, req->id);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qb__AllocateMulticastGroup(struct soap *soap, struct _qb__AllocateMulticastGroup *req,
    struct _qb__AllocateMulticastGroupResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	struct multicast_group group;
	int rc;

	if ((rc = soap_require_body(soap, req, "AllocateMulticastGroup")) ||
	    (rc = require_job_owner_or_part(soap, &call, req->job, "AllocateMulticastGroup")) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_allocate_multicast_group(call.reg, req->job, &group),
		 "AllocateMulticastGroup")))
		return rc;
	resp->group = soap_malloc(soap, sizeof(*resp->group));
	if (resp->group == NULL)
		return soap_fault_server(soap, "out of memory");
	soap_model_multicast_out(soap, &group, resp->group);
	return SOAP_OK;
}

int
__qb__ReleaseMulticastGroups(struct soap *soap, struct _qb__ReleaseMulticastGroups *req,
    struct _qb__ReleaseMulticastGroupsResponse *resp)
{
	struct broker_call call = broker_call_of(soap);
	int rc;

	if ((rc = soap_require_body(soap, req, "ReleaseMulticastGroups")) ||
	    (rc = require_job_owner_or_part(soap, &call, req->job, "ReleaseMulticastGroups")) ||
	    (rc = broker_registry_fault(soap, &call,
		 registry_release_multicast_groups(call.reg, req->job), "ReleaseMulticastGroups")))
		return rc;
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}
