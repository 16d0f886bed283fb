/*
 * tls.h: TLS for every qcg service and client. The only code that knows about SSL contexts.
 *
 * Rules it enforces (DESIGN.md section 2):
 *  - TLS 1.2 or newer; mutual authentication is required on servers;
 *  - trust comes only from the grid CA directory (hash-named CA certificates and CRLs, as in
 *    /etc/grid-security/certificates), never from the system store;
 *  - CRLs are honoured (a CA without a CRL fails verification unless crl_required is off);
 *  - RFC 3820 proxy certificates are accepted;
 *  - a peer's identity is the DN of the end-entity certificate of the verified chain, never
 *    that of a proxy certificate.
 */
#ifndef QCG_TLS_H
#define QCG_TLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <openssl/x509.h>

struct soap;
struct config;

struct tls_settings {
	char cert_file[PATH_MAX]; /* PEM: our certificate, then any chain (a proxy file works) */
	char key_file[PATH_MAX];  /* PEM private key; may be the same file as cert_file */
	char ca_dir[PATH_MAX];    /* the grid CA directory */
	bool crl_required;        /* fail when a CA in the chain has no CRL (default yes) */
};

/* Process-wide initialisation; call once before any other tls_ function. Ignores SIGPIPE. */
void tls_global_init(void);

/* Read [section] cert, key, ca_dir, crl_required from cfg. cert/key are required unless
 * allow_missing_cert (clients that find user credentials themselves). */
int tls_settings_from_config(const struct config *cfg, const char *section,
    struct tls_settings *out, bool allow_missing_cert, char *err, size_t errlen);

/* Find a user's credentials the grid way: $X509_USER_PROXY, /tmp/x509up_u<uid>, then
 * $X509_USER_CERT/$X509_USER_KEY or ~/.globus/usercert.pem and userkey.pem; the CA directory
 * from $X509_CERT_DIR or /etc/grid-security/certificates. Fields already set are kept. */
int tls_find_user_credentials(struct tls_settings *s, char *err, size_t errlen);

/* Load the settings' certificate, key and CA directory as a server's context would, and let
 * the context go: a daemon's configuration check (-n), so that a missing or unreadable file or
 * a key that does not match the certificate is refused before the start. */
int tls_settings_check(const struct tls_settings *s, char *err, size_t errlen);

/* Set soap up as a server: mutual TLS with the settings' credentials and trust. */
int tls_setup_server(struct soap *soap, const struct tls_settings *s, char *err, size_t errlen);
/* Set soap up as a client: verify the server against the grid CA and present our credentials. */
int tls_setup_client(struct soap *soap, const struct tls_settings *s, char *err, size_t errlen);

/* Why a server's peer certificate failed verification on a completed handshake, or NULL when it
 * did not fail (see tls_verify_callback in tls.c). */
const char *tls_refusal_reason(struct soap *soap);

/* Answer a connection whose certificate was refused with a SOAP fault "authentication failed:
 * <reason>" after reading (at most drain_max bytes of) the request, then shut TLS down. */
void tls_send_refusal(struct soap *soap, const char *reason, size_t drain_max);

/* The peer's identity on an established connection of soap (after the handshake). */
int tls_peer_identity(struct soap *soap, char *dn, size_t dnlen, char *err, size_t errlen);

/* A name in the Globus one-line form the grid-mapfile uses: "/O=Grid/OU=x/CN=host/gw-a"
 * (short field names, UTF-8 values). In values a backslash is written "\\" and '=' "\=", so a
 * value cannot forge further RDNs; a NUL or control character refuses the name. */
int tls_name_to_dn(const X509_NAME *name, char *dn, size_t dnlen, char *err, size_t errlen);

/* The end-entity DN of a verified chain (leaf first): the first certificate that is not an
 * RFC 3820 proxy, which must not be a CA; but when a proxy of the chain is independent, the DN
 * of the independent proxy nearest the leaf (it inherits nothing). Pure; what
 * tls_peer_identity and the tests use. */
int tls_chain_end_entity_dn(STACK_OF(X509) *chain, char *dn, size_t dnlen, char *err,
    size_t errlen);

/* Check the RFC 3820 policy languages of the chain's proxies: inheritAll, independent and the
 * Globus limited proxy are known, any other is refused (-1 with err). *limited says whether a
 * proxy of the chain is limited (Globus: it may not start jobs). */
int tls_chain_proxy_policy(STACK_OF(X509) *chain, bool *limited, char *err, size_t errlen);

/* Whether the peer of an established connection authenticated with a limited proxy. Services
 * refuse it whatever starts a job, as Globus does; read-only calls may pass. */
bool tls_peer_is_limited_proxy(struct soap *soap);

#endif
