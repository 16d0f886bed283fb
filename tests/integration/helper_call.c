/*
 * helper_call.c: a test client that plays qcg-helper's front-end (wsdl/helper.wsdl), one
 * operation per run:
 *
 *   helper_call --url URL --cert C --key K --ca-dir D OP ARGS...
 *     deliver-connect JOB NODE PORT METHOD RELAYID INITIATOR-ADDRESS INITIATOR-PORT
 *                     [INITIATOR-PUBLIC-ADDRESS|-] [PROXY-ENDPOINT]
 *     deliver-job-ended JOB
 *     launch JOB ACCOUNT [-e NAME=VALUE]... [-w DIR] -- ARGV...   (prints the launch id)
 *     read LAUNCHID OUT-OFFSET ERR-OFFSET TIMEOUT   (one ReadOutput; prints sizes and status)
 *     collect LAUNCHID SECONDS   (ReadOutput until exited: output to stdout and stderr, then
 *                                 "--- exit=N" or "--- signal=N" on stdout)
 *     signal LAUNCHID SIGNAL
 *
 * Exit 0, or 1 with the fault on stderr (3 for authentication failures), 2 for usage.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "model.h"
#include "call_cli.h"

static struct call_cli cli = {
	.name = "helper_call",
	.usage = "helper_call --url URL --cert C --key K --ca-dir D OP ARGS...\n"
		 "  (see the header of tests/integration/helper_call.c)",
	.limits = { 10, 60, 8 * 1024 * 1024 },
	.min_args = 1,
};

static int
op_deliver_connect(struct soap *soap, int argc, char **argv)
{
	if (argc < 7)
		call_cli_usage(&cli);
	enum connect_method method;
	if (connect_method_parse(argv[3], &method) != 0) {
		fprintf(stderr, "helper_call: unknown method %s\n", argv[3]);
		return 2;
	}
	unsigned short port = call_cli_port(&cli, argv[2]);
	struct qcg__AccessPoint ini = { .job = argv[0], .cluster = "site-i", .node = "node-i",
		.address = argv[5], .port = call_cli_port(&cli, argv[6]), .process = "initiator" };
	struct qcg__Proxy proxy = { .endpoint = argc > 8 ? argv[8] : NULL, .networks = "0.0.0.0/0" };
	struct qcg__Decision d = { .method = (enum qcg__Method)method, .relayId = argv[4],
		.proxy = argc > 8 ? &proxy : NULL, .__sizeproxy = argc > 8 ? 1 : 0 };
	struct qcg__Event ev = { .sequence = 1, .kind = qcg__EventKind__connect, .job = argv[0],
		.node = argv[1], .port = &port, .initiator = &ini, .decision = &d,
		.initiatorPublicAddress = argc > 7 && strcmp(argv[7], "-") != 0 ? argv[7] : NULL };
	struct _qh__Deliver req = { .__sizeevent = 1, .event = &ev };
	struct _qh__DeliverResponse resp;
	if (soap_call___qh__Deliver(soap, cli.url, NULL, &req, &resp) != SOAP_OK)
		return call_cli_status(&cli, soap, soap->error, "deliver-connect");
	printf("ok\n");
	return 0;
}

static int
op_deliver_job_ended(struct soap *soap, int argc, char **argv)
{
	if (argc < 1)
		call_cli_usage(&cli);
	struct qcg__Event ev = { .sequence = 2, .kind = qcg__EventKind__job_ended, .job = argv[0] };
	struct _qh__Deliver req = { .__sizeevent = 1, .event = &ev };
	struct _qh__DeliverResponse resp;
	if (soap_call___qh__Deliver(soap, cli.url, NULL, &req, &resp) != SOAP_OK)
		return call_cli_status(&cli, soap, soap->error, "deliver-job-ended");
	printf("ok\n");
	return 0;
}

static int
op_launch(struct soap *soap, int argc, char **argv)
{
	char *env[64], *wd = NULL;
	int nenv = 0, i = 2;
	if (argc < 3)
		call_cli_usage(&cli);
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-e") == 0 && i + 1 < argc && nenv < 64)
			env[nenv++] = argv[++i];
		else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
			wd = argv[++i];
		else
			call_cli_usage(&cli);
	}
	if (i + 1 >= argc)
		call_cli_usage(&cli);
	struct _qh__Launch req = { .job = argv[0], .account = argv[1],
		.__sizeargument = argc - i - 1, .argument = argv + i + 1,
		.__sizeenvironment = nenv, .environment = env, .workingDirectory = wd };
	struct _qh__LaunchResponse resp;
	if (soap_call___qh__Launch(soap, cli.url, NULL, &req, &resp) != SOAP_OK)
		return call_cli_status(&cli, soap, soap->error, "launch");
	printf("%s\n", resp.launchId);
	return 0;
}

static int
read_once(struct soap *soap, const char *id, LONG64 out, LONG64 err, int timeout,
    struct qcg__Output **o)
{
	struct _qh__ReadOutput req = { .launchId = (char *)id, .standardOutputOffset = out,
		.standardErrorOffset = err, .timeoutSeconds = timeout };
	struct _qh__ReadOutputResponse resp;
	if (soap_call___qh__ReadOutput(soap, cli.url, NULL, &req, &resp) != SOAP_OK)
		return call_cli_status(&cli, soap, soap->error, "launch");
	*o = resp.output;
	return 0;
}

static int
op_read(struct soap *soap, int argc, char **argv)
{
	struct qcg__Output *o = NULL;
	if (argc < 4)
		call_cli_usage(&cli);
	int rc = read_once(soap, argv[0], atoll(argv[1]), atoll(argv[2]), atoi(argv[3]), &o);
	if (rc == 0)
		printf("out=%d err=%d exited=%d\n", o->standardOutput.__size, o->standardError.__size,
		    o->exited == xsd__boolean__true_);
	return rc;
}

static int
op_collect(struct soap *soap, int argc, char **argv)
{
	struct qcg__Output *o = NULL;
	LONG64 out = 0, err = 0;
	if (argc < 2)
		call_cli_usage(&cli);
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end) {
		int rc = read_once(soap, argv[0], out, err, 5, &o);
		if (rc != 0)
			return rc;
		fwrite(o->standardOutput.__ptr, 1, (size_t)o->standardOutput.__size, stdout);
		fwrite(o->standardError.__ptr, 1, (size_t)o->standardError.__size, stderr);
		out += o->standardOutput.__size;
		err += o->standardError.__size;
		if (o->exited == xsd__boolean__true_) {
			if (o->termSignal)
				printf("--- signal=%d\n", *o->termSignal);
			else
				printf("--- exit=%d\n", o->exitCode ? *o->exitCode : -1);
			return 0;
		}
		soap_client_reset(soap);
	}
	fprintf(stderr, "helper_call: %s did not exit within %s s\n", argv[0], argv[1]);
	return 1;
}

static int
op_signal(struct soap *soap, int argc, char **argv)
{
	if (argc < 2)
		call_cli_usage(&cli);
	struct _qh__Signal req = { .launchId = argv[0], .signal = atoi(argv[1]) };
	struct _qh__SignalResponse resp;
	if (soap_call___qh__Signal(soap, cli.url, NULL, &req, &resp) != SOAP_OK)
		return call_cli_status(&cli, soap, soap->error, "signal");
	printf("ok\n");
	return 0;
}

int
main(int argc, char **argv)
{
	int first;
	struct soap *soap = call_cli_start(&cli, argc, argv, &first);
	const char *op = argv[first];
	int n = argc - first - 1;
	char **a = argv + first + 1;
	int rc = strcmp(op, "deliver-connect") == 0 ? op_deliver_connect(soap, n, a) :
	    strcmp(op, "deliver-job-ended") == 0 ? op_deliver_job_ended(soap, n, a) :
	    strcmp(op, "launch") == 0 ? op_launch(soap, n, a) :
	    strcmp(op, "read") == 0 ? op_read(soap, n, a) :
	    strcmp(op, "collect") == 0 ? op_collect(soap, n, a) :
	    strcmp(op, "signal") == 0 ? op_signal(soap, n, a) : (call_cli_usage(&cli), 2);
	soap_client_free(soap);
	return rc;
}
