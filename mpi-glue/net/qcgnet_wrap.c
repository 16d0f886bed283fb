/*
 * qcgnet_wrap.c: the small wrappers. close() forgets a descriptor (and stops a listener's
 * inbound thread); getpeername() reports a substituted peer; setsockopt() records the options
 * a replacement socket must carry too (qn_fdtab_install).
 */
#include "config.h"

#include <netinet/in.h>
#include <unistd.h>

#include "qcgnet.h"
#include "qcgnet_resume_stream.h"

int
close(int fd)
{
	if (qn_active) {
		struct qn_listener *l = qn_fdtab_forget(fd);
		if (l != NULL)
			qn_listener_stop(l);
		qrs_app_closing(fd); /* its number may be reused for anything */
	}
	return QN_REAL(close)(fd);
}

int
getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct sockaddr_in peer;
	if (!qn_active || !qn_fdtab_peer(fd, &peer))
		return QN_REAL(getpeername)(fd, addr, len);
	/* the kernel's answer still decides whether fd is connected at all */
	struct sockaddr_in real;
	socklen_t rlen = sizeof(real);
	if (QN_REAL(getpeername)(fd, (struct sockaddr *)&real, &rlen) != 0)
		return -1;
	qn_copy_sockaddr(&peer, addr, len);
	return 0;
}

/* Whether fd is a resumable relay's socketpair end: a unix socket standing for a TCP peer. */
static int
resumable_end(int fd)
{
	struct sockaddr_in peer;
	int domain;
	socklen_t len = sizeof(domain);
	return qn_fdtab_peer(fd, &peer) &&
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
}

int
setsockopt(int fd, int level, int name, const void *value, socklen_t len)
{
	int rc = QN_REAL(setsockopt)(fd, level, name, value, len);
	if (rc != 0 && qn_active && level == IPPROTO_TCP && resumable_end(fd))
		return 0; /* the leg's TCP is the stream's to tune (it sets TCP_NODELAY itself) */
	if (rc == 0 && qn_active && value != NULL && qn_fdtab_opt_wanted(level, name, len))
		qn_fdtab_record_opt(fd, level, name, value, len);
	return rc;
}
