/*
 * relay.c: the data plane's public face (relay.h): configuration, starting and stopping the
 * workers, the statistics snapshot, and the announcements of relay ids.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "log.h"
#include "relay.h"
#include "relay_net.h"
#include "relay_worker.h"

/* Descriptors per leg: its socket plus, once joined, half of the relay's two pipes (2 fds). */
#define RELAY_FDS_PER_LEG 3
#define RELAY_FDS_SPARE 64 /* listeners, epoll, eventfds, logs, the control socket */

struct relay_plane {
	struct relay_shared shared;
	unsigned nworkers;
	struct relay_worker *workers;
	unsigned started;  /* workers whose thread runs */
	uint16_t port;
};

void
relay_config_defaults(struct relay_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->listen_port = 7300;
	cfg->max_legs = 16384;
	cfg->max_ids = 65536;
	cfg->pipe_size = 256 * 1024;
	cfg->hello_timeout_ms = 10000;
	cfg->partner_timeout_ms = 30000;
	cfg->unknown_id_wait_ms = 5000;
	cfg->used_id_ttl_ms = 60000;
}

static int
check_range(const char *name, unsigned value, unsigned min, unsigned max, char *err,
    size_t errlen)
{
	if (value >= min && value <= max)
		return 0;
	snprintf(err, errlen, "%s must be in %u..%u, got %u", name, min, max, value);
	return -1;
}

int
relay_config_check(const struct relay_config *cfg, char *err, size_t errlen)
{
	if (check_range("threads", cfg->threads, 0, RELAY_MAX_THREADS, err, errlen) < 0 ||
	    check_range("max-legs", cfg->max_legs, 2, RELAY_MAX_LEGS_LIMIT, err, errlen) < 0 ||
	    check_range("max-ids", cfg->max_ids, 1, 10 * RELAY_MAX_LEGS_LIMIT, err, errlen) < 0 ||
	    check_range("pipe-size", cfg->pipe_size, RELAY_PIPE_SIZE_MIN, RELAY_PIPE_SIZE_MAX, err,
		errlen) < 0 ||
	    check_range("hello-timeout-ms", cfg->hello_timeout_ms, 1, RELAY_TIMEOUT_MAX_MS, err,
		errlen) < 0 ||
	    check_range("partner-timeout-ms", cfg->partner_timeout_ms, 1, RELAY_TIMEOUT_MAX_MS, err,
		errlen) < 0 ||
	    check_range("used-id-ttl-ms", cfg->used_id_ttl_ms, 1, RELAY_TIMEOUT_MAX_MS, err,
		errlen) < 0 ||
	    check_range("unknown-id-wait-ms", cfg->unknown_id_wait_ms, 0, RELAY_TIMEOUT_MAX_MS, err,
		errlen) < 0)
		return -1;
	return 0;
}

/*
 * Make room for max_legs legs in RLIMIT_NOFILE, as far as the hard limit allows, and return
 * the number of legs that fit: running out of descriptors mid-relay would fail relays that
 * were already accepted, so the leg limit is lowered instead and excess legs are refused at
 * accept like any beyond max-legs.
 */
static unsigned
fit_fd_limit(unsigned max_legs)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_legs * RELAY_FDS_PER_LEG + RELAY_FDS_SPARE;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return max_legs;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= want)
		return max_legs;
	rlim_t fit = rl.rlim_cur > 2 * RELAY_FDS_SPARE ?
	    (rl.rlim_cur - RELAY_FDS_SPARE) / RELAY_FDS_PER_LEG : 2;
	log_warn("max-legs %u needs %llu descriptors but RLIMIT_NOFILE allows %llu: "
	    "serving at most %llu legs", max_legs, (unsigned long long)want,
	    (unsigned long long)rl.rlim_cur, (unsigned long long)fit);
	return (unsigned)fit;
}

static int
plane_open_workers(struct relay_plane *plane, char *err, size_t errlen)
{
	const struct relay_config *cfg = &plane->shared.cfg;
	uint16_t port = cfg->listen_port;

	for (unsigned i = 0; i < plane->nworkers; i++) {
		int fd = relay_net_listen(cfg->listen_host, port, err, errlen);
		if (fd < 0)
			return -1;
		if (i == 0)
			port = plane->port = relay_net_local_port(fd);
		if (relay_worker_init(&plane->workers[i], &plane->shared, (int)i, fd) < 0) {
			snprintf(err, errlen, "worker %u: %s", i, strerror(errno));
			return -1;
		}
	}
	for (; plane->started < plane->nworkers; plane->started++) {
		struct relay_worker *w = &plane->workers[plane->started];
		int rc = pthread_create(&w->thread, NULL, relay_worker_run, w);
		if (rc != 0) {
			snprintf(err, errlen, "starting worker %u: %s", plane->started, strerror(rc));
			return -1;
		}
	}
	return 0;
}

struct relay_plane *
relay_start(const struct relay_config *cfg, char *err, size_t errlen)
{
	if (relay_config_check(cfg, err, errlen) < 0)
		return NULL;
	struct relay_plane *plane = calloc(1, sizeof(*plane));
	if (plane == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	plane->shared.cfg = *cfg;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	plane->nworkers = cfg->threads ? cfg->threads : cores > 0 ? (unsigned)cores : 1;
	if (plane->nworkers > RELAY_MAX_THREADS)
		plane->nworkers = RELAY_MAX_THREADS;
	struct relay_table_limits limits = { .max_ids = cfg->max_ids,
		.partner_timeout_ms = cfg->partner_timeout_ms,
		.used_ttl_ms = cfg->used_id_ttl_ms, .accept_any_id = cfg->accept_any_id };
	plane->shared.table = relay_table_create(&limits);
	plane->workers = calloc(plane->nworkers, sizeof(*plane->workers));
	for (unsigned i = 0; plane->workers != NULL && i < plane->nworkers; i++)
		plane->workers[i].epfd = plane->workers[i].wake_fd = plane->workers[i].listen_fd = -1;
	if (plane->shared.table == NULL || plane->workers == NULL) {
		snprintf(err, errlen, "out of memory");
		relay_stop(plane);
		return NULL;
	}
	signal(SIGPIPE, SIG_IGN);
	plane->shared.cfg.max_legs = fit_fd_limit(cfg->max_legs);
	if (plane_open_workers(plane, err, errlen) < 0) {
		relay_stop(plane);
		return NULL;
	}
	if (cfg->accept_any_id)
		log_warn("INSECURE: accept-any-id is on: any two legs presenting the same id are "
		    "joined without the broker's announcement; use only for tests and benchmarks");
	log_info("relay data plane on port %u: %u workers, max %u legs, %u-byte pipes", plane->port,
	    plane->nworkers, plane->shared.cfg.max_legs, cfg->pipe_size);
	return plane;
}

void
relay_stop(struct relay_plane *plane)
{
	if (plane == NULL)
		return;
	atomic_store(&plane->shared.stopping, true);
	for (unsigned i = 0; i < plane->started; i++)
		relay_worker_wake(&plane->workers[i]);
	for (unsigned i = 0; i < plane->started; i++)
		pthread_join(plane->workers[i].thread, NULL);
	for (unsigned i = 0; plane->workers != NULL && i < plane->nworkers; i++)
		relay_worker_destroy(&plane->workers[i]);
	relay_table_destroy(plane->shared.table);
	free(plane->workers);
	free(plane);
}

uint16_t
relay_port(const struct relay_plane *plane)
{
	return plane->port;
}

#define SUM(field) atomic_load_explicit(&c->field, memory_order_relaxed)

void
relay_stats(struct relay_plane *plane, struct relay_stats *out)
{
	struct relay_table_counts counts;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < plane->nworkers; i++) {
		const struct relay_counters *c = &plane->workers[i].counters;
		out->legs_accepted += SUM(legs_accepted);
		out->legs_refused += SUM(legs_refused);
		out->relays_joined += SUM(relays_joined);
		out->relays_forwarded += SUM(relays_forwarded);
		out->relays_completed += SUM(relays_completed);
		out->relays_aborted += SUM(relays_aborted);
		out->bytes_first_to_second += SUM(bytes[0]);
		out->bytes_second_to_first += SUM(bytes[1]);
		out->hellos_rejected += SUM(hellos_rejected);
		out->ids_unknown += SUM(ids_unknown);
		out->ids_late += SUM(ids_late);
		out->ids_reused += SUM(ids_reused);
		out->timeouts_hello += SUM(timeouts_hello);
		out->timeouts_partner += SUM(timeouts_partner);
		out->forwards_failed += SUM(forwards_failed);
	}
	long legs = atomic_load(&plane->shared.legs_open);
	long relays = atomic_load(&plane->shared.relays_active);
	long unannounced = atomic_load(&plane->shared.legs_unannounced);
	out->legs_unannounced = unannounced > 0 ? (uint64_t)unannounced : 0;
	out->legs_open = legs > 0 ? (uint64_t)legs : 0;
	out->relays_active = relays > 0 ? (uint64_t)relays : 0;
	relay_table_count(plane->shared.table, &counts);
	out->legs_waiting = counts.waiting;
	out->ids_expected = counts.expected + counts.forward;
}

int
relay_stats_format(const struct relay_stats *st, char *buf, size_t len)
{
	return snprintf(buf, len,
	    "legs_open=%llu legs_waiting=%llu legs_unannounced=%llu relays_active=%llu "
	    "ids_expected=%llu "
	    "legs_accepted=%llu legs_refused=%llu relays_joined=%llu relays_forwarded=%llu "
	    "relays_completed=%llu relays_aborted=%llu bytes_first_to_second=%llu "
	    "bytes_second_to_first=%llu hellos_rejected=%llu ids_unknown=%llu ids_late=%llu "
	    "ids_reused=%llu "
	    "timeouts_hello=%llu timeouts_partner=%llu forwards_failed=%llu",
	    (unsigned long long)st->legs_open, (unsigned long long)st->legs_waiting,
	    (unsigned long long)st->legs_unannounced,
	    (unsigned long long)st->relays_active, (unsigned long long)st->ids_expected,
	    (unsigned long long)st->legs_accepted, (unsigned long long)st->legs_refused,
	    (unsigned long long)st->relays_joined, (unsigned long long)st->relays_forwarded,
	    (unsigned long long)st->relays_completed, (unsigned long long)st->relays_aborted,
	    (unsigned long long)st->bytes_first_to_second,
	    (unsigned long long)st->bytes_second_to_first,
	    (unsigned long long)st->hellos_rejected, (unsigned long long)st->ids_unknown,
	    (unsigned long long)st->ids_late,
	    (unsigned long long)st->ids_reused, (unsigned long long)st->timeouts_hello,
	    (unsigned long long)st->timeouts_partner, (unsigned long long)st->forwards_failed);
}

static int
announce_check_ttl(unsigned ttl_s, char *err, size_t errlen)
{
	return check_range("relay id ttl (s)", ttl_s, 1, RELAY_ID_TTL_MAX_S, err, errlen);
}

/*
 * An announcement may be what a leg parked as unannounced waits for (relay_leg.c): wake every
 * worker to look again. The load comes after the table update (sequentially consistent): a
 * worker that counts its leg after this load claims again after the update, and sees it.
 */
static void
wake_unannounced(struct relay_plane *plane)
{
	if (atomic_load(&plane->shared.legs_unannounced) <= 0)
		return;
	for (unsigned i = 0; i < plane->started; i++)
		relay_worker_wake(&plane->workers[i]);
}

int
relay_expect(struct relay_plane *plane, const struct relay_id *id, unsigned ttl_s, char *err,
    size_t errlen)
{
	char idhex[RELAY_ID_HEX_LEN + 1];

	if (announce_check_ttl(ttl_s, err, errlen) < 0)
		return -1;
	enum relay_table_result r = relay_table_expect(plane->shared.table, id,
	    (uint64_t)ttl_s * 1000, relay_now_ms());
	relay_id_format(id->bytes, idhex);
	if (r != RELAY_TABLE_OK) {
		snprintf(err, errlen, "relay %s: %s", idhex, relay_table_result_name(r));
		return -1;
	}
	wake_unannounced(plane);
	log_debug("relay %s expected for %u s", idhex, ttl_s);
	return 0;
}

int
relay_forward(struct relay_plane *plane, const struct relay_id *id, const char *next_hop,
    unsigned ttl_s, char *err, size_t errlen)
{
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char idhex[RELAY_ID_HEX_LEN + 1];

	if (announce_check_ttl(ttl_s, err, errlen) < 0 ||
	    relay_net_resolve(next_hop, &addr, &addrlen, err, errlen) < 0)
		return -1;
	enum relay_table_result r = relay_table_forward(plane->shared.table, id,
	    (struct sockaddr *)&addr, addrlen, (uint64_t)ttl_s * 1000, relay_now_ms());
	relay_id_format(id->bytes, idhex);
	if (r != RELAY_TABLE_OK) {
		snprintf(err, errlen, "relay %s: %s", idhex, relay_table_result_name(r));
		return -1;
	}
	wake_unannounced(plane);
	log_debug("relay %s forwarded to %s for %u s", idhex, next_hop, ttl_s);
	return 0;
}
