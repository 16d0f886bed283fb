/*
 * soap_model_client.c: the conversions on a client's side of a call (a front-end, proxy or
 * helper registering and reporting, the launcher's commands, the front-end relaying a helper's
 * output): what it sends, built from the model in the call's own soap memory, and what it reads
 * back (listings, a job, a launch's output), checked into the model. Part of the one
 * SOAP<->model module (soap_model.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "soap_model.h"

/* soap_strdup of a field that is left out when empty. */
static char *
dup_or_null(struct soap *soap, const char *s)
{
	return s[0] ? soap_strdup(soap, s) : NULL;
}

/* n zeroed elements of size each, at least one so that n == 0 is not mistaken for no memory. */
static void *
zeroed(struct soap *soap, size_t n, size_t size)
{
	void *p = soap_malloc(soap, (n ? n : 1) * size);
	if (p)
		memset(p, 0, (n ? n : 1) * size);
	return p;
}

struct qcg__AccessPoint *
soap_model_access_points_new(struct soap *soap, const struct access_point *in, size_t n)
{
	struct qcg__AccessPoint *out = zeroed(soap, n, sizeof(*out));
	for (size_t i = 0; out && i < n; i++)
		soap_model_access_point_out(soap, &in[i], &out[i]);
	return out;
}

struct qcg__Connection *
soap_model_reports_new(struct soap *soap, const struct connection_report *in, size_t n)
{
	struct qcg__Connection *out = zeroed(soap, n, sizeof(*out));
	for (size_t i = 0; out && i < n; i++) {
		soap_model_connection_out(soap, &in[i].rec, &out[i]);
		out[i].toAddress = dup_or_null(soap, in[i].to_address);
	}
	return out;
}

struct qcg__Cluster *
soap_model_cluster_registration_new(struct soap *soap, const struct cluster *in)
{
	struct qcg__Cluster *out = zeroed(soap, 1, sizeof(*out));
	if (out == NULL)
		return NULL;
	soap_model_cluster_out(soap, in, out);
	out->frontendDN = NULL; /* the broker takes it from the caller's certificate */
	return out;
}

struct qcg__Proxy *
soap_model_proxy_registration_new(struct soap *soap, const struct proxy *in)
{
	struct qcg__Proxy *out = zeroed(soap, 1, sizeof(*out));
	if (out == NULL)
		return NULL;
	soap_model_proxy_out(soap, in, out);
	out->load = NULL; /* the broker counts it */
	return out;
}

struct qcg__Event *
soap_model_event_new(struct soap *soap, const struct qcg_event *in)
{
	struct qcg__Event *out = zeroed(soap, 1, sizeof(*out));
	if (out)
		soap_model_event_out(soap, in, out);
	return out;
}

struct qcg__Job *
soap_model_job_record_new(struct soap *soap, const struct job *in)
{
	struct qcg__Job *out = zeroed(soap, 1, sizeof(*out));
	if (out == NULL)
		return NULL;
	/* only what RecordJob reads: the owner and the times are the broker's */
	out->id = soap_strdup(soap, in->id);
	out->state = soap_model_job_state_out(in->state);
	out->description = in->description ? soap_strdup(soap, in->description) : NULL;
	return out;
}

struct qcg__JobCluster *
soap_model_job_clusters_new(struct soap *soap, const struct job_cluster_record *in, size_t n)
{
	struct qcg__JobCluster *out = zeroed(soap, n, sizeof(*out));
	for (size_t i = 0; out && i < n; i++) {
		out[i].name = soap_strdup(soap, in[i].cluster);
		out[i].batchJobId = dup_or_null(soap, in[i].batch_job_id);
	}
	return out;
}

/* Bytes borrowed as they are; a base64Binary with no bytes reads as none. */
static void
bytes_in(const struct xsd__base64Binary *b, const uint8_t **p, size_t *len)
{
	*p = b->__ptr && b->__size > 0 ? b->__ptr : NULL;
	*len = *p ? (size_t)b->__size : 0;
}

/* Bytes copied into soap's memory (src may be freed after). */
static void
bytes_out(struct soap *soap, struct xsd__base64Binary *dst, const uint8_t *src, size_t len)
{
	memset(dst, 0, sizeof(*dst));
	dst->__ptr = soap_malloc(soap, len ? len : 1);
	if (dst->__ptr && len)
		memcpy(dst->__ptr, src, len);
	dst->__size = dst->__ptr ? (int)len : 0;
}

struct qcg__Output *
soap_model_output_new(struct soap *soap, const struct output_chunk *in)
{
	struct qcg__Output *o = zeroed(soap, 1, sizeof(*o));
	if (o == NULL)
		return NULL;
	bytes_out(soap, &o->standardOutput, in->out, in->out_len);
	bytes_out(soap, &o->standardError, in->err, in->err_len);
	o->exited = in->exited ? xsd__boolean__true_ : xsd__boolean__false_;
	if (in->exited) {
		int *v = soap_malloc(soap, sizeof(int));
		if (v) {
			*v = in->signaled ? in->term_signal : in->exit_code;
			if (in->signaled)
				o->termSignal = v;
			else
				o->exitCode = v;
		}
	}
	return o;
}

void
soap_model_output_in(const struct qcg__Output *in, struct output_chunk *out)
{
	memset(out, 0, sizeof(*out));
	bytes_in(&in->standardOutput, &out->out, &out->out_len);
	bytes_in(&in->standardError, &out->err, &out->err_len);
	out->exited = in->exited == xsd__boolean__true_;
	out->signaled = in->termSignal != NULL;
	out->term_signal = in->termSignal ? *in->termSignal : 0;
	out->exit_code = in->exitCode ? *in->exitCode : 0;
}

int
soap_model_multicast_in(const struct qcg__MulticastGroup *in, struct multicast_group *out,
    char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (in == NULL) {
		snprintf(err, errlen, "no group");
		return -1;
	}
	if (soap_model_string_in(out->job, sizeof(out->job), in->job, "group.job", err, errlen) ||
	    soap_model_string_in(out->address, sizeof(out->address), in->address, "group.address",
		err, errlen))
		return -1;
	out->port = in->port;
	return 0;
}

void
soap_model_liveness_in(const struct qcg__Liveness *in, struct liveness_report *out)
{
	memset(out, 0, sizeof(*out));
	out->seen_ago = out->withdrawn_ago = -1;
	if (in == NULL)
		return;
	out->known = true;
	out->alive = in->alive == xsd__boolean__true_;
	out->last_seen = in->lastSeen ? *in->lastSeen : 0;
	out->seen_ago = in->secondsSinceSeen ? *in->secondsSinceSeen : -1;
	out->withdrawn_ago = in->withdrawnSecondsAgo ? *in->withdrawnSecondsAgo : -1;
}

/* Each listing's rows, checked as soap_model_string_in does; the array lives in soap's memory. */
#define LISTING_IN(soap, n, type, err, errlen) \
	(n) < 0 ? (snprintf((err), (errlen), "a listing of %d rows", (n)), (type *)NULL) : \
	    (type *)zeroed((soap), (size_t)(n), sizeof(type))

struct cluster_listing *
soap_model_clusters_in(struct soap *soap, const struct qcg__Cluster *in, int n, char *err,
    size_t errlen)
{
	struct cluster_listing *out = LISTING_IN(soap, n, struct cluster_listing, err, errlen);
	for (int i = 0; out && i < n; i++) {
		struct cluster *c = &out[i].cluster;
		if (soap_model_string_in(c->name, sizeof(c->name), in[i].name, "cluster.name", err,
			errlen) ||
		    soap_model_string_in(c->public_address, sizeof(c->public_address),
			in[i].publicAddress, "cluster.publicAddress", err, errlen) ||
		    soap_model_string_in(c->private_networks, sizeof(c->private_networks),
			in[i].privateNetworks, "cluster.privateNetworks", err, errlen) ||
		    soap_model_string_in(c->frontend_endpoint, sizeof(c->frontend_endpoint),
			in[i].frontendEndpoint, "cluster.frontendEndpoint", err, errlen) ||
		    soap_model_string_in(c->frontend_dn, sizeof(c->frontend_dn), in[i].frontendDN,
			"cluster.frontendDN", err, errlen))
			return NULL;
		c->policy = soap_model_policy_in(in[i].policy);
		/* the range, only when both ends are said (a port-range cluster's) */
		if (in[i].portMin && in[i].portMax) {
			c->port_min = *in[i].portMin;
			c->port_max = *in[i].portMax;
		}
		c->traversal_allowed = in[i].traversalAllowed == xsd__boolean__true_;
		soap_model_liveness_in(in[i].liveness, &out[i].state);
	}
	return out;
}

struct proxy_listing *
soap_model_proxies_in(struct soap *soap, const struct qcg__Proxy *in, int n, char *err,
    size_t errlen)
{
	struct proxy_listing *out = LISTING_IN(soap, n, struct proxy_listing, err, errlen);
	for (int i = 0; out && i < n; i++) {
		struct proxy *p = &out[i].proxy;
		if (soap_model_string_in(p->endpoint, sizeof(p->endpoint), in[i].endpoint,
			"proxy.endpoint", err, errlen) ||
		    soap_model_string_in(p->networks, sizeof(p->networks), in[i].networks,
			"proxy.networks", err, errlen) ||
		    soap_model_string_in(p->cluster, sizeof(p->cluster), in[i].cluster,
			"proxy.cluster", err, errlen) ||
		    soap_model_string_in(p->control_endpoint, sizeof(p->control_endpoint),
			in[i].controlEndpoint, "proxy.controlEndpoint", err, errlen))
			return NULL;
		p->load = in[i].load ? *in[i].load : 0;
		soap_model_liveness_in(in[i].liveness, &out[i].state);
	}
	return out;
}

int
soap_model_job_in(const struct qcg__Job *in, struct job_listing *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct job *j = &out->job;
	if (soap_model_string_in(j->id, sizeof(j->id), in->id, "job.id", err, errlen) ||
	    soap_model_string_in(j->owner_dn, sizeof(j->owner_dn), in->ownerDN, "job.ownerDN", err,
		errlen))
		return -1;
	j->state = soap_model_job_state_in(in->state);
	j->submitted = in->submitted ? *in->submitted : 0;
	j->started = in->started ? *in->started : 0;
	j->finished = in->finished ? *in->finished : 0;
	out->has_exit_code = in->exitCode != NULL;
	j->exit_code = in->exitCode ? *in->exitCode : 0;
	j->description = in->description; /* borrowed from the answer */
	if (in->__sizecluster < 0 || in->__sizecluster > QCG_JOB_CLUSTERS_MAX) {
		snprintf(err, errlen, "job %s has %d clusters (at most %d)", j->id,
		    in->__sizecluster, QCG_JOB_CLUSTERS_MAX);
		return -1;
	}
	for (int i = 0; i < in->__sizecluster; i++)
		if (soap_model_string_in(out->cluster[i].cluster, sizeof(out->cluster[i].cluster),
			in->cluster[i].name, "job.cluster.name", err, errlen) ||
		    soap_model_string_in(out->cluster[i].batch_job_id,
			sizeof(out->cluster[i].batch_job_id), in->cluster[i].batchJobId,
			"job.cluster.batchJobId", err, errlen))
			return -1;
	out->cluster_count = (size_t)in->__sizecluster;
	return 0;
}

struct job_listing *
soap_model_jobs_in(struct soap *soap, const struct qcg__Job *in, int n, char *err,
    size_t errlen)
{
	struct job_listing *out = LISTING_IN(soap, n, struct job_listing, err, errlen);
	for (int i = 0; out && i < n; i++)
		if (soap_model_job_in(&in[i], &out[i], err, errlen) != 0)
			return NULL;
	return out;
}

struct access_point *
soap_model_access_points_in(struct soap *soap, const struct qcg__AccessPoint *in, int n,
    char *err, size_t errlen)
{
	struct access_point *out = LISTING_IN(soap, n, struct access_point, err, errlen);
	for (int i = 0; out && i < n; i++)
		if (soap_model_access_point_in(&in[i], &out[i], err, errlen) != 0)
			return NULL;
	return out;
}

struct connection_record *
soap_model_connections_in(struct soap *soap, const struct qcg__Connection *in, int n,
    char *err, size_t errlen)
{
	struct connection_record *out = LISTING_IN(soap, n, struct connection_record, err, errlen);
	for (int i = 0; out && i < n; i++) {
		struct connection_record *c = &out[i];
		if (soap_model_string_in(c->job, sizeof(c->job), in[i].job, "connection.job", err,
			errlen) ||
		    soap_model_string_in(c->from_cluster, sizeof(c->from_cluster),
			in[i].fromCluster, "connection.fromCluster", err, errlen) ||
		    soap_model_string_in(c->from_node, sizeof(c->from_node), in[i].fromNode,
			"connection.fromNode", err, errlen) ||
		    soap_model_string_in(c->to_cluster, sizeof(c->to_cluster), in[i].toCluster,
			"connection.toCluster", err, errlen) ||
		    soap_model_string_in(c->to_node, sizeof(c->to_node), in[i].toNode,
			"connection.toNode", err, errlen))
			return NULL;
		if (!soap_model_method_valid(in[i].method)) {
			snprintf(err, errlen, "connection.method %d is not a method",
			    (int)in[i].method);
			return NULL;
		}
		c->to_port = in[i].toPort;
		c->method = soap_model_method_in(in[i].method);
		c->succeeded = in[i].succeeded == xsd__boolean__true_;
		c->setup_usec = in[i].setupMicroseconds;
		c->when = in[i].when;
	}
	return out;
}

struct relay_resume *
soap_model_relay_resumes_in(struct soap *soap, const struct qcg__RelayResume *in, int n,
    char *err, size_t errlen)
{
	struct relay_resume *out = LISTING_IN(soap, n, struct relay_resume, err, errlen);
	for (int i = 0; out && i < n; i++) {
		struct relay_resume *r = &out[i];
		if (soap_model_string_in(r->old_relay_id, sizeof(r->old_relay_id), in[i].oldRelayId,
			"resume.oldRelayId", err, errlen) ||
		    soap_model_string_in(r->new_relay_id, sizeof(r->new_relay_id), in[i].newRelayId,
			"resume.newRelayId", err, errlen) ||
		    soap_model_string_in(r->from_proxy, sizeof(r->from_proxy), in[i].fromProxy,
			"resume.fromProxy", err, errlen) ||
		    soap_model_string_in(r->to_proxy, sizeof(r->to_proxy), in[i].toProxy,
			"resume.toProxy", err, errlen) ||
		    soap_model_string_in(r->from_cluster, sizeof(r->from_cluster), in[i].fromCluster,
			"resume.fromCluster", err, errlen) ||
		    soap_model_string_in(r->from_node, sizeof(r->from_node), in[i].fromNode,
			"resume.fromNode", err, errlen) ||
		    soap_model_string_in(r->to_cluster, sizeof(r->to_cluster), in[i].toCluster,
			"resume.toCluster", err, errlen) ||
		    soap_model_string_in(r->to_node, sizeof(r->to_node), in[i].toNode,
			"resume.toNode", err, errlen))
			return NULL;
		r->when = in[i].when;
		r->to_port = in[i].toPort;
		r->bytes_replayed = in[i].bytesReplayed;
	}
	return out;
}
