/*
 * net_socket.h: small socket helpers shared by the helper daemon and libqcgnet.so, in the
 * spirit of Redis's anet.c. libc only, position independent, no logging: libqcgnet.so is
 * preloaded into every MPI process and must carry nothing else in. Errors are -1 with errno;
 * callers say what they were connecting to.
 */
#ifndef QCG_NET_SOCKET_H
#define QCG_NET_SOCKET_H

#include <stdbool.h>
#include <sys/socket.h>

/* A connect(2): libqcgnet.so passes libc's own, found behind its interposed wrapper. */
typedef int (*net_connect_fn)(int fd, const struct sockaddr *addr, socklen_t len);

/*
 * Connect fd to addr, giving up after timeout_ms (>= 0): non-blocking connect, then poll for
 * the rest of the time; a signal that interrupts the wait does not restart the clock. The
 * socket's blocking mode is restored either way. 0 once connected; -1 with errno: ETIMEDOUT
 * at the deadline, the connection's error (ECONNREFUSED...) or fcntl's. connect_fn NULL means
 * connect(2).
 */
int net_connect_timed(int fd, const struct sockaddr *addr, socklen_t len, int timeout_ms,
    net_connect_fn connect_fn);

/* O_NONBLOCK on or off. 0, or -1 with errno. */
int net_set_nonblock(int fd, bool on);

/* FD_CLOEXEC on or off. 0, or -1 with errno. */
int net_set_cloexec(int fd, bool on);

/* TCP_NODELAY on: small control messages and hellos go out at once. 0, or -1 with errno. */
int net_set_nodelay(int fd);

#endif
