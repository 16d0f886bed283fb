/*
 * fuzz_soap_proxy.c: libFuzzer target for qcg-proxy's SOAP control service (GetStatistics),
 * served in memory through the real dispatch and handler (fuzz_soap.h). The state is the
 * daemon's: a running relay plane listening on a free loopback port (its statistics are what
 * the answer reports) and the readers' ACL and grid-mapfile loaded from files, as
 * proxy_soap.c loads them.
 * Callers: a proxy-ACL admin, a mapped user and an unknown DN.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_soap.h"
#include "proxy_soap.h"
#include "relay.h"

static const char acl_text[] = "admin \"/O=Grid/OU=qcg-ompi/CN=Grid Admin\"\n";
static const char gridmap_text[] = "\"/O=Grid/OU=qcg-ompi/CN=Jane Doe\" jane\n";

void
fuzz_soap_target_init(struct fuzz_soap_target *t)
{
	static struct proxy_soap_app app;
	struct relay_config relay;
	char err[512];

	relay_config_defaults(&relay);
	snprintf(relay.listen_host, sizeof(relay.listen_host), "127.0.0.1");
	relay.listen_port = 0;
	relay.threads = 1;
	if ((app.plane = relay_start(&relay, err, sizeof(err))) == NULL ||
	    acl_load(&app.acl, fuzz_soap_write_file("proxy.acl", acl_text), err, sizeof(err)) != 0 ||
	    gridmap_load(&app.gridmap, fuzz_soap_write_file("grid-mapfile", gridmap_text), err,
		sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_soap_proxy: %s\n", err);
		exit(2);
	}
	t->name = "proxy";
	t->identity[0] = "/O=Grid/OU=qcg-ompi/CN=Grid Admin";
	t->identity[1] = "/O=Grid/OU=qcg-ompi/CN=Jane Doe";
	t->identity[2] = "/O=Grid/OU=qcg-ompi/CN=Mallory";
	t->identities = 3;
	t->app = &app;
}
