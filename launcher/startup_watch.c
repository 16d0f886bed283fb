/*
 * startup_watch.c: the start-up watch of qcg-submit (startup_watch.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "soapH.h"
#include "soap_client.h"
#include "soap_model.h"
#include "startup_watch.h"

void
startup_watch_init(struct startup_watch *w, const struct coalloc *alloc, const char *self_node,
    int timeout_s)
{
	memset(w, 0, sizeof(*w));
	for (int p = 0; p < alloc->count; p++) {
		const struct coalloc_part *part = &alloc->part[p];
		for (int i = 0; i < part->node_count; i++) {
			const char *cluster = part->cluster->name, *node = part->node[i].name;
			if (self_node != NULL && strcmp(node, self_node) == 0)
				continue; /* mpirun's own node runs no orted */
			if (w->count == STARTUP_WATCH_NODES_MAX)
				break;
			w->node[w->count++] = (struct startup_node){ cluster, node, false, false };
		}
	}
	w->deadline = timeout_s > 0 ? time(NULL) + timeout_s : 0;
	w->done = w->count == 0;
}

/* The watched node cluster/node, or NULL. */
static struct startup_node *
find_node(struct startup_watch *w, const char *cluster, const char *node)
{
	for (int i = 0; i < w->count; i++)
		if (strcmp(w->node[i].cluster, cluster) == 0 && strcmp(w->node[i].node, node) == 0)
			return &w->node[i];
	return NULL;
}

/* Append "c/n, c/n" of the nodes with the given flags to buf. Returns how many. */
static int
list_nodes(const struct startup_watch *w, bool want_refused, char *buf, size_t len)
{
	int n = 0;
	size_t used = 0;
	for (int i = 0; i < w->count; i++) {
		const struct startup_node *s = &w->node[i];
		if (s->reached || s->refused != want_refused)
			continue;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s/%s", n ? ", " : "",
			    s->cluster, s->node);
		n++;
	}
	return n;
}

enum startup_state
startup_watch_judge(struct startup_watch *w, const char *job, const struct startup_conn *c,
    size_t n, bool (*daemon_at)(void *arg, const char *cluster, const char *node,
    unsigned short port), void *arg, time_t now, char *why, size_t whylen)
{
	char nodes[512] = "";
	int left = 0;

	if (w->done)
		return STARTUP_DONE;
	for (size_t i = 0; i < n; i++) {
		struct startup_node *s = find_node(w, c[i].from_cluster, c[i].from_node);
		if (s == NULL || !daemon_at(arg, c[i].to_cluster, c[i].to_node, c[i].to_port))
			continue;
		if (c[i].succeeded)
			s->reached = true;
		else if (c[i].no_method)
			s->refused = true;
	}
	for (int i = 0; i < w->count; i++)
		left += !w->node[i].reached;
	if (left == 0) {
		w->done = true;
		return STARTUP_DONE;
	}
	if (list_nodes(w, true, nodes, sizeof(nodes)) > 0) {
		snprintf(why, whylen, "the Open MPI daemon on %s cannot reach mpirun: the broker has "
		    "no connection method for it (a proxy or front-end it needs is gone; see "
		    "qcg-query connections %s)", nodes, job);
		return STARTUP_FAILED;
	}
	if (w->deadline && now >= w->deadline) {
		list_nodes(w, false, nodes, sizeof(nodes));
		snprintf(why, whylen, "no progress in start-up: the Open MPI daemon on %s did not "
		    "reach mpirun within the start-up time (qcg-submit --startup-timeout)", nodes);
		return STARTUP_FAILED;
	}
	return STARTUP_GOING;
}

/* The job's daemons' access points (mpirun's and every orted's), from ListAccessPoints. */
struct daemons {
	const struct access_point *aps;
	int count;
};

/* Whether an access point is a daemon's: libqcgnet names them "<program> pid N" (a rank is
 * "rank R pid N"). */
static bool
is_daemon(void *arg, const char *cluster, const char *node, unsigned short port)
{
	const struct daemons *d = arg;
	for (int i = 0; i < d->count; i++) {
		const struct access_point *ap = &d->aps[i];
		if (ap->port != port || strcmp(ap->cluster, cluster) != 0 ||
		    strcmp(ap->node, node) != 0)
			continue;
		return strncmp(ap->process, "mpirun ", 7) == 0 ||
		    strncmp(ap->process, "orted ", 6) == 0;
	}
	return false;
}

enum startup_state
startup_watch_check_time(struct startup_watch *w, const char *job, char *why, size_t whylen)
{
	return startup_watch_judge(w, job, NULL, 0, is_daemon, NULL, time(NULL), why, whylen);
}

enum startup_state
startup_watch_poll(struct startup_watch *w, struct soap *soap, const char *url, const char *job,
    char *why, size_t whylen, char *err, size_t errlen)
{
	struct _qb__ListAccessPoints apreq = { (char *)job };
	struct _qb__ListAccessPointsResponse aps;
	struct _qb__ListConnections creq = { (char *)job };
	struct _qb__ListConnectionsResponse conns;
	static struct startup_conn c[4096]; /* one qcg-submit watches one job */
	char e[512];
	size_t n = 0;

	if (w->done)
		return STARTUP_DONE;
	err[0] = '\0';
	if (soap_call___qb__ListAccessPoints(soap, url, NULL, &apreq, &aps) != SOAP_OK ||
	    soap_call___qb__ListConnections(soap, url, NULL, &creq, &conns) != SOAP_OK) {
		soap_client_error(soap, e, sizeof(e));
		snprintf(err, errlen, "broker: start-up watch: %s", e);
		soap_client_reset(soap);
		/* the time limit holds even when the broker is gone */
		return startup_watch_check_time(w, job, why, whylen);
	}
	/* both answers, read into the model in soap's memory (until the reset below) */
	struct daemons d = { soap_model_access_points_in(soap, aps.accessPoint,
		aps.__sizeaccessPoint, e, sizeof(e)), aps.__sizeaccessPoint };
	const struct connection_record *k = d.aps == NULL ? NULL :
	    soap_model_connections_in(soap, conns.connection, conns.__sizeconnection, e, sizeof(e));
	if (k == NULL) {
		snprintf(err, errlen, "broker: start-up watch: the answer: %s", e);
		soap_client_reset(soap);
		return startup_watch_check_time(w, job, why, whylen);
	}
	for (int i = 0; i < conns.__sizeconnection && n < sizeof(c) / sizeof(c[0]); i++)
		c[n++] = (struct startup_conn){ k[i].from_cluster, k[i].from_node, k[i].to_cluster,
			k[i].to_node, k[i].to_port, k[i].succeeded, k[i].method == METHOD_NONE };
	enum startup_state st = startup_watch_judge(w, job, c, n, is_daemon, &d, time(NULL), why,
	    whylen);
	soap_client_reset(soap);
	return st;
}
