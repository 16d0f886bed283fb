/*
 * helper_api.c: the local API's unix socket and accept thread (helper_api.h).
 */
#define _GNU_SOURCE /* accept4, struct ucred */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "helper.h"
#include "helper_api.h"
#include "log.h"

struct helper_api {
	struct helper *h;
	int lfd;
	pthread_t thread;
	volatile int stop;
	pthread_mutex_t lock; /* guards clients */
	int clients;
};

struct session_start {
	struct helper_api *api;
	struct session *s;
};

/* Remove a leftover socket file, but never anything else that has the name. */
static int
remove_stale(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a socket; not replacing it", path);
		return -1;
	}
	unlink(path);
	return 0;
}

static int
apply_ownership(const struct helper_config *cfg, char *err, size_t errlen)
{
	if (cfg->socket_group[0] != '\0') {
		struct group gr, *found = NULL;
		char buf[4096];
		if (getgrnam_r(cfg->socket_group, &gr, buf, sizeof(buf), &found) != 0 || !found) {
			snprintf(err, errlen, "helper.socket_group: no group '%s'", cfg->socket_group);
			return -1;
		}
		if (chown(cfg->socket_path, (uid_t)-1, gr.gr_gid) != 0) {
			snprintf(err, errlen, "chown %s: %s", cfg->socket_path, strerror(errno));
			return -1;
		}
	}
	if (chmod(cfg->socket_path, cfg->socket_mode) != 0) {
		snprintf(err, errlen, "chmod %s: %s", cfg->socket_path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
open_socket(const struct helper_config *cfg, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", cfg->socket_path);
	if (remove_stale(cfg->socket_path, err, errlen) != 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* Nobody may connect before the permissions are right: create it private, then open up. */
	mode_t old = umask(0177);
	int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc != 0 || listen(fd, 64) != 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", cfg->socket_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (apply_ownership(cfg, err, errlen) != 0) {
		close(fd);
		unlink(cfg->socket_path);
		return -1;
	}
	return fd;
}

static void *
session_thread(void *arg)
{
	struct session_start *start = arg;
	struct helper_api *api = start->api;
	helper_session_run(start->s);
	free(start->s);
	free(start);
	pthread_mutex_lock(&api->lock);
	api->clients--;
	pthread_mutex_unlock(&api->lock);
	return NULL;
}

/* Admit one connection: count it, learn who it is, start its thread. */
static void
admit(struct helper_api *api, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	pthread_attr_t attr;
	pthread_t t;

	pthread_mutex_lock(&api->lock);
	int full = api->clients >= api->h->cfg.max_clients;
	if (!full)
		api->clients++;
	pthread_mutex_unlock(&api->lock);
	if (full) {
		helper_wire_send_err(fd, HELPER_ERR_LIMIT, "qcg-helper serves %d connections already",
		    api->h->cfg.max_clients);
		close(fd);
		return;
	}
	struct session *s = calloc(1, sizeof(*s));
	struct session_start *start = calloc(1, sizeof(*start));
	if (s == NULL || start == NULL ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		goto fail;
	s->h = api->h;
	s->sock = fd;
	s->uid = cred.uid;
	s->pid = cred.pid;
	start->api = api;
	start->s = s;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int rc = pthread_create(&t, &attr, session_thread, start);
	pthread_attr_destroy(&attr);
	if (rc == 0)
		return;
fail:
	log_warn("local API: cannot start a session: out of resources");
	free(s);
	free(start);
	close(fd);
	pthread_mutex_lock(&api->lock);
	api->clients--;
	pthread_mutex_unlock(&api->lock);
}

static void *
accept_thread(void *arg)
{
	struct helper_api *api = arg;
	while (!api->stop) {
		struct pollfd pfd = { .fd = api->lfd, .events = POLLIN };
		int rc = poll(&pfd, 1, 1000); /* wakes every second to expire parked sockets */
		helper_jobs_expire(api->h->jobs);
		if (rc <= 0)
			continue;
		int fd = accept4(api->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)
				log_warn("local API: accept: %s", strerror(errno));
			if (errno == EMFILE || errno == ENFILE)
				sleep(1);
			continue;
		}
		admit(api, fd);
	}
	return NULL;
}

int
helper_api_start(struct helper *h, struct helper_api **out, char *err, size_t errlen)
{
	struct helper_api *api = calloc(1, sizeof(*api));
	if (api == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	api->h = h;
	pthread_mutex_init(&api->lock, NULL);
	api->lfd = open_socket(&h->cfg, err, errlen);
	if (api->lfd < 0) {
		free(api);
		return -1;
	}
	if (pthread_create(&api->thread, NULL, accept_thread, api) != 0) {
		snprintf(err, errlen, "cannot start the local API thread");
		close(api->lfd);
		unlink(h->cfg.socket_path);
		free(api);
		return -1;
	}
	*out = api;
	return 0;
}

void
helper_api_stop(struct helper_api *api)
{
	if (api == NULL)
		return;
	api->stop = 1;
	pthread_join(api->thread, NULL);
	close(api->lfd);
	unlink(api->h->cfg.socket_path);
	/* Session threads are detached and own their memory; the process exits after this. */
}
