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

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "soap_client.h"

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "url", required_argument, NULL, 'u' }, { "cert", required_argument, NULL, 'c' },
		{ "key", required_argument, NULL, 'k' }, { "ca-dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct tls_settings tls = { .crl_required = true };
	const char *url = NULL;
	char err[1024];
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'u') {
			url = optarg;
			continue;
		}
		char *dst = opt == 'c' ? tls.cert_file : opt == 'k' ? tls.key_file : tls.ca_dir;
		if (opt == '?' || strlen(optarg) >= PATH_MAX)
			return 2;
		strcpy(dst, optarg);
	}
	if (optind != argc || url == NULL || !tls.cert_file[0] || !tls.key_file[0] ||
	    !tls.ca_dir[0]) {
		fprintf(stderr, "usage: proxy_call --url URL --cert C --key K --ca-dir D\n");
		return 2;
	}
	tls_global_init();
	struct soap_client_settings settings = { 10, 10, 1024 * 1024 };
	struct soap *soap = soap_client_new(&tls, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "proxy_call: %s\n", err);
		return 3;
	}
	struct _qp__GetStatistics req;
	struct _qp__GetStatisticsResponse r;
	int status = 0;
	memset(&req, 0, sizeof(req));
	if (soap_call___qp__GetStatistics(soap, url, NULL, &req, &r) == SOAP_OK) {
		printf("legs=%lld activeRelays=%lld pendingLegs=%lld relaysCompleted=%lld "
		    "bytesForwarded=%lld rejectedHellos=%lld timeouts=%lld\n", (long long)r.legs,
		    (long long)r.activeRelays, (long long)r.pendingLegs, (long long)r.relaysCompleted,
		    (long long)r.bytesForwarded, (long long)r.rejectedHellos, (long long)r.timeouts);
	} else {
		int auth = soap_client_error(soap, err, sizeof(err));
		fprintf(stderr, "proxy_call: %s\n", err);
		status = auth ? 3 : 1;
	}
	soap_client_free(soap);
	return status;
}
