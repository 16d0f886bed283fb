/*
 * log_limit.c: rate-limited warnings (see the header).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "log_limit.h"

void
log_limited(struct log_limit *l, const char *fmt, ...)
{
	struct timespec now;
	unsigned suppressed;
	char text[512];
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&l->lock);
	if (now.tv_sec < l->next) {
		l->suppressed++;
		pthread_mutex_unlock(&l->lock);
		return;
	}
	suppressed = l->suppressed;
	l->suppressed = 0;
	l->next = now.tv_sec + LOG_LIMIT_EVERY_S;
	pthread_mutex_unlock(&l->lock);

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (suppressed > 0)
		log_warn("%s (and %u more like it in the last %d s)", text, suppressed,
		    LOG_LIMIT_EVERY_S);
	else
		log_warn("%s", text);
}
