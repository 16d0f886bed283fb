/*
 * privsep_proto.h: the messages between qcg-helper's unprivileged half and its privileged
 * launcher (privsep_launcher.h), in the manner of relayd's imsg and helper_proto.h.
 *
 * The two talk over a SOCK_SEQPACKET socketpair: one message per packet, so a packet is
 * always whole or refused, and a bad one never desynchronises the next. Requests go from
 * the helper to the launcher, each answered by exactly one reply:
 *
 *   LAUNCH  launch as uid U: argv, environment, working directory; the reply carries the
 *           process id and, by SCM_RIGHTS, the read ends of its stdout and stderr pipes and
 *           the write end of its stdin pipe (PRIVSEP_LAUNCH_FDS descriptors)
 *   SIGNAL  signal launch N: its process group while the leader runs, and every process of
 *           the launch's account that carries the launch's mark (LAUNCH_MARK_ENV)
 *   REAP    the exit statuses of launches that ended since the last REAP
 *   STOP    TERM, then KILL, every launch; the launcher keeps serving (nothing may start)
 *
 * Every request has a fixed size except LAUNCH, whose fixed part is followed by exactly
 * 1 + argc + envc NUL-terminated strings (working directory, argv, environment) and nothing
 * else. Decoding never trusts a length: privsep_request_decode checks the packet's size
 * against the header, the header against the type, and the strings against the counts. It
 * is what the launcher runs on every packet and what the fuzz target calls.
 */
#ifndef QCG_PRIVSEP_PROTO_H
#define QCG_PRIVSEP_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launch.h"

#define PRIVSEP_MSG_MAX (128 * 1024) /* bytes of one packet: below the default socket buffer */
#define PRIVSEP_REASON_MAX 256       /* a refusal's text, with the NUL */
#define PRIVSEP_REAP_MAX 64          /* exit statuses in one REAP reply */
#define PRIVSEP_LAUNCH_FDS 3         /* a LAUNCH reply's descriptors: stdout, stderr, stdin */

enum privsep_type {
	PRIVSEP_LAUNCH = 1,
	PRIVSEP_SIGNAL = 2,
	PRIVSEP_REAP = 3,
	PRIVSEP_STOP = 4,
	PRIVSEP_REPLY = 100,
};

struct privsep_hdr {
	uint32_t type;  /* enum privsep_type */
	uint32_t len;   /* bytes of the whole packet, this header included */
};

/* LAUNCH's fixed part; the strings follow. */
struct privsep_launch_msg {
	struct privsep_hdr hdr;
	uint32_t uid;                /* the account to run as; its groups come from the passwd */
	uint32_t argc;               /* 1..LAUNCH_ARGS_MAX */
	uint32_t envc;               /* 0..LAUNCH_ENV_MAX */
	char id[LAUNCH_ID_MAX];      /* the launch id, NUL-terminated, unique among live launches */
};

struct privsep_signal_msg {
	struct privsep_hdr hdr;
	int32_t sig;                 /* 1..NSIG-1 */
	char id[LAUNCH_ID_MAX];
};

struct privsep_reaped {
	int32_t pid;
	int32_t status;              /* as waitpid gives it */
};

/* The one reply, fixed size. ok: 1 done, 0 refused (reason says why). */
struct privsep_reply_msg {
	struct privsep_hdr hdr;
	uint32_t ok;
	int32_t pid;                 /* LAUNCH: the process (its group and session too) */
	uint32_t nreaped;            /* REAP: entries of reaped used */
	uint32_t signalled;          /* SIGNAL: processes signalled */
	char reason[PRIVSEP_REASON_MAX];
	struct privsep_reaped reaped[PRIVSEP_REAP_MAX];
};

/* A decoded request; strings point into the packet, the arrays are malloc'ed. */
struct privsep_request {
	enum privsep_type type;
	uid_t uid;
	int sig;
	char id[LAUNCH_ID_MAX];
	const char *workdir;         /* "" for the account's home */
	char **argv;                 /* argc entries and a NULL */
	int argc;
	char **env;                  /* envc entries and a NULL */
	int envc;
};

/* Decode and check one packet of len bytes; -1 with err naming what is wrong. */
int privsep_request_decode(const uint8_t *buf, size_t len, struct privsep_request *out,
    char *err, size_t errlen);
void privsep_request_free(struct privsep_request *req);

/* Encode a LAUNCH into a malloc'ed packet (*out, *outlen); -1 with err when it does not
 * fit in PRIVSEP_MSG_MAX. */
int privsep_launch_encode(const char *id, uid_t uid, const char *workdir, char *const *argv,
    int argc, char *const *env, int envc, uint8_t **out, size_t *outlen, char *err,
    size_t errlen);

/* Check a reply packet's size and type; -1 with err otherwise. */
int privsep_reply_check(const struct privsep_reply_msg *reply, size_t len, char *err,
    size_t errlen);

#endif
