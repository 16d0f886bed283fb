/*
 * helper_wire.h: moving local-API messages (helper_proto.h) over a unix stream socket, with
 * the file descriptor a HANDOFF carries as SCM_RIGHTS. Shared by the daemon and by the client
 * library, so libc only.
 *
 * Reading only fills a buffer; helper_msg_parse decides when a message is whole.
 */
#ifndef QCG_HELPER_WIRE_H
#define QCG_HELPER_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "helper_proto.h"

#define HELPER_WIRE_FDS_MAX 4 /* descriptors received ahead of their messages */

enum helper_wire_status {
	HELPER_WIRE_OK = 0,
	HELPER_WIRE_EOF = 1,     /* the peer closed between messages */
	HELPER_WIRE_TIMEOUT = 2, /* nothing (more) came in time */
	HELPER_WIRE_ERROR = -1,  /* I/O error, a malformed message, or a truncated one; err says */
};

/* Buffered input of one connection. Zero-initialise with helper_reader_init. */
struct helper_reader {
	uint8_t buf[HELPER_MSG_MAX];
	size_t len;                     /* bytes in buf */
	int fds[HELPER_WIRE_FDS_MAX];   /* received descriptors not yet claimed, in order */
	int nfds;
	int accept_fds;                 /* 0: any descriptor received is an error (daemon side) */
};

void helper_reader_init(struct helper_reader *r, int accept_fds);
/* Close any descriptors still held. */
void helper_reader_clear(struct helper_reader *r);

/*
 * Read the next message from sock. Waits up to first_ms for its first byte (-1: forever),
 * then up to io_ms for the rest. For a HANDOFF with HELPER_FLAG_FD, *fd_out gets the
 * descriptor (the caller owns it); otherwise *fd_out is -1.
 */
enum helper_wire_status helper_wire_read(int sock, struct helper_reader *r, struct helper_msg *m,
    int *fd_out, int first_ms, int io_ms, char *err, size_t errlen);

/*
 * Send m on sock (blocking, with the socket's send timeout); pass_fd >= 0 travels with it as
 * SCM_RIGHTS (the caller still owns and must close its copy). 0 or -1 with err.
 */
int helper_wire_send(int sock, const struct helper_msg *m, int pass_fd, char *err, size_t errlen);

/* Send an ERR with code and a printf-style message. */
int helper_wire_send_err(int sock, enum helper_err_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
