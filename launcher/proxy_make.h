/*
 * proxy_make.h: make an RFC 3820 proxy certificate (DESIGN.md section 4, single sign-on): a new
 * key pair, and a certificate signed by the user's key whose subject is the user's subject plus
 * one CN (the serial number), with a critical proxyCertInfo (inherit all), never valid past the
 * signer. What grid-proxy-init makes and what every Globus tool reads.
 */
#ifndef QCG_PROXY_MAKE_H
#define QCG_PROXY_MAKE_H

#include <stddef.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#define PROXY_BITS_MIN 2048 /* OpenSSL 3's default security level refuses smaller RSA keys */
#define PROXY_BITS_MAX 8192
#define PROXY_SECONDS_MAX (30L * 86400) /* a proxy longer than a month defeats its purpose */
#define PROXY_BACKDATE 300               /* seconds: tolerate clocks a little behind ours */
#define PROXY_CHAIN_MAX 16               /* certificates read from one credential file */

struct proxy_request {
	X509 *signer;            /* the user's certificate (or a proxy, for a proxy of a proxy) */
	EVP_PKEY *signer_key;
	int bits;                /* RSA key size of the proxy */
	long seconds;            /* lifetime asked for (cut at the signer's end) */
	time_t now;
};

/* Make the proxy; *cert and *key are the caller's to free. 0, or -1 with err. */
int proxy_make(const struct proxy_request *r, X509 **cert, EVP_PKEY **key, char *err,
    size_t errlen);

/* Push the PEM certificates of path (leaf first, at most PROXY_CHAIN_MAX) onto chain: the
 * signer of a new proxy and the chain to write after it. 0, or -1 with err naming path. */
int proxy_read_chain(const char *path, STACK_OF(X509) *chain, char *err, size_t errlen);

/* Write proxy cert, its key, then the signer's chain (chain: signer first) to path with mode
 * 0600, replacing it atomically. 0, or -1 with err. */
int proxy_write(const char *path, X509 *cert, EVP_PKEY *key, STACK_OF(X509) *chain, char *err,
    size_t errlen);

#endif
