/*
 * helper_input_put.c: a launch's standard input from a PUT body (helper_input_put.h).
 */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdsoap2.h>

#include "helper.h"
#include "helper_input_put.h"
#include "http_stream.h"
#include "launch.h"
#include "log.h"
#include "soap_server.h"

int
helper_input_put(struct soap *soap, const char *target, uint64_t length)
{
	struct soap_request *req = soap_request_of(soap);
	struct helper *h = req->app;
	char err[512];
	size_t plen = strlen(HTTP_STREAM_LAUNCH_INPUT);

	if (!acl_allows(&h->acl, req->peer_dn, ACL_ROLE_FRONTEND) &&
	    !acl_allows(&h->acl, req->peer_dn, ACL_ROLE_ADMIN)) {
		log_warn("denied: %s is not a frontend in the helper's ACL (PUT)", req->peer_dn);
		return http_stream_answer(soap, 403, "not authorized: %s is not a frontend in the "
		    "helper's ACL", req->peer_dn);
	}
	const char *id = target + plen;
	if (strncmp(target, HTTP_STREAM_LAUNCH_INPUT, plen) != 0 || *id == '\0' ||
	    strlen(id) >= LAUNCH_ID_MAX)
		return http_stream_answer(soap, 404, "no such target: %.100s (PUT "
		    HTTP_STREAM_LAUNCH_INPUT "<launch id>)", target);
	log_info("input of launch %s: %" PRIu64 " bytes from %s", id, length, req->peer_dn);
	/* LAUNCH_INPUT_CHUNK is what one write may take; the block is one read's worth */
	size_t cap = HTTP_STREAM_BLOCK < LAUNCH_INPUT_CHUNK ? HTTP_STREAM_BLOCK : LAUNCH_INPUT_CHUNK;
	char *buf = malloc(cap);
	if (buf == NULL)
		return http_stream_answer(soap, 500, "out of memory");
	uint64_t got = 0;
	int rc = 0;
	do {
		size_t want = length - got < cap ? (size_t)(length - got) : cap;
		ssize_t n = want ? soap_server_body_fill(soap, buf, want) : 0;
		if ((size_t)n < want) {
			got += (uint64_t)n;
			snprintf(err, sizeof(err), "the body ended after %" PRIu64 " of %" PRIu64
			    " bytes", got, length);
			rc = -1;
			break;
		}
		got += (uint64_t)n;
		rc = launch_write_input(h->launches, id, (const uint8_t *)buf, (size_t)n,
		    got == length, err, sizeof(err));
	} while (rc == 0 && got < length);
	free(buf);
	if (rc != 0) {
		char ignored[128];
		/* its receiver must not keep a part: TERM makes it remove its temporary file */
		launch_signal(h->launches, id, SIGTERM, ignored, sizeof(ignored));
		log_warn("input of launch %s refused after %" PRIu64 " bytes: %s", id, got, err);
		return http_stream_answer(soap, 400, "%s", err);
	}
	return http_stream_answer(soap, 200, "%" PRIu64 " bytes taken", got);
}
