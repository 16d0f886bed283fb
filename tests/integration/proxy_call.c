/*
 * proxy_call.c: a test client of qcg-proxy's SOAP control service (wsdl/proxy.wsdl):
 *
 *   proxy_call --url URL --cert C --key K --ca-dir D
 *
 * calls GetStatistics and prints "legs=N activeRelays=N pendingLegs=N relaysCompleted=N
 * bytesForwarded=N rejectedHellos=N timeouts=N", exit 0; or prints the fault and exits 1
 * (3 when authentication failed).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "call_cli.h"

static struct call_cli cli = {
	.name = "proxy_call",
	.usage = "proxy_call --url URL --cert C --key K --ca-dir D",
	.limits = { 10, 10, 1024 * 1024 },
};

int
main(int argc, char **argv)
{
	int first;
	struct soap *soap = call_cli_start(&cli, argc, argv, &first);
	if (first != argc)
		call_cli_usage(&cli);
	struct _qp__GetStatistics req;
	struct _qp__GetStatisticsResponse r;
	memset(&req, 0, sizeof(req));
	int rc = soap_call___qp__GetStatistics(soap, cli.url, NULL, &req, &r);
	if (rc == SOAP_OK)
		printf("legs=%lld activeRelays=%lld pendingLegs=%lld relaysCompleted=%lld "
		    "bytesForwarded=%lld rejectedHellos=%lld timeouts=%lld\n", (long long)r.legs,
		    (long long)r.activeRelays, (long long)r.pendingLegs, (long long)r.relaysCompleted,
		    (long long)r.bytesForwarded, (long long)r.rejectedHellos, (long long)r.timeouts);
	int status = call_cli_status(&cli, soap, rc, "GetStatistics");
	soap_client_free(soap);
	return status;
}
