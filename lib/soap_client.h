/*
 * soap_client.h: the client side of the SOAP plumbing: a gSOAP context with TLS, limits and
 * the service's namespaces, and errors worded for people.
 */
#ifndef QCG_SOAP_CLIENT_H
#define QCG_SOAP_CLIENT_H

#include <stddef.h>

#include "soap_faults.h"
#include "tls.h"

struct soap;

struct soap_client_settings {
	int connect_timeout; /* seconds */
	int io_timeout;      /* seconds per send/receive */
	size_t max_message;  /* bytes of a response */
};

/* A ready client context, or NULL with err set. Free with soap_client_free. */
struct soap *soap_client_new(const struct tls_settings *tls,
    const struct soap_client_settings *settings, char *err, size_t errlen);
void soap_client_free(struct soap *soap);
/* Describe soap's last error: authentication failures, timeouts and faults each say so.
 * Returns 1 when the error was an authentication (TLS) failure. */
int soap_client_error(struct soap *soap, char *buf, size_t buflen);
/* The kind of soap's last received fault (a QCG_FAULT_* value), or NULL for any other error. */
const char *soap_client_fault_kind(struct soap *soap);
/* Free the memory of the last call's response (call between calls on one context). */
void soap_client_reset(struct soap *soap);

#endif
