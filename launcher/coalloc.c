/*
 * coalloc.c: reserve all, commit all, or release all (coalloc.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "coalloc.h"
#include "soap_client.h"

/* Reserve part's processes on its front-end and keep the grant. */
static int
reserve_part(struct soap *soap, const struct coalloc *c, struct coalloc_part *p, char *err,
    size_t errlen)
{
	const struct job_cluster *jc = p->cluster;
	char *nodes[JOB_NODES_MAX], why[512];
	int per_node = jc->per_node;
	for (int i = 0; i < jc->node_count; i++)
		nodes[i] = (char *)jc->node[i];
	int walltime = c->walltime;
	struct _qf__Reserve req = { (char *)c->job_id, jc->processes, jc->node_count, nodes,
		per_node ? &per_node : NULL, c->reserve_timeout, walltime ? &walltime : NULL };
	struct _qf__ReserveResponse resp;
	if (soap_call___qf__Reserve(soap, p->frontend_url, NULL, &req, &resp) != SOAP_OK) {
		soap_client_error(soap, why, sizeof(why));
		snprintf(err, errlen, "cluster %s (%s) refused the reservation of %d processes: %s",
		    jc->name, p->frontend_url, jc->processes, why);
		soap_client_reset(soap);
		soap_closesock(soap);
		return -1;
	}
	int rc = 0;
	if (resp.reservationId == NULL || strlen(resp.reservationId) >= sizeof(p->reservation) ||
	    resp.__sizeslot > COALLOC_SLOTS_MAX) {
		snprintf(err, errlen, "cluster %s answered Reserve without a usable grant", jc->name);
		rc = -1;
	}
	if (resp.reservationId && strlen(resp.reservationId) < sizeof(p->reservation))
		snprintf(p->reservation, sizeof(p->reservation), "%s", resp.reservationId);
	for (int i = 0; rc == 0 && i < resp.__sizeslot; i++) {
		snprintf(p->node[i].name, QCG_NAME_MAX, "%s", resp.slot[i].node);
		p->node[i].count = resp.slot[i].count;
	}
	p->node_count = rc == 0 ? resp.__sizeslot : 0;
	soap_client_reset(soap);
	soap_closesock(soap); /* the next part is another front-end */
	return rc;
}

static int
commit_part(struct soap *soap, struct coalloc_part *p, char *err, size_t errlen)
{
	char why[512];
	struct _qf__Commit req = { p->reservation };
	struct _qf__CommitResponse resp;
	int rc = soap_call___qf__Commit(soap, p->frontend_url, NULL, &req, &resp);
	if (rc != SOAP_OK) {
		soap_client_error(soap, why, sizeof(why));
		snprintf(err, errlen, "cluster %s (%s) refused to commit reservation %s: %s",
		    p->cluster->name, p->frontend_url, p->reservation, why);
	} else
		p->committed = 1;
	soap_client_reset(soap);
	soap_closesock(soap);
	return rc == SOAP_OK ? 0 : -1;
}

int
coalloc_acquire(struct soap *soap, struct coalloc *c, char *err, size_t errlen)
{
	for (int i = 0; i < c->count; i++)
		if (reserve_part(soap, c, &c->part[i], err, errlen) != 0)
			goto fail;
	for (int i = 0; i < c->count; i++)
		if (commit_part(soap, &c->part[i], err, errlen) != 0)
			goto fail;
	return 0;
fail:
	coalloc_release(soap, c);
	return -1;
}

int
coalloc_release(struct soap *soap, struct coalloc *c)
{
	int failed = 0;
	char why[512];
	for (int i = 0; i < c->count; i++) {
		struct coalloc_part *p = &c->part[i];
		if (p->reservation[0] == '\0')
			continue;
		struct _qf__Release req = { p->reservation };
		struct _qf__ReleaseResponse resp;
		if (soap_call___qf__Release(soap, p->frontend_url, NULL, &req, &resp) != SOAP_OK) {
			soap_client_error(soap, why, sizeof(why));
			fprintf(stderr, "qcg-submit: releasing %s on cluster %s: %s\n", p->reservation,
			    p->cluster->name, why);
			failed++;
		} else
			p->reservation[0] = '\0';
		soap_client_reset(soap);
		soap_closesock(soap);
	}
	return failed;
}
