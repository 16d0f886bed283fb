/*
 * log.c: leveled logging to stderr or syslog.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static const char *log_ident = "qcg";
static enum log_level log_threshold = LOG_LEVEL_INFO;
static int log_to_syslog;

static const char *const log_level_names[] = { "error", "warn", "info", "debug" };
static const int log_syslog_priorities[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

void
log_init(const char *ident, enum log_level level, int use_syslog)
{
	log_ident = ident;
	log_threshold = level;
	log_to_syslog = use_syslog;
	if (use_syslog)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_set_level(enum log_level level)
{
	log_threshold = level;
}

int
log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(log_level_names) / sizeof(log_level_names[0]); i++)
		if (strcmp(name, log_level_names[i]) == 0)
			return (int)i;
	return -1;
}

/* Replace control characters with '?' in place: messages quote what clients sent (job ids,
 * node names), and a newline there would forge a log line of the attacker's choosing. */
static void
log_defang(char *line)
{
	for (unsigned char *p = (unsigned char *)line; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static void
log_emit(enum log_level level, const char *fmt, va_list ap)
{
	char line[1024];

	if (level > log_threshold)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	log_defang(line);
	if (log_to_syslog) {
		syslog(log_syslog_priorities[level], "%s", line);
		return;
	}
	/* One fprintf per message keeps lines from several threads whole. */
	struct timespec now;
	struct tm tm;
	char stamp[32];
	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld %s[%s] %s\n", stamp, now.tv_nsec / 1000000, log_ident,
	    log_level_names[level], line);
}

#define LOG_DEFINE(name, level)                                                                    \
	void name(const char *fmt, ...)                                                            \
	{                                                                                          \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		log_emit(level, fmt, ap);                                                          \
		va_end(ap);                                                                        \
	}
LOG_DEFINE(log_error, LOG_LEVEL_ERROR)
LOG_DEFINE(log_warn, LOG_LEVEL_WARN)
LOG_DEFINE(log_info, LOG_LEVEL_INFO)
LOG_DEFINE(log_debug, LOG_LEVEL_DEBUG)

void
fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_emit(LOG_LEVEL_ERROR, fmt, ap);
	va_end(ap);
	exit(1);
}
