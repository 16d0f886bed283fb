/*
 * soap_client.c: gSOAP client contexts with TLS and limits.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdsoap2.h>

#include "soap_client.h"

/*
 * gSOAP's check of a kept-alive connection before it sends on it again (soap->fpoll). Its
 * own takes any byte waiting as a sign that the server closed, unless a blocking peek finds
 * data; on a connection opened ahead of use (launcher/frontend_links.c) the bytes waiting
 * are TLS 1.3's session tickets, which the server sends after the handshake, so it threw the
 * connection away and opened another. Here what waits is read without blocking: records that
 * carry no data (tickets) leave the connection usable; the server's close, an error, or data
 * nobody asked for make gSOAP connect afresh.
 */
static int
kept_alive_poll(struct soap *soap)
{
	if (!soap_valid_socket(soap->socket))
		return SOAP_EOF;
	struct pollfd p = { .fd = soap->socket, .events = POLLIN };
	int r = poll(&p, 1, 0);
	if (r == 0)
		return SOAP_OK; /* nothing arrived: still open */
	if (r < 0 || (p.revents & (POLLERR | POLLNVAL)))
		return SOAP_EOF;
	if (soap->ssl == NULL) {
		char c;
		ssize_t n = recv(soap->socket, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? SOAP_OK : SOAP_EOF;
	}
	int flags = fcntl(soap->socket, F_GETFL);
	if (flags < 0 || fcntl(soap->socket, F_SETFL, flags | O_NONBLOCK) != 0)
		return SOAP_EOF;
	char c;
	int n = SSL_peek(soap->ssl, &c, 1), e = SSL_get_error(soap->ssl, n);
	if (fcntl(soap->socket, F_SETFL, flags) != 0)
		return SOAP_EOF;
	return n <= 0 && e == SSL_ERROR_WANT_READ ? SOAP_OK : SOAP_EOF;
}

struct soap *
soap_client_new(const struct tls_settings *tls, const struct soap_client_settings *settings,
    char *err, size_t errlen)
{
	struct soap *soap = soap_new1(SOAP_XML_STRICT | SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
	if (soap == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	soap_set_namespaces(soap, namespaces); /* all services' table, wsdl/qcg_namespaces.c */
	soap->connect_timeout = settings->connect_timeout;
	soap->send_timeout = settings->io_timeout;
	soap->recv_timeout = settings->io_timeout;
	soap->recv_maxlength = settings->max_message;
	soap->fpoll = kept_alive_poll;
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

/*
 * With TLS 1.3 the server judges our certificate after the client's handshake has completed,
 * so a refusal arrives as an alert on the first read and gSOAP reports only "end of file". The
 * alert is still in OpenSSL's error queue: find it, so that the user hears "authentication
 * failed: certificate revoked" instead of "cannot reach the service".
 */
static int
tls_alert_reason(char *buf, size_t buflen)
{
	unsigned long e;
	int found = 0;
	while ((e = ERR_get_error()) != 0) {
		if (ERR_GET_LIB(e) == ERR_LIB_SSL && ERR_GET_REASON(e) >= SSL_AD_REASON_OFFSET) {
			const char *reason = ERR_reason_error_string(e);
			snprintf(buf, buflen, "%s", reason ? reason : "TLS alert");
			found = 1;
		}
	}
	return found;
}

int
soap_client_error(struct soap *soap, char *buf, size_t buflen)
{
	char detail[512], alert[128];

	if (tls_alert_reason(alert, sizeof(alert))) {
		snprintf(buf, buflen, "authentication failed (TLS): the service refused us: %s", alert);
		return 1;
	}

	soap_sprint_fault(soap, detail, sizeof(detail));
	/* soap_sprint_fault gives "Error N fault ...[no subcode]\n"...; keep it on one line. */
	for (char *p = detail; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* SSL errors are ours refusing the service; the fault is the service refusing us */
	int auth = soap->error == SOAP_SSL_ERROR || strstr(detail, "\"authentication failed") != NULL;
	if (auth)
		snprintf(buf, buflen, "authentication failed (TLS): %s", detail);
	else if (soap->error == SOAP_TCP_ERROR || soap->error == SOAP_EOF)
		snprintf(buf, buflen, "cannot reach the service: %s", detail);
	else
		snprintf(buf, buflen, "%s", detail);
	return auth;
}

const char *
soap_client_fault_kind(struct soap *soap)
{
	static const char *const kinds[] = { QCG_FAULT_NO_METHOD, QCG_FAULT_NO_ACCESS_POINT,
		QCG_FAULT_BUSY };
	if (soap->error != SOAP_FAULT && soap->error != SOAP_CLI_FAULT)
		return NULL;
	const char *code = soap_fault_subcode(soap);
	const char *dot = code != NULL ? strrchr(code, '.') : NULL;
	if (dot == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(dot + 1, kinds[i]) == 0)
			return kinds[i];
	return NULL;
}
