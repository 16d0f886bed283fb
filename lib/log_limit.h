/*
 * log_limit.h: warnings that a flood can repeat (refused connections, certificates that do not
 * verify), logged at most once per LOG_LIMIT_EVERY_S each: the first of a burst in full, the
 * next one after the interval with how many were suppressed in between. The log must not
 * become an attacker's amplifier. Thread-safe: one struct log_limit per kind of warning.
 */
#ifndef QCG_LOG_LIMIT_H
#define QCG_LOG_LIMIT_H

#include <pthread.h>
#include <time.h>

#define LOG_LIMIT_EVERY_S 10 /* a warning that repeats is logged once per this, with a count */

struct log_limit {
	pthread_mutex_t lock;
	time_t next;         /* CLOCK_MONOTONIC second before which the warning is not logged */
	unsigned suppressed; /* not logged since the last one that was */
};

#define LOG_LIMIT_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0, 0 }

/* log_warn the message unless one of this kind was logged less than LOG_LIMIT_EVERY_S ago, in
 * which case it is only counted; a logged one says "(and N more like it in the last S s)". */
void log_limited(struct log_limit *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
