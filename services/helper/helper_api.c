/*
 * helper_api.c: the local API's unix socket and accept thread (helper_api.h).
 *
 * Any local user may connect. So that one cannot shut the others out (256 silent connections
 * of one user blocked a node's API, with nothing logged), a connection must send its first
 * message within client_io_timeout, one user (other than root, whom nothing stops anyway) holds
 * at most half of max_clients, and every refusal is logged, at most once per LOG_EVERY_S
 * seconds with a count.
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
#include <time.h>
#include <unistd.h>

#include "helper.h"
#include "helper_api.h"
#include "log.h"

#define LOG_EVERY_S 10

/* Connections of one uid (a small table: at most max_clients uids have any). */
struct uid_count {
	uid_t uid;
	int n;                /* 0: a free slot */
};

/* A refusal logged at most once per LOG_EVERY_S, with how many were not (guarded by lock). */
struct log_limit {
	time_t next;
	unsigned suppressed;
};

struct helper_api {
	struct helper *h;
	int lfd;
	pthread_t thread;
	volatile int stop;
	pthread_mutex_t lock; /* guards clients, per_uid and the log limits */
	int clients;
	struct uid_count *per_uid; /* max_clients entries */
	struct log_limit log_full, log_uid, log_silent;
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

/* Log a refusal unless one like it was logged in the last LOG_EVERY_S (caller holds lock). */
static int
log_due(struct log_limit *l, unsigned *suppressed)
{
	time_t now = time(NULL);
	if (now < l->next) {
		l->suppressed++;
		return 0;
	}
	*suppressed = l->suppressed;
	l->suppressed = 0;
	l->next = now + LOG_EVERY_S;
	return 1;
}

/* One user's share of the connections: half of them, so that others always find room. */
static int
uid_share(const struct helper_api *api)
{
	int share = api->h->cfg.max_clients / 2;
	return share > 0 ? share : 1;
}

/* Count a connection of uid; -1 (nothing counted) when the API or uid's share is full.
 * Caller holds lock. */
static int
clients_take(struct helper_api *api, uid_t uid, const char **why)
{
	if (api->clients >= api->h->cfg.max_clients) {
		*why = "all";
		return -1;
	}
	struct uid_count *mine = NULL, *free_slot = NULL;
	for (int i = 0; i < api->h->cfg.max_clients; i++) {
		struct uid_count *u = &api->per_uid[i];
		if (u->n > 0 && u->uid == uid)
			mine = u;
		else if (u->n == 0 && free_slot == NULL)
			free_slot = u;
	}
	if (mine == NULL) {
		mine = free_slot; /* there is one: fewer clients than max_clients */
		mine->uid = uid;
		mine->n = 0;
	}
	if (uid != 0 && mine->n >= uid_share(api)) {
		*why = "uid";
		return -1;
	}
	mine->n++;
	api->clients++;
	return 0;
}

static void
clients_release(struct helper_api *api, uid_t uid)
{
	pthread_mutex_lock(&api->lock);
	for (int i = 0; i < api->h->cfg.max_clients; i++)
		if (api->per_uid[i].n > 0 && api->per_uid[i].uid == uid) {
			api->per_uid[i].n--;
			break;
		}
	api->clients--;
	pthread_mutex_unlock(&api->lock);
}

/* Whether the client sends its first message within client_io_timeout: a connection that
 * stays silent only takes a place from others. */
static int
first_message_arrives(struct helper_api *api, struct session *s)
{
	struct pollfd pfd = { .fd = s->sock, .events = POLLIN };
	int rc;
	while ((rc = poll(&pfd, 1, api->h->cfg.client_io_ms)) < 0 && errno == EINTR)
		;
	if (rc > 0)
		return 1;
	unsigned suppressed = 0;
	pthread_mutex_lock(&api->lock);
	int due = log_due(&api->log_silent, &suppressed);
	pthread_mutex_unlock(&api->lock);
	if (due)
		log_warn("local API: pid %d uid %u sent nothing within %d ms: closing (%u more "
		    "like it not logged)", (int)s->pid, (unsigned)s->uid, api->h->cfg.client_io_ms,
		    suppressed);
	return 0;
}

static void *
session_thread(void *arg)
{
	struct session_start *start = arg;
	struct helper_api *api = start->api;
	uid_t uid = start->s->uid;
	if (first_message_arrives(api, start->s))
		helper_session_run(start->s); /* closes the socket */
	else
		close(start->s->sock);
	free(start->s);
	free(start);
	clients_release(api, uid);
	return NULL;
}

/* Admit one connection: learn who it is, count it, start its thread. */
static void
admit(struct helper_api *api, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	pthread_attr_t attr;
	pthread_t t;
	const char *why = NULL;
	unsigned suppressed = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		log_warn("local API: cannot learn who connected: %s", strerror(errno));
		close(fd);
		return;
	}
	pthread_mutex_lock(&api->lock);
	int full = clients_take(api, cred.uid, &why) != 0;
	int due = full && log_due(why[0] == 'a' ? &api->log_full : &api->log_uid, &suppressed);
	int uid_clients = 0;
	for (int i = 0; full && i < api->h->cfg.max_clients; i++)
		if (api->per_uid[i].n > 0 && api->per_uid[i].uid == cred.uid)
			uid_clients = api->per_uid[i].n;
	pthread_mutex_unlock(&api->lock);
	if (full) {
		if (why[0] == 'a') {
			if (due)
				log_warn("local API: %d connections already (max_clients): refusing pid "
				    "%d uid %u (%u more not logged)", api->h->cfg.max_clients,
				    (int)cred.pid, (unsigned)cred.uid, suppressed);
			helper_wire_send_err(fd, HELPER_ERR_LIMIT,
			    "qcg-helper serves %d connections already", api->h->cfg.max_clients);
		} else {
			if (due)
				log_warn("local API: uid %u holds %d connections, its share of "
				    "max_clients %d: refusing pid %d (%u more not logged)",
				    (unsigned)cred.uid, uid_clients, api->h->cfg.max_clients,
				    (int)cred.pid, suppressed);
			helper_wire_send_err(fd, HELPER_ERR_LIMIT,
			    "qcg-helper serves %d connections of uid %u already (half of its %d)",
			    uid_clients, (unsigned)cred.uid, api->h->cfg.max_clients);
		}
		close(fd);
		return;
	}
	struct session *s = calloc(1, sizeof(*s));
	struct session_start *start = calloc(1, sizeof(*start));
	if (s == NULL || start == NULL)
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
	clients_release(api, cred.uid);
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
	api->per_uid = calloc((size_t)h->cfg.max_clients, sizeof(*api->per_uid));
	if (api->per_uid == NULL) {
		snprintf(err, errlen, "out of memory");
		free(api);
		return -1;
	}
	api->lfd = open_socket(&h->cfg, err, errlen);
	if (api->lfd < 0) {
		free(api->per_uid);
		free(api);
		return -1;
	}
	if (pthread_create(&api->thread, NULL, accept_thread, api) != 0) {
		snprintf(err, errlen, "cannot start the local API thread");
		close(api->lfd);
		unlink(h->cfg.socket_path);
		free(api->per_uid);
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
