/*
 * helper_direct.h: connections the helper decides by itself, with no Resolve (issue 15).
 *
 * The front-end names the networks its nodes connect to directly (GetConnectInfo:
 * frontend.direct_networks, typically the cluster's own networks) and the listeners each job
 * registered in the cluster. A first connect to one of the job's listeners inside those
 * networks is direct at once (a connect to anything else, such as a service that is not the
 * job's, which must get no origin preamble, goes the old way); its record goes to the broker
 * in a batch (helper_outcomes.h), so that the broker's connection log still lists it.
 */
#ifndef QCG_HELPER_DIRECT_H
#define QCG_HELPER_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

struct helper;

#define DIRECT_INFO_TTL_S 30       /* GetConnectInfo is asked again after this long */
#define DIRECT_INFO_RETRY_S 5      /* ... or this long after it failed */
#define DIRECT_JOBS_MAX 16         /* jobs whose listener lists are kept (the oldest goes) */
#define DIRECT_REFRESH_MS 250      /* a job's list is asked again on a miss, at most this often */

/* One listener of a job in this cluster. */
struct direct_target {
	char address[QCG_ADDR_MAX];
	uint16_t port;
};

/* Whether a connect to address:port by a process of job may go straight out without asking:
 * address lies in the front-end's direct networks and address:port is one of the job's
 * listeners in this cluster. Asks the front-end when what we know is older than the TTL, or
 * on a miss (at most every DIRECT_REFRESH_MS per job); false whenever we do not know (the
 * old way is always correct). */
bool helper_direct_applies(struct helper *h, const char *job, const char *address,
    uint16_t port);

/* Forget what we know of job's listeners (it ended). */
void helper_direct_forget_job(const char *job);

#endif
