/*
 * random_bytes.h: bytes from the kernel's CSPRNG (getrandom(2)), for relay ids, reservation
 * ids and multicast groups. libc only and position independent, so libqcgnet.so and
 * mca_coll_qcg.so link it as the daemons do; it logs nothing: callers say what failed.
 */
#ifndef QCG_RANDOM_BYTES_H
#define QCG_RANDOM_BYTES_H

#include <stddef.h>

/* The most one call fills: ids and seeds are tens of bytes; more is a caller's mistake. */
#define RANDOM_BYTES_MAX 4096

/*
 * Fill buf with len random bytes. Short reads are continued and interruptions by signals
 * retried, a bounded number of times. 0, or -1 with errno: EINVAL (len above
 * RANDOM_BYTES_MAX), EINTR (interrupted every time), or getrandom's own error (ENOSYS...).
 * buf is left partly filled on failure and must not be used.
 */
int random_bytes(void *buf, size_t len);

#endif
