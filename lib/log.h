/*
 * log.h: leveled logging to stderr or syslog, shared by every qcg daemon and tool.
 *
 * Messages never carry secrets: callers log DNs, endpoints and ids, never keys, tokens or
 * passwords.
 */
#ifndef QCG_LOG_H
#define QCG_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LEVEL_ERROR = 0, /* the operation failed */
	LOG_LEVEL_WARN = 1,  /* something is off, the process goes on */
	LOG_LEVEL_INFO = 2,  /* lifecycle: start, stop, registrations */
	LOG_LEVEL_DEBUG = 3, /* per request detail */
};

/* Start logging as `ident`; to syslog (daemon facility) when use_syslog, else to stderr. */
void log_init(const char *ident, enum log_level level, int use_syslog);
/* Change the threshold; messages above it are dropped. */
void log_set_level(enum log_level level);
/* Parse "error", "warn", "info" or "debug"; returns -1 for anything else. */
int log_level_parse(const char *name);

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log at error level and exit(1): only where the process cannot go on. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
