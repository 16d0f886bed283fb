/*
 * local_listeners.h: the listeners each job registered in this cluster, as RegisterAccessPoint
 * forwarded them. Helpers fetch a job's list (GetConnectInfo) to connect to those listeners
 * without a Resolve; a connect elsewhere (not the job's, or another cluster's) goes the old
 * way. Bounded per job and in jobs; a job's list goes when the job ends.
 */
#ifndef QCG_LOCAL_LISTENERS_H
#define QCG_LOCAL_LISTENERS_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define LOCAL_LISTENERS_PER_JOB 16384 /* the WSDL's maxOccurs of GetConnectInfo's listener */
#define LOCAL_LISTENERS_JOBS 256      /* jobs tracked at once; the oldest job's list goes */

struct local_listeners;

struct local_listener {
	char address[QCG_ADDR_MAX];
	uint16_t port;
};

struct local_listeners *local_listeners_new(void);
void local_listeners_free(struct local_listeners *l);
/* Add (job, address, port) unless the job lists it already. Not unique by port alone: each
 * node has its own port space, so ranks on two nodes often bind the same port (as the broker's
 * registry learnt, migration 008). 0, or -1 when the job holds LOCAL_LISTENERS_PER_JOB already
 * (it is left out: its connects are then resolved, which is always correct). */
int local_listeners_add(struct local_listeners *l, const char *job, const char *address,
    uint16_t port);
/* Copy up to max of job's listeners into out; returns how many. */
size_t local_listeners_of_job(struct local_listeners *l, const char *job,
    struct local_listener *out, size_t max);
/* Forget job (it ended). */
void local_listeners_drop_job(struct local_listeners *l, const char *job);

#endif
