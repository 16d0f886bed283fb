/*
 * prune.c: the connection-log pruner thread (see prune.h).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config_file.h"
#include "log.h"
#include "prune.h"
#include "registry.h"

struct pruner {
	struct prune_settings s;
	struct registry *reg;  /* its own connection: SQLite connections are not shared */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;   /* signalled by pruner_stop */
	bool stopping;
};

int
prune_settings_from_config(const struct config *cfg, struct prune_settings *out, char *err,
    size_t errlen)
{
	long age, interval;

	if (config_get_int(cfg, "broker.connection_log_max_age", PRUNE_MAX_AGE_DEFAULT, 0,
		PRUNE_MAX_AGE_MAX, &age, err, errlen) != 0 ||
	    config_get_int(cfg, "broker.connection_log_prune_interval", PRUNE_INTERVAL_DEFAULT, 1,
		PRUNE_INTERVAL_MAX, &interval, err, errlen) != 0)
		return -1;
	out->max_age = age;
	out->interval = interval;
	return 0;
}

/* One pass; a failure is logged and retried at the next interval (the log only grows). */
static void
prune_once(struct pruner *p)
{
	size_t removed = 0;
	int64_t before = (int64_t)time(NULL) - p->s.max_age;

	if (registry_prune_connections(p->reg, before, &removed) != 0)
		log_warn("connection log: pruning failed: %s", registry_error(p->reg));
	else if (removed > 0)
		log_info("connection log: pruned %zu records older than %lld s", removed,
		    (long long)p->s.max_age);
	/* Relays (and their resumes) are kept as long as the connection log that they explain. */
	if (registry_prune_relays(p->reg, before, &removed) != 0)
		log_warn("relays: pruning failed: %s", registry_error(p->reg));
}

static void *
pruner_main(void *arg)
{
	struct pruner *p = arg;
	struct timespec next;

	pthread_mutex_lock(&p->lock);
	while (!p->stopping) {
		pthread_mutex_unlock(&p->lock);
		prune_once(p);
		pthread_mutex_lock(&p->lock);
		clock_gettime(CLOCK_MONOTONIC, &next);
		next.tv_sec += (time_t)p->s.interval;
		while (!p->stopping &&
		    pthread_cond_timedwait(&p->wake, &p->lock, &next) != ETIMEDOUT)
			; /* spurious wake-ups: wait on until the deadline */
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int
pruner_start(const char *db_path, const struct prune_settings *s, struct pruner **out,
    char *err, size_t errlen)
{
	struct pruner *p;
	pthread_condattr_t attr;
	int rc;

	*out = NULL;
	if (s->max_age == 0) {
		log_info("connection log: kept forever (broker.connection_log_max_age = 0)");
		return 0;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "connection log pruner: out of memory");
		return -1;
	}
	p->s = *s;
	if (registry_open(db_path, &p->reg, err, errlen) != 0) {
		free(p);
		return -1;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &attr);
	pthread_condattr_destroy(&attr);
	if ((rc = pthread_create(&p->thread, NULL, pruner_main, p)) != 0) {
		snprintf(err, errlen, "connection log pruner: thread: %s", strerror(rc));
		registry_close(p->reg);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->wake);
		free(p);
		return -1;
	}
	log_info("connection log: records older than %lld s pruned every %lld s",
	    (long long)s->max_age, (long long)s->interval);
	*out = p;
	return 0;
}

void
pruner_stop(struct pruner *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	registry_close(p->reg);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}
