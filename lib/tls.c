/*
 * tls.c: TLS contexts for gSOAP servers and clients, and peer identity.
 *
 * gSOAP creates the SSL_CTX (soap_ssl_server_context / soap_ssl_client_context) with no files
 * of its own; everything that decides trust is then set here on the context directly, so that
 * the policy lives in one place and does not depend on gSOAP's defaults.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdsoap2.h>

#include "config_file.h"
#include "log.h"
#include "log_limit.h"
#include "model.h"
#include "tls.h"
#include "tls_trust.h"

void
tls_global_init(void)
{
	soap_ssl_init();
	/* OpenSSL writes with write(2), not send(MSG_NOSIGNAL): a peer that hangs up (a service
	 * refusing our certificate, say) would kill the process with SIGPIPE instead of giving an
	 * error we can explain. */
	signal(SIGPIPE, SIG_IGN);
}

/* Per-context policy the verify callback reads: CRLs optional, and whether this context is a
 * server's (see tls_verify_callback). */
static int crl_optional_index = -1;
static int server_ctx_index = -1;

/* A client that retries with a bad certificate would otherwise put one line per connection in
 * the log: the first of a burst is logged with its reason, the rest counted (log_limit.h). */
static struct log_limit log_verify_failed = LOG_LIMIT_INITIALIZER;

/*
 * A server lets a handshake with a presented but unverifiable certificate complete, so that
 * it can tell the client why in a SOAP fault (tls_refusal_reason, soap_server.c) instead of a
 * bare TLS alert that TLS 1.3 clients only see as "end of file"; the verification result
 * stays failed and no request is ever served on such a connection. A client context, and a
 * server whose client presents no certificate at all, fail the handshake itself.
 */
static int
tls_verify_callback(int ok, X509_STORE_CTX *store)
{
	if (ok)
		return 1;
	int e = X509_STORE_CTX_get_error(store);
	SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
	SSL_CTX *ctx = ssl ? SSL_get_SSL_CTX(ssl) : NULL;
	if (e == X509_V_ERR_UNABLE_TO_GET_CRL && ctx && SSL_CTX_get_ex_data(ctx, crl_optional_index)) {
		X509_STORE_CTX_set_error(store, X509_V_OK);
		return 1;
	}
	X509 *cert = X509_STORE_CTX_get_current_cert(store);
	char subject[QCG_DN_MAX] = "?", why[64];
	if (cert)
		tls_name_to_dn(X509_get_subject_name(cert), subject, sizeof(subject), why, sizeof(why));
	log_limited(&log_verify_failed, "certificate verification failed at depth %d (%s): %s",
	    X509_STORE_CTX_get_error_depth(store), subject, X509_verify_cert_error_string(e));
	return ctx && SSL_CTX_get_ex_data(ctx, server_ctx_index) ? 1 : 0;
}

/* Read and drop what the client sends until it pauses, so that closing with unread data does
 * not reset the connection under our answer. */
static void
drain_request(SSL *ssl, int fd, size_t max)
{
	struct timeval idle = { 0, 200 * 1000 };
	char buf[4096];
	size_t total = 0;
	int n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle));
	while (total < max && (n = SSL_read(ssl, buf, sizeof(buf))) > 0)
		total += (size_t)n;
}

/* Copy text into out (outlen bytes, cut short if need be) with <, > and & as entities. */
static void
xml_escape_text(const char *text, char *out, size_t outlen)
{
	size_t e = 0;
	for (const char *r = text; *r && e + 6 < outlen; r++) {
		const char *ent = *r == '<' ? "&lt;" : *r == '>' ? "&gt;" : *r == '&' ? "&amp;" : NULL;
		if (ent) {
			memcpy(out + e, ent, strlen(ent));
			e += strlen(ent);
		} else
			out[e++] = *r;
	}
	out[e] = '\0';
}

void
tls_send_refusal(struct soap *soap, const char *reason, size_t drain_max)
{
	static const char envelope[] =
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\">"
	    "<SOAP-ENV:Body><SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode>"
	    "<faultstring>authentication failed: %s</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body>"
	    "</SOAP-ENV:Envelope>\n";
	char body[1536], response[2048];

	/* reason is X509_verify_cert_error_string's fixed text, or tls_trust.c's, which may name
	 * DNs: markup in those is escaped. */
	char escaped[1024];
	xml_escape_text(reason, escaped, sizeof(escaped));
	int blen = snprintf(body, sizeof(body), envelope, escaped);
	int rlen = snprintf(response, sizeof(response),
	    "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/xml; charset=utf-8\r\n"
	    "Content-Length: %d\r\nConnection: close\r\n\r\n%s", blen, body);
	drain_request(soap->ssl, soap->socket, drain_max);
	if (rlen > 0 && (size_t)rlen < sizeof(response))
		SSL_write(soap->ssl, response, rlen);
	SSL_shutdown(soap->ssl);
}

const char *
tls_refusal_reason(struct soap *soap)
{
	if (soap->ssl == NULL || !SSL_is_init_finished(soap->ssl))
		return NULL;
	long result = SSL_get_verify_result(soap->ssl);
	if (result == X509_V_OK)
		return NULL;
	const char *grid_reason = tls_trust_refusal(soap->ssl);
	return grid_reason ? grid_reason : X509_verify_cert_error_string(result);
}

static void
openssl_error(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char reason[256] = "unknown error";
	if (e)
		ERR_error_string_n(e, reason, sizeof(reason));
	snprintf(err, errlen, "%s: %s", what, reason);
	ERR_clear_error();
}

/* A private key readable by others is a compromised key; grid tools refuse it too. */
static int
key_file_private(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "%s: private key is accessible by group or others (chmod 600)",
		    path);
		return -1;
	}
	return 0;
}

/* Everything that decides trust, applied to a context gSOAP created without files. */
static int
tls_configure_ctx(SSL_CTX *ctx, const struct tls_settings *s, int verify_mode, char *err,
    size_t errlen)
{
	char what[PATH_MAX + 64];

	if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
		return openssl_error(err, errlen, "TLS 1.2 minimum"), -1;
	if (s->cert_file[0] != '\0') {
		if (key_file_private(s->key_file, err, errlen) != 0)
			return -1;
		snprintf(what, sizeof(what), "certificate %s", s->cert_file);
		if (SSL_CTX_use_certificate_chain_file(ctx, s->cert_file) != 1)
			return openssl_error(err, errlen, what), -1;
		snprintf(what, sizeof(what), "private key %s", s->key_file);
		if (SSL_CTX_use_PrivateKey_file(ctx, s->key_file, SSL_FILETYPE_PEM) != 1 ||
		    SSL_CTX_check_private_key(ctx) != 1)
			return openssl_error(err, errlen, what), -1;
	}
	/* A fresh, empty store drops anything gSOAP or the defaults may have loaded; the CAs and
	 * CRLs come from the reloading snapshot of tls_trust.c at each handshake, the store keeps
	 * only the verification flags. */
	struct tls_trust *trust = tls_trust_of_dir(s->ca_dir, err, errlen);
	if (trust == NULL)
		return -1;
	X509_STORE *store = X509_STORE_new();
	if (store == NULL)
		return openssl_error(err, errlen, "X509 store"), -1;
	SSL_CTX_set_cert_store(ctx, store);
	X509_STORE_set_flags(store,
	    X509_V_FLAG_ALLOW_PROXY_CERTS | X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
	tls_trust_attach(ctx, trust);
	if (crl_optional_index < 0) {
		crl_optional_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
		server_ctx_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	}
	SSL_CTX_set_ex_data(ctx, crl_optional_index, s->crl_required ? NULL : (void *)1);
	SSL_CTX_set_ex_data(ctx, server_ctx_index,
	    (verify_mode & SSL_VERIFY_FAIL_IF_NO_PEER_CERT) ? (void *)1 : NULL);
	SSL_CTX_set_verify(ctx, verify_mode, tls_verify_callback);
	SSL_CTX_set_verify_depth(ctx, 10);
	return 0;
}

int
tls_setup_server(struct soap *soap, const struct tls_settings *s, char *err, size_t errlen)
{
	/* Client authentication is required by the verify mode set below, not by gSOAP's flag:
	 * gSOAP would drop a refused connection before we can tell the client why. Every
	 * connection still passes tls_refusal_reason and tls_peer_identity before any request. */
	unsigned short flags = SOAP_SSL_NO_DEFAULT_CA_PATH | SOAP_TLSv1_2 | SOAP_TLSv1_3;

	if (soap_ssl_server_context(soap, flags, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != 0) {
		snprintf(err, errlen, "gSOAP server TLS context failed (error %d)", soap->error);
		return -1;
	}
	return tls_configure_ctx(soap->ctx, s,
	    SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT | SSL_VERIFY_CLIENT_ONCE, err, errlen);
}

int
tls_settings_check(const struct tls_settings *s, char *err, size_t errlen)
{
	struct soap *soap = soap_new();
	if (soap == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = tls_setup_server(soap, s, err, errlen);
	soap_destroy(soap);
	soap_end(soap);
	soap_free(soap);
	return rc;
}

int
tls_setup_client(struct soap *soap, const struct tls_settings *s, char *err, size_t errlen)
{
	unsigned short flags =
	    SOAP_SSL_REQUIRE_SERVER_AUTHENTICATION | SOAP_SSL_NO_DEFAULT_CA_PATH | SOAP_TLSv1_2 |
	    SOAP_TLSv1_3;

	if (soap_ssl_client_context(soap, flags, NULL, NULL, NULL, NULL, NULL) != 0) {
		snprintf(err, errlen, "gSOAP client TLS context failed (error %d)", soap->error);
		return -1;
	}
	return tls_configure_ctx(soap->ctx, s, SSL_VERIFY_PEER, err, errlen);
}

int
tls_peer_identity(struct soap *soap, char *dn, size_t dnlen, char *err, size_t errlen)
{
	if (soap->ssl == NULL) {
		snprintf(err, errlen, "not a TLS connection");
		return -1;
	}
	if (SSL_get_verify_result(soap->ssl) != X509_V_OK) {
		snprintf(err, errlen, "peer certificate not verified");
		return -1;
	}
	return tls_chain_end_entity_dn(SSL_get0_verified_chain(soap->ssl), dn, dnlen, err, errlen);
}

bool
tls_peer_is_limited_proxy(struct soap *soap)
{
	char err[160];
	bool limited = false;
	if (soap->ssl == NULL ||
	    tls_chain_proxy_policy(SSL_get0_verified_chain(soap->ssl), &limited, err,
		sizeof(err)) != 0)
		return true; /* cannot tell: treat it as the weaker credential */
	return limited;
}
