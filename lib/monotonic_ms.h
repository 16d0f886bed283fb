/*
 * monotonic_ms.h: milliseconds on the monotonic clock, for deadlines that a change of the
 * wall clock must not move. Header only and libc only: libqcgnet.so uses it too.
 */
#ifndef QCG_MONOTONIC_MS_H
#define QCG_MONOTONIC_MS_H

#include <time.h>

/* Milliseconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
static inline long
monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The milliseconds left until deadline (a monotonic_ms() value), 0 once it has passed: what
 * poll(2) takes as its timeout. */
static inline int
monotonic_left_ms(long deadline)
{
	long left = deadline - monotonic_ms();
	return left > 0 ? (int)left : 0;
}

#endif
