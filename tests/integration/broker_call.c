/*
 * broker_call.c: a test client that plays the broker's other callers (a front-end, a proxy, a
 * launcher) until those services exist, one operation per run:
 *
 *   broker_call [--broker URL] --cert C --key K --ca-dir D OP ARGS...
 *     register-cluster NAME POLICY PUBLIC-ADDRESS NETWORKS [PORTMIN PORTMAX] [traversal]
 *     unregister-cluster NAME
 *     register-proxy ENDPOINT NETWORKS [CLUSTER]
 *     unregister-proxy ENDPOINT
 *     record-job ID [DESCRIPTION]
 *     set-job-state ID STATE [EXIT]
 *     register-ap JOB CLUSTER NODE ADDRESS PORT [PROCESS]
 *     resolve JOB FROM-CLUSTER FROM-NODE TO-ADDRESS TO-PORT [AFTER-METHOD]
 *     report JOB FROM-CLUSTER FROM-NODE TO-CLUSTER TO-NODE TO-PORT METHOD ok|failed USEC [WHEN]
 *     wait-events QUEUE AFTER-SEQUENCE TIMEOUT-SECONDS
 *     remove-aps JOB
 *     multicast JOB
 *     release-multicast JOB
 *     resume-relay JOB CLUSTER NODE RELAY-ID
 *
 * It prints one line per result ("ok", "method=relay proxy=... relayId=...", events) and exits
 * 0, or prints the fault and exits 1 (3 for authentication failures).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "model.h"
#include "call_cli.h"

static struct call_cli cli = {
	.name = "broker_call",
	.usage = "broker_call [--broker URL] --cert C --key K --ca-dir D OP ARGS...",
	.url = "https://localhost:8443/",
	.limits = { 10, 330, 16 * 1024 * 1024 }, /* wait-events long-polls up to 300 s */
	.min_args = 1,
};

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
	call_cli_need(&cli, argc, 4, "register-cluster");
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
		call_cli_need(&cli, argc, 6, "register-cluster port-range");
		lo = call_cli_port(&cli, argv[4]);
		hi = call_cli_port(&cli, argv[5]);
		c.portMin = &lo;
		c.portMax = &hi;
		next = 6;
	}
	c.traversalAllowed = argc > next && strcmp(argv[next], "traversal") == 0;
	struct _qb__RegisterCluster req = { &c };
	struct _qb__RegisterClusterResponse resp;
	return soap_call___qb__RegisterCluster(soap, cli.url, NULL, &req, &resp);
}

static int
op_resolve(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 5, "resolve");
	enum qcg__Method after;
	struct _qb__Resolve req = { .job = argv[0], .fromCluster = argv[1], .fromNode = argv[2],
		.toAddress = argv[3], .toPort = call_cli_port(&cli, argv[4]) };
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
	int rc = soap_call___qb__Resolve(soap, cli.url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		print_decision(resp.decision);
	return rc;
}

static int
op_resume_relay(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 4, "resume-relay");
	struct _qb__ResumeRelay req = { .job = argv[0], .cluster = argv[1], .node = argv[2],
		.relayId = argv[3] };
	struct _qb__ResumeRelayResponse resp;
	int rc = soap_call___qb__ResumeRelay(soap, cli.url, NULL, &req, &resp);
	if (rc == SOAP_OK)
		print_decision(resp.decision);
	return rc;
}

static int
op_report(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 9, "report");
	enum connect_method m;
	if (connect_method_parse(argv[6], &m) != 0)
		exit(2);
	struct qcg__Connection c = { .job = argv[0], .fromCluster = argv[1], .fromNode = argv[2],
		.toCluster = argv[3], .toNode = argv[4], .toPort = call_cli_port(&cli, argv[5]),
		.method = (enum qcg__Method)m,
		.succeeded = strcmp(argv[7], "ok") == 0 ? xsd__boolean__true_ : xsd__boolean__false_,
		.setupMicroseconds = atoll(argv[8]) };
	if (argc > 9) /* unix seconds of the attempt; the broker takes "now" when absent */
		c.when = atoll(argv[9]);
	struct _qb__ReportOutcome req = { &c };
	struct _qb__ReportOutcomeResponse resp;
	return soap_call___qb__ReportOutcome(soap, cli.url, NULL, &req, &resp);
}

static int
op_wait_events(struct soap *soap, int argc, char **argv)
{
	call_cli_need(&cli, argc, 3, "wait-events");
	struct _qb__WaitEvents req = { argv[0], atoll(argv[1]), atoi(argv[2]) };
	struct _qb__WaitEventsResponse resp;
	int rc = soap_call___qb__WaitEvents(soap, cli.url, NULL, &req, &resp);
	for (int i = 0; rc == SOAP_OK && i < resp.__sizeevent; i++) {
		const struct qcg__Event *e = &resp.event[i];
		printf("event seq=%lld kind=%s job=%s", (long long)e->sequence,
		    soap_qcg__EventKind2s(soap, e->kind), e->job);
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
		call_cli_need(&cli, argc, 1, op);
		struct _qb__UnregisterCluster req = { argv[0] };
		struct _qb__UnregisterClusterResponse resp;
		return soap_call___qb__UnregisterCluster(soap, cli.url, NULL, &req, &resp);
	}
	if (strcmp(op, "register-proxy") == 0) {
		call_cli_need(&cli, argc, 2, op);
		struct qcg__Proxy p = { .endpoint = argv[0], .networks = argv[1],
			.cluster = argc > 2 ? argv[2] : NULL };
		struct _qb__RegisterProxy req = { &p };
		struct _qb__RegisterProxyResponse resp;
		return soap_call___qb__RegisterProxy(soap, cli.url, NULL, &req, &resp);
	}
	if (strcmp(op, "unregister-proxy") == 0) {
		call_cli_need(&cli, argc, 1, op);
		struct _qb__UnregisterProxy req = { argv[0] };
		struct _qb__UnregisterProxyResponse resp;
		return soap_call___qb__UnregisterProxy(soap, cli.url, NULL, &req, &resp);
	}
	if (strcmp(op, "record-job") == 0) {
		call_cli_need(&cli, argc, 1, op);
		struct qcg__Job j = { .id = argv[0], .state = qcg__JobState__pending };
		j.description = argc > 1 ? argv[1] : NULL; /* qcg-submit's "clusters NAME@SITE:N ..." */
		struct _qb__RecordJob req = { &j };
		struct _qb__RecordJobResponse resp;
		return soap_call___qb__RecordJob(soap, cli.url, NULL, &req, &resp);
	}
	if (strcmp(op, "set-job-state") == 0) {
		call_cli_need(&cli, argc, 2, op);
		enum job_state st;
		if (job_state_parse(argv[1], &st) != 0)
			exit(2);
		int code = argc > 2 ? atoi(argv[2]) : 0;
		struct _qb__SetJobState req = { argv[0], (enum qcg__JobState)st, &code, 0, NULL };
		struct _qb__SetJobStateResponse resp;
		return soap_call___qb__SetJobState(soap, cli.url, NULL, &req, &resp);
	}
	if (strcmp(op, "register-ap") == 0) {
		call_cli_need(&cli, argc, 5, op);
		struct qcg__AccessPoint ap = { argv[0], argv[1], argv[2], argv[3], call_cli_port(&cli, argv[4]),
			argc > 5 ? argv[5] : "" };
		struct _qb__RegisterAccessPoint req = { &ap };
		struct _qb__RegisterAccessPointResponse resp;
		return soap_call___qb__RegisterAccessPoint(soap, cli.url, NULL, &req, &resp);
	}
	if (strcmp(op, "remove-aps") == 0) {
		call_cli_need(&cli, argc, 1, op);
		struct _qb__RemoveJobAccessPoints req = { argv[0] };
		struct _qb__RemoveJobAccessPointsResponse resp;
		int rc = soap_call___qb__RemoveJobAccessPoints(soap, cli.url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			printf("removed=%d\n", resp.removed);
		return rc;
	}
	if (strcmp(op, "multicast") == 0) {
		call_cli_need(&cli, argc, 1, op);
		struct _qb__AllocateMulticastGroup req = { argv[0] };
		struct _qb__AllocateMulticastGroupResponse resp;
		int rc = soap_call___qb__AllocateMulticastGroup(soap, cli.url, NULL, &req, &resp);
		if (rc == SOAP_OK)
			printf("group=%s:%u\n", resp.group->address, resp.group->port);
		return rc;
	}
	if (strcmp(op, "release-multicast") == 0) {
		call_cli_need(&cli, argc, 1, op);
		struct _qb__ReleaseMulticastGroups req = { argv[0] };
		struct _qb__ReleaseMulticastGroupsResponse resp;
		return soap_call___qb__ReleaseMulticastGroups(soap, cli.url, NULL, &req, &resp);
	}
	fprintf(stderr, "broker_call: unknown operation %s\n", op);
	exit(2);
}

int
main(int argc, char **argv)
{
	int first;
	struct soap *soap = call_cli_start(&cli, argc, argv, &first);
	const char *op = argv[first];
	int nargs = argc - first - 1;
	char **args = argv + first + 1;
	int rc;
	if (strcmp(op, "register-cluster") == 0)
		rc = op_register_cluster(soap, nargs, args);
	else if (strcmp(op, "resolve") == 0)
		rc = op_resolve(soap, nargs, args);
	else if (strcmp(op, "report") == 0)
		rc = op_report(soap, nargs, args);
	else if (strcmp(op, "wait-events") == 0)
		rc = op_wait_events(soap, nargs, args);
	else if (strcmp(op, "resume-relay") == 0)
		rc = op_resume_relay(soap, nargs, args);
	else
		rc = op_simple(soap, op, nargs, args);
	int status = call_cli_status(&cli, soap, rc, op);
	if (status == 0 && strcmp(op, "resolve") && strcmp(op, "wait-events") &&
	    strcmp(op, "resume-relay") &&
	    strcmp(op, "remove-aps") && strcmp(op, "multicast"))
		printf("ok\n");
	soap_client_free(soap);
	return status;
}
