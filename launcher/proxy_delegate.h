/*
 * proxy_delegate.h: a short-lived RFC 3820 proxy certificate for the job itself, made on the
 * user's host from the credential qcg-submit runs with (a proxy, or the certificate and key),
 * never a copy of that credential. When mpirun runs inside the job (submit_remote.h), its
 * qcg-rsh on the first node reaches the other clusters' front-ends with this proxy: the user's
 * authority for as long as the job may run, and not longer.
 */
#ifndef QCG_PROXY_DELEGATE_H
#define QCG_PROXY_DELEGATE_H

#include <stddef.h>
#include <time.h>

#include "user_creds.h"

#define PROXY_DELEGATE_SECONDS_MIN 600      /* the start-up and stage-in count too */
#define PROXY_DELEGATE_SECONDS_DEFAULT 43200 /* a job without a wall time: 12 h, as
                                             * qcg-proxy-init's default */
#define PROXY_DELEGATE_BITS 2048

/* The lifetime to ask for a job of walltime seconds (0: none given): the wall time and
 * grace_seconds (stage-in, start-up, the stop), at least PROXY_DELEGATE_SECONDS_MIN and at most
 * PROXY_SECONDS_MAX. proxy_make cuts it at the signer's own end. */
long proxy_delegate_lifetime(long walltime, long grace_seconds);

/* Sign a new proxy with creds (cert_file's chain, key_file's key) valid for seconds from now,
 * and write it with its key and the signer's chain to path, mode 0600. 0, or -1 with err. */
int proxy_delegate_write(const struct user_creds *creds, long seconds, time_t now,
    const char *path, char *err, size_t errlen);

#endif
