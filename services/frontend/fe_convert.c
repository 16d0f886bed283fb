/*
 * fe_convert.c: SOAP structs <-> the front-end's plain structs (fe_convert.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fe_convert.h"
#include "soap_server.h"

#define FE_SOAP_NEW(soap, type, n) ((type *)soap_malloc((soap), sizeof(type) * (size_t)(n)))

/* Copy src (NULL reads as "") into a fixed field, or name the field that does not fit. */
static int
copy_in(char *dst, size_t dstlen, const char *src, const char *what, char *err, size_t errlen)
{
	if (src == NULL)
		src = "";
	if (strlen(src) >= dstlen) {
		snprintf(err, errlen, "%s is longer than %zu bytes", what, dstlen - 1);
		return -1;
	}
	if (soap_has_control_char(src)) { /* it goes into logs and on to the broker */
		snprintf(err, errlen, "%s must not hold control characters", what);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

static char *
dup_or_null(struct soap *soap, const char *s)
{
	return s[0] ? soap_strdup(soap, s) : NULL;
}

int
fe_access_point_from_soap(const struct qcg__AccessPoint *in, struct access_point *out, char *err,
    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (copy_in(out->job, sizeof(out->job), in->job, "accessPoint.job", err, errlen) ||
	    copy_in(out->cluster, sizeof(out->cluster), in->cluster, "accessPoint.cluster", err,
		errlen) ||
	    copy_in(out->node, sizeof(out->node), in->node, "accessPoint.node", err, errlen) ||
	    copy_in(out->address, sizeof(out->address), in->address, "accessPoint.address", err,
		errlen) ||
	    copy_in(out->process, sizeof(out->process), in->process, "accessPoint.process", err,
		errlen))
		return -1;
	out->port = in->port;
	return 0;
}

void
fe_access_point_to_soap(struct soap *soap, const struct access_point *in,
    struct qcg__AccessPoint *out)
{
	out->job = soap_strdup(soap, in->job);
	out->cluster = soap_strdup(soap, in->cluster);
	out->node = soap_strdup(soap, in->node);
	out->address = soap_strdup(soap, in->address);
	out->port = in->port;
	out->process = soap_strdup(soap, in->process);
}

static int
proxy_from_soap(const struct qcg__Proxy *in, struct proxy *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (copy_in(out->endpoint, sizeof(out->endpoint), in->endpoint, "proxy.endpoint", err,
		errlen) ||
	    copy_in(out->networks, sizeof(out->networks), in->networks, "proxy.networks", err,
		errlen) ||
	    copy_in(out->cluster, sizeof(out->cluster), in->cluster, "proxy.cluster", err, errlen))
		return -1;
	out->load = in->load ? *in->load : 0;
	return 0;
}

int
fe_decision_from_soap(const struct qcg__Decision *in, struct fe_decision *out, char *err,
    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->method = (enum connect_method)in->method;
	if (in->target) {
		out->has_target = true;
		if (fe_access_point_from_soap(in->target, &out->target, err, errlen) != 0)
			return -1;
	}
	if (copy_in(out->target_public_address, sizeof(out->target_public_address),
		in->targetPublicAddress, "decision.targetPublicAddress", err, errlen) ||
	    copy_in(out->relay_id, sizeof(out->relay_id), in->relayId, "decision.relayId", err,
		errlen))
		return -1;
	if (in->__sizeproxy < 0 || in->__sizeproxy > 2) {
		snprintf(err, errlen, "decision has %d proxies (at most 2)", in->__sizeproxy);
		return -1;
	}
	for (int i = 0; i < in->__sizeproxy; i++)
		if (proxy_from_soap(&in->proxy[i], &out->proxy[i], err, errlen) != 0)
			return -1;
	out->proxy_count = (size_t)in->__sizeproxy;
	return 0;
}

void
fe_decision_to_soap(struct soap *soap, const struct fe_decision *in, struct qcg__Decision *out)
{
	memset(out, 0, sizeof(*out));
	out->method = (enum qcg__Method)in->method;
	if (in->has_target && (out->target = FE_SOAP_NEW(soap, struct qcg__AccessPoint, 1)))
		fe_access_point_to_soap(soap, &in->target, out->target);
	out->targetPublicAddress = dup_or_null(soap, in->target_public_address);
	out->relayId = dup_or_null(soap, in->relay_id);
	if (in->proxy_count == 0 || !(out->proxy = FE_SOAP_NEW(soap, struct qcg__Proxy,
					    in->proxy_count)))
		return;
	out->__sizeproxy = (int)in->proxy_count;
	for (size_t i = 0; i < in->proxy_count; i++) {
		struct qcg__Proxy *p = &out->proxy[i];
		memset(p, 0, sizeof(*p));
		p->endpoint = soap_strdup(soap, in->proxy[i].endpoint);
		p->networks = soap_strdup(soap, in->proxy[i].networks);
		p->cluster = dup_or_null(soap, in->proxy[i].cluster);
	}
}

int
fe_event_from_soap(const struct qcg__Event *in, struct fe_event *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->sequence = in->sequence;
	if (copy_in(out->kind, sizeof(out->kind), in->kind, "event.kind", err, errlen) ||
	    copy_in(out->job, sizeof(out->job), in->job, "event.job", err, errlen) ||
	    copy_in(out->node, sizeof(out->node), in->node, "event.node", err, errlen) ||
	    copy_in(out->initiator_public_address, sizeof(out->initiator_public_address),
		in->initiatorPublicAddress, "event.initiatorPublicAddress", err, errlen))
		return -1;
	if (in->port) {
		out->has_port = true;
		out->port = *in->port;
	}
	if (in->initiator) {
		out->has_initiator = true;
		if (fe_access_point_from_soap(in->initiator, &out->initiator, err, errlen) != 0)
			return -1;
	}
	if (in->decision) {
		out->has_decision = true;
		return fe_decision_from_soap(in->decision, &out->decision, err, errlen);
	}
	return 0;
}

void
fe_event_to_soap(struct soap *soap, const struct fe_event *in, struct qcg__Event *out)
{
	memset(out, 0, sizeof(*out));
	out->sequence = in->sequence;
	out->kind = soap_strdup(soap, in->kind);
	out->job = soap_strdup(soap, in->job);
	out->node = dup_or_null(soap, in->node);
	if (in->has_port && (out->port = FE_SOAP_NEW(soap, unsigned short, 1)))
		*out->port = in->port;
	if (in->has_initiator && (out->initiator = FE_SOAP_NEW(soap, struct qcg__AccessPoint, 1)))
		fe_access_point_to_soap(soap, &in->initiator, out->initiator);
	out->initiatorPublicAddress = dup_or_null(soap, in->initiator_public_address);
	if (in->has_decision && (out->decision = FE_SOAP_NEW(soap, struct qcg__Decision, 1)))
		fe_decision_to_soap(soap, &in->decision, out->decision);
}
