/*
 * soap_model.h: the one place where the types gSOAP generates from wsdl/qcg-types.xsd (qcg__*)
 * meet the model of lib/model.h.
 *
 * The XSD's enumerations and the model's enums have the same numbers, and soap_model.c proves
 * it at compile time (_Static_assert per value): a value added to one and not the other, or
 * reordered, stops the build instead of silently meaning another method on the wire. So the
 * enum conversions below are plain casts, and every other file converts through them.
 */
#ifndef QCG_SOAP_MODEL_H
#define QCG_SOAP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "soapH.h"
#include "model.h"

/* gSOAP's allocator, typed: the memory lives until the context's soap_end. */
#define SOAP_MODEL_NEW(soap, type, n) ((type *)soap_malloc((soap), sizeof(type) * (size_t)(n)))

enum qcg__Policy soap_model_policy_out(enum cluster_policy policy);
enum cluster_policy soap_model_policy_in(enum qcg__Policy policy);

enum qcg__Method soap_model_method_out(enum connect_method method);
/* The generated value as the model's method. gSOAP's strict parser lets only the XSD's values
 * through, so this needs no check; soap_model_method_valid says whether a value that did not
 * come from the parser (a zeroed or cast field) is one. */
enum connect_method soap_model_method_in(enum qcg__Method method);
int soap_model_method_valid(enum qcg__Method method);

enum qcg__JobState soap_model_job_state_out(enum job_state state);
enum job_state soap_model_job_state_in(enum qcg__JobState state);

enum qcg__EventKind soap_model_event_kind_out(enum event_kind kind);
enum event_kind soap_model_event_kind_in(enum qcg__EventKind kind);

/*
 * Structs. Outbound conversions allocate in soap's memory (freed by its soap_end); a NULL from
 * the allocator leaves the optional field out. Inbound conversions of an answer (what a
 * front-end reads from the broker, or a helper from its front-end) check every length and
 * return -1 with err naming the field; they never keep pointers into the SOAP memory.
 */
LONG64 *soap_model_long_out(struct soap *soap, int64_t v);
unsigned short *soap_model_ushort_out(struct soap *soap, uint16_t v);
/* An optional method field (Resolve's after). */
enum qcg__Method *soap_model_method_new(struct soap *soap, enum connect_method method);

/* Copy src (NULL reads as "") into a fixed field, or name the field that does not fit or holds
 * a control character (what is copied goes into logs and on to other services). */
int soap_model_string_in(char *dst, size_t dstlen, const char *src, const char *what, char *err,
    size_t errlen);

void soap_model_access_point_out(struct soap *soap, const struct access_point *in,
    struct qcg__AccessPoint *out);
int soap_model_access_point_in(const struct qcg__AccessPoint *in, struct access_point *out,
    char *err, size_t errlen);

void soap_model_proxy_out(struct soap *soap, const struct proxy *in, struct qcg__Proxy *out);

/*
 * A decision: the relay id is 32 hex digits on the wire, and only for the methods that need
 * the target side; the target only when has_target says so, its public address when known.
 */
void soap_model_decision_out(struct soap *soap, const struct decision *in,
    struct qcg__Decision *out);
int soap_model_decision_in(const struct qcg__Decision *in, struct decision *out, char *err,
    size_t errlen);

/* An event as a front-end or proxy receives it and a front-end forwards it; only the fields
 * the event has are sent. When the event_in fails, out->sequence is still set, so that a
 * receiver can step past a malformed event. */
int soap_model_event_in(const struct qcg__Event *in, struct qcg_event *out, char *err,
    size_t errlen);
void soap_model_event_out(struct soap *soap, const struct qcg_event *in, struct qcg__Event *out);

/*
 * What a service is asked to store (soap_model_request.c): every field is checked (present
 * when required, within its size limit, no control characters, well-formed addresses) and a
 * failure sets a Client fault naming the field and returns its code (SOAP_OK otherwise).
 */
int soap_model_request_cluster_in(struct soap *soap, const struct qcg__Cluster *in,
    struct cluster *out);
int soap_model_request_proxy_in(struct soap *soap, const struct qcg__Proxy *in,
    struct proxy *out);
/* job->description is borrowed from the request, for its lifetime. */
int soap_model_request_job_in(struct soap *soap, const struct qcg__Job *in, struct job *out);
/* A job's clusters (count of them at in, at most QCG_JOB_CLUSTERS_MAX, names unique) into out. */
int soap_model_request_job_clusters_in(struct soap *soap, int count,
    const struct qcg__JobCluster *in, struct job_cluster_record *out);
int soap_model_request_access_point_in(struct soap *soap, const struct qcg__AccessPoint *in,
    struct access_point *out);
/* An access point whose fields may be empty (a helper's, which its front-end completes): only
 * the limits and control characters are checked. */
int soap_model_request_any_access_point_in(struct soap *soap, const struct qcg__AccessPoint *in,
    struct access_point *out);
int soap_model_request_connection_in(struct soap *soap, const struct qcg__Connection *in,
    struct connection_record *out);
/* An outcome as a node reports it: with a toAddress the target's cluster and node may be left
 * out (the broker finds them). The reporter's names are required when from_required (a
 * front-end fills them in from its caller's identity). */
int soap_model_request_report_in(struct soap *soap, const struct qcg__Connection *in,
    int from_required, struct connection_report *out);

/* Listings. */
void soap_model_cluster_out(struct soap *soap, const struct cluster *in,
    struct qcg__Cluster *out);
void soap_model_job_out(struct soap *soap, const struct job *in, struct qcg__Job *out);
/* Add a job's clusters to out (after soap_model_job_out); none when out of memory. */
void soap_model_job_clusters_out(struct soap *soap, const struct job_cluster_record *in,
    size_t count, struct qcg__Job *out);
void soap_model_connection_out(struct soap *soap, const struct connection_record *in,
    struct qcg__Connection *out);
void soap_model_multicast_out(struct soap *soap, const struct multicast_group *in,
    struct qcg__MulticastGroup *out);
void soap_model_relay_resume_out(struct soap *soap, const struct relay_resume *in,
    struct qcg__RelayResume *out);
/* A service's lease as the state queries show it, ages taken at now (unix seconds); *out is
 * NULL when out of memory. */
void soap_model_liveness_out(struct soap *soap, const struct liveness *in, int64_t now,
    struct qcg__Liveness **out);

/*
 * A client's side of a call (soap_model_client.c). What it sends is built in the call's soap
 * memory, so that the request owns it; each returns NULL when out of memory. What it reads back
 * is checked as the inbound conversions above are (-1 or NULL with err naming the field); a
 * listing's rows live in soap's memory, until the context's soap_end.
 */
struct qcg__AccessPoint *soap_model_access_points_new(struct soap *soap,
    const struct access_point *in, size_t n);
/* Outcomes as a node reports them (the target by address where the report says only that). */
struct qcg__Connection *soap_model_reports_new(struct soap *soap,
    const struct connection_report *in, size_t n);
/* Registrations: only what the broker takes from the caller (not the DN, not the load). */
struct qcg__Cluster *soap_model_cluster_registration_new(struct soap *soap,
    const struct cluster *in);
struct qcg__Proxy *soap_model_proxy_registration_new(struct soap *soap, const struct proxy *in);
struct qcg__Event *soap_model_event_new(struct soap *soap, const struct qcg_event *in);
/* RecordJob's job: its id, state and description. */
struct qcg__Job *soap_model_job_record_new(struct soap *soap, const struct job *in);
struct qcg__JobCluster *soap_model_job_clusters_new(struct soap *soap,
    const struct job_cluster_record *in, size_t n);
/* A launch's output (the bytes copied into soap's memory), and read back (bytes borrowed). */
struct qcg__Output *soap_model_output_new(struct soap *soap, const struct output_chunk *in);
void soap_model_output_in(const struct qcg__Output *in, struct output_chunk *out);
int soap_model_multicast_in(const struct qcg__MulticastGroup *in, struct multicast_group *out,
    char *err, size_t errlen);
/* NULL (a broker that does not say) reads as known = false. */
void soap_model_liveness_in(const struct qcg__Liveness *in, struct liveness_report *out);
/* The listings (n rows at in). */
struct cluster_listing *soap_model_clusters_in(struct soap *soap, const struct qcg__Cluster *in,
    int n, char *err, size_t errlen);
struct proxy_listing *soap_model_proxies_in(struct soap *soap, const struct qcg__Proxy *in,
    int n, char *err, size_t errlen);
int soap_model_job_in(const struct qcg__Job *in, struct job_listing *out, char *err,
    size_t errlen);
struct job_listing *soap_model_jobs_in(struct soap *soap, const struct qcg__Job *in, int n,
    char *err, size_t errlen);
struct access_point *soap_model_access_points_in(struct soap *soap,
    const struct qcg__AccessPoint *in, int n, char *err, size_t errlen);
struct connection_record *soap_model_connections_in(struct soap *soap,
    const struct qcg__Connection *in, int n, char *err, size_t errlen);
struct relay_resume *soap_model_relay_resumes_in(struct soap *soap,
    const struct qcg__RelayResume *in, int n, char *err, size_t errlen);

#endif
