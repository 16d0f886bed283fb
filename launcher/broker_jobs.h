/*
 * broker_jobs.h: what the launcher's commands ask the broker (broker.wsdl): record a job, move
 * it through its states, read it back, and find each cluster's front-end.
 */
#ifndef QCG_BROKER_JOBS_H
#define QCG_BROKER_JOBS_H

#include <stddef.h>

#include "model.h"

struct soap;
struct coalloc;

/* Record job id (state pending) with a one-line description. 0, or -1 with err; *auth is set
 * when the broker refused us (not in its grid-mapfile, TLS). */
int broker_record_job(struct soap *soap, const char *url, const char *id, const char *summary,
    int *auth, char *err, size_t errlen);
int broker_set_state(struct soap *soap, const char *url, const char *id, enum job_state state,
    int exit_code, char *err, size_t errlen);
/* State running, recording every cluster of c with the batch job that holds its nodes (for
 * qcg-status and qcg-query). */
int broker_set_running(struct soap *soap, const char *url, const char *id,
    const struct coalloc *c, char *err, size_t errlen);
/* The job's current state; -1 with err when the broker cannot say. */
int broker_get_state(struct soap *soap, const char *url, const char *id, enum job_state *state,
    char *err, size_t errlen);
/* Fill every part's frontend_url: $QCG_FRONTEND_URL_<cluster> if set, else the endpoint the
 * cluster's front-end registered. -1 with err when the broker cannot be asked (*auth set when
 * it refused us); BROKER_UNKNOWN_CLUSTER with err "origin:line: cluster X is not registered
 * ..." when the description names a cluster the broker does not know (a mistake in the
 * description, origin its file). Nothing is reserved either way. */
#define BROKER_UNKNOWN_CLUSTER (-2)
int broker_find_frontends(struct soap *soap, const char *url, const char *origin,
    struct coalloc *c, int *auth, char *err, size_t errlen);

#endif
