/*
 * qcgnet_state.c: when libqcgnet.so acts, with which settings, and the process's one control
 * connection to qcg-helper.
 *
 * Activation is one getenv at load time: QCG_NET=1 (the launcher puts it into the job's
 * environment). Without it qn_active stays 0 and every wrapper passes straight through.
 * Programs the job's environment reaches but that are not the job's stay inert too: mpirun
 * runs its rsh agent (qcg-rsh, whose connections go to front-ends) with its own environment,
 * preload included. QCG_NET_SKIP lists them (comma-separated program names; default qcg-rsh).
 *
 * fork(): orted forks its ranks and closes descriptors before exec. The child must not touch
 * the parent's listener threads or share its helper connection, so a pthread_atfork child
 * handler drops both (the fork rules below).
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qcgnet.h"
#include "qcgnet_resume_stream.h"

#define QN_ENV_ACTIVATE "QCG_NET"
#define QN_ENV_SKIP "QCG_NET_SKIP"
#define QN_DEFAULT_SKIP "qcg-rsh"
#define QN_DEFAULT_CONNECT_MS 5000
#define QN_DEFAULT_HANDOFF_MS 30000
/* Long enough to ride over a broker or front-end restart, short enough that a job whose
 * services stay away fails with the cause named, long before its wall time. */
#define QN_DEFAULT_RESOLVE_WAIT_MS 30000
#define QN_TIMEOUT_MAX_MS 600000

int qn_active;
struct qn_config qn_cfg;

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct helper_client ctl = { .fd = -1 };
static int ctl_open;         /* ctl holds a working HELLO'ed connection */
static long ctl_retry_us;    /* after a failed open, do not retry before this */
#define QN_CTL_RETRY_US 1000000L

static void
vlog(const char *fmt, va_list ap)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "libqcgnet[%d]: ", (int)getpid());
	if (n < 0)
		return;
	int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	size_t len = strlen(line);
	line[len++] = '\n';
	(void)!write(2, line, len); /* one write: lines of concurrent processes do not mix */
}

void
qn_log(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	errno = saved;
}

void
qn_debug(const char *fmt, ...)
{
	if (!qn_cfg.debug)
		return;
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
	errno = saved;
}

long
qn_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

int
qn_parse_ports(const char *text, uint16_t *min, uint16_t *max, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	long lo = strtol(text, &end, 10);
	if (end == text || *end != '-' || errno != 0) {
		snprintf(err, errlen, "'%.40s' is not MIN-MAX", text);
		return -1;
	}
	const char *second = end + 1;
	long hi = strtol(second, &end, 10);
	if (end == second || *end != '\0' || errno != 0) {
		snprintf(err, errlen, "'%.40s' is not MIN-MAX", text);
		return -1;
	}
	if (lo < 1 || hi > 65535 || lo > hi) {
		snprintf(err, errlen, "'%.40s': ports must satisfy 1 <= MIN <= MAX <= 65535", text);
		return -1;
	}
	*min = (uint16_t)lo;
	*max = (uint16_t)hi;
	return 0;
}

/* A millisecond setting from the environment, or def; bad values are said and ignored. */
static int
env_ms(const char *name, int def)
{
	const char *v = getenv(name);
	char *end;
	if (v == NULL || *v == '\0')
		return def;
	long ms = strtol(v, &end, 10);
	if (*end != '\0' || ms < 1 || ms > QN_TIMEOUT_MAX_MS) {
		qn_log("%s='%.20s' is not 1..%d milliseconds; using %d", name, v, QN_TIMEOUT_MAX_MS,
		    def);
		return def;
	}
	return (int)ms;
}

/* The identity REGISTER sends: the MPI rank when Open MPI set one, else program and pid. */
static void
read_identity(void)
{
	const char *forced = getenv("QCG_NET_PROCESS");
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	if (forced != NULL && *forced != '\0')
		snprintf(qn_cfg.process, sizeof(qn_cfg.process), "%.100s", forced);
	else if (rank != NULL)
		snprintf(qn_cfg.process, sizeof(qn_cfg.process), "rank %.20s pid %d", rank,
		    (int)getpid());
	else
		snprintf(qn_cfg.process, sizeof(qn_cfg.process), "%.60s pid %d",
		    program_invocation_short_name, (int)getpid());
}

static void
read_config(void)
{
	char err[128];
	const char *v;
	qn_cfg.debug = (v = getenv("QCG_NET_DEBUG")) != NULL && strcmp(v, "1") == 0;
	qn_cfg.loopback = (v = getenv("QCG_NET_LOOPBACK")) != NULL && strcmp(v, "1") == 0;
	v = getenv("QCG_NET_ADDRESS");
	if (v != NULL && strlen(v) < sizeof(qn_cfg.address))
		strcpy(qn_cfg.address, v);
	else if (v != NULL)
		qn_log("QCG_NET_ADDRESS is too long; ignored");
	v = getenv("QCG_NET_PORTS");
	if (v != NULL && *v != '\0' &&
	    qn_parse_ports(v, &qn_cfg.port_min, &qn_cfg.port_max, err, sizeof(err)) != 0) {
		qn_log("QCG_NET_PORTS: %s; listeners keep the ports they ask for", err);
		qn_cfg.port_min = qn_cfg.port_max = 0;
	}
	qn_cfg.connect_ms = env_ms("QCG_NET_CONNECT_TIMEOUT_MS", QN_DEFAULT_CONNECT_MS);
	qn_cfg.handoff_ms = env_ms("QCG_NET_HANDOFF_TIMEOUT_MS", QN_DEFAULT_HANDOFF_MS);
	qn_cfg.resolve_wait_ms = env_ms("QCG_NET_RESOLVE_WAIT_MS", QN_DEFAULT_RESOLVE_WAIT_MS);
	qn_cfg.resume_timeout_ms = env_ms("QCG_NET_RESUME_TIMEOUT_MS",
	    QRS_RESUME_TIMEOUT_DEFAULT_MS);
	qn_cfg.resume_spin_us = env_ms("QCG_NET_RESUME_SPIN_US", 0); /* µs, same bounds */
	qn_cfg.resume_app_read = env_ms("QCG_NET_RESUME_APP_READ", 1) != 0;
	read_identity();
}

void
qn_ctl_lock(void)
{
	pthread_mutex_lock(&ctl_lock);
}

void
qn_ctl_unlock(void)
{
	pthread_mutex_unlock(&ctl_lock);
}

struct helper_client *
qn_ctl_get(char *err, size_t errlen)
{
	if (ctl_open)
		return &ctl;
	long now = qn_now_us();
	if (now < ctl_retry_us) {
		snprintf(err, errlen, "qcg-helper was unreachable less than a second ago");
		return NULL;
	}
	if (helper_client_open_env(&ctl, err, errlen) != 0) {
		ctl_retry_us = now + QN_CTL_RETRY_US;
		return NULL;
	}
	ctl.timeout_ms = qn_cfg.handoff_ms + 5000; /* a RESOLVE may wait for the broker */
	ctl_open = 1;
	return &ctl;
}

void
qn_ctl_drop(void)
{
	if (ctl_open)
		helper_client_close(&ctl);
	ctl_open = 0;
}

/* The fork rules. prepare/parent keep the table consistent across fork(); the child forgets
 * what belongs to the parent's threads and connections. */
static void
atfork_child(void)
{
	pthread_mutex_init(&ctl_lock, NULL);
	if (ctl_open) {
		helper_reader_clear(&ctl.reader);
		QN_REAL(close)(ctl.fd); /* our copy only: the parent's session goes on */
		ctl.fd = -1;
		ctl_open = 0;
	}
	qn_fdtab_child_reset(qn_listener_forget);
	qrs_after_fork_child(); /* the parent's resumable streams are not ours either */
	read_identity(); /* a new pid */
}

/* Whether this program is named in the comma-separated list (QCG_NET_SKIP). */
static int
program_skipped(void)
{
	const char *list = getenv(QN_ENV_SKIP), *me = program_invocation_short_name;
	size_t n = strlen(me);
	if (list == NULL)
		list = QN_DEFAULT_SKIP;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, me, n) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* At exit the stream's I/O thread dies with the process: what the application closed must be
 * on its legs first, or each peer would take the end for a broken leg. */
__attribute__((destructor)) static void
qn_stop(void)
{
	if (!qn_active)
		return;
	qrs_flush_at_exit(QRS_EXIT_FLUSH_MS);
	struct qrs_totals t;
	qrs_get_totals(&t);
	if (t.streams_started > 0)
		qn_debug("resumable streams: %llu started, %llu resumes; bytes framed on the "
		    "application's threads %llu, through the socketpair %llu; bytes read on the "
		    "application's threads %llu, through the socketpair %llu",
		    (unsigned long long)t.streams_started, (unsigned long long)t.resumes,
		    (unsigned long long)t.bytes_direct, (unsigned long long)t.bytes_queued,
		    (unsigned long long)t.bytes_read_direct,
		    (unsigned long long)t.bytes_read_queued);
}

__attribute__((constructor)) static void
qn_start(void)
{
	const char *v = getenv(QN_ENV_ACTIVATE);
	qn_real_init();
	if (v == NULL || strcmp(v, "1") != 0)
		return; /* inert: every wrapper passes straight through */
	if (program_skipped())
		return; /* not a process of the job, only in its environment */
	read_config();
	qn_fdtab_init();
	pthread_atfork(qn_fdtab_prepare_fork, qn_fdtab_parent_fork, atfork_child);
	qn_active = 1;
	qn_debug("active: ports %u-%u, address '%s', loopback %d", qn_cfg.port_min,
	    qn_cfg.port_max, qn_cfg.address, qn_cfg.loopback);
}
