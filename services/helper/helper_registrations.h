/*
 * helper_registrations.h: a node's REGISTERs in bulk (issue 15). The processes of a job open
 * their listeners together (MPI_Init); the helper gathers the REGISTERs that arrive within
 * helper.register_window_ms (default 2) of the first (at most REG_BATCH_MAX) and registers them with one
 * RegisterAccessPoints, which the front-end passes to the broker as one call. Each caller
 * still waits for its own answer: a listener is registered before its address is published.
 */
#ifndef QCG_HELPER_REGISTRATIONS_H
#define QCG_HELPER_REGISTRATIONS_H

#include <stddef.h>

#include "model.h"

struct helper;

#define REG_BATCH_MAX 256   /* access points per RegisterAccessPoints (the WSDL's maxOccurs) */

/* Register ap in the next batch and wait for the answer: 0, or -1 with err. A batch the
 * front-end refuses as a whole (an older front-end, or one bad access point in it) is
 * registered one by one, so each caller hears its own answer. */
int helper_registrations_submit(struct helper *h, const struct access_point *ap, char *err,
    size_t errlen);

#endif
