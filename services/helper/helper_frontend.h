/*
 * helper_frontend.h: qcg-helper's calls to its front-end (wsdl/frontend.wsdl): register an
 * access point, resolve a peer, report an outcome (or a batch of them), learn the direct
 * networks. Each call opens a TLS connection with the
 * node's host certificate, so concurrent callers never share a gSOAP context.
 */
#ifndef QCG_HELPER_FRONTEND_H
#define QCG_HELPER_FRONTEND_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct helper;

/* Why a Resolve gave no decision: the broker's fault kind, passed on by the front-end. */
enum helper_no_answer {
	HELPER_NO_ANSWER_FAILED,          /* any other failure (unreachable, refused, ...) */
	HELPER_NO_ANSWER_NO_METHOD,       /* no (further) method connects the pair */
	HELPER_NO_ANSWER_NO_ACCESS_POINT, /* nothing of the job listens at the target */
};

/* Each returns 0, or -1 with err (and, for resolve, *no_answer saying why). */
int helper_frontend_register(struct helper *h, const struct access_point *ap, char *err,
    size_t errlen);
int helper_frontend_resolve(struct helper *h, const char *job, uint16_t from_port,
    const char *to_address, uint16_t to_port, int after, struct decision *out,
    enum helper_no_answer *no_answer, char *err, size_t errlen);
/* AllocateMulticastGroup for job: a group no other job holds, into address/port. */
int helper_frontend_mcast_group(struct helper *h, const char *job, char address[QCG_ADDR_MAX],
    uint16_t *port, char *err, size_t errlen);
int helper_frontend_report(struct helper *h, const struct connection_record *rec, char *err,
    size_t errlen);
/* ResumeRelay: a new relay for job's relay relay_id (32 hex digits) whose leg broke (issue
 * 14); *refused says whether the front-end or broker refused it (not a failure to ask). */
int helper_frontend_resume_relay(struct helper *h, const char *job, const char *relay_id,
    struct decision *out, bool *refused, char *err, size_t errlen);
/* ReportReplay: a process sent `bytes` again after the resume that made relay_id. */
int helper_frontend_report_replay(struct helper *h, const char *job, const char *relay_id,
    uint64_t bytes, char *err, size_t errlen);

struct direct_target;
struct connection_report;
/* GetConnectInfo: the networks this node connects to without asking ("" = none), and job's
 * listeners in this cluster (*listeners malloc'd, *count of them; the caller frees). */
int helper_frontend_connect_info(struct helper *h, const char *job,
    char networks[QCG_NETWORKS_MAX], struct direct_target **listeners, size_t *count,
    char *err, size_t errlen);
/* ReportOutcomes: n (at most OUTCOME_SEND_MAX) records of connections (helper_outcomes.h). */
int helper_frontend_report_batch(struct helper *h, const struct connection_report *recs, size_t n,
    char *err, size_t errlen);

/* RegisterAccessPoints: n (1-REG_BATCH_MAX) access points in one call; one caller at a time
 * (the registration batch thread). */
int helper_frontend_register_batch(struct helper *h, const struct access_point *aps, size_t n,
    char *err, size_t errlen);

#endif
