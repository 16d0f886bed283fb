/*
 * privsep_client.h: the unprivileged helper's side of the launcher's socketpair
 * (privsep_proto.h). One request at a time (a mutex), each bounded by a receive timeout.
 */
#ifndef QCG_PRIVSEP_CLIENT_H
#define QCG_PRIVSEP_CLIENT_H

#include <stddef.h>
#include <sys/types.h>

#include "privsep_proto.h"

struct privsep_client;

/* Take over fd (the helper's end of the socketpair); NULL when out of memory. */
struct privsep_client *privsep_client_new(int fd);
void privsep_client_free(struct privsep_client *c);

/* Start argv as uid in workdir ("" for the home) with exactly env (the launcher adds the
 * mark). *pid, *out_fd and *err_fd (non-blocking read ends) and *in_fd (its stdin's write
 * end) on success; -1 with err. */
int privsep_client_launch(struct privsep_client *c, const char *id, uid_t uid,
    const char *workdir, char *const *argv, int argc, char *const *env, int envc, pid_t *pid,
    int *out_fd, int *err_fd, int *in_fd, char *err, size_t errlen);
/* Signal launch id; -1 with err when nothing was signalled. */
int privsep_client_signal(struct privsep_client *c, const char *id, int sig, char *err,
    size_t errlen);
/* Up to PRIVSEP_REAP_MAX statuses of launches that ended; the count, or -1 with err. */
int privsep_client_reap(struct privsep_client *c, struct privsep_reaped out[PRIVSEP_REAP_MAX],
    char *err, size_t errlen);
/* Kill every launch (TERM, then KILL) and start none from now on. */
int privsep_client_stop(struct privsep_client *c, char *err, size_t errlen);

#endif
