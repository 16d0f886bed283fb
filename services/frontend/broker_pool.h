/*
 * broker_pool.h: a few kept-alive client contexts to the broker, shared by the SOAP workers.
 *
 * Why not one per worker: each kept-alive connection costs the broker a TLS session and a
 * place in its idle set (lib/soap_server.c, max_idle), and a front-end's workers rarely all
 * call the broker at once. The pool caps what one front-end keeps open (plus the broker link's
 * long poll); a handler borrows a context for one call and gives it back. gSOAP contexts are
 * not thread-safe: a borrowed one is the borrower's alone.
 */
#ifndef QCG_BROKER_POOL_H
#define QCG_BROKER_POOL_H

#include <stddef.h>

struct soap;
struct tls_settings;
struct soap_client_settings;
struct broker_pool;

#define BROKER_POOL_MAX 64

struct broker_pool *broker_pool_new(size_t size, const struct tls_settings *tls,
    const struct soap_client_settings *settings, char *err, size_t errlen);
void broker_pool_free(struct broker_pool *p);
/* A context for one call, its last response's memory freed; waits while all are lent. */
struct soap *broker_pool_borrow(struct broker_pool *p);
/* Give it back (after everything needed from its response has been copied out). */
void broker_pool_return(struct broker_pool *p, struct soap *soap);

#endif
