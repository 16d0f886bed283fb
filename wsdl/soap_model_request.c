/*
 * soap_model_request.c: the conversions of what a service is asked to store or list (clusters,
 * proxies, jobs, access points, connection outcomes, multicast groups, leases): inbound, every
 * field is checked (present when required, within its size limit, no control characters, a
 * well-formed address) and a failure sets a SOAP Client fault naming the field; outbound, the
 * listings. Part of the one SOAP<->model module (soap_model.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "soap_model.h"
#include "net_text.h"
#include "soap_server.h"

/* Copy a request's string into a fixed field, or fault naming it. */
static int
field_in(struct soap *soap, char *dst, size_t dstlen, const char *src, const char *what,
    int required)
{
	if (src == NULL || (required && *src == '\0')) {
		if (required)
			return soap_fault_client(soap, "%s is required", what);
		dst[0] = '\0';
		return SOAP_OK;
	}
	if (strlen(src) >= dstlen)
		return soap_fault_client(soap, "%s is longer than %zu bytes", what, dstlen - 1);
	/* what is stored comes back in every listing: one control character there would make
	 * ListJobs or ListClusters invalid XML for every standard client */
	if (soap_has_control_char(src))
		return soap_fault_client(soap, "%s must not hold control characters", what);
	strcpy(dst, src);
	return SOAP_OK;
}

int
soap_model_request_cluster_in(struct soap *soap, const struct qcg__Cluster *in, struct cluster *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	if (in == NULL)
		return soap_fault_client(soap, "cluster is required");
	if ((rc = field_in(soap, out->name, sizeof(out->name), in->name, "cluster.name", 1)) ||
	    (rc = field_in(soap, out->public_address, sizeof(out->public_address),
		 in->publicAddress, "cluster.publicAddress", 0)) ||
	    (rc = field_in(soap, out->private_networks, sizeof(out->private_networks),
		 in->privateNetworks, "cluster.privateNetworks", 0)) ||
	    (rc = field_in(soap, out->frontend_endpoint, sizeof(out->frontend_endpoint),
		 in->frontendEndpoint, "cluster.frontendEndpoint", 0)))
		return rc;
	/* what is stored is handed to every process that connects: no garbage addresses */
	if (out->public_address[0] && !net_text_is_host(out->public_address))
		return soap_fault_client(soap, "cluster.publicAddress must be an IP address or a "
		    "host name, got '%s'", out->public_address);
	if (out->frontend_endpoint[0] && !net_text_is_https_url(out->frontend_endpoint))
		return soap_fault_client(soap, "cluster.frontendEndpoint must be an https://host[:port]/ URL, "
		    "got '%s'", out->frontend_endpoint);
	out->policy = soap_model_policy_in(in->policy);
	out->traversal_allowed = in->traversalAllowed == xsd__boolean__true_;
	if (out->policy == POLICY_PORT_RANGE) {
		if (in->portMin == NULL || in->portMax == NULL || *in->portMin == 0 ||
		    *in->portMin > *in->portMax)
			return soap_fault_client(soap,
			    "cluster %s: policy port-range needs 0 < portMin <= portMax", out->name);
		out->port_min = *in->portMin;
		out->port_max = *in->portMax;
	}
	return SOAP_OK;
}

void
soap_model_cluster_out(struct soap *soap, const struct cluster *in, struct qcg__Cluster *out)
{
	memset(out, 0, sizeof(*out));
	out->name = soap_strdup(soap, in->name);
	out->policy = soap_model_policy_out(in->policy);
	if (in->policy == POLICY_PORT_RANGE) {
		out->portMin = soap_model_ushort_out(soap, in->port_min);
		out->portMax = soap_model_ushort_out(soap, in->port_max);
	}
	out->publicAddress = soap_strdup(soap, in->public_address);
	out->privateNetworks = soap_strdup(soap, in->private_networks);
	out->traversalAllowed = in->traversal_allowed ? xsd__boolean__true_ : xsd__boolean__false_;
	out->frontendEndpoint = soap_strdup(soap, in->frontend_endpoint);
	out->frontendDN = soap_strdup(soap, in->frontend_dn);
}

void
soap_model_liveness_out(struct soap *soap, const struct liveness *in, int64_t now,
    struct qcg__Liveness **out)
{
	struct qcg__Liveness *l = soap_malloc(soap, sizeof(*l));
	*out = l;
	if (l == NULL)
		return;
	memset(l, 0, sizeof(*l));
	l->alive = in->withdrawn_at == 0 ? xsd__boolean__true_ : xsd__boolean__false_;
	if (in->last_seen > 0) {
		l->lastSeen = soap_model_long_out(soap, in->last_seen);
		l->secondsSinceSeen = soap_model_long_out(soap, now > in->last_seen ? now - in->last_seen : 0);
	}
	if (in->withdrawn_at > 0)
		l->withdrawnSecondsAgo = soap_model_long_out(soap,
		    now > in->withdrawn_at ? now - in->withdrawn_at : 0);
}

int
soap_model_request_proxy_in(struct soap *soap, const struct qcg__Proxy *in, struct proxy *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	if (in == NULL)
		return soap_fault_client(soap, "proxy is required");
	if ((rc = field_in(soap, out->endpoint, sizeof(out->endpoint), in->endpoint,
		 "proxy.endpoint", 1)) ||
	    (rc = field_in(soap, out->networks, sizeof(out->networks), in->networks,
		 "proxy.networks", 1)) ||
	    (rc = field_in(soap, out->cluster, sizeof(out->cluster), in->cluster,
		 "proxy.cluster", 0)) ||
	    (rc = field_in(soap, out->control_endpoint, sizeof(out->control_endpoint),
		 in->controlEndpoint, "proxy.controlEndpoint", 0)))
		return rc;
	if (!net_text_is_host_port(out->endpoint))
		return soap_fault_client(soap, "proxy.endpoint must be host:port, got '%s'",
		    out->endpoint);
	if (out->control_endpoint[0] && !net_text_is_https_url(out->control_endpoint))
		return soap_fault_client(soap, "proxy.controlEndpoint must be an https://host[:port]/ URL, "
		    "got '%s'", out->control_endpoint);
	return SOAP_OK;
}

int
soap_model_request_job_in(struct soap *soap, const struct qcg__Job *in, struct job *out)
{
	memset(out, 0, sizeof(*out));
	if (in == NULL)
		return soap_fault_client(soap, "job is required");
	int rc = field_in(soap, out->id, sizeof(out->id), in->id, "job.id", 1);
	if (rc)
		return rc;
	/* A job is recorded before it has clusters (SetJobState brings them): any given here
	 * are still checked, so that nothing malformed is ever accepted. */
	struct job_cluster_record clusters[QCG_JOB_CLUSTERS_MAX];
	if ((rc = soap_model_request_job_clusters_in(soap, in->__sizecluster, in->cluster,
	    clusters)))
		return rc;
	out->state = soap_model_job_state_in(in->state);
	out->description = in->description; /* borrowed from the request for its lifetime */
	return SOAP_OK;
}

void
soap_model_job_out(struct soap *soap, const struct job *in, struct qcg__Job *out)
{
	memset(out, 0, sizeof(*out));
	out->id = soap_strdup(soap, in->id);
	out->ownerDN = soap_strdup(soap, in->owner_dn);
	out->state = soap_model_job_state_out(in->state);
	out->submitted = in->submitted ? soap_model_long_out(soap, in->submitted) : NULL;
	out->started = in->started ? soap_model_long_out(soap, in->started) : NULL;
	out->finished = in->finished ? soap_model_long_out(soap, in->finished) : NULL;
	if (job_state_is_final(in->state)) {
		out->exitCode = SOAP_MODEL_NEW(soap, int, 1);
		if (out->exitCode)
			*out->exitCode = in->exit_code;
	}
	out->description = in->description ? soap_strdup(soap, in->description) : NULL;
}

int
soap_model_request_job_clusters_in(struct soap *soap, int count,
    const struct qcg__JobCluster *in, struct job_cluster_record *out)
{
	int rc;
	if (count < 0 || count > QCG_JOB_CLUSTERS_MAX)
		return soap_fault_client(soap, "a job has at most %d clusters, got %d",
		    QCG_JOB_CLUSTERS_MAX, count);
	for (int i = 0; i < count; i++) {
		if ((rc = field_in(soap, out[i].cluster, sizeof(out[i].cluster), in[i].name,
			 "cluster.name", 1)) ||
		    (rc = field_in(soap, out[i].batch_job_id, sizeof(out[i].batch_job_id),
			 in[i].batchJobId, "cluster.batchJobId", 0)))
			return rc;
		for (int k = 0; k < i; k++)
			if (strcmp(out[k].cluster, out[i].cluster) == 0)
				return soap_fault_client(soap, "cluster %s is named twice", out[i].cluster);
	}
	return SOAP_OK;
}

void
soap_model_job_clusters_out(struct soap *soap, const struct job_cluster_record *in,
    size_t count, struct qcg__Job *out)
{
	out->cluster = count ? soap_model_job_clusters_new(soap, in, count) : NULL;
	out->__sizecluster = out->cluster ? (int)count : 0;
}

int
soap_model_request_access_point_in(struct soap *soap, const struct qcg__AccessPoint *in,
    struct access_point *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	if (in == NULL)
		return soap_fault_client(soap, "accessPoint is required");
	if ((rc = field_in(soap, out->job, sizeof(out->job), in->job, "accessPoint.job", 1)) ||
	    (rc = field_in(soap, out->cluster, sizeof(out->cluster), in->cluster,
		 "accessPoint.cluster", 1)) ||
	    (rc = field_in(soap, out->node, sizeof(out->node), in->node,
		 "accessPoint.node", 1)) ||
	    (rc = field_in(soap, out->address, sizeof(out->address), in->address,
		 "accessPoint.address", 1)) ||
	    (rc = field_in(soap, out->process, sizeof(out->process), in->process,
		 "accessPoint.process", 0)))
		return rc;
	if (!net_text_is_ip(out->address))
		return soap_fault_client(soap, "accessPoint.address must be an IP address, got '%s'",
		    out->address);
	if (in->port == 0)
		return soap_fault_client(soap, "accessPoint.port must be 1-65535");
	out->port = in->port;
	return SOAP_OK;
}

/* A connection record; the reporter's and the target's names required as said. */
static int
connection_in(struct soap *soap, const struct qcg__Connection *in, int from_required,
    int target_required, struct connection_record *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	if (in == NULL)
		return soap_fault_client(soap, "connection is required");
	if ((rc = field_in(soap, out->job, sizeof(out->job), in->job, "connection.job", 1)) ||
	    (rc = field_in(soap, out->from_cluster, sizeof(out->from_cluster),
		 in->fromCluster, "connection.fromCluster", from_required)) ||
	    (rc = field_in(soap, out->from_node, sizeof(out->from_node), in->fromNode,
		 "connection.fromNode", from_required)) ||
	    (rc = field_in(soap, out->to_cluster, sizeof(out->to_cluster), in->toCluster,
		 "connection.toCluster", target_required)) ||
	    (rc = field_in(soap, out->to_node, sizeof(out->to_node), in->toNode,
		 "connection.toNode", target_required)))
		return rc;
	if (in->setupMicroseconds < 0)
		return soap_fault_client(soap, "connection.setupMicroseconds must not be negative");
	out->to_port = in->toPort;
	out->method = soap_model_method_in(in->method);
	out->succeeded = in->succeeded == xsd__boolean__true_;
	out->setup_usec = in->setupMicroseconds;
	out->when = in->when;
	return SOAP_OK;
}

int
soap_model_request_any_access_point_in(struct soap *soap, const struct qcg__AccessPoint *in,
    struct access_point *out)
{
	char err[256];
	if (in == NULL) {
		memset(out, 0, sizeof(*out));
		return soap_fault_client(soap, "accessPoint is required");
	}
	if (soap_model_access_point_in(in, out, err, sizeof(err)) != 0)
		return soap_fault_client(soap, "%s", err);
	return SOAP_OK;
}

int
soap_model_request_connection_in(struct soap *soap, const struct qcg__Connection *in,
    struct connection_record *out)
{
	return connection_in(soap, in, 1, 1, out);
}

int
soap_model_request_report_in(struct soap *soap, const struct qcg__Connection *in,
    int from_required, struct connection_report *out)
{
	int rc;
	memset(out, 0, sizeof(*out));
	if (in == NULL)
		return soap_fault_client(soap, "connection is required");
	if (in->toAddress == NULL || in->toAddress[0] == '\0')
		return connection_in(soap, in, from_required, 1, &out->rec);
	/* the target by address: the broker finds its cluster and node; the job and the address
	 * are checked first, so that a record that is not the job's is refused when malformed */
	if ((rc = field_in(soap, out->rec.job, sizeof(out->rec.job), in->job, "connection.job",
		 1)) ||
	    (rc = field_in(soap, out->to_address, sizeof(out->to_address), in->toAddress,
		 "connection.toAddress", 1)))
		return rc;
	char to_address[QCG_ADDR_MAX];
	memcpy(to_address, out->to_address, sizeof(to_address));
	if ((rc = connection_in(soap, in, from_required, 0, &out->rec)))
		return rc;
	memcpy(out->to_address, to_address, sizeof(out->to_address));
	return SOAP_OK;
}

void
soap_model_connection_out(struct soap *soap, const struct connection_record *in,
    struct qcg__Connection *out)
{
	out->job = soap_strdup(soap, in->job);
	out->fromCluster = soap_strdup(soap, in->from_cluster);
	out->fromNode = soap_strdup(soap, in->from_node);
	out->toCluster = soap_strdup(soap, in->to_cluster);
	out->toNode = soap_strdup(soap, in->to_node);
	out->toPort = in->to_port;
	out->method = soap_model_method_out(in->method);
	out->succeeded = in->succeeded ? xsd__boolean__true_ : xsd__boolean__false_;
	out->setupMicroseconds = in->setup_usec;
	out->when = in->when;
	out->toAddress = NULL; /* an input only (ReportOutcomes); out may be unzeroed memory */
}

void
soap_model_multicast_out(struct soap *soap, const struct multicast_group *in,
    struct qcg__MulticastGroup *out)
{
	out->job = soap_strdup(soap, in->job);
	out->address = soap_strdup(soap, in->address);
	out->port = in->port;
}

void
soap_model_relay_resume_out(struct soap *soap, const struct relay_resume *in,
    struct qcg__RelayResume *out)
{
	*out = (struct qcg__RelayResume){ .when = in->when,
		.oldRelayId = soap_strdup(soap, in->old_relay_id),
		.newRelayId = soap_strdup(soap, in->new_relay_id),
		.fromProxy = soap_strdup(soap, in->from_proxy),
		.toProxy = soap_strdup(soap, in->to_proxy),
		.fromCluster = soap_strdup(soap, in->from_cluster),
		.fromNode = soap_strdup(soap, in->from_node),
		.toCluster = soap_strdup(soap, in->to_cluster),
		.toNode = soap_strdup(soap, in->to_node), .toPort = in->to_port,
		.bytesReplayed = in->bytes_replayed };
}
