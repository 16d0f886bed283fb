/*
 * handlers_launch.c: what the launcher calls (grid-mapfile users): Reserve, Commit, Release,
 * Launch, ReadOutput and Signal. Slot and launch bookkeeping is reservations.c; the processes
 * themselves run under the nodes' helpers, which these handlers call with the worker's helper
 * context.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "soapH.h"
#include "allocator.h"
#include "frontend.h"
#include "helper_probe.h"
#include "log.h"
#include "reservations.h"
#include "slurm_parse.h" /* slurm_daemonize_word: the only backend with a launch prefix */
#include "soap_server.h"

#define FE_LAUNCH_ARGS_MAX 4096   /* arguments (and, separately, environment entries) */
#define FE_SIGNAL_MAX 64

static int
resv_fault(struct soap *soap, enum resv_status st, const char *err)
{
	if (st == RESV_FULL)
		return soap_fault_server(soap, "%s", err);
	if (st == RESV_BUSY) /* the launcher may wait for it (--reserve-timeout) */
		return soap_fault_client_kind(soap, QCG_FAULT_BUSY, "%s", err);
	return soap_fault_client(soap, "%s%s", st == RESV_DENIED ? "not authorized: " : "", err);
}

int
__qf__Reserve(struct soap *soap, struct _qf__Reserve *req, struct _qf__ReserveResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const struct fe_config *cfg = &call.fe->cfg;
	const char *account;
	struct resv_grant *grant;
	char err[256];
	int rc;

	if ((rc = fe_require_submitter(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "Reserve")) ||
	    (rc = soap_require_name(soap, req->job, QCG_NAME_MAX, "Reserve: job")))
		return rc;
	for (int i = 0; i < req->__sizenode; i++)
		if ((rc = soap_require_name(soap, req->node[i], QCG_NAME_MAX, "Reserve: node")))
			return rc;
	long timeout = req->timeoutSeconds == 0 ? cfg->reservation_timeout : req->timeoutSeconds;
	if (timeout < 0 || timeout > cfg->reservation_timeout_max)
		return soap_fault_client(soap, "timeoutSeconds must be 0 (the default, %ld) to %ld, "
		    "got %d", cfg->reservation_timeout, cfg->reservation_timeout_max,
		    req->timeoutSeconds);
	if (req->processesPerNode && *req->processesPerNode <= 0)
		return soap_fault_client(soap, "processesPerNode must be positive, got %d",
		    *req->processesPerNode);
	struct resv_request r = {
		.owner_dn = call.caller_dn, .account = account, .job = req->job,
		.slots = req->slots, .nodes = (const char *const *)req->node,
		.node_count = req->__sizenode > 0 ? (size_t)req->__sizenode : 0,
		.per_node = req->processesPerNode ? *req->processesPerNode : 0, .timeout = timeout,
		.walltime = req->wallTimeSeconds ? *req->wallTimeSeconds : 0,
	};
	grant = soap_malloc(soap, sizeof(*grant));
	struct helper_probe_result *helpers = soap_malloc(soap, sizeof(*helpers));
	if (grant == NULL || helpers == NULL)
		return soap_fault_server(soap, "out of memory");
	/* Only nodes that may be granted are asked about: the named ones, or all. */
	bool want[FE_NODES_MAX] = { false };
	for (size_t i = 0; i < cfg->node_count; i++)
		want[i] = r.node_count == 0;
	for (size_t i = 0; i < r.node_count; i++)
		for (size_t k = 0; r.nodes[i] && k < cfg->node_count; k++)
			if (strcmp(cfg->nodes[k].name, r.nodes[i]) == 0)
				want[k] = true;
	helper_probe_check(call.fe->helpers, fe_now() * 1000.0, want, helpers);
	r.helpers = helpers;
	enum resv_status st = allocator_reserve(call.fe->allocator, fe_now(), &r, grant, err,
	    sizeof(err));
	if (st != RESV_OK) {
		log_info("Reserve refused for %s: %s", call.caller_dn, err);
		return resv_fault(soap, st, err);
	}
	resp->reservationId = soap_strdup(soap, grant->id);
	resp->slot = soap_malloc(soap, grant->slot_count * sizeof(*resp->slot));
	if (resp->slot == NULL)
		return soap_fault_server(soap, "out of memory");
	resp->__sizeslot = (int)grant->slot_count;
	for (size_t i = 0; i < grant->slot_count; i++) {
		resp->slot[i].node = soap_strdup(soap, grant->slot[i].node);
		resp->slot[i].count = grant->slot[i].count;
	}
	/* The batch job that holds it (Slurm's), so that qcg-status can name it. */
	char batch_job[ALLOC_JOB_ID_MAX] = "";
	allocator_job_of(call.fe->allocator, grant->id, batch_job);
	if (batch_job[0])
		resp->batchJobId = soap_strdup(soap, batch_job);
	log_info("reservation %s: job %s, %d slots on %zu nodes for %s (account %s), %lds to "
	    "commit, wall time %lds (0: none)", grant->id, req->job, req->slots, grant->slot_count,
	    call.caller_dn, account, timeout, r.walltime);
	return SOAP_OK;
}

int
__qf__Commit(struct soap *soap, struct _qf__Commit *req, struct _qf__CommitResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const char *account;
	char err[256];
	int rc;

	if ((rc = fe_require_submitter(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "Commit")))
		return rc;
	enum resv_status st = resv_commit(call.fe->reservations, fe_now(),
	    req->reservationId ? req->reservationId : "", call.caller_dn, err, sizeof(err));
	if (st != RESV_OK)
		return resv_fault(soap, st, err);
	log_info("reservation %s committed", req->reservationId);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

int
__qf__Release(struct soap *soap, struct _qf__Release *req, struct _qf__ReleaseResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	size_t max = (size_t)call.fe->cfg.max_launches, n = 0;
	const char *account;
	char err[256];
	int rc;

	if ((rc = fe_require_user(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "Release")))
		return rc;
	struct resv_launch_info *launches = soap_malloc(soap, max * sizeof(*launches));
	if (launches == NULL)
		return soap_fault_server(soap, "out of memory");
	enum resv_status st = resv_release(call.fe->reservations, fe_now(),
	    req->reservationId ? req->reservationId : "", call.caller_dn, launches, max, &n, err,
	    sizeof(err));
	if (st != RESV_OK)
		return resv_fault(soap, st, err);
	size_t killed = fe_kill_launches(call.worker, req->reservationId, launches, n);
	allocator_released(call.fe->allocator, req->reservationId);
	log_info("reservation %s released; %zu of its %zu launches were running and are killed",
	    req->reservationId, killed, n);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}

static int
check_launch_request(struct soap *soap, const struct _qf__Launch *req)
{
	if (req->__sizeargument < 1 || req->argument == NULL || req->argument[0] == NULL ||
	    req->argument[0][0] == '\0')
		return soap_fault_client(soap, "Launch needs at least one argument (the program)");
	for (int i = 1; i < req->__sizeargument; i++)
		if (req->argument[i] == NULL) /* a nil argument; the helper's argv has no holes */
			return soap_fault_client(soap, "Launch argument %d is nil", i);
	if (req->node != NULL && soap_has_control_char(req->node))
		return soap_fault_client(soap, "Launch: node must not hold control characters");
	if (req->__sizeargument > FE_LAUNCH_ARGS_MAX || req->__sizeenvironment > FE_LAUNCH_ARGS_MAX)
		return soap_fault_client(soap, "Launch takes at most %d arguments and %d environment "
		    "entries", FE_LAUNCH_ARGS_MAX, FE_LAUNCH_ARGS_MAX);
	for (int i = 0; i < req->__sizeenvironment; i++)
		if (req->environment[i] == NULL || strchr(req->environment[i], '=') == NULL)
			return soap_fault_client(soap, "environment entry %d must be NAME=value", i);
	return SOAP_OK;
}

/* cmd without the word --daemonize (a copy in soap's memory), or cmd itself when it has none.
 * Inside a batch step the daemon must stay the step's task: Open MPI's plm_rsh (without tree
 * spawn) starts `orted --daemonize`, whose first process forks the daemon and exits at once;
 * that ends the step, and slurmstepd kills what is left of it, which with proctrack/pgid
 * races the daemon's setsid() (an orted lost now and then) and with proctrack/cgroup always
 * wins. In the foreground, orted and its ranks are the step's, tracked and cleaned up. */
static char *
without_daemonize(struct soap *soap, char *cmd)
{
	const size_t wlen = sizeof("--daemonize") - 1;
	long at = slurm_daemonize_word(cmd);
	if (at < 0)
		return cmd;
	char *out = soap_malloc(soap, strlen(cmd) + 1);
	if (out == NULL)
		return NULL;
	const char *rest = cmd + at + wlen + (cmd[at + (long)wlen] == ' ' ? 1 : 0);
	memcpy(out, cmd, (size_t)at);
	memcpy(out + at, rest, strlen(rest) + 1);
	return out;
}

/* Put the allocator's prefix (srun into the Slurm allocation; nothing for builtin) before
 * the launch's arguments, and drop the environment entry it moved into them. The new arrays
 * live in soap's memory. */
static int
place_launch(struct soap *soap, const struct fe_call *call, const struct resv_launch_info *info,
    int *argc, char ***argv, int *envc, char ***env)
{
	const char *prefix[ALLOC_LAUNCH_PREFIX_MAX];
	char *storage = soap_malloc(soap, 4096), err[256];
	int drop = -1;
	if (storage == NULL)
		return soap_fault_server(soap, "out of memory");
	int n = allocator_launch_prefix(call->fe->allocator, info->reservation, info->node, *env,
	    *envc, prefix, storage, 4096, &drop, err, sizeof(err));
	if (n < 0)
		return soap_fault_server(soap, "launch on %s: %s", info->node, err);
	if (n == 0)
		return SOAP_OK;
	char **a = soap_malloc(soap, (size_t)(*argc + n) * sizeof(*a));
	char **e = soap_malloc(soap, (size_t)(*envc > 0 ? *envc : 1) * sizeof(*e));
	if (a == NULL || e == NULL)
		return soap_fault_server(soap, "out of memory");
	for (int i = 0; i < n; i++)
		a[i] = (char *)prefix[i];
	memcpy(a + n, *argv, (size_t)*argc * sizeof(*a));
	for (int i = n; i < n + *argc; i++)
		if ((a[i] = without_daemonize(soap, a[i])) == NULL)
			return soap_fault_server(soap, "out of memory");
	int k = 0;
	for (int i = 0; i < *envc; i++)
		if (i != drop)
			e[k++] = (*env)[i];
	*argc += n;
	*argv = a;
	*envc = k;
	*env = e;
	return SOAP_OK;
}

int
fe_launch_on_node(struct soap *soap, const struct fe_call *call, const char *reservation,
    const char *node_name, int argc, char **argv, int envc, char **env, const char *workdir,
    bool input, char id[RESV_ID_LEN])
{
	struct resv_launch_info info;
	char err[256];
	int rc;

	const struct fe_node *node = fe_config_node(&call->fe->cfg, node_name);
	enum resv_status st = resv_launch_check(call->fe->reservations, fe_now(), reservation,
	    call->caller_dn, node_name, &info, err, sizeof(err));
	if (st != RESV_OK)
		return resv_fault(soap, st, err);
	if (node == NULL) /* resv_launch_check knows only configured nodes */
		return soap_fault_server(soap, "node %s is not configured", node_name);

	if ((rc = place_launch(soap, call, &info, &argc, &argv, &envc, &env)) != SOAP_OK)
		return rc;
	struct soap *helper = fe_worker_helper(call->worker, node);
	enum xsd__boolean *with_input = NULL;
	if (input && (with_input = soap_malloc(soap, sizeof(*with_input))) != NULL)
		*with_input = xsd__boolean__true_;
	if (input && with_input == NULL)
		return soap_fault_server(soap, "out of memory");
	struct _qh__Launch hreq = { info.job, info.account, argc, argv, envc, env,
		(char *)workdir, with_input };
	struct _qh__LaunchResponse hresp;
	if (soap_call___qh__Launch(helper, node->helper_url, NULL, &hreq, &hresp) != SOAP_OK)
		return fe_relay_failure(soap, helper, "helper Launch");
	if (hresp.launchId == NULL || strlen(hresp.launchId) >= RESV_HELPER_ID_MAX)
		return soap_fault_server(soap, "helper of %s answered without a usable launch id",
		    node->name);
	snprintf(info.helper_launch_id, sizeof(info.helper_launch_id), "%s", hresp.launchId);
	if ((st = resv_launch_add(call->fe->reservations, &info, id, err, sizeof(err))) != RESV_OK) {
		fe_signal_launch(call->worker, &info, SIGKILL); /* nobody could watch or stop it */
		return resv_fault(soap, st, err);
	}
	log_info("launch %s: %s on %s as %s (reservation %s, helper id %s)", id, argv[0],
	    node->name, info.account, info.reservation, info.helper_launch_id);
	return SOAP_OK;
}

int
__qf__Launch(struct soap *soap, struct _qf__Launch *req, struct _qf__LaunchResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const char *account;
	char id[RESV_ID_LEN];
	int rc;

	if ((rc = fe_require_submitter(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "Launch")) || (rc = check_launch_request(soap, req)))
		return rc;
	if ((rc = fe_launch_on_node(soap, &call, req->reservationId ? req->reservationId : "",
		 req->node ? req->node : "", req->__sizeargument, req->argument,
		 req->__sizeenvironment, req->environment, req->workingDirectory, false, id)) !=
	    SOAP_OK)
		return rc;
	resp->launchId = soap_strdup(soap, id);
	return SOAP_OK;
}

int
fe_launch_find(struct soap *soap, const struct fe_call *call, const char *launch_id,
    struct resv_launch_info *info)
{
	char err[256];
	enum resv_status st = resv_launch_find(call->fe->reservations, launch_id ? launch_id : "",
	    call->caller_dn, info, err, sizeof(err));
	return st == RESV_OK ? SOAP_OK : resv_fault(soap, st, err);
}

int
fe_launch_helper(struct soap *soap, const struct fe_call *call, const char *launch_id,
    struct resv_launch_info *info, const struct fe_node **node, struct soap **helper)
{
	int rc;
	if ((rc = fe_launch_find(soap, call, launch_id, info)) != SOAP_OK)
		return rc;
	if ((*node = fe_config_node(&call->fe->cfg, info->node)) == NULL)
		return soap_fault_server(soap, "launch %s runs on unknown node %s", launch_id,
		    info->node);
	*helper = fe_worker_helper(call->worker, *node);
	return SOAP_OK;
}

int
__qf__ReadOutput(struct soap *soap, struct _qf__ReadOutput *req,
    struct _qf__ReadOutputResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	struct resv_launch_info info;
	const char *account;
	int rc;

	if ((rc = fe_require_user(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "ReadOutput")))
		return rc;
	if (req->timeoutSeconds < 0 || req->timeoutSeconds > call.fe->cfg.output_wait_max ||
	    req->standardOutputOffset < 0 || req->standardErrorOffset < 0)
		return soap_fault_client(soap, "timeoutSeconds must be 0-%ld and offsets must not be "
		    "negative", call.fe->cfg.output_wait_max);
	const struct fe_node *node;
	struct soap *helper;
	if ((rc = fe_launch_helper(soap, &call, req->launchId, &info, &node, &helper)) != SOAP_OK)
		return rc;
	struct _qh__ReadOutput hreq = { info.helper_launch_id, req->standardOutputOffset,
		req->standardErrorOffset, req->timeoutSeconds };
	struct _qh__ReadOutputResponse hresp;
	if (soap_call___qh__ReadOutput(helper, node->helper_url, NULL, &hreq, &hresp) != SOAP_OK)
		return fe_relay_failure(soap, helper, "helper ReadOutput");
	if (hresp.output == NULL)
		return soap_fault_server(soap, "helper of %s answered ReadOutput without output",
		    node->name);
	/* The output lives in the worker's helper context until its next call, which comes
	 * after this response has been sent. */
	resp->output = hresp.output;
	return SOAP_OK;
}

int
__qf__Signal(struct soap *soap, struct _qf__Signal *req, struct _qf__SignalResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	struct resv_launch_info info;
	const char *account;
	int rc;

	if ((rc = fe_require_user(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "Signal")))
		return rc;
	if (req->signal < 1 || req->signal > FE_SIGNAL_MAX)
		return soap_fault_client(soap, "signal must be 1-%d, got %d", FE_SIGNAL_MAX,
		    req->signal);
	if ((rc = fe_launch_find(soap, &call, req->launchId, &info)) != SOAP_OK)
		return rc;
	if (fe_signal_launch(call.worker, &info, req->signal) != SOAP_OK)
		return fe_relay_failure(soap, call.worker->helper, "helper Signal");
	log_info("launch %s: signal %d", req->launchId, req->signal);
	resp->ok = xsd__boolean__true_;
	return SOAP_OK;
}
