/*
 * relay_net.h: the sockets of the data plane: listeners, endpoints, outbound connects.
 */
#ifndef QCG_RELAY_NET_H
#define QCG_RELAY_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/*
 * Resolve "host:port" or "[v6addr]:port" (numeric port) into *addr. Returns 0, or -1 with a
 * reason naming the endpoint in err.
 */
int relay_net_resolve(const char *endpoint, struct sockaddr_storage *addr, socklen_t *addrlen,
    char *err, size_t errlen);

/*
 * Open a non-blocking listening TCP socket on host:port with SO_REUSEPORT, so that each worker
 * thread can have its own listener on the same port and the kernel spreads connections over
 * them. port 0 picks a free port (read it back with relay_net_local_port, then open the other
 * listeners on that port). Returns the socket, or -1 with a reason in err.
 */
int relay_net_listen(const char *host, uint16_t port, char *err, size_t errlen);

/* The local port of a bound socket, 0 on error. */
uint16_t relay_net_local_port(int fd);

/* Start a non-blocking connect to addr; returns the socket (connected or in progress) or -1
 * with errno set. */
int relay_net_connect_start(const struct sockaddr *addr, socklen_t addrlen);

/* Prepare an accepted or connected leg: TCP_NODELAY, so one-byte messages are not held back by
 * Nagle on the relay hop (the endpoints chose their own setting). Returns 0 or -1. */
int relay_net_tune_leg(int fd);

/* Format addr as "host:port" (IPv6 as "[addr]:port") into buf. */
void relay_net_format(const struct sockaddr *addr, char *buf, size_t len);

#endif
