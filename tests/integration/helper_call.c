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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "soapH.h"
#include "model.h"
#include "soap_client.h"

static const char *url;

static void
usage(void)
{
	fprintf(stderr, "usage: helper_call --url URL --cert C --key K --ca-dir D OP ARGS...\n"
			"  (see the header of tests/integration/helper_call.c)\n");
	exit(2);
}

static unsigned short
port_arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end != '\0' || v < 0 || v > 65535) {
		fprintf(stderr, "helper_call: bad port %s\n", s);
		exit(2);
	}
	return (unsigned short)v;
}

static int
failed(struct soap *soap)
{
	char msg[1024];
	int auth = soap_client_error(soap, msg, sizeof(msg));
	fprintf(stderr, "helper_call: %s\n", msg);
	return auth ? 3 : 1;
}

static int
op_deliver_connect(struct soap *soap, int argc, char **argv)
{
	if (argc < 7)
		usage();
	enum connect_method method;
	if (connect_method_parse(argv[3], &method) != 0) {
		fprintf(stderr, "helper_call: unknown method %s\n", argv[3]);
		return 2;
	}
	unsigned short port = port_arg(argv[2]);
	struct qcg__AccessPoint ini = { .job = argv[0], .cluster = "site-i", .node = "node-i",
		.address = argv[5], .port = port_arg(argv[6]), .process = "initiator" };
	struct qcg__Proxy proxy = { .endpoint = argc > 8 ? argv[8] : NULL, .networks = "0.0.0.0/0" };
	struct qcg__Decision d = { .method = (enum qcg__Method)method, .relayId = argv[4],
		.proxy = argc > 8 ? &proxy : NULL, .__sizeproxy = argc > 8 ? 1 : 0 };
	struct qcg__Event ev = { .sequence = 1, .kind = "connect", .job = argv[0], .node = argv[1],
		.port = &port, .initiator = &ini, .decision = &d,
		.initiatorPublicAddress = argc > 7 && strcmp(argv[7], "-") != 0 ? argv[7] : NULL };
	struct _qh__Deliver req = { .__sizeevent = 1, .event = &ev };
	struct _qh__DeliverResponse resp;
	if (soap_call___qh__Deliver(soap, url, NULL, &req, &resp) != SOAP_OK)
		return failed(soap);
	printf("ok\n");
	return 0;
}

static int
op_deliver_job_ended(struct soap *soap, int argc, char **argv)
{
	if (argc < 1)
		usage();
	struct qcg__Event ev = { .sequence = 2, .kind = "job-ended", .job = argv[0] };
	struct _qh__Deliver req = { .__sizeevent = 1, .event = &ev };
	struct _qh__DeliverResponse resp;
	if (soap_call___qh__Deliver(soap, url, NULL, &req, &resp) != SOAP_OK)
		return failed(soap);
	printf("ok\n");
	return 0;
}

static int
op_launch(struct soap *soap, int argc, char **argv)
{
	char *env[64], *wd = NULL;
	int nenv = 0, i = 2;
	if (argc < 3)
		usage();
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-e") == 0 && i + 1 < argc && nenv < 64)
			env[nenv++] = argv[++i];
		else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc)
			wd = argv[++i];
		else
			usage();
	}
	if (i + 1 >= argc)
		usage();
	struct _qh__Launch req = { .job = argv[0], .account = argv[1],
		.__sizeargument = argc - i - 1, .argument = argv + i + 1,
		.__sizeenvironment = nenv, .environment = env, .workingDirectory = wd };
	struct _qh__LaunchResponse resp;
	if (soap_call___qh__Launch(soap, url, NULL, &req, &resp) != SOAP_OK)
		return failed(soap);
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
	if (soap_call___qh__ReadOutput(soap, url, NULL, &req, &resp) != SOAP_OK)
		return failed(soap);
	*o = resp.output;
	return 0;
}

static int
op_read(struct soap *soap, int argc, char **argv)
{
	struct qcg__Output *o = NULL;
	if (argc < 4)
		usage();
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
		usage();
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
		usage();
	struct _qh__Signal req = { .launchId = argv[0], .signal = atoi(argv[1]) };
	struct _qh__SignalResponse resp;
	if (soap_call___qh__Signal(soap, url, NULL, &req, &resp) != SOAP_OK)
		return failed(soap);
	printf("ok\n");
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "url", required_argument, NULL, 'u' }, { "cert", required_argument, NULL, 'c' },
		{ "key", required_argument, NULL, 'k' }, { "ca-dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct tls_settings tls = { .crl_required = true };
	struct soap_client_settings settings = { 10, 60, 8 * 1024 * 1024 };
	char err[512];
	int opt;
	while ((opt = getopt_long(argc, argv, "+", options, NULL)) != -1) {
		char *dst = opt == 'c' ? tls.cert_file : opt == 'k' ? tls.key_file :
		    opt == 'd' ? tls.ca_dir : NULL;
		if (opt == 'u')
			url = optarg;
		else if (dst != NULL)
			snprintf(dst, PATH_MAX, "%s", optarg);
		else
			usage();
	}
	if (url == NULL || optind >= argc)
		usage();
	tls_global_init();
	struct soap *soap = soap_client_new(&tls, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "helper_call: %s\n", err);
		return 1;
	}
	const char *op = argv[optind];
	int n = argc - optind - 1;
	char **a = argv + optind + 1;
	int rc = strcmp(op, "deliver-connect") == 0 ? op_deliver_connect(soap, n, a) :
	    strcmp(op, "deliver-job-ended") == 0 ? op_deliver_job_ended(soap, n, a) :
	    strcmp(op, "launch") == 0 ? op_launch(soap, n, a) :
	    strcmp(op, "read") == 0 ? op_read(soap, n, a) :
	    strcmp(op, "collect") == 0 ? op_collect(soap, n, a) :
	    strcmp(op, "signal") == 0 ? op_signal(soap, n, a) : (usage(), 2);
	soap_client_free(soap);
	return rc;
}
