/*
 * helper_net.h: the TCP side of connection set-up on a node: the initiator's rendezvous
 * listener, connecting out with the relay hello (proto/relay_hello.h: the same 24
 * bytes a proxy expects, carrying the broker's id), and TCP simultaneous open for traversal.
 * Every call has a deadline; every socket returned is connected, blocking, and owned by the
 * caller.
 */
#ifndef QCG_HELPER_NET_H
#define QCG_HELPER_NET_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Split "host:port" (the last colon) into host and port; -1 with err when malformed. */
int helper_net_split_endpoint(const char *endpoint, char host[QCG_ADDR_MAX], uint16_t *port,
    char *err, size_t errlen);

/* Listen on address:port (0 = any free port) with SO_REUSEADDR and SO_REUSEPORT (so that a
 * traversal socket may bind the same port); *bound gets the port. Returns the fd or -1. */
int helper_net_listen(const char *address, uint16_t port, uint16_t *bound, char *err,
    size_t errlen);

/* Listen on address at the first free port of min..max (min 0: any free port, as
 * helper_net_listen). Without SO_REUSEPORT, so that two set-ups never share a port. */
int helper_net_listen_range(const char *address, uint16_t min, uint16_t max, uint16_t *bound,
    char *err, size_t errlen);

/* Accept connections on lfd until one presents a hello with id, within timeout_ms. Returns the
 * connected fd (hello consumed) or -1 with err. Connections with another id are closed. */
int helper_net_accept_hello(int lfd, const uint8_t id[QCG_RELAY_ID_BYTES], int timeout_ms,
    char *err, size_t errlen);

/* Connect to host:port within timeout_ms and send the hello with id and hello_flags
 * (RELAY_HELLO_FLAG_*). Returns the fd or -1. */
int helper_net_connect_hello(const char *host, uint16_t port, const uint8_t id[QCG_RELAY_ID_BYTES],
    uint8_t hello_flags, int timeout_ms, char *err, size_t errlen);

/*
 * TCP simultaneous open: bind local_address:port and connect to remote_host:port, retrying
 * until timeout_ms; then both ends send the hello with id and check the other's. Returns the
 * fd or -1 with err.
 */
int helper_net_simultaneous_open(const char *local_address, const char *remote_host,
    uint16_t port, const uint8_t id[QCG_RELAY_ID_BYTES], int timeout_ms, char *err,
    size_t errlen);

#endif
