/*
 * helper_jobs.h: what the helper knows about the jobs on its node: each job's token and
 * account (who may use the local API for it), the processes waiting for inbound sockets
 * (WAIT_INBOUND), and inbound sockets parked until their process asks.
 *
 * Where tokens come from: the launcher gives every job a random token in the environment
 * (QCG_JOB_TOKEN) of what it launches, so a Launch through this helper records job -> token and
 * the launch's account. For processes this helper did not launch (tests, a batch system), a
 * token file (helper.token_file, lines "JOB TOKEN ACCOUNT") is read at start and again when a
 * HELLO names a job not yet known.
 */
#ifndef QCG_HELPER_JOBS_H
#define QCG_HELPER_JOBS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "helper_proto.h"
#include "model.h"

#define HELPER_JOBS_MAX 1024    /* jobs known at once */
#define HELPER_WAITERS_MAX 4096 /* WAIT_INBOUND connections at once */
#define HELPER_PARKED_MAX 256   /* inbound sockets waiting for their process */
#define HELPER_JOB_TOKEN_ENV "QCG_JOB_TOKEN"

struct helper_jobs;

struct helper_jobs *helper_jobs_new(const char *token_file, int park_ms);
void helper_jobs_free(struct helper_jobs *jobs);

/* Record job's token and account uid (from a Launch). -1 with err when the job already has a
 * different token or the table is full. */
int helper_jobs_set_token(struct helper_jobs *jobs, const char *job, const char *token, uid_t uid,
    char *err, size_t errlen);
/* Whether a caller with peer_uid may act for job with token: 0, or an HELPER_ERR_* code with err
 * (which never contains the token). Root is always allowed the uid part. */
int helper_jobs_check(struct helper_jobs *jobs, const char *job, const char *token, uid_t peer_uid,
    char *err, size_t errlen);
/* Forget job: its token, waiters (their connections are shut down) and parked sockets. */
void helper_jobs_forget(struct helper_jobs *jobs, const char *job);

/* Make sock the inbound channel of (job, port) and send it the OK of WAIT_INBOUND; parked
 * sockets for it are handed off right after (no HANDOFF can overtake the OK). -1 with err when
 * another connection waits on that port already or the OK could not be sent. */
int helper_jobs_add_waiter(struct helper_jobs *jobs, const char *job, uint16_t port, int sock,
    char *err, size_t errlen);
void helper_jobs_remove_waiter(struct helper_jobs *jobs, int sock);

/*
 * Hand the connected socket fd to the process waiting on (job, port) with the HANDOFF message
 * handoff (type HANDOFF; the FD flag is set here). Takes ownership of fd: it is closed once
 * sent, so the helper keeps no copy. With no waiter yet, fd is parked for park_ms. -1 with err
 * when it could be neither sent nor parked (fd is closed then too).
 */
int helper_jobs_hand_inbound(struct helper_jobs *jobs, const char *job, uint16_t port, int fd,
    const struct helper_msg *handoff, char *err, size_t errlen);
/* Close parked sockets whose time is up (called about once a second). */
void helper_jobs_expire(struct helper_jobs *jobs);

/* Parse one token-file line into job/token/account; 1 for a blank or comment line, 0 for an
 * entry, -1 with err for a malformed line. Pure, for the unit test. */
int helper_token_line_parse(const char *line, char job[QCG_NAME_MAX],
    char token[HELPER_TOKEN_MAX + 1], char account[64], char *err, size_t errlen);

#endif
