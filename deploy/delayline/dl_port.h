/*
 * dl_port.h: raw access to one network interface through an AF_PACKET socket.
 *
 * The delay line reads every frame an interface receives and writes frames for it to transmit,
 * below IP: it is a wire, not a router, so ARP and all protocols pass untouched.
 */
#ifndef QCG_DL_PORT_H
#define QCG_DL_PORT_H

#include <stddef.h>
#include <sys/types.h>

/* Socket receive buffer asked for, so that a burst is not lost while frames are due. */
#define DL_PORT_RCVBUF (8 << 20)

/*
 * Open a non-blocking packet socket on interface `ifname`: bound to it, promiscuous, blind to
 * the frames it sends itself, with virtio-net headers on every frame read and written. Returns the descriptor, or -1 with the reason in err.
 */
int dl_port_open(const char *ifname, char *err, size_t errlen);

/*
 * Receive one frame, preceded by its virtio-net header, into buf. Returns the length of both,
 * 0 when nothing is pending, -1 on error (errno set; EINVAL: the kernel dropped a super-frame it
 * could not describe). A frame longer than buflen is consumed and reported through *truncated.
 */
ssize_t dl_port_recv(int fd, void *buf, size_t buflen, int *truncated);

#endif
