/*
 * helper_probe.c: TCP probes of the nodes' helpers with a short cache (helper_probe.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper_probe.h"
#include "log.h"

struct probe_node {
	double checked_ms;                 /* when last answered; 0: never */
	bool down;
	bool silent;                       /* down because it did not answer within the timeout */
	char why[HELPER_PROBE_WHY_MAX];
};

struct helper_probe {
	const struct fe_node *nodes;
	size_t count;
	pthread_mutex_t lock;              /* guards state; never held while probing */
	struct probe_node state[FE_NODES_MAX];
};

struct helper_probe *
helper_probe_new(const struct fe_node *nodes, size_t count)
{
	struct helper_probe *p;

	if (count > FE_NODES_MAX || (p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->nodes = nodes;
	p->count = count;
	pthread_mutex_init(&p->lock, NULL);
	return p;
}

void
helper_probe_free(struct helper_probe *p)
{
	if (p == NULL)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

int
helper_probe_parse_url(const char *url, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *h, *colon, *end;

	if (strncmp(url, "https://", 8) != 0)
		return -1;
	h = url + 8;
	end = h + strcspn(h, "/");
	colon = NULL;
	for (const char *c = h; c < end; c++)
		if (*c == ':')
			colon = c;
	if (colon == NULL || colon == h || end - colon - 1 < 1 ||
	    (size_t)(colon - h) >= hostlen || (size_t)(end - colon - 1) >= portlen)
		return -1;
	memcpy(host, h, (size_t)(colon - h));
	host[colon - h] = '\0';
	memcpy(port, colon + 1, (size_t)(end - colon - 1));
	port[end - colon - 1] = '\0';
	return 0;
}

/* Start a non-blocking connect to a node's helper; the socket, or -1 with why set (a
 * connect that fails at once, such as a name that does not resolve). */
static int
probe_start(const struct fe_node *node, char *why, size_t whylen)
{
	char host[QCG_ENDPOINT_MAX], port[16];
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
	int fd, rc;

	if (helper_probe_parse_url(node->helper_url, host, sizeof(host), port, sizeof(port)) != 0) {
		snprintf(why, whylen, "helper URL '%.100s' is not https://host:port/",
		    node->helper_url);
		return -1;
	}
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0) {
		snprintf(why, whylen, "helper host %.64s: %s", host, gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
		snprintf(why, whylen, "connect to its helper at %.64s:%s: %s", host, port,
		    strerror(errno));
		close(fd);
		fd = -1;
	} else if (fd < 0) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
	}
	freeaddrinfo(ai);
	return fd;
}

/* Probe the nodes in todo[] at once; fill down[], silent[] (no answer in time) and why[]. */
static void
probe_round(const struct helper_probe *p, const size_t *todo, size_t n, bool *down,
    bool *silent, char (*why)[HELPER_PROBE_WHY_MAX])
{
	struct pollfd pf[FE_NODES_MAX];
	size_t waiting = 0;

	for (size_t i = 0; i < n; i++) {
		pf[i].fd = probe_start(&p->nodes[todo[i]], why[i], sizeof(why[i]));
		pf[i].events = POLLOUT;
		pf[i].revents = 0;
		down[i] = pf[i].fd < 0;
		silent[i] = false;
		waiting += pf[i].fd >= 0;
	}
	/* One bounded wait for all: a connect either completes, is refused (the helper process
	 * is gone), or does not answer in time (the host is gone). */
	if (waiting > 0 && poll(pf, (nfds_t)n, HELPER_PROBE_TIMEOUT_MS) < 0)
		log_warn("helper probe: poll: %s", strerror(errno));
	for (size_t i = 0; i < n; i++) {
		int soerr = 0;
		socklen_t len = sizeof(soerr);
		if (pf[i].fd < 0)
			continue;
		if (pf[i].revents == 0) {
			down[i] = true;
			silent[i] = true;
			snprintf(why[i], sizeof(why[i]), "its helper at %.100s did not answer within "
			    "%d ms", p->nodes[todo[i]].helper_url, HELPER_PROBE_TIMEOUT_MS);
		} else if (getsockopt(pf[i].fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 ||
		    soerr != 0) {
			down[i] = true;
			snprintf(why[i], sizeof(why[i]), "its helper at %.100s: %s",
			    p->nodes[todo[i]].helper_url, strerror(soerr ? soerr : errno));
		}
		close(pf[i].fd);
	}
}

void
helper_probe_check(struct helper_probe *p, double now_ms, const bool *want,
    struct helper_probe_result *out)
{
	size_t todo[FE_NODES_MAX], n = 0;
	bool down[FE_NODES_MAX], silent[FE_NODES_MAX];

	/* Only a node that did not answer in time keeps its answer for HELPER_PROBE_CACHE_MS:
	 * that answer cost the whole timeout. "Alive" and "refused" cost microseconds, and a
	 * reused one was wrong on the testbed both ways (faults_setup.test): a helper killed
	 * within 2 s of a probe was granted, and the job failed with Open MPI's "no-path"; a
	 * helper restarted within 2 s of a refusal was not granted, and the next job was refused. */
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->count; i++)
		if ((want == NULL || want[i]) && (p->state[i].checked_ms == 0 ||
		    !p->state[i].silent || now_ms - p->state[i].checked_ms >= HELPER_PROBE_CACHE_MS))
			todo[n++] = i;
	pthread_mutex_unlock(&p->lock);
	/* why[] is large for a worker's stack (FE_NODES_MAX answers) */
	char (*why)[HELPER_PROBE_WHY_MAX] = n > 0 ? calloc(n, sizeof(*why)) : NULL;
	if (n > 0 && why == NULL) {
		log_warn("helper probe: out of memory; the last answers are used");
		n = 0;
	}
	if (n > 0) {
		probe_round(p, todo, n, down, silent, why);
		pthread_mutex_lock(&p->lock);
		for (size_t i = 0; i < n; i++) {
			struct probe_node *s = &p->state[todo[i]];
			const char *name = p->nodes[todo[i]].name;
			if (down[i] && (!s->down || s->checked_ms == 0))
				log_warn("node %s is not granted: %s", name, why[i]);
			else if (!down[i] && s->down)
				log_info("node %s: its helper answers again", name);
			s->down = down[i];
			s->silent = silent[i];
			snprintf(s->why, sizeof(s->why), "%s", down[i] ? why[i] : "");
			s->checked_ms = now_ms > 0 ? now_ms : 1;
		}
		pthread_mutex_unlock(&p->lock);
	}
	free(why);
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->count; i++) {
		out->down[i] = p->state[i].down;
		snprintf(out->why[i], sizeof(out->why[i]), "%s", p->state[i].why);
	}
	pthread_mutex_unlock(&p->lock);
}
