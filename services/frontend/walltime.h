/*
 * walltime.h: the front-end's wall-time keeper. A committed reservation that asked for a wall
 * time is released by the front-end itself once that time has passed since its commit, and
 * its launches are killed through their helpers, as a Release would. qcg-submit keeps the wall
 * time too (it stops the job cleanly, with its own exit status); this thread is what still
 * holds when the launcher has died or lost its network, so a grid job never keeps a cluster's
 * nodes for ever. The same thread releases the reservations of a job the broker says has
 * ended (qcg-cancel from any host, or a launcher that set the final state but never released)
 * once frontend.job_end_grace has passed: a living launcher releases them itself meanwhile.
 */
#ifndef QCG_WALLTIME_H
#define QCG_WALLTIME_H

#include <stddef.h>

struct frontend;
struct walltime_keeper;

#define WALLTIME_CHECK_MS 500 /* how often reservations are looked at */

/* Start the thread (with its own helper client context); NULL with err set. */
struct walltime_keeper *walltime_start(struct frontend *fe, char *err, size_t errlen);
/* Stop the thread and free. */
void walltime_stop(struct walltime_keeper *k);

#endif
