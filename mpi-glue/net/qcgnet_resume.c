/*
 * qcgnet_resume.c: relayed connections through the resumable stream (issue 14). When the
 * decision (or the hand-off, on the target's side) says the relay is resumable, both ends give
 * the application one end of a socketpair and keep the relay leg in the stream's I/O thread
 * (qcgnet_resume_stream.h). When the leg breaks, the stream's path function asks the helper for
 * a resume (RESUME with the relay's newest id: the broker answers both ends with the same new
 * relay, on another proxy), connects to the new proxy and sends the relay hello; the stream
 * then replays what the peer lacks. No new leg within resume_timeout_ms: the connection fails,
 * and the stream's log line says why.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qcgnet.h"
#include "qcgnet_resume_stream.h"
#include "relay_hello.h"
#include "relay_hello.h"

/* What the path function of one stream needs; freed never (a stream lives as long as its
 * connection, and its path may be called until the stream is freed by the I/O thread). */
struct qn_resume_path {
	uint8_t current[QCG_RELAY_ID_BYTES]; /* the relay the leg presents now */
	int initiator;                       /* 1: proxy[0] is ours; 0: the last proxy is */
	pthread_mutex_t lock;                /* current, against concurrent resume threads */
};

static void
resume_log(const char *line)
{
	qn_log("%s", line);
}

/* Split "host:port" into sin; -1 with err when it is not that. */
static int
proxy_address(const char *endpoint, struct sockaddr_in *sin, char *err, size_t errlen)
{
	char host[QCG_ADDR_MAX];
	const char *colon = strrchr(endpoint, ':');
	if (colon == NULL || (size_t)(colon - endpoint) >= sizeof(host)) {
		snprintf(err, errlen, "proxy endpoint '%.200s' is not host:port", endpoint);
		return -1;
	}
	memcpy(host, endpoint, (size_t)(colon - endpoint));
	host[colon - endpoint] = '\0';
	int port = atoi(colon + 1);
	if (port < 1 || port > 65535 || qn_sockaddr_of(host, (uint16_t)port, sin) != 0) {
		snprintf(err, errlen, "proxy endpoint '%.200s' is not host:port", endpoint);
		return -1;
	}
	return 0;
}

int
qn_relay_leg(const char *endpoint, const uint8_t relay_id[QCG_RELAY_ID_BYTES], int resumable,
    int timeout_ms, char *err, size_t errlen)
{
	uint8_t hello[RELAY_HELLO_SIZE];
	struct sockaddr_in proxy;
	struct relay_id id;
	if (proxy_address(endpoint, &proxy, err, errlen) != 0)
		return -1;
	memcpy(id.bytes, relay_id, sizeof(id.bytes));
	relay_hello_encode(hello, &id, resumable ? RELAY_HELLO_FLAG_PEER_GONE_MARK : 0);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || qn_connect_timed(fd, &proxy, timeout_ms) != 0 ||
	    send(fd, hello, RELAY_HELLO_SIZE, MSG_NOSIGNAL) != RELAY_HELLO_SIZE) {
		snprintf(err, errlen, "proxy %s: %s", endpoint, strerror(errno));
		if (fd >= 0)
			QN_REAL(close)(fd);
		return -1;
	}
	return fd;
}

/* The stream's path function: RESUME at the helper, then a leg to our proxy of the answer. */
static int
resume_path(void *arg, unsigned attempt, int timeout_ms, char *err, size_t errlen)
{
	struct qn_resume_path *p = arg;
	struct decision d;
	uint8_t asked[QCG_RELAY_ID_BYTES];
	char rid[2 * QCG_RELAY_ID_BYTES + 1];
	int code = 0;

	pthread_mutex_lock(&p->lock);
	memcpy(asked, p->current, sizeof(asked));
	pthread_mutex_unlock(&p->lock);
	relay_id_format(asked, rid);
	qn_ctl_lock();
	struct helper_client *c = qn_ctl_get(err, errlen);
	int rc = c ? helper_client_resume(c, asked, &d, &code, err, errlen) : -1;
	if (c != NULL && rc != 0 && code == 0)
		qn_ctl_drop(); /* no answer: the connection is unusable now */
	qn_ctl_unlock();
	if (rc != 0) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, " (resume of relay %s, attempt %u)", rid, attempt + 1);
		return -1;
	}
	if (d.proxy_count < 1) {
		snprintf(err, errlen, "resume of relay %s: the answer names no proxy", rid);
		return -1;
	}
	pthread_mutex_lock(&p->lock);
	memcpy(p->current, d.relay_id.bytes, sizeof(p->current));
	pthread_mutex_unlock(&p->lock);
	const char *ours = p->initiator ? d.proxy[0].endpoint : d.proxy[d.proxy_count - 1].endpoint;
	int ms = timeout_ms < qn_cfg.connect_ms ? timeout_ms : qn_cfg.connect_ms;
	int fd = qn_relay_leg(ours, d.relay_id.bytes, 1, ms > 0 ? ms : 1, err, errlen);
	if (fd >= 0) {
		relay_id_format(d.relay_id.bytes, rid);
		qn_log("relay resumed through %s as %s (attempt %u)", ours, rid, attempt + 1);
	}
	return fd;
}

/* One end's replay after a resume, on its way to the broker's statistics. */
struct qn_replay_report {
	uint8_t relay_id[QCG_RELAY_ID_BYTES];
	uint64_t bytes;
};

static void *
replay_report_main(void *arg)
{
	struct qn_replay_report *r = arg;
	char err[256];
	qn_ctl_lock();
	struct helper_client *c = qn_ctl_get(err, sizeof(err));
	int code = 0;
	int rc = c ? helper_client_replayed(c, r->relay_id, r->bytes, &code, err, sizeof(err)) : -1;
	if (c != NULL && rc != 0 && code == 0)
		qn_ctl_drop();
	qn_ctl_unlock();
	if (rc != 0)
		qn_debug("replayed bytes not reported: %s", err); /* statistics only */
	free(r);
	return NULL;
}

/* The stream's resumed callback (I/O thread, must not block): report the bytes this end sent
 * again, for qcg-query connections, from a short-lived thread. */
static void
resume_replayed(void *arg, uint64_t bytes)
{
	struct qn_resume_path *p = arg;
	struct qn_replay_report *r = malloc(sizeof(*r));
	pthread_t t;
	pthread_attr_t attr;
	if (r == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	memcpy(r->relay_id, p->current, sizeof(r->relay_id));
	pthread_mutex_unlock(&p->lock);
	r->bytes = bytes;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, replay_report_main, r) != 0)
		free(r);
	pthread_attr_destroy(&attr);
}

int
qn_resume_wrap(int leg, const uint8_t relay_id[QCG_RELAY_ID_BYTES], int initiator, char *err,
    size_t errlen)
{
	struct qrs_config cfg;
	sigset_t all, old;
	struct qn_resume_path *p = calloc(1, sizeof(*p));
	if (p == NULL) {
		snprintf(err, errlen, "resumable relay: out of memory");
		QN_REAL(close)(leg);
		return -1;
	}
	memcpy(p->current, relay_id, sizeof(p->current));
	p->initiator = initiator;
	pthread_mutex_init(&p->lock, NULL);
	qrs_config_default(&cfg);
	cfg.resume_timeout_ms = qn_cfg.resume_timeout_ms;
	cfg.spin_us = qn_cfg.resume_spin_us;
	cfg.app_read = qn_cfg.resume_app_read;
	cfg.log = resume_log;
	cfg.resumed = resume_replayed;
	/* The stream's threads take no signals: they stay the application's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int app = qrs_start(leg, relay_id, &cfg, resume_path, p, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (app < 0) {
		pthread_mutex_destroy(&p->lock);
		free(p);
		return -1;
	}
	char rid[2 * QCG_RELAY_ID_BYTES + 1];
	relay_id_format(relay_id, rid);
	qn_debug("relay %s: the leg is kept in the resumable stream (%s side), fd %d", rid,
	    initiator ? "initiator" : "target", app);
	return app;
}
