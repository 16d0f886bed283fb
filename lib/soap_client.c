/*
 * soap_client.c: gSOAP client contexts with TLS and limits.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <stdsoap2.h>

#include "soap_client.h"

/* The envelope-only table of soap_namespaces.c, for callers without a generated one. */
static const struct Namespace *
default_namespaces(void)
{
	return namespaces;
}

struct soap *
soap_client_new(const struct tls_settings *tls, const struct Namespace *namespaces,
    const struct soap_client_settings *settings, char *err, size_t errlen)
{
	struct soap *soap = soap_new1(SOAP_XML_STRICT | SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
	if (soap == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	soap_set_namespaces(soap, namespaces ? namespaces : default_namespaces());
	soap->connect_timeout = settings->connect_timeout;
	soap->send_timeout = settings->io_timeout;
	soap->recv_timeout = settings->io_timeout;
	soap->recv_maxlength = settings->max_message;
	if (tls_setup_client(soap, tls, err, errlen) != 0) {
		soap_client_free(soap);
		return NULL;
	}
	return soap;
}

void
soap_client_reset(struct soap *soap)
{
	soap_destroy(soap);
	soap_end(soap);
}

void
soap_client_free(struct soap *soap)
{
	if (soap == NULL)
		return;
	soap_destroy(soap);
	soap_end(soap);
	soap_free(soap);
}

int
soap_client_error(struct soap *soap, char *buf, size_t buflen)
{
	char detail[512];

	soap_sprint_fault(soap, detail, sizeof(detail));
	/* soap_sprint_fault gives "Error N fault ...[no subcode]\n"...; keep it on one line. */
	for (char *p = detail; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	int auth = soap->error == SOAP_SSL_ERROR;
	if (auth)
		snprintf(buf, buflen, "authentication failed (TLS): %s", detail);
	else if (soap->error == SOAP_TCP_ERROR || soap->error == SOAP_EOF)
		snprintf(buf, buflen, "cannot reach the service: %s", detail);
	else
		snprintf(buf, buflen, "%s", detail);
	return auth;
}
