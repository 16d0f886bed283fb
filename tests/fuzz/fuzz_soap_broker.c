/*
 * fuzz_soap_broker.c: libFuzzer target for qcg-broker's SOAP request handling, served in
 * memory through the real dispatch and handlers (fuzz_soap.h). The state is the daemon's, built
 * as broker_main.c builds it: an ACL and a grid-mapfile loaded from files, a temporary SQLite
 * registry file migrated by registry_open, the event queue and the liveness watch.
 *
 * Two departures, both so that one input is one bounded request:
 * - the event queue is shut down before the first input, as at the daemon's stop, so that a
 *   WaitEvents answers at once with what is queued instead of waiting up to 300 s;
 * - the registry starts afresh every FUZZ_BROKER_RESET_EVERY inputs, so that what inputs
 *   register does not pile up without bound (and an input found to crash replays alone).
 * Callers: an admin, a front-end of cluster gw-a, a proxy, a mapped user and an unknown DN.
 *
 * Promise checked: no answer is a Server fault. The registry here is sound and nothing runs
 * out, so a Server fault ("registry error") means client input reached SQLite unchecked and
 * was answered as the broker's own failure (corpus bug_waitevents_long_cluster, a WaitEvents
 * queue name longer than a cluster's; bug_access_point_of_unrecorded_job_*). The fault code,
 * not the reason, is looked at: reasons and namespace URIs may echo what the client sent.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "broker.h"
#include "config_file.h"
#include "fuzz_soap.h"
#include "liveness.h"
#include "registry.h"

#define FUZZ_BROKER_RESET_EVERY 1000

static struct broker broker;
static struct fuzz_soap_target *target;

static const char acl_text[] =
    "frontend \"/O=Grid/OU=qcg-ompi/CN=host/gw-*\"\n"
    "proxy \"/O=Grid/OU=qcg-ompi/CN=host/proxy-1\"\n"
    "admin \"/O=Grid/OU=qcg-ompi/CN=Grid Admin\"\n";
static const char gridmap_text[] = "\"/O=Grid/OU=qcg-ompi/CN=Jane Doe\" jane\n";

static void
fail(const char *what, const char *err)
{
	fprintf(stderr, "fuzz_soap_broker: %s: %s\n", what, err);
	exit(2);
}

/* A fresh registry file for the handlers' connection. */
static void
open_registry(void)
{
	struct registry *reg;
	char err[512], side[sizeof(broker.db_path) + 8];

	unlink(broker.db_path);
	snprintf(side, sizeof(side), "%s-wal", broker.db_path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", broker.db_path);
	unlink(side);
	if (registry_open(broker.db_path, &reg, err, sizeof(err)) != 0)
		fail("registry", err);
	target->worker_state = reg;
}

static void
after_request(void)
{
	static unsigned served;
	if (++served % FUZZ_BROKER_RESET_EVERY == 0) {
		registry_close(target->worker_state);
		open_registry();
	}
}

void
fuzz_soap_target_init(struct fuzz_soap_target *t)
{
	static struct config cfg; /* empty: every setting at its default */
	struct liveness_settings liveness;
	char err[512];

	target = t;
	config_init(&cfg);
	if (acl_load(&broker.acl, fuzz_soap_write_file("broker.acl", acl_text), err,
		sizeof(err)) != 0 ||
	    gridmap_load(&broker.gridmap, fuzz_soap_write_file("grid-mapfile", gridmap_text), err,
		sizeof(err)) != 0)
		fail("policies", err);
	snprintf(broker.db_path, sizeof(broker.db_path), "%s/broker.db", fuzz_soap_scratch_dir());
	open_registry();
	if (liveness_settings_from_config(&cfg, &liveness, err, sizeof(err)) != 0 ||
	    liveness_start(broker.db_path, &liveness, &broker.liveness, err, sizeof(err)) != 0)
		fail("liveness", err);
	if ((broker.events = events_new()) == NULL)
		fail("events", "out of memory");
	events_shutdown(broker.events);
	pthread_mutex_init(&broker.cursor_lock, NULL);
	broker.started = time(NULL);

	t->name = "broker";
	t->identity[0] = "/O=Grid/OU=qcg-ompi/CN=Grid Admin";
	t->identity[1] = "/O=Grid/OU=qcg-ompi/CN=host/gw-a";
	t->identity[2] = "/O=Grid/OU=qcg-ompi/CN=host/proxy-1";
	t->identity[3] = "/O=Grid/OU=qcg-ompi/CN=Jane Doe";
	t->identity[4] = "/O=Grid/OU=qcg-ompi/CN=Mallory";
	t->identities = 5;
	t->app = &broker;
	t->after_request = after_request;
	t->never_answers = "<faultcode>SOAP-ENV:Server</faultcode>";
}
