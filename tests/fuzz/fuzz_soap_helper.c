/*
 * fuzz_soap_helper.c: libFuzzer target for qcg-helper's SOAP request handling (what its
 * front-end calls: Deliver, Launch, ReadOutput, Signal), served in memory through the real
 * dispatch and handlers (fuzz_soap.h). The state is the daemon's, built as helper_main.c
 * builds it: the configuration parsed by helper_config_load, the ACL loaded from a file, the
 * job table and the launch table.
 *
 * Two limits are set to zero after the configuration is read, so that a fuzz input never
 * makes the helper act on the network or the system: no connection set-up may be in flight
 * (helper.max_setups: a Deliver is parsed and checked, then refused as over the limit instead
 * of connecting to the addresses it names) and no launch may run (helper.max_launches: a
 * Launch is parsed and checked, its account looked up, then refused instead of executing).
 * Callers: the front-end (in the ACL), an admin, and an unknown DN.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_file.h"
#include "fuzz_soap.h"
#include "helper.h"
#include "launch.h"

static const char acl_text[] =
    "frontend \"/O=Grid/OU=qcg-ompi/CN=host/gw-a\"\n"
    "admin \"/O=Grid/OU=qcg-ompi/CN=Grid Admin\"\n";

void
fuzz_soap_target_init(struct fuzz_soap_target *t)
{
	static struct config cfg;
	static struct helper helper;
	char err[512], text[2048];

	config_init(&cfg);
	snprintf(text, sizeof(text),
	    "[helper]\nnode = node-01\ncluster = site-a\naddress = 127.0.0.1\n"
	    "frontend = https://127.0.0.1:1/\nacl = %s\nsocket = %s/helper.sock\n"
	    "token_file = %s/tokens\n",
	    fuzz_soap_write_file("helper.acl", acl_text), fuzz_soap_scratch_dir(),
	    fuzz_soap_scratch_dir());
	if (config_load_text(&cfg, text, "fuzz_soap_helper", err, sizeof(err)) != 0 ||
	    helper_config_load(&cfg, &helper.cfg, err, sizeof(err)) != 0 ||
	    acl_load(&helper.acl, helper.cfg.acl_path, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_soap_helper: %s\n", err);
		exit(2);
	}
	helper.cfg.max_setups = 0;   /* never connect out: see above */
	helper.cfg.max_launches = 0; /* never execute: see above */
	helper.jobs = helper_jobs_new(helper.cfg.token_file, helper.cfg.park_ms);
	helper.launches = helper.jobs == NULL ? NULL : launch_table_new(helper.cfg.node,
	    helper.cfg.max_launches, helper.cfg.output_cap, helper.cfg.allow_root_launch,
	    helper.jobs);
	if (helper.launches == NULL) {
		fprintf(stderr, "fuzz_soap_helper: out of memory\n");
		exit(2);
	}
	pthread_mutex_init(&helper.setups_lock, NULL);

	t->name = "helper";
	t->identity[0] = "/O=Grid/OU=qcg-ompi/CN=host/gw-a";
	t->identity[1] = "/O=Grid/OU=qcg-ompi/CN=Grid Admin";
	t->identity[2] = "/O=Grid/OU=qcg-ompi/CN=Mallory";
	t->identities = 3;
	t->app = &helper;
}
