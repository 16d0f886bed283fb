/*
 * convert.h: between the generated SOAP structs and the model's plain structs.
 *
 * Inbound conversions check every field (present when required, within its size limit) and
 * on failure set a Client fault naming the field, returning its code; outbound conversions
 * allocate in the request's gSOAP memory, freed by soap_end after the response is sent.
 */
#ifndef QCG_BROKER_CONVERT_H
#define QCG_BROKER_CONVERT_H

#include "soapH.h"
#include "events.h"
#include "model.h"
#include "soap_model.h" /* the shared conversions: access points, proxies, decisions */

/* Copy a SOAP string into a fixed field. */
int convert_string_in(struct soap *soap, char *dst, size_t dstlen, const char *src,
    const char *what, int required);

int convert_cluster_in(struct soap *soap, const struct qcg__Cluster *in, struct cluster *out);
void convert_cluster_out(struct soap *soap, const struct cluster *in, struct qcg__Cluster *out);
int convert_proxy_in(struct soap *soap, const struct qcg__Proxy *in, struct proxy *out);
int convert_job_in(struct soap *soap, const struct qcg__Job *in, struct job *out);
void convert_job_out(struct soap *soap, const struct job *in, struct qcg__Job *out);
int convert_access_point_in(struct soap *soap, const struct qcg__AccessPoint *in,
    struct access_point *out);
int convert_connection_in(struct soap *soap, const struct qcg__Connection *in,
    struct connection_record *out);
void convert_connection_out(struct soap *soap, const struct connection_record *in,
    struct qcg__Connection *out);
void convert_event_out(struct soap *soap, const struct broker_event *in, struct qcg__Event *out);
void convert_multicast_out(struct soap *soap, const struct multicast_group *in,
    struct qcg__MulticastGroup *out);

/* A service's lease as the state queries show it, ages taken at now (unix seconds); *out is
 * NULL when out of memory. */
void convert_liveness_out(struct soap *soap, const struct liveness *in, int64_t now,
    struct qcg__Liveness **out);

#endif
