/*
 * remote_run.h: run one command on a reserved node through its cluster's front-end
 * (frontend.wsdl Launch, ReadOutput, Signal) and stream its output, as qcg-rsh does.
 */
#ifndef QCG_REMOTE_RUN_H
#define QCG_REMOTE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct soap;

#define REMOTE_LAUNCH_ID_MAX 128
#define REMOTE_POLL_SECONDS 1   /* one ReadOutput long poll: bounds how late a signal goes out */
#define REMOTE_READ_RETRIES 3   /* failed ReadOutputs in a row before giving up */

struct remote_command {
	const char *frontend_url;
	const char *reservation;
	const char *node;
	char **argv;             /* argc entries */
	int argc;
	char **env;              /* envc "NAME=value" entries */
	int envc;
	const char *workdir;     /* NULL: the mapped account's home */
};

struct remote_status {
	bool signaled;           /* ended by term_signal, else exit_code */
	int exit_code;
	int term_signal;
};

/* Returns the next signal to forward (0 when none is pending). Called between polls. */
typedef int (*remote_signal_source)(void);

/* Launch cmd; its front-end launch id goes to launch_id. 0, or -1 with err. */
int remote_launch(struct soap *soap, const struct remote_command *cmd,
    char launch_id[REMOTE_LAUNCH_ID_MAX], char *err, size_t errlen);

/* Copy the launch's output to out and errout until it ends, forwarding each signal that
 * next_signal hands out. 0 with *st filled, or -1 with err when the front-end stopped
 * answering. */
int remote_stream(struct soap *soap, const char *frontend_url, const char *launch_id,
    remote_signal_source next_signal, FILE *out, FILE *errout, struct remote_status *st,
    char *err, size_t errlen);

/* The shell's convention: the exit code, or 128 + the signal. */
int remote_status_code(const struct remote_status *st);

#endif
