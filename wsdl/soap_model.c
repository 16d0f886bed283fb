/*
 * soap_model.c: conversions between the generated SOAP types and the model (soap_model.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "relay_id.h"
#include "soap_model.h"
#include "soap_server.h" /* soap_has_control_char */

/* Each XSD enumeration value is the model's value of the same name (lib/model.h). */
_Static_assert(qcg__Policy__open == (int)POLICY_OPEN, "Policy open");
_Static_assert(qcg__Policy__port_range == (int)POLICY_PORT_RANGE, "Policy port-range");
_Static_assert(qcg__Policy__nat == (int)POLICY_NAT, "Policy nat");
_Static_assert(qcg__Policy__closed == (int)POLICY_CLOSED, "Policy closed");

_Static_assert(qcg__Method__direct == (int)METHOD_DIRECT, "Method direct");
_Static_assert(qcg__Method__port_range == (int)METHOD_PORT_RANGE, "Method port-range");
_Static_assert(qcg__Method__reversal == (int)METHOD_REVERSAL, "Method reversal");
_Static_assert(qcg__Method__traversal == (int)METHOD_TRAVERSAL, "Method traversal");
_Static_assert(qcg__Method__relay == (int)METHOD_RELAY, "Method relay");
_Static_assert(qcg__Method__relay_chain == (int)METHOD_RELAY_CHAIN, "Method relay-chain");
_Static_assert(qcg__Method__none == (int)METHOD_NONE, "Method none");

_Static_assert(qcg__JobState__pending == (int)JOB_PENDING, "JobState pending");
_Static_assert(qcg__JobState__running == (int)JOB_RUNNING, "JobState running");
_Static_assert(qcg__JobState__done == (int)JOB_DONE, "JobState done");
_Static_assert(qcg__JobState__failed == (int)JOB_FAILED, "JobState failed");
_Static_assert(qcg__JobState__cancelled == (int)JOB_CANCELLED, "JobState cancelled");
_Static_assert(qcg__JobState__queued == (int)JOB_QUEUED, "JobState queued");

_Static_assert(qcg__EventKind__connect == (int)EVENT_CONNECT, "EventKind connect");
_Static_assert(qcg__EventKind__job_ended == (int)EVENT_JOB_ENDED, "EventKind job-ended");
_Static_assert(qcg__EventKind__relay == (int)EVENT_RELAY, "EventKind relay");
_Static_assert(qcg__EventKind__policy_changed == (int)EVENT_POLICY_CHANGED,
    "EventKind policy-changed");

/* The enumerations agree value for value (the asserts above), so each conversion is a cast the
 * compiler has checked; one definition gives both directions. */
#define SOAP_MODEL_ENUM(stem, soap_enum, model_enum) \
	soap_enum soap_model_##stem##_out(model_enum v) { return (soap_enum)v; } \
	model_enum soap_model_##stem##_in(soap_enum v) { return (model_enum)v; }

SOAP_MODEL_ENUM(policy, enum qcg__Policy, enum cluster_policy)
SOAP_MODEL_ENUM(method, enum qcg__Method, enum connect_method)
SOAP_MODEL_ENUM(job_state, enum qcg__JobState, enum job_state)
SOAP_MODEL_ENUM(event_kind, enum qcg__EventKind, enum event_kind)

int
soap_model_method_valid(enum qcg__Method method)
{
	return (int)method >= (int)qcg__Method__direct && (int)method <= (int)qcg__Method__none;
}

LONG64 *
soap_model_long_out(struct soap *soap, int64_t v)
{
	LONG64 *p = SOAP_MODEL_NEW(soap, LONG64, 1);
	if (p)
		*p = v;
	return p;
}

enum qcg__Method *
soap_model_method_new(struct soap *soap, enum connect_method method)
{
	enum qcg__Method *p = SOAP_MODEL_NEW(soap, enum qcg__Method, 1);
	if (p)
		*p = soap_model_method_out(method);
	return p;
}

unsigned short *
soap_model_ushort_out(struct soap *soap, uint16_t v)
{
	unsigned short *p = SOAP_MODEL_NEW(soap, unsigned short, 1);
	if (p)
		*p = v;
	return p;
}

int
soap_model_string_in(char *dst, size_t dstlen, const char *src, const char *what, char *err,
    size_t errlen)
{
	if (src == NULL)
		src = "";
	if (strlen(src) >= dstlen) {
		snprintf(err, errlen, "%s is longer than %zu bytes", what, dstlen - 1);
		return -1;
	}
	if (soap_has_control_char(src)) {
		snprintf(err, errlen, "%s must not hold control characters", what);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

/* soap_strdup of a field that is left out when empty. */
static char *
dup_or_null(struct soap *soap, const char *s)
{
	return s[0] ? soap_strdup(soap, s) : NULL;
}

void
soap_model_access_point_out(struct soap *soap, const struct access_point *in,
    struct qcg__AccessPoint *out)
{
	out->job = soap_strdup(soap, in->job);
	out->cluster = soap_strdup(soap, in->cluster);
	out->node = soap_strdup(soap, in->node);
	out->address = soap_strdup(soap, in->address);
	out->port = in->port;
	out->process = soap_strdup(soap, in->process);
}

int
soap_model_access_point_in(const struct qcg__AccessPoint *in, struct access_point *out,
    char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (soap_model_string_in(out->job, sizeof(out->job), in->job, "accessPoint.job", err,
		errlen) ||
	    soap_model_string_in(out->cluster, sizeof(out->cluster), in->cluster,
		"accessPoint.cluster", err, errlen) ||
	    soap_model_string_in(out->node, sizeof(out->node), in->node, "accessPoint.node", err,
		errlen) ||
	    soap_model_string_in(out->address, sizeof(out->address), in->address,
		"accessPoint.address", err, errlen) ||
	    soap_model_string_in(out->process, sizeof(out->process), in->process,
		"accessPoint.process", err, errlen))
		return -1;
	out->port = in->port;
	return 0;
}

void
soap_model_proxy_out(struct soap *soap, const struct proxy *in, struct qcg__Proxy *out)
{
	memset(out, 0, sizeof(*out));
	out->endpoint = soap_strdup(soap, in->endpoint);
	out->networks = soap_strdup(soap, in->networks);
	out->cluster = dup_or_null(soap, in->cluster);
	out->load = soap_model_long_out(soap, in->load);
	out->controlEndpoint = dup_or_null(soap, in->control_endpoint);
}

/* A proxy named in a decision: where to connect, whom it serves, how loaded it is. */
static int
proxy_in(const struct qcg__Proxy *in, struct proxy *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (soap_model_string_in(out->endpoint, sizeof(out->endpoint), in->endpoint,
		"proxy.endpoint", err, errlen) ||
	    soap_model_string_in(out->networks, sizeof(out->networks), in->networks,
		"proxy.networks", err, errlen) ||
	    soap_model_string_in(out->cluster, sizeof(out->cluster), in->cluster, "proxy.cluster",
		err, errlen))
		return -1;
	out->load = in->load ? *in->load : 0;
	return 0;
}

/* Whether a method's two halves match on a relay id (every method but the straight ones). */
static int
method_has_relay_id(enum connect_method m)
{
	return m != METHOD_DIRECT && m != METHOD_PORT_RANGE;
}

void
soap_model_decision_out(struct soap *soap, const struct decision *in, struct qcg__Decision *out)
{
	memset(out, 0, sizeof(*out));
	out->method = soap_model_method_out(in->method);
	if (in->has_target && (out->target = SOAP_MODEL_NEW(soap, struct qcg__AccessPoint, 1)))
		soap_model_access_point_out(soap, &in->target, out->target);
	out->targetPublicAddress = dup_or_null(soap, in->target_public_address);
	if (method_has_relay_id(in->method)) {
		char hex[RELAY_ID_HEX_LEN + 1];
		relay_id_format(in->relay_id.bytes, hex);
		out->relayId = soap_strdup(soap, hex);
	}
	if (in->resumable && (out->resumable = SOAP_MODEL_NEW(soap, enum xsd__boolean, 1)))
		*out->resumable = xsd__boolean__true_;
	if (in->proxy_count == 0 ||
	    !(out->proxy = SOAP_MODEL_NEW(soap, struct qcg__Proxy, in->proxy_count)))
		return;
	out->__sizeproxy = (int)in->proxy_count;
	for (size_t i = 0; i < in->proxy_count; i++)
		soap_model_proxy_out(soap, &in->proxy[i], &out->proxy[i]);
}

int
soap_model_decision_in(const struct qcg__Decision *in, struct decision *out, char *err,
    size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (in == NULL) {
		snprintf(err, errlen, "the answer has no valid decision");
		return -1;
	}
	if (!soap_model_method_valid(in->method)) {
		snprintf(err, errlen, "decision.method %d is not a method", (int)in->method);
		return -1;
	}
	out->method = soap_model_method_in(in->method);
	if (in->target) {
		out->has_target = true;
		if (soap_model_access_point_in(in->target, &out->target, err, errlen) != 0)
			return -1;
	}
	if (soap_model_string_in(out->target_public_address, sizeof(out->target_public_address),
		in->targetPublicAddress, "decision.targetPublicAddress", err, errlen))
		return -1;
	if (in->relayId && *in->relayId && relay_id_parse_hex(in->relayId, &out->relay_id) != 0) {
		snprintf(err, errlen, "decision.relayId must be %d hex digits", RELAY_ID_HEX_LEN);
		return -1;
	}
	if (in->__sizeproxy < 0 || in->__sizeproxy > 2) {
		snprintf(err, errlen, "decision has %d proxies (at most 2)", in->__sizeproxy);
		return -1;
	}
	for (int i = 0; i < in->__sizeproxy; i++)
		if (proxy_in(&in->proxy[i], &out->proxy[i], err, errlen) != 0)
			return -1;
	out->proxy_count = (size_t)in->__sizeproxy;
	out->resumable = in->resumable != NULL && *in->resumable == xsd__boolean__true_;
	return 0;
}

int
soap_model_event_in(const struct qcg__Event *in, struct qcg_event *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->sequence = in->sequence;
	out->kind = soap_model_event_kind_in(in->kind);
	if (soap_model_string_in(out->job, sizeof(out->job), in->job, "event.job", err, errlen) ||
	    soap_model_string_in(out->node, sizeof(out->node), in->node, "event.node", err, errlen) ||
	    soap_model_string_in(out->initiator_public_address,
		sizeof(out->initiator_public_address), in->initiatorPublicAddress,
		"event.initiatorPublicAddress", err, errlen))
		return -1;
	if (in->port) {
		out->has_port = true;
		out->port = *in->port;
	}
	if (in->initiator) {
		out->has_initiator = true;
		if (soap_model_access_point_in(in->initiator, &out->initiator, err, errlen) != 0)
			return -1;
	}
	if (in->decision) {
		out->has_decision = true;
		return soap_model_decision_in(in->decision, &out->decision, err, errlen);
	}
	return 0;
}

void
soap_model_event_out(struct soap *soap, const struct qcg_event *in, struct qcg__Event *out)
{
	memset(out, 0, sizeof(*out));
	out->sequence = in->sequence;
	out->kind = soap_model_event_kind_out(in->kind);
	out->job = soap_strdup(soap, in->job);
	out->node = dup_or_null(soap, in->node);
	if (in->has_port && (out->port = SOAP_MODEL_NEW(soap, unsigned short, 1)))
		*out->port = in->port;
	if (in->has_initiator &&
	    (out->initiator = SOAP_MODEL_NEW(soap, struct qcg__AccessPoint, 1)))
		soap_model_access_point_out(soap, &in->initiator, out->initiator);
	out->initiatorPublicAddress = dup_or_null(soap, in->initiator_public_address);
	if (in->has_decision && (out->decision = SOAP_MODEL_NEW(soap, struct qcg__Decision, 1)))
		soap_model_decision_out(soap, &in->decision, out->decision);
}
