/*
 * remote_run.c: Launch, then long-poll ReadOutput and forward signals (remote_run.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "soapH.h"
#include "remote_run.h"
#include "soap_client.h"
#include "soap_model.h"

int
remote_launch(struct soap *soap, const struct remote_command *cmd,
    char launch_id[REMOTE_LAUNCH_ID_MAX], char *err, size_t errlen)
{
	struct _qf__Launch req = { (char *)cmd->reservation, (char *)cmd->node, cmd->argc,
		cmd->argv, cmd->envc, cmd->env, (char *)cmd->workdir };
	struct _qf__LaunchResponse resp;
	char why[512];

	if (soap_call___qf__Launch(soap, cmd->frontend_url, NULL, &req, &resp) != SOAP_OK) {
		soap_client_error(soap, why, sizeof(why));
		snprintf(err, errlen, "%s: Launch on %s: %s", cmd->frontend_url, cmd->node, why);
		soap_client_reset(soap);
		return -1;
	}
	if (resp.launchId == NULL || strlen(resp.launchId) >= REMOTE_LAUNCH_ID_MAX) {
		snprintf(err, errlen, "%s: Launch on %s answered without a usable launch id",
		    cmd->frontend_url, cmd->node);
		soap_client_reset(soap);
		return -1;
	}
	snprintf(launch_id, REMOTE_LAUNCH_ID_MAX, "%s", resp.launchId);
	soap_client_reset(soap);
	return 0;
}

/* Forward sig; a fault (the command has just ended, say) is only worth a note. */
static void
forward_signal(struct soap *soap, const char *url, const char *launch_id, int sig)
{
	struct _qf__Signal req = { (char *)launch_id, sig };
	struct _qf__SignalResponse resp;
	char why[512];
	if (soap_call___qf__Signal(soap, url, NULL, &req, &resp) != SOAP_OK) {
		soap_client_error(soap, why, sizeof(why));
		fprintf(stderr, "qcg-rsh: could not forward signal %d: %s\n", sig, why);
	}
	soap_client_reset(soap);
}

/* Write one chunk of a stream; the offset advances by what the front-end sent. */
static void
copy_chunk(const uint8_t *bytes, size_t len, FILE *to, LONG64 *offset)
{
	if (bytes == NULL || len == 0)
		return;
	fwrite(bytes, 1, len, to);
	fflush(to);
	*offset += (LONG64)len;
}

int
remote_stream(struct soap *soap, const char *url, const char *launch_id,
    remote_signal_source next_signal, FILE *out, FILE *errout, struct remote_status *st,
    char *err, size_t errlen)
{
	LONG64 out_off = 0, err_off = 0;
	int failures = 0, sig;
	char why[512];

	for (;;) {
		while (next_signal != NULL && (sig = next_signal()) != 0)
			forward_signal(soap, url, launch_id, sig);
		struct _qf__ReadOutput req = { (char *)launch_id, out_off, err_off,
			REMOTE_POLL_SECONDS };
		struct _qf__ReadOutputResponse resp;
		if (soap_call___qf__ReadOutput(soap, url, NULL, &req, &resp) != SOAP_OK ||
		    resp.output == NULL) {
			soap_client_error(soap, why, sizeof(why));
			soap_client_reset(soap);
			soap_closesock(soap);
			if (++failures >= REMOTE_READ_RETRIES) {
				snprintf(err, errlen, "%s: ReadOutput of launch %s failed %d times, "
				    "last: %s", url, launch_id, failures, why);
				return -1;
			}
			sleep(1);
			continue;
		}
		failures = 0;
		struct output_chunk o;
		soap_model_output_in(resp.output, &o);
		copy_chunk(o.out, o.out_len, out, &out_off);
		copy_chunk(o.err, o.err_len, errout, &err_off);
		if (o.exited) {
			st->signaled = o.signaled;
			st->term_signal = o.term_signal;
			st->exit_code = o.exit_code;
			soap_client_reset(soap);
			return 0;
		}
		soap_client_reset(soap);
	}
}

int
remote_status_code(const struct remote_status *st)
{
	if (st->signaled)
		return 128 + st->term_signal;
	return st->exit_code & 0xff;
}
