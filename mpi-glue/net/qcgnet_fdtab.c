/*
 * qcgnet_fdtab.c: what the shim knows about individual descriptors, indexed by descriptor
 * number (below QN_FD_MAX): the peer address getpeername()/accept() must report for a socket
 * that took another path than its peer's published address, the options the application set
 * (so that a replacement socket gets them too) and the listener behind a listening socket.
 *
 * One mutex guards the table; it is held only for copies in and out, never across a system
 * call that may block.
 */
#define _GNU_SOURCE /* dup3 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qcgnet.h"
#include "qcgnet_resume_stream.h"

struct qn_fd {
	struct qn_listener *listener; /* a registered listening socket, or NULL */
	int has_peer;                 /* getpeername() reports peer instead of the kernel's */
	struct sockaddr_in peer;
	int nopts;                    /* recorded options, in the order they were set */
	struct qn_opt opts[QN_OPTS_MAX];
};

static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qn_fd **tab; /* QN_FD_MAX slots, NULL: nothing known */

void
qn_fdtab_init(void)
{
	/* calloc'ed pointers: pages are touched only where descriptors are in use */
	tab = calloc(QN_FD_MAX, sizeof(*tab));
	if (tab == NULL)
		qn_log("out of memory for the descriptor table: sockets are left alone");
}

void
qn_fdtab_prepare_fork(void)
{
	pthread_mutex_lock(&tab_lock);
}

void
qn_fdtab_parent_fork(void)
{
	pthread_mutex_unlock(&tab_lock);
}

/* The slot of fd, created when create is set; NULL when out of range. Lock held. */
static struct qn_fd *
slot(int fd, int create)
{
	if (tab == NULL || fd < 0 || fd >= QN_FD_MAX)
		return NULL;
	if (tab[fd] == NULL && create)
		tab[fd] = calloc(1, sizeof(struct qn_fd));
	return tab[fd];
}

int
qn_fdtab_opt_wanted(int level, int name, socklen_t len)
{
	if (len > QN_OPT_BYTES)
		return 0;
	if (level == SOL_SOCKET)
		return name == SO_SNDBUF || name == SO_RCVBUF || name == SO_KEEPALIVE ||
		    name == SO_LINGER || name == SO_PRIORITY;
	return level == IPPROTO_TCP && (name == TCP_NODELAY || name == TCP_KEEPIDLE ||
	    name == TCP_KEEPINTVL || name == TCP_KEEPCNT);
}

void
qn_fdtab_record_opt(int fd, int level, int name, const void *value, socklen_t len)
{
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 1);
	if (e != NULL) {
		int i;
		for (i = 0; i < e->nopts; i++) /* a later value of the same option replaces it */
			if (e->opts[i].level == level && e->opts[i].name == name)
				break;
		if (i < QN_OPTS_MAX) {
			e->opts[i].level = level;
			e->opts[i].name = name;
			e->opts[i].len = len;
			memcpy(e->opts[i].value, value, len);
			if (i == e->nopts)
				e->nopts++;
		}
	}
	pthread_mutex_unlock(&tab_lock);
}

int
qn_fdtab_opts(int fd, struct qn_opt *out)
{
	int n = 0;
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 0);
	if (e != NULL) {
		n = e->nopts;
		memcpy(out, e->opts, (size_t)n * sizeof(*out));
	}
	pthread_mutex_unlock(&tab_lock);
	return n;
}

void
qn_fdtab_set_peer(int fd, const struct sockaddr_in *peer)
{
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 1);
	if (e != NULL) {
		e->has_peer = 1;
		e->peer = *peer;
	}
	pthread_mutex_unlock(&tab_lock);
}

int
qn_fdtab_peer(int fd, struct sockaddr_in *out)
{
	int found = 0;
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 0);
	if (e != NULL && e->has_peer) {
		*out = e->peer;
		found = 1;
	}
	pthread_mutex_unlock(&tab_lock);
	return found;
}

void
qn_fdtab_set_listener(int fd, struct qn_listener *l)
{
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 1);
	if (e != NULL)
		e->listener = l;
	pthread_mutex_unlock(&tab_lock);
}

struct qn_listener *
qn_fdtab_listener(int fd)
{
	struct qn_listener *l = NULL;
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 0);
	if (e != NULL)
		l = e->listener;
	pthread_mutex_unlock(&tab_lock);
	return l;
}

struct qn_listener *
qn_fdtab_forget(int fd)
{
	struct qn_listener *l = NULL;
	pthread_mutex_lock(&tab_lock);
	struct qn_fd *e = slot(fd, 0);
	if (e != NULL) {
		l = e->listener;
		free(e);
		tab[fd] = NULL;
	}
	pthread_mutex_unlock(&tab_lock);
	return l;
}

void
qn_fdtab_child_reset(void (*drop_listener)(struct qn_listener *))
{
	pthread_mutex_init(&tab_lock, NULL); /* the parent held it across fork() */
	if (tab == NULL)
		return;
	for (int fd = 0; fd < QN_FD_MAX; fd++)
		if (tab[fd] != NULL && tab[fd]->listener != NULL) {
			drop_listener(tab[fd]->listener);
			tab[fd]->listener = NULL;
		}
}

/* Replay recorded options onto the replacement socket; failures are not fatal. */
static void
replay_opts(int fd, int newfd)
{
	struct qn_opt opts[QN_OPTS_MAX];
	int n = qn_fdtab_opts(fd, opts);
	for (int i = 0; i < n; i++)
		if (QN_REAL(setsockopt)(newfd, opts[i].level, opts[i].name, opts[i].value,
			opts[i].len) != 0)
			qn_debug("fd %d: option %d/%d not replayed: %s", fd, opts[i].level,
			    opts[i].name, strerror(errno));
}

int
qn_fdtab_install(int fd, int newfd, const struct sockaddr_in *peer)
{
	if (newfd != fd) {
		int fl = fcntl(fd, F_GETFL);
		int fdfl = fcntl(fd, F_GETFD);
		if (fl < 0 || fdfl < 0 || fcntl(newfd, F_SETFL, fl) != 0) {
			int saved = errno;
			QN_REAL(close)(newfd);
			errno = saved;
			return -1;
		}
		replay_opts(fd, newfd);
		/* dup2 keeps no flags of the old descriptor: set close-on-exec again */
		if (dup3(newfd, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
			int saved = errno;
			QN_REAL(close)(newfd);
			errno = saved;
			return -1;
		}
		qrs_app_moved(newfd, fd); /* a resumable relay's end: its sends follow it */
		QN_REAL(close)(newfd);
	}
	if (peer != NULL)
		qn_fdtab_set_peer(fd, peer);
	return 0;
}

void
qn_copy_sockaddr(const struct sockaddr_in *sin, struct sockaddr *addr, socklen_t *len)
{
	if (addr == NULL || len == NULL)
		return;
	size_t n = *len < sizeof(*sin) ? *len : sizeof(*sin);
	memcpy(addr, sin, n);
	*len = sizeof(*sin);
}
