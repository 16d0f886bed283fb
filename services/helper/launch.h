/*
 * launch.h: processes the helper starts for its front-end (helper.wsdl Launch, ReadOutput,
 * Signal).
 *
 * Each launch runs in its own session and process group, as the mapped account (setgid,
 * initgroups, setuid when the helper is root; root itself only with allow_root_launch), in the
 * working directory given, with exactly the environment given (PATH in it is what finds
 * argv[0]). stdout and stderr go through pipes into bounded buffers (launch_output.h); one
 * supervisor thread reads the pipes and reaps the processes. A launch has ended when its
 * process was reaped and its pipes reached end of file (or 2 s after the reap, if a
 * descendant keeps them open). On shutdown every process group gets SIGTERM, then SIGKILL.
 */
#ifndef QCG_LAUNCH_H
#define QCG_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"

#define LAUNCH_ID_MAX 128           /* with the NUL */
#define LAUNCH_ARGS_MAX 4096        /* argv entries */
#define LAUNCH_ENV_MAX 4096         /* environment entries */
/* Every launch's environment carries its id under this name. Processes inherit it even when
 * they leave the launch's process group: orted started with --daemonize (what plm_rsh asks
 * for with plm_rsh_no_tree_spawn) forks, calls setsid and lets the launch's leader exit, so a
 * signal to the group would miss it. Signal finds such processes by it. */
#define LAUNCH_MARK_ENV "QCG_HELPER_LAUNCH_ID"
#define LAUNCH_STRING_MAX 65536     /* bytes of one argument or environment entry */
#define LAUNCH_READ_CHUNK (256 * 1024) /* bytes per stream one ReadOutput returns at most */
#define LAUNCH_WAIT_MAX 300         /* seconds a ReadOutput may wait */
#define LAUNCH_INPUT_CHUNK (1024 * 1024) /* bytes one launch_write_input takes at most */
#define LAUNCH_INPUT_WAIT_S 60      /* seconds a write to stdin waits for the process to read */

struct helper_jobs;

struct launch_request {
	const char *job;
	const char *account;
	char *const *argv;        /* argc entries */
	int argc;
	char *const *env;         /* envc entries, "NAME=value" */
	int envc;
	const char *workdir;      /* NULL or "": the account's home directory */
	bool input;               /* its stdin is a pipe that PUT /launch-input/ID feeds (staging); else
	                           * it reads end of file at once */
};

/* What ReadOutput returns: malloc'ed copies the caller frees with launch_result_free. */
struct launch_result {
	uint8_t *out, *err;
	size_t out_len, err_len;
	bool exited;              /* ended, and this answer holds the last of its output */
	bool signaled;            /* ended by a signal (term_signal), else exit_code */
	int exit_code;
	int term_signal;
};

/* Who a launch runs as. */
struct launch_identity {
	uid_t uid;
	gid_t gid;
	char name[64];
	char home[256];
};

struct launch_table;

struct launch_table *launch_table_new(const char *node, int max_launches, size_t output_cap,
    bool allow_root, struct helper_jobs *jobs);
/* Stop the supervisor, kill what still runs (TERM, then KILL after 2 s) and end every long
 * poll; later calls fail. Then free (which shuts down first if needed). */
void launch_table_shutdown(struct launch_table *t);
void launch_table_free(struct launch_table *t);

struct privsep_client;
/* From now on start, signal and reap through the privileged launcher (privsep_client.h);
 * the table does not own it. */
void launch_table_use_launcher(struct launch_table *t, struct privsep_client *launcher);

/* From now on launches get the node's topology file (node_topology.h); path "" or NULL stops
 * it. */
void launch_table_use_topology(struct launch_table *t, const char *path);

/* Start a process; id gets its launch id. -1 with err naming the reason (bad argument,
 * refused account, exec failure, limit). */
int launch_start(struct launch_table *t, const struct launch_request *req, char id[LAUNCH_ID_MAX],
    char *err, size_t errlen);
/* Long poll: output past the offsets (acknowledging what lies before them), waiting up to
 * timeout_s for something new. -1 with err for an unknown id or bad offsets. */
int launch_read(struct launch_table *t, const char *id, int64_t out_offset, int64_t err_offset,
    int timeout_s, struct launch_result *res, char *err, size_t errlen);
void launch_result_free(struct launch_result *res);
/* Signal the launch's process group. -1 with err when unknown, ended, or sig is invalid. */
int launch_signal(struct launch_table *t, const char *id, int sig, char *err, size_t errlen);

/* Feed len bytes (at most LAUNCH_INPUT_CHUNK) to the stdin of a launch started with input,
 * then close it if end. Waits at most LAUNCH_INPUT_WAIT_S for the process to take them (a
 * full pipe is the back-pressure that keeps the helper's memory bounded). -1 with err. */
int launch_write_input(struct launch_table *t, const char *id, const uint8_t *data, size_t len,
    bool end, char *err, size_t errlen);

/* Pure checks, for the unit test. */
int launch_request_check(const struct launch_request *req, char *err, size_t errlen);
/* The account's identity; refuses root unless allow_root, and any other account when the
 * helper (helper_uid) is not root and not that account. */
int launch_identity_of(const char *account, uid_t helper_uid, bool allow_root,
    struct launch_identity *out, char *err, size_t errlen);

#endif
