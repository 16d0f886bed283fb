/*
 * fuzz_soap_frontend.c: libFuzzer target for qcg-frontend's SOAP request handling (what
 * helpers and users' launchers call), served in memory through the real dispatch and
 * handlers (fuzz_soap.h). The state is the daemon's, built as frontend_main.c's load_state
 * builds it: the configuration parsed by fe_config_parse, the ACL and grid-mapfile loaded
 * from files, the resolution cache, the reservation table, the helper probes, the pool of
 * broker connections, and a worker's helper context, with host credentials made by
 * deploy/qcg-ca in a scratch directory.
 *
 * The broker and the nodes' helpers it names are closed ports on loopback (127.0.0.1:1), so a
 * handler that relays to them gets "connection refused" at once: a fuzz input never reaches
 * another machine, and what handlers do with a failed call is fuzzed too. The background
 * threads (broker link, event delivery, walltime keeper) are not started: no request reaches
 * them. Callers: the helper of node n01, a mapped user, an admin and an unknown DN.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocator.h"
#include "broker_pool.h"
#include "config_file.h"
#include "frontend.h"
#include "fuzz_soap.h"
#include "helper_probe.h"
#include "reservations.h"
#include "resolve_cache.h"
#include "pair_cache.h"

#ifndef FUZZ_QCG_CA
#error "FUZZ_QCG_CA must name deploy/qcg-ca (-DFUZZ_QCG_CA=\"$(abs_top_srcdir)/deploy/qcg-ca\")"
#endif

static const char acl_text[] =
    "helper \"/O=Grid/OU=qcg-ompi/CN=host/n01\"\n"
    "admin \"/O=Grid/OU=qcg-ompi/CN=Grid Admin\"\n";
static const char gridmap_text[] = "\"/O=Grid/OU=qcg-ompi/CN=Jane Doe\" jane\n";

static void
fail(const char *err)
{
	fprintf(stderr, "fuzz_soap_frontend: %s\n", err);
	exit(2);
}

/* Host credentials for the front-end's client calls, from a fresh test CA. */
static void
make_credentials(const char *dir)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "'%s' init --dir '%s/ca' >'%s/ca.log' 2>&1 && "
	    "'%s' host --dir '%s/ca' --name gw-a --out '%s/gw-a' >>'%s/ca.log' 2>&1",
	    FUZZ_QCG_CA, dir, dir, FUZZ_QCG_CA, dir, dir, dir);
	if (system(cmd) != 0)
		fail("deploy/qcg-ca failed (see ca.log in the scratch directory)");
}

void
fuzz_soap_target_init(struct fuzz_soap_target *t)
{
	static struct config cfg;
	static struct frontend fe;
	const char *dir = fuzz_soap_scratch_dir();
	char err[1024], text[4096];

	make_credentials(dir);
	config_init(&cfg);
	snprintf(text, sizeof(text),
	    "[frontend]\nbroker = https://127.0.0.1:1/\ncluster = site-a\npolicy = nat\n"
	    "private_networks = 10.1.0.0/24\npublic_address = 192.0.2.10\nacl = %s\n"
	    "gridmap = %s\nbroker_connections = 1\nhelper_timeout = 2\nbroker_timeout = 2\n"
	    "[nodes]\nn01 = https://127.0.0.1:1/ 8 /O=Grid/OU=qcg-ompi/CN=host/n01\n"
	    "n02 = https://127.0.0.1:1/ 4\n"
	    "[tls]\ncert = %s/gw-a-cert.pem\nkey = %s/gw-a-key.pem\nca_dir = %s/ca/certificates\n",
	    fuzz_soap_write_file("frontend.acl", acl_text),
	    fuzz_soap_write_file("grid-mapfile", gridmap_text), dir, dir, dir);
	if (config_load_text(&cfg, text, "fuzz_soap_frontend", err, sizeof(err)) != 0 ||
	    tls_settings_from_config(&cfg, "tls", &fe.tls, false, err, sizeof(err)) != 0 ||
	    fe_config_parse(&cfg, "127.0.0.1", 8443, &fe.cfg, err, sizeof(err)) != 0 ||
	    acl_load(&fe.acl, fe.cfg.acl_path, err, sizeof(err)) != 0 ||
	    gridmap_load(&fe.gridmap, fe.cfg.gridmap_path, err, sizeof(err)) != 0)
		fail(err);
	fe.cache = resolve_cache_new((size_t)fe.cfg.cache_max_entries,
	    (size_t)fe.cfg.cache_max_per_job);
	fe.reservations = resv_table_new(fe.cfg.nodes, fe.cfg.node_count,
	    (size_t)fe.cfg.max_reservations, (size_t)fe.cfg.max_launches);
	fe.helpers = helper_probe_new(fe.cfg.nodes, fe.cfg.node_count);
	fe.stage_quota = fe_stage_quota_new(&fe);
	fe.pairs = pair_cache_new(); /* Resolve's second cache (issue 15) */
	if (fe.cache == NULL || fe.reservations == NULL || fe.helpers == NULL ||
	    fe.stage_quota == NULL || fe.pairs == NULL)
		fail("out of memory");
	/* The configuration's allocator (builtin: a fuzz input must not start Slurm commands). */
	if ((fe.allocator = allocator_new(&fe.cfg, fe.reservations, err, sizeof(err))) == NULL)
		fail(err);
	struct soap_client_settings bs = fe_broker_client_settings(&fe, 0);
	if ((fe.brokers = broker_pool_new((size_t)fe.cfg.broker_connections, &fe.tls, &bs, err,
		 sizeof(err))) == NULL)
		fail(err);

	t->name = "frontend";
	t->identity[0] = "/O=Grid/OU=qcg-ompi/CN=host/n01";
	t->identity[1] = "/O=Grid/OU=qcg-ompi/CN=Jane Doe";
	t->identity[2] = "/O=Grid/OU=qcg-ompi/CN=Grid Admin";
	t->identity[3] = "/O=Grid/OU=qcg-ompi/CN=Mallory";
	t->identities = 4;
	t->app = &fe;
	if ((t->worker_state = fe_worker_new(&fe)) == NULL)
		fail("fe_worker_new failed");
}
