/*
 * proxy_broker.h: qcg-proxy's link to the broker, in a thread of its own.
 *
 * The thread registers the proxy (RegisterProxy: its relay endpoint, served networks, cluster
 * and control URL), retrying with backoff (0.2 s doubling to 5 s) until the broker answers,
 * then long-polls WaitEvents on the queue "proxy:<endpoint>". Each "relay" event carries the
 * broker's decision: for a relay-chain in which this proxy is proxy[0], the first leg is
 * forwarded to proxy[1] (relay_forward); otherwise the id is expected here (relay_expect).
 * When the broker fails (killed, restarted, unreachable) the thread backs off the same way,
 * registers again and resumes after the last event it saw; sequence numbers keep growing
 * across broker restarts (services/broker/events.h), so nothing is replayed or skipped.
 *
 * Events already queued for this endpoint when the process first registers were meant for an
 * earlier incarnation of the proxy: they are skipped, so that an old id is never announced
 * again. The thread owns its gSOAP context.
 */
#ifndef QCG_PROXY_BROKER_H
#define QCG_PROXY_BROKER_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "relay.h"
#include "tls.h"

#define PROXY_BROKER_BACKOFF_MIN_MS 200
#define PROXY_BROKER_BACKOFF_MAX_MS 5000
#define PROXY_BROKER_CONNECT_TIMEOUT_S 5
#define PROXY_BROKER_IO_SLACK_S 15 /* beyond the long poll's own timeout */

struct proxy_broker_settings {
	char url[QCG_ENDPOINT_MAX];         /* the broker */
	char endpoint[QCG_ENDPOINT_MAX];    /* "host:port" legs connect to (advertise) */
	char control_url[QCG_ENDPOINT_MAX]; /* the SOAP control service, or "" */
	char networks[QCG_NETWORKS_MAX];
	char cluster[QCG_NAME_MAX];
	unsigned id_ttl_s;                  /* life of an announced id */
	unsigned wait_s;                    /* WaitEvents timeout */
	struct tls_settings tls;
};

/* What one relay event asks of this proxy. */
struct proxy_relay_plan {
	bool forward;                        /* relay_forward to next_hop, else relay_expect */
	struct relay_id id;
	char next_hop[QCG_ENDPOINT_MAX];     /* for forward */
};

/*
 * Read one event for the proxy whose endpoint is self. Returns 0 with *out filled, 1 when the
 * event asks nothing of this proxy (another kind, or this proxy is not in the decision), or
 * -1 when it is malformed; for 1 and -1 err says why.
 */
int proxy_broker_plan(const char *self, const struct qcg_event *ev, struct proxy_relay_plan *out,
    char *err, size_t errlen);

struct proxy_broker;

/* Start the link (it does not wait for the broker). NULL with the reason in err. */
struct proxy_broker *proxy_broker_start(struct relay_plane *plane,
    const struct proxy_broker_settings *settings, char *err, size_t errlen);

/* Whether the proxy is registered right now (for tests and logs). */
bool proxy_broker_registered(struct proxy_broker *pb);

/* Stop the thread (a long poll in progress is cut), unregister from the broker if registered
 * (best effort, a few seconds at most), free. */
void proxy_broker_stop(struct proxy_broker *pb);

#endif
