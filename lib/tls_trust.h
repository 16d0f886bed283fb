/*
 * tls_trust.h: the grid CA directory (CA certificates <hash>.N, CRLs <hash>.rN, signing policies
 * <hash>.signing_policy) as a snapshot that every handshake verifies against, re-read when its
 * files change. OpenSSL's own CApath lookup caches what it once read, so a CRL renewed or a
 * certificate revoked while a service runs would never be seen; here a handshake that finds the
 * snapshot older than TLS_TRUST_CHECK_SECONDS compares the directory's names, sizes and mtimes,
 * and builds a new snapshot when they changed. Handshakes already running keep the snapshot they
 * took (reference counted), new ones get the new one.
 *
 * On top of OpenSSL's chain verification it enforces what grid trust needs and OpenSSL leaves
 * out: every certificate below a CA must be a subject the CA's signing policy allows, proxy
 * certificates must use a policy language we know (inheritAll, independent, Globus limited),
 * and the chain must name an identity (tls_chain_end_entity_dn), so that a refused peer gets an
 * authentication fault with the reason rather than a closed connection.
 */
#ifndef QCG_TLS_TRUST_H
#define QCG_TLS_TRUST_H

#include <stddef.h>

#include <openssl/ssl.h>

#define TLS_TRUST_CHECK_SECONDS 5   /* how stale the snapshot may be before a rescan */
#define TLS_TRUST_FILES_MAX 4096    /* entries of the directory looked at */
#define TLS_TRUST_FILE_MAX (64 * 1024 * 1024) /* a CRL or certificate file larger is skipped */

struct tls_trust;

/* The process-wide trust of ca_dir (one per directory, made and loaded on first use). */
struct tls_trust *tls_trust_of_dir(const char *ca_dir, char *err, size_t errlen);
/* Verify ctx's peers against t from now on (SSL_CTX_set_cert_verify_callback). */
void tls_trust_attach(SSL_CTX *ctx, struct tls_trust *t);
/* Re-read every directory in use now, whatever the mtimes say (SIGHUP); logs what it loaded. */
void tls_trust_reload_all(void);
/* Why the trust checks of this file refused ssl's peer, or NULL (see tls_refusal_reason). */
const char *tls_trust_refusal(const SSL *ssl);

#endif
