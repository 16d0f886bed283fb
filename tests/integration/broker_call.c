/*
 * broker_call.c: a test client that plays the broker's other callers (a front-end, a proxy, a
 * launcher) until those services exist, one operation per run:
 *
 *   broker_call [--broker URL] --cert C --key K --ca-dir D OP ARGS...
 *     register-cluster NAME POLICY PUBLIC-ADDRESS NETWORKS [PORTMIN PORTMAX] [traversal]
 *     unregister-cluster NAME
 *     register-proxy ENDPOINT NETWORKS [CLUSTER]
 *     record-job ID
 *     set-job-state ID STATE [EXIT]
 *     register-ap JOB CLUSTER NODE ADDRESS PORT [PROCESS]
 *     resolve JOB FROM-CLUSTER FROM-NODE TO-ADDRESS TO-PORT [AFTER-METHOD]
 *     report JOB FROM-CLUSTER FROM-NODE TO-CLUSTER TO-NODE TO-PORT METHOD ok|failed USEC
 *     wait-events QUEUE AFTER-SEQUENCE TIMEOUT-SECONDS
 *     remove-aps JOB
 *     multicast JOB
 *
 * It prints one line per result ("ok", "method=relay proxy=... relayId=...", events) and exits
 * 0, or prints the fault and exits 1 (3 for authentication failures).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "model.h"
#include "soap_client.h"

static const char *url = "https://localhost:8443/";

static int
need(int argc, int want, const char *op)
{
	if (argc < want) {
		fprintf(stderr, "broker_call: %s needs %d arguments\n", op, want);
		exit(2);
	}
	return 0;
}

static unsigned short
port_arg(const char *s)
{
	long v = strtol(s, NULL, 10);
	if (v < 0 || v > 65535) {
		fprintf(stderr, "broker_call: bad port %s\n", s);
		exit(2);
	}
	return (unsigned short)v;
}

static void
print_decision(const struct qcg__Decision *d)
{
	printf("method=%s", connect_method_name((enum connect_method)d->method));
	if (d->target)
		printf(" target=%s/%s/%s:%u", d->target->cluster, d->target->node, d->target->address,
		    d->target->port);
	if (d->relayId)
		printf(" relayId=%s", d->relayId);
	for (int i = 0; i < d->__sizeproxy; i++)
		printf(" proxy%d=%s", i, d->proxy[i].endpoint);
	printf("\n");
}

static int
op_register_cluster(struct soap *soap, int argc, char **argv)
{
	need(argc, 4, "register-cluster");
	struct qcg__Cluster c = { .name = argv[0], .publicAddress = argv[2], .privateNetworks = argv[3],
		.frontendEndpoint = "https://frontend.invalid/" };
	unsigned short lo = 0, hi = 0;
	enum cluster_policy policy;
	if (cluster_policy_parse(argv[1], &policy) != 0) {
		fprintf(stderr, "broker_call: unknown policy %s\n", argv[1]);
		exit(2);
	}
	c.policy = (enum qcg__Policy)policy;
	int next = 4;
	if (policy == POLICY_PORT_RANGE) {
		need(argc, 6, "register-cluster port-range");
		lo = port_arg(argv[4]);
		hi = port_arg(argv[5]);
		c.portMin = &lo;
		c.portMax = &hi;
		next = 6;
	}
	c.traversalAllowed = argc > next && strcmp(argv[next], "traversal") == 0;
	struct _qb__RegisterCluster req = { &c };
	struct _qb__RegisterClusterResponse resp;
	return soap_call___qb__RegisterCluster(soap, url, NULL, &req, &resp);
}

static int
op_resolve(struct soap *soap, int argc, char **argv)
{
	need(argc, 5, "resolve");
	enum qcg__Method after;
	struct _qb__Resolve req = { .job = argv[0], .fromCluster = argv[1], .fromNode = argv[2],
		.toAddress = argv[3], .toPort = port_arg(argv[4]) };
	if (argc > 5) {
		enum connect_method m;
		if (connect_method_parse(argv[5], &m) != 0) {
			fprintf(stderr, "broker_call: unknown method %s\n", argv[5]);
			exit(2);
		}
		after = (enum qcg__Method)m;
		req.after = &after;
	}
	struct _qb__ResolveResponse resp;
	int rc = soap_call___qb__Resolve(soap, url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		print_decision(resp.decision);
	return rc;
}

static int
op_report(struct soap *soap, int argc, char **argv)
{
	need(argc, 9, "report");
	enum connect_method m;
	if (connect_method_parse(argv[6], &m) != 0)
		exit(2);
	struct qcg__Connection c = { .job = argv[0], .fromCluster = argv[1], .fromNode = argv[2],
		.toCluster = argv[3], .toNode = argv[4], .toPort = port_arg(argv[5]),
		.method = (enum qcg__Method)m,
		.succeeded = strcmp(argv[7], "ok") == 0 ? xsd__boolean__true_ : xsd__boolean__false_,
		.setupMicroseconds = atoll(argv[8]) };
	struct _qb__ReportOutcome req = { &c };
	struct _qb__ReportOutcomeResponse resp;
	return soap_call___qb__ReportOutcome(soap, url, NULL, &req, &resp);
}

static int
op_wait_events(struct soap *soap, int argc, char **argv)
{
	need(argc, 3, "wait-events");
	struct _qb__WaitEvents req = { argv[0], atoll(argv[1]), atoi(argv[2]) };
	struct _qb__WaitEventsResponse resp;
	int rc = soap_call___qb__WaitEvents(soap, url, NULL, &req, &resp);
	for (int i = 0; rc == SOAP_OK && i < resp.__sizeevent; i++) {
		const struct qcg__Event *e = &resp.event[i];
		printf("event seq=%lld kind=%s job=%s", (long long)e->sequence, e->kind, e->job);
		if (e->node)
			printf(" node=%s port=%u", e->node, e->port ? *e->port : 0);
		if (e->initiator)
			printf(" initiator=%s/%s", e->initiator->cluster, e->initiator->node);
		if (e->decision)
			printf(" %s", connect_method_name((enum connect_method)e->decision->method));
		if (e->decision && e->decision->relayId)
			printf(" relayId=%s", e->decision->relayId);
		printf("\n");
	}
	return rc;
}

static int
op_simple(struct soap *soap, const char *op, int argc, char **argv)
{
	if (strcmp(op, "unregister-cluster") == 0) {
		need(argc, 1, op);
		struct _qb__UnregisterCluster req = { argv[0] };
		struct _qb__UnregisterClusterResponse resp;
		return soap_call___qb__UnregisterCluster(soap, url, NULL, &req, &resp);
	}
	if (strcmp(op, "register-proxy") == 0) {
		need(argc, 2, op);
		struct qcg__Proxy p = { .endpoint = argv[0], .networks = argv[1],
			.cluster = argc > 2 ? argv[2] : NULL };
		struct _qb__RegisterProxy req = { &p };
		struct _qb__RegisterProxyResponse resp;
		return soap_call___qb__RegisterProxy(soap, url, NULL, &req, &resp);
	}
	if (strcmp(op, "record-job") == 0) {
		need(argc, 1, op);
		struct qcg__Job j = { .id = argv[0], .state = qcg__JobState__pending };
		struct _qb__RecordJob req = { &j };
		struct _qb__RecordJobResponse resp;
		return soap_call___qb__RecordJob(soap, url, NULL, &req, &resp);
	}
	if (strcmp(op, "set-job-state") == 0) {
		need(argc, 2, op);
		enum job_state st;
		if (job_state_parse(argv[1], &st) != 0)
			exit(2);
		int code = argc > 2 ? atoi(argv[2]) : 0;
		struct _qb__SetJobState req = { argv[0], (enum qcg__JobState)st, &code };
		struct _qb__SetJobStateResponse resp;
		return soap_call___qb__SetJobState(soap, url, NULL, &req, &resp);
	}
	if (strcmp(op, "register-ap") == 0) {
		need(argc, 5, op);
		struct qcg__AccessPoint ap = { argv[0], argv[1], argv[2], argv[3], port_arg(argv[4]),
			argc > 5 ? argv[5] : "" };
		struct _qb__RegisterAccessPoint req = { &ap };
		struct _qb__RegisterAccessPointResponse resp;
		return soap_call___qb__RegisterAccessPoint(soap, url, NULL, &req, &resp);
	}
	if (strcmp(op, "remove-aps") == 0) {
		need(argc, 1, op);
		struct _qb__RemoveJobAccessPoints req = { argv[0] };
		struct _qb__RemoveJobAccessPointsResponse resp;
		int rc = soap_call___qb__RemoveJobAccessPoints(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			printf("removed=%d\n", resp.removed);
		return rc;
	}
	if (strcmp(op, "multicast") == 0) {
		need(argc, 1, op);
		struct _qb__AllocateMulticastGroup req = { argv[0] };
		struct _qb__AllocateMulticastGroupResponse resp;
		int rc = soap_call___qb__AllocateMulticastGroup(soap, url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			printf("group=%s:%u\n", resp.group->address, resp.group->port);
		return rc;
	}
	fprintf(stderr, "broker_call: unknown operation %s\n", op);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "broker", required_argument, NULL, 'b' }, { "cert", required_argument, NULL, 'c' },
		{ "key", required_argument, NULL, 'k' }, { "ca-dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct tls_settings tls = { .crl_required = true };
	char err[1024];
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		char *dst = opt == 'c' ? tls.cert_file : opt == 'k' ? tls.key_file : tls.ca_dir;
		if (opt == 'b') {
			url = optarg;
			continue;
		}
		if (opt == '?' || strlen(optarg) >= PATH_MAX)
			return 2;
		strcpy(dst, optarg);
	}
	if (optind >= argc || !tls.cert_file[0] || !tls.key_file[0] || !tls.ca_dir[0]) {
		fprintf(stderr, "usage: broker_call [--broker URL] --cert C --key K --ca-dir D OP ARGS...\n");
		return 2;
	}
	tls_global_init();
	struct soap_client_settings settings = { 10, 330, 16 * 1024 * 1024 };
	struct soap *soap = soap_client_new(&tls, &settings, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "broker_call: %s\n", err);
		return 3;
	}
	const char *op = argv[optind];
	int nargs = argc - optind - 1;
	char **args = argv + optind + 1;
	int rc;
	if (strcmp(op, "register-cluster") == 0)
		rc = op_register_cluster(soap, nargs, args);
	else if (strcmp(op, "resolve") == 0)
		rc = op_resolve(soap, nargs, args);
	else if (strcmp(op, "report") == 0)
		rc = op_report(soap, nargs, args);
	else if (strcmp(op, "wait-events") == 0)
		rc = op_wait_events(soap, nargs, args);
	else
		rc = op_simple(soap, op, nargs, args);
	int status = 0;
	if (rc != SOAP_OK) {
		int auth = soap_client_error(soap, err, sizeof(err));
		fprintf(stderr, "broker_call: %s: %s\n", op, err);
		status = auth ? 3 : 1;
	} else if (strcmp(op, "resolve") && strcmp(op, "wait-events") && strcmp(op, "remove-aps") &&
	    strcmp(op, "multicast"))
		printf("ok\n");
	soap_client_free(soap);
	return status;
}
