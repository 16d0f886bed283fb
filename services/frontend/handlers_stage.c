/*
 * handlers_stage.c: staging of any size (StageIn, StageOut; frontend.wsdl).
 *
 * The bytes of a stage-in come as a PUT body on the same port (fe_stage_put, the server's
 * put hook: same TLS, peer DN, grid-mapfile and launch-owner checks), relayed block by block
 * to the helper's PUT (lib/http_stream.h): base64 in SOAP cost 85 % of the front-end's CPU,
 * and a chunk per call kept the two hops from overlapping. (WriteInput, the base64 chunks
 * that came before, is gone from both WSDLs: nothing called it any more.)
 *
 * StageIn checks the name (lib/stage_path.h) and the user's quota (stage_quota.h) before
 * anything starts on the node, then starts the node's receiver (stage_node.h) as a launch of
 * the reservation with its stdin open; the PUT's blocks go to it. StageOut starts the
 * sender, whose bytes ReadOutput returns. Release kills either, as any launch.
 */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "frontend.h"
#include "http_stream.h"
#include "log.h"
#include "reservations.h"
#include "soap_server.h"
#include "stage_node.h"
#include "stage_path.h"
#include "stage_quota.h"

static bool
reservation_live(void *ctx, const char *reservation)
{
	struct frontend *fe = ctx;
	return resv_is_live(fe->reservations, fe_now(), reservation);
}

struct stage_quota *
fe_stage_quota_new(struct frontend *fe)
{
	uint64_t bytes = (uint64_t)fe->cfg.stage_quota_mib * 1024 * 1024;
	return stage_quota_new(bytes, reservation_live, fe);
}

/* The name and the working directory, as the fault's text wants them. */
static int
require_names(struct soap *soap, const char *op, const char *path, const char *workdir)
{
	char why[160];
	if (stage_path_check(path, why, sizeof(why)) != 0)
		return soap_fault_client(soap, "%s: refused name '%.200s': %s", op,
		    path ? path : "", why);
	if (stage_dir_check(workdir, why, sizeof(why)) != 0)
		return soap_fault_client(soap, "%s: workingDirectory '%.200s' %s", op,
		    workdir ? workdir : "", why);
	return SOAP_OK;
}

int
__qf__StageIn(struct soap *soap, struct _qf__StageIn *req, struct _qf__StageInResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const char *account;
	char err[512], id[RESV_ID_LEN], num[STAGE_NODE_NUM_MAX], *argv[STAGE_NODE_ARGV_MAX];
	int rc;

	if ((rc = fe_require_submitter(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "StageIn")) ||
	    (rc = soap_require_name(soap, req->node, QCG_NAME_MAX, "StageIn: node")) ||
	    (rc = require_names(soap, "StageIn", req->path, req->workingDirectory)))
		return rc;
	uint64_t max = (uint64_t)call.fe->cfg.stage_file_max_mib * 1024 * 1024;
	if (req->size < 0 || (uint64_t)req->size > max)
		return soap_fault_client(soap, "StageIn: %s: size must be 0 to %" PRIu64 " bytes "
		    "(frontend.stage_file_max_mib), got %" PRId64, req->path, max,
		    (int64_t)req->size);
	if (!stage_sha256_valid(req->sha256))
		return soap_fault_client(soap, "StageIn: sha256 must be 64 lowercase hex digits");
	if (call.fe->stage_quota == NULL)
		return soap_fault_server(soap, "staging is not set up on this front-end");
	const char *resv = req->reservationId ? req->reservationId : "";
	if (stage_quota_take(call.fe->stage_quota, call.caller_dn, resv, (uint64_t)req->size, err,
		sizeof(err)) != 0) {
		log_info("StageIn refused for %s: %s", call.caller_dn, err);
		return soap_fault_client(soap, "%s: %s", req->path, err);
	}
	int argc = stage_node_in_argv(req->workingDirectory, req->path, (uint64_t)req->size,
	    req->sha256, req->executable == xsd__boolean__true_, num, argv);
	if ((rc = fe_launch_on_node(soap, &call, resv, req->node, argc, argv, 1, stage_node_env,
		 "/", true, id)) != SOAP_OK) {
		stage_quota_give_back(call.fe->stage_quota, call.caller_dn, resv,
		    (uint64_t)req->size);
		return rc;
	}
	log_info("stage-in %s: %s (%" PRId64 " bytes) to %s:%s for %s", id, req->path,
	    (int64_t)req->size, req->node, req->workingDirectory, call.caller_dn);
	resp->launchId = soap_strdup(soap, id);
	return SOAP_OK;
}

int
__qf__StageOut(struct soap *soap, struct _qf__StageOut *req, struct _qf__StageOutResponse *resp)
{
	struct fe_call call = fe_call_of(soap);
	const char *account;
	char id[RESV_ID_LEN], *argv[STAGE_NODE_ARGV_MAX];
	int rc;

	if ((rc = fe_require_submitter(soap, &call, &account)) ||
	    (rc = soap_require_body(soap, req, "StageOut")) ||
	    (rc = soap_require_name(soap, req->node, QCG_NAME_MAX, "StageOut: node")) ||
	    (rc = require_names(soap, "StageOut", req->path, req->workingDirectory)))
		return rc;
	int argc = stage_node_out_argv(req->workingDirectory, req->path, argv);
	if ((rc = fe_launch_on_node(soap, &call, req->reservationId ? req->reservationId : "",
		 req->node, argc, argv, 1, stage_node_env, "/", false, id)) != SOAP_OK)
		return rc;
	log_info("stage-out %s: %s:%s/%s for %s", id, req->node, req->workingDirectory, req->path,
	    call.caller_dn);
	resp->launchId = soap_strdup(soap, id);
	return SOAP_OK;
}

/* The fault text a check (fe_require_user, fe_launch_helper) left in soap. */
static const char *
fault_text(struct soap *soap)
{
	const char **s = soap_faultstring(soap);
	return s != NULL && *s != NULL ? *s : "refused";
}

/* The user's body, as the helper PUT's source. */
struct user_body {
	struct soap *soap;
	uint64_t got;
};

static ssize_t
read_user_body(void *ctx, char *buf, size_t len)
{
	struct user_body *b = ctx;
	ssize_t n = soap_server_body_fill(b->soap, buf, len);
	if (n > 0)
		b->got += (uint64_t)n;
	return n;
}

int
fe_stage_put(struct soap *soap, const char *target, uint64_t length)
{
	struct fe_call call = fe_call_of(soap);
	struct resv_launch_info info;
	const struct fe_node *node;
	struct soap *helper;
	const char *account;
	char msg[512], htarget[HTTP_STREAM_TARGET_MAX];
	size_t plen = strlen(HTTP_STREAM_STAGE_IN);

	if (fe_require_user(soap, &call, &account) != SOAP_OK)
		return http_stream_answer(soap, 403, "%s", fault_text(soap));
	if (strncmp(target, HTTP_STREAM_STAGE_IN, plen) != 0)
		return http_stream_answer(soap, 404, "no such target: %.100s (PUT "
		    HTTP_STREAM_STAGE_IN "<launch id of StageIn>)", target);
	uint64_t max = (uint64_t)call.fe->cfg.stage_file_max_mib * 1024 * 1024;
	if (length > max)
		return http_stream_answer(soap, 413, "a staged file is at most %" PRIu64 " bytes "
		    "(frontend.stage_file_max_mib), this body has %" PRIu64, max, length);
	if (fe_launch_helper(soap, &call, target + plen, &info, &node, &helper) != SOAP_OK)
		return http_stream_answer(soap, 404, "%s", fault_text(soap));
	snprintf(htarget, sizeof(htarget), HTTP_STREAM_LAUNCH_INPUT "%s", info.helper_launch_id);
	/* Each block goes on to the node as soon as it is here: the user's hop and the node's
	 * overlap, and memory stays one block. */
	struct user_body body = { soap, 0 };
	uint64_t sent;
	int status = http_stream_put(helper, node->helper_url, htarget, length, read_user_body,
	    &body, &sent, msg, sizeof(msg));
	if (status == 200) {
		log_info("stage-in %s: %" PRIu64 " bytes relayed to %s for %s", target + plen,
		    length, node->name, call.caller_dn);
		return http_stream_answer(soap, 200, "%" PRIu64 " bytes reached %s", length,
		    node->name);
	}
	log_warn("stage-in %s to %s for %s failed after %" PRIu64 " of %" PRIu64 " bytes: %s",
	    target + plen, node->name, call.caller_dn, sent, length, msg);
	/* The receiver must not wait for the rest, nor keep a part: TERM makes it remove its
	 * temporary file. Not left to the helper: a connection closed before its intake handed
	 * the request on never reaches it. */
	if (fe_signal_launch(call.worker, &info, SIGTERM) != SOAP_OK)
		log_warn("stage-in %s: cannot stop the receiver on %s", target + plen, node->name);
	if (body.got < length && sent == body.got)
		return http_stream_answer(soap, 400, "the body ended after %" PRIu64 " of %" PRIu64
		    " bytes (Content-Length)", body.got, length);
	return http_stream_answer(soap, status > 0 ? status : 502, "%s: %s", node->name, msg);
}
