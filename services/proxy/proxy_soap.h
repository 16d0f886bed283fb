/*
 * proxy_soap.h: qcg-proxy's SOAP control service (wsdl/proxy.wsdl: GetStatistics), served by
 * lib/soap_server.c over mutual TLS in a thread of its own.
 *
 * Readers are every certificate DN the proxy's ACL names (any role: the broker, front-ends,
 * other proxies, admins) and every user of its grid-mapfile, as the broker's state queries
 * (services/broker/broker_auth.c, broker_require_reader).
 */
#ifndef QCG_PROXY_SOAP_H
#define QCG_PROXY_SOAP_H

#include <stdbool.h>
#include <stddef.h>

#include "acl.h"
#include "gridmap.h"
#include "relay.h"

struct proxy_config;

/* What the handler needs; the soap_server's app pointer. */
struct proxy_soap_app {
	struct relay_plane *plane;
	struct acl acl;         /* empty when no ACL file was configured */
	struct gridmap gridmap; /* empty when no grid-mapfile was configured */
};

/* Whether dn may read the statistics. */
bool proxy_soap_may_read(const struct proxy_soap_app *app, const char *dn);

struct proxy_soap;

/* Load the ACL and grid-mapfile, bind cfg->control and serve until proxy_soap_stop. NULL with
 * the reason in err. */
struct proxy_soap *proxy_soap_start(struct relay_plane *plane, const struct proxy_config *cfg,
    char *err, size_t errlen);

/* SIGHUP: read the ACL and grid-mapfile again (NULL ps: nothing to do); a file that fails to
 * parse keeps the old readers. */
void proxy_soap_reload(struct proxy_soap *ps, const struct proxy_config *cfg);
/* The bound port (useful with port 0). */
int proxy_soap_port(const struct proxy_soap *ps);

/* Stop accepting (within a second: lib/soap_server.c's accept timeout), finish the requests
 * in progress, free. */
void proxy_soap_stop(struct proxy_soap *ps);

#endif
