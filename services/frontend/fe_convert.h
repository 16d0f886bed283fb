/*
 * fe_convert.h: the front-end's copies between generated SOAP structs and its plain structs.
 *
 * Inbound copies (from the broker's answers and events) check every length and return -1 with
 * err naming the field; outbound copies allocate in the given context's memory, which lives
 * until its soap_end.
 *
 * Much of this mirrors services/broker/convert.c; both would be better served by one shared
 * conversion module (proposed in the front-end's report), but the broker's owns SOAP faults
 * and the front-end's does not, so they stay apart for now.
 */
#ifndef QCG_FE_CONVERT_H
#define QCG_FE_CONVERT_H

#include <stddef.h>

#include "soapH.h"
#include "fe_decision.h"
#include "model.h"

int fe_access_point_from_soap(const struct qcg__AccessPoint *in, struct access_point *out,
    char *err, size_t errlen);
void fe_access_point_to_soap(struct soap *soap, const struct access_point *in,
    struct qcg__AccessPoint *out);
int fe_decision_from_soap(const struct qcg__Decision *in, struct fe_decision *out, char *err,
    size_t errlen);
void fe_decision_to_soap(struct soap *soap, const struct fe_decision *in,
    struct qcg__Decision *out);
int fe_event_from_soap(const struct qcg__Event *in, struct fe_event *out, char *err,
    size_t errlen);
void fe_event_to_soap(struct soap *soap, const struct fe_event *in, struct qcg__Event *out);

#endif
