/*
 * frontend_links.h: the launcher's connections to a job's front-ends, opened all at once
 * before they are needed (issue 15).
 *
 * Why: each front-end is a WAN round trip or more away, and a TLS connection to it costs a TCP
 * handshake, a TLS handshake and the certificate checks before the first request leaves. The
 * Reserves must go out one after another (coalloc.h: the global order); the connections they
 * travel on need no order. Opening them together, while the broker records the job, leaves
 * each Reserve one round trip, and the Commits reuse the same kept-alive connections.
 *
 * Nothing is weakened: a link is an ordinary client context (soap_client.h) whose TLS handshake
 * ran early; it verifies the front-end's certificate chain and host name exactly as a call's
 * own connection would, and the front-end judges our chain on the first request as before. A
 * link whose opening failed is closed; the call on it then connects afresh and reports its
 * own failure, so an early failure costs nothing but the attempt.
 */
#ifndef QCG_FRONTEND_LINKS_H
#define QCG_FRONTEND_LINKS_H

#include <stddef.h>

#include "job_desc.h"

struct soap;
struct tls_settings;
struct soap_client_settings;
struct frontend_links;

/* Start opening a connection to each of the n URLs (each in a thread of its own) and return
 * at once. NULL with err when a context or thread could not be made (the caller then goes on
 * without links: nothing is open). */
struct frontend_links *frontend_links_open(const char *const *urls, int n,
    const struct tls_settings *tls, const struct soap_client_settings *settings, char *err,
    size_t errlen);

/* The context for URL number i, its opening finished (waits for it, bounded by the
 * settings' connect timeout): connected, or closed after a failed attempt. Owned by links;
 * one thread at a time. NULL if links is NULL or i is out of range. */
struct soap *frontend_links_get(struct frontend_links *links, int i);

/* Wait for every opening (each bounded by the connect timeout: a job that fails on its first
 * cluster while another front-end does not answer ends that much later), close every
 * connection and free everything. NULL is fine. */
void frontend_links_close(struct frontend_links *links);

#endif
