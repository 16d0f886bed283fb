/*
 * frontend_call.c: a test client that calls qcg-frontend's operations (wsdl/frontend.wsdl) with
 * a given certificate: a helper's host certificate for the helper-side operations, a user's for
 * the launcher's. One operation per run:
 *
 *   frontend_call --url URL --cert C --key K --ca-dir D [--env NAME=VALUE]... [--wd DIR]
 *                 [--walltime SECONDS] OP ARGS...
 *     register-ap JOB NODE ADDRESS PORT [PROCESS]      (NODE "" leaves it to the front-end)
 *     resolve JOB FROM-NODE TO-ADDRESS TO-PORT [AFTER-METHOD]
 *     report JOB FROM-NODE TO-CLUSTER TO-NODE TO-PORT METHOD ok|failed USEC
 *     reserve JOB SLOTS TIMEOUT [PER-NODE [NODE...]]    (PER-NODE 0: not given)
 *     commit RESERVATION | release RESERVATION
 *     launch RESERVATION NODE ARG...
 *     run RESERVATION NODE ARG...    launch, then stream the output until it exits
 *     read LAUNCH STDOUT-OFFSET STDERR-OFFSET TIMEOUT
 *     signal LAUNCH SIGNAL
 *     stage-in RESERVATION NODE WORKDIR PATH SIZE SHA256   (prints launch=ID)
 *     put LAUNCH FILE [LENGTH]   FILE's bytes as PUT /stage-in/LAUNCH with Content-Length LENGTH
 *                                (default: the file's size; fewer bytes when the file is
 *                                shorter, a truncated body); prints "status=N TEXT"
 *
 * Prints one line per result ("ok", "method=direct target=...", "reservation=ID", "slot=NODE:N",
 * "launch=ID", "exit=N" or "signal=N"; run copies the command's stdout and stderr to its own)
 * and exits 0, or prints the fault and exits 1 (3 for authentication failures).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "soapH.h"
#include "http_stream.h"
#include "model.h"
#include "call_cli.h"

#define MAX_ENV 64

static void frontend_option(int code, char *arg);

static const struct option frontend_options[] = {
	{ "env", required_argument, NULL, 'e' }, { "wd", required_argument, NULL, 'w' },
	{ "walltime", required_argument, NULL, 't' }, { NULL, 0, NULL, 0 },
};

static struct call_cli cli = {
	.name = "frontend_call",
	.usage = "frontend_call --url URL --cert C --key K --ca-dir D [--env N=V]... [--wd DIR] "
		 "[--walltime SECONDS] OP ARGS...",
	.limits = { 10, 120, 32 * 1024 * 1024 },
	.extra = frontend_options,
	.extra_option = frontend_option,
	.min_args = 1,
};

static char *env[MAX_ENV];
static int nenv;
static char *wd;
static int walltime = -1; /* reserve's wallTimeSeconds; -1: not sent */

static void
frontend_option(int code, char *arg)
{
	if (code == 'w')
		wd = arg;
	else if (code == 't')
		walltime = atoi(arg);
	else if (nenv < MAX_ENV)
		env[nenv++] = arg;
	else {
		fprintf(stderr, "frontend_call: more than %d --env options\n", MAX_ENV);
		exit(2);
	}
}

static enum qcg__Method
method_arg(const char *s)
{
	enum connect_method m;
	if (connect_method_parse(s, &m) != 0) {
		fprintf(stderr, "frontend_call: unknown method %s\n", s);
		exit(2);
	}
	return (enum qcg__Method)m;
}

static int
op_register_ap(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 4, "register-ap");
	struct qcg__AccessPoint ap = { argv[0], "-", argv[1], argv[2], call_cli_port(&cli, argv[3]),
		argc > 4 ? argv[4] : "" };
	struct _qf__RegisterAccessPoint req = { &ap };
	struct _qf__RegisterAccessPointResponse resp;
	int rc = soap_call___qf__RegisterAccessPoint(soap, cli.url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		printf("ok\n");
	return rc;
}

static int
op_resolve(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 4, "resolve");
	enum qcg__Method after;
	struct _qf__Resolve req = { .job = argv[0], .fromNode = argv[1], .toAddress = argv[2],
		.toPort = call_cli_port(&cli, argv[3]) };
	if (argc > 4) {
		after = method_arg(argv[4]);
		req.after = &after;
	}
	struct _qf__ResolveResponse resp;
	int rc = soap_call___qf__Resolve(soap, cli.url, NULL, &req, &resp);
	if (rc != SOAP_OK)
		return rc;
	const struct qcg__Decision *d = resp.decision;
	printf("method=%s", connect_method_name((enum connect_method)d->method));
	if (d->target)
		printf(" target=%s/%s/%s:%u", d->target->cluster, d->target->node, d->target->address,
		    d->target->port);
	if (d->relayId)
		printf(" relayId=%s", d->relayId);
	for (int i = 0; i < d->__sizeproxy; i++) /* which proxies a relay goes through */
		printf(" proxy%d=%s", i, d->proxy[i].endpoint);
	printf("\n");
	return rc;
}

static int
op_report(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 8, "report");
	struct qcg__Connection c = { .job = argv[0], .fromCluster = "-", .fromNode = argv[1],
		.toCluster = argv[2], .toNode = argv[3], .toPort = call_cli_port(&cli, argv[4]),
		.method = method_arg(argv[5]),
		.succeeded = strcmp(argv[6], "ok") == 0 ? xsd__boolean__true_ : xsd__boolean__false_,
		.setupMicroseconds = atoll(argv[7]) };
	struct _qf__ReportOutcome req = { &c };
	struct _qf__ReportOutcomeResponse resp;
	int rc = soap_call___qf__ReportOutcome(soap, cli.url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		printf("ok\n");
	return rc;
}

static int
op_reserve(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 3, "reserve");
	int per_node = argc > 3 ? atoi(argv[3]) : 0;
	struct _qf__Reserve req = { .job = argv[0], .slots = atoi(argv[1]),
		.timeoutSeconds = atoi(argv[2]) };
	if (per_node)
		req.processesPerNode = &per_node;
	if (walltime >= 0)
		req.wallTimeSeconds = &walltime;
	if (argc > 4) {
		req.__sizenode = argc - 4;
		req.node = argv + 4;
	}
	struct _qf__ReserveResponse resp;
	int rc = soap_call___qf__Reserve(soap, cli.url, NULL, &req, &resp);
	if (rc != SOAP_OK)
		return rc;
	printf("reservation=%s\n", resp.reservationId);
	for (int i = 0; i < resp.__sizeslot; i++)
		printf("slot=%s:%d\n", resp.slot[i].node, resp.slot[i].count);
	return rc;
}

static int
launch(struct soap *soap, int argc, char **argv, char **id)
{
	call_cli_need(&cli, argc, 3, "launch");
	struct _qf__Launch req = { argv[0], argv[1], argc - 2, argv + 2, nenv, env, wd };
	struct _qf__LaunchResponse resp;
	int rc = soap_call___qf__Launch(soap, cli.url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		*id = strdup(resp.launchId);
	return rc;
}

/* Print an Output's bytes and status; returns whether it has exited. */
static int
print_output(const struct qcg__Output *o, long long *out_off, long long *err_off, int quiet)
{
	fwrite(o->standardOutput.__ptr, 1, (size_t)o->standardOutput.__size, stdout);
	fwrite(o->standardError.__ptr, 1, (size_t)o->standardError.__size, stderr);
	*out_off += o->standardOutput.__size;
	*err_off += o->standardError.__size;
	if (o->exited != xsd__boolean__true_) {
		if (!quiet)
			printf("running\n");
		return 0;
	}
	if (o->termSignal)
		printf("signal=%d\n", *o->termSignal);
	else
		printf("exit=%d\n", o->exitCode ? *o->exitCode : -1);
	return 1;
}

static int
op_run(struct soap *soap, int argc, char **argv)
{
	char *id = NULL;
	long long out_off = 0, err_off = 0;
	int rc = launch(soap, argc, argv, &id);
	for (int polls = 0; rc == SOAP_OK && polls < 1000; polls++) {
		struct _qf__ReadOutput req = { id, out_off, err_off, 5 };
		struct _qf__ReadOutputResponse resp;
		soap_client_reset(soap);
		if ((rc = soap_call___qf__ReadOutput(soap, cli.url, NULL, &req, &resp)) != SOAP_OK)
			break;
		if (print_output(resp.output, &out_off, &err_off, 1))
			break;
	}
	free(id);
	return rc;
}

static ssize_t
read_file(void *ctx, char *buf, size_t len)
{
	size_t n = fread(buf, 1, len, ctx);
	return n > 0 ? (ssize_t)n : ferror((FILE *)ctx) ? -1 : 0;
}

/* put: the exit status is 0 for status 200, else 1 (the text says why). */
static int
op_put(struct soap *soap, int argc, char **argv)
{
	char target[HTTP_STREAM_TARGET_MAX], msg[1024];
	struct stat sb;
	uint64_t sent;
	call_cli_need(&cli, argc, 2, "put");
	FILE *f = fopen(argv[1], "rb");
	if (f == NULL || fstat(fileno(f), &sb) != 0) {
		perror(argv[1]);
		exit(2);
	}
	uint64_t length = argc > 2 ? strtoull(argv[2], NULL, 10) : (uint64_t)sb.st_size;
	snprintf(target, sizeof(target), HTTP_STREAM_STAGE_IN "%s", argv[0]);
	int status = http_stream_put(soap, cli.url, target, length, read_file, f, &sent, msg,
	    sizeof(msg));
	fclose(f);
	printf("status=%d %s\n", status, msg);
	fflush(stdout);
	exit(status == 200 ? 0 : 1);
}

static int
op_simple(struct soap *soap, const char *op, int argc, char **argv)
{
	int rc;
	if (strcmp(op, "stage-in") == 0) {
		call_cli_need(&cli, argc, 6, op);
		struct _qf__StageIn req = { argv[0], argv[1], argv[3], atoll(argv[4]), argv[5],
			xsd__boolean__false_, argv[2] };
		struct _qf__StageInResponse resp;
		if ((rc = soap_call___qf__StageIn(soap, cli.url, NULL, &req, &resp)) == SOAP_OK)
			printf("launch=%s\n", resp.launchId);
		return rc;
	}
	if (strcmp(op, "put") == 0)
		return op_put(soap, argc, argv);
	if (strcmp(op, "commit") == 0 || strcmp(op, "release") == 0) {
		call_cli_need(&cli, argc, 1, op);
		if (op[0] == 'c') {
			struct _qf__Commit req = { argv[0] };
			struct _qf__CommitResponse resp;
			rc = soap_call___qf__Commit(soap, cli.url, NULL, &req, &resp);
		} else {
			struct _qf__Release req = { argv[0] };
			struct _qf__ReleaseResponse resp;
			rc = soap_call___qf__Release(soap, cli.url, NULL, &req, &resp);
		}
		if (rc == SOAP_OK)
			printf("ok\n");
		return rc;
	}
	if (strcmp(op, "launch") == 0) {
		char *id = NULL;
		if ((rc = launch(soap, argc, argv, &id)) == SOAP_OK)
			printf("launch=%s\n", id);
		free(id);
		return rc;
	}
	if (strcmp(op, "read") == 0) {
		call_cli_need(&cli, argc, 4, op);
		long long o = atoll(argv[1]), e = atoll(argv[2]);
		struct _qf__ReadOutput req = { argv[0], o, e, atoi(argv[3]) };
		struct _qf__ReadOutputResponse resp;
		if ((rc = soap_call___qf__ReadOutput(soap, cli.url, NULL, &req, &resp)) == SOAP_OK)
			print_output(resp.output, &o, &e, 0);
		return rc;
	}
	if (strcmp(op, "signal") == 0) {
		call_cli_need(&cli, argc, 2, op);
		struct _qf__Signal req = { argv[0], atoi(argv[1]) };
		struct _qf__SignalResponse resp;
		if ((rc = soap_call___qf__Signal(soap, cli.url, NULL, &req, &resp)) == SOAP_OK)
			printf("ok\n");
		return rc;
	}
	fprintf(stderr, "frontend_call: unknown operation %s\n", op);
	exit(2);
}

int
main(int argc, char **argv)
{
	int first;
	struct soap *soap = call_cli_start(&cli, argc, argv, &first);
	const char *op = argv[first];
	int nargs = argc - first - 1, rc;
	char **args = argv + first + 1;
	if (strcmp(op, "register-ap") == 0)
		rc = op_register_ap(soap, nargs, args);
	else if (strcmp(op, "resolve") == 0)
		rc = op_resolve(soap, nargs, args);
	else if (strcmp(op, "report") == 0)
		rc = op_report(soap, nargs, args);
	else if (strcmp(op, "reserve") == 0)
		rc = op_reserve(soap, nargs, args);
	else if (strcmp(op, "run") == 0)
		rc = op_run(soap, nargs, args);
	else
		rc = op_simple(soap, op, nargs, args);
	int status = call_cli_status(&cli, soap, rc, op);
	fflush(stdout);
	soap_client_free(soap);
	return status;
}
