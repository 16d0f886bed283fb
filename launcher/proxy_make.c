/*
 * proxy_make.c: RFC 3820 proxy certificates with OpenSSL (proxy_make.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

#include "proxy_make.h"

static void
ssl_error(char *err, size_t errlen, const char *what)
{
	char buf[256];
	unsigned long e = ERR_get_error();
	ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(err, errlen, "%s: %s", what, e ? buf : "failed");
	ERR_clear_error();
}

/* A random positive 63-bit serial; its decimal form becomes the proxy's CN, as Globus does. */
static int
set_serial(X509 *x, char *cn, size_t cnlen)
{
	unsigned char r[8];
	if (RAND_bytes(r, sizeof(r)) != 1)
		return -1;
	r[0] &= 0x7f;
	unsigned long long v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | r[i];
	if (v == 0)
		v = 1;
	snprintf(cn, cnlen, "%llu", v);
	BIGNUM *bn = NULL;
	int ok = BN_dec2bn(&bn, cn) > 0 && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x));
	BN_free(bn);
	return ok ? 0 : -1;
}

static int
add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value)
{
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
	int ok = e != NULL && X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	return ok ? 0 : -1;
}

/* proxyCertInfo, critical: no path length limit, policy language inherit-all (RFC 3820). */
static int
add_proxy_cert_info(X509 *x)
{
	PROXY_CERT_INFO_EXTENSION *pci = PROXY_CERT_INFO_EXTENSION_new();
	if (pci == NULL)
		return -1;
	ASN1_OBJECT_free(pci->proxyPolicy->policyLanguage);
	pci->proxyPolicy->policyLanguage = OBJ_nid2obj(NID_id_ppl_inheritAll);
	int ok = X509_add1_ext_i2d(x, NID_proxyCertInfo, pci, 1, X509V3_ADD_DEFAULT) == 1;
	PROXY_CERT_INFO_EXTENSION_free(pci);
	return ok ? 0 : -1;
}

/* Subject, issuer, validity and extensions of the proxy x. */
static int
fill_proxy(const struct proxy_request *r, X509 *x, EVP_PKEY *key, char *err, size_t errlen)
{
	char cn[32];
	X509_NAME *subject = X509_NAME_dup(X509_get_subject_name(r->signer));
	time_t now = r->now, end = r->now + r->seconds;
	time_t signer_end;
	struct tm tm;
	X509V3_CTX ctx;

	if (ASN1_TIME_to_tm(X509_get0_notAfter(r->signer), &tm) == 1 &&
	    (signer_end = timegm(&tm)) < end)
		end = signer_end;
	if (subject == NULL || !X509_set_version(x, 2) || set_serial(x, cn, sizeof(cn)) != 0 ||
	    !X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, (unsigned char *)cn, -1, -1,
		0) || !X509_set_subject_name(x, subject) ||
	    !X509_set_issuer_name(x, X509_get_subject_name(r->signer)) ||
	    !X509_time_adj_ex(X509_getm_notBefore(x), 0, -PROXY_BACKDATE, &now) ||
	    !X509_time_adj_ex(X509_getm_notAfter(x), 0, 0, &end) || !X509_set_pubkey(x, key)) {
		X509_NAME_free(subject);
		ssl_error(err, errlen, "building the proxy certificate");
		return -1;
	}
	X509_NAME_free(subject);
	X509V3_set_ctx(&ctx, r->signer, x, NULL, NULL, 0);
	if (add_proxy_cert_info(x) != 0 ||
	    add_ext(x, &ctx, NID_key_usage, "critical,digitalSignature,keyEncipherment") != 0) {
		ssl_error(err, errlen, "proxy certificate extensions");
		return -1;
	}
	return 0;
}

int
proxy_make(const struct proxy_request *r, X509 **cert, EVP_PKEY **key, char *err,
    size_t errlen)
{
	*cert = NULL;
	*key = NULL;
	if (r->bits < PROXY_BITS_MIN || r->bits > PROXY_BITS_MAX) {
		snprintf(err, errlen, "key size must be %d to %d bits, got %d", PROXY_BITS_MIN,
		    PROXY_BITS_MAX, r->bits);
		return -1;
	}
	if (r->seconds <= 0 || r->seconds > PROXY_SECONDS_MAX) {
		snprintf(err, errlen, "lifetime must be 1 second to %ld hours, got %ld seconds",
		    PROXY_SECONDS_MAX / 3600, r->seconds);
		return -1;
	}
	if (X509_check_private_key(r->signer, r->signer_key) != 1) {
		snprintf(err, errlen, "the private key does not belong to the certificate");
		ERR_clear_error();
		return -1;
	}
	EVP_PKEY *k = EVP_RSA_gen((unsigned int)r->bits);
	X509 *x = X509_new();
	if (k == NULL || x == NULL) {
		ssl_error(err, errlen, "generating the proxy key");
		goto fail;
	}
	if (fill_proxy(r, x, k, err, errlen) != 0)
		goto fail;
	if (X509_sign(x, r->signer_key, EVP_sha256()) <= 0) {
		ssl_error(err, errlen, "signing the proxy certificate");
		goto fail;
	}
	*cert = x;
	*key = k;
	return 0;
fail:
	X509_free(x);
	EVP_PKEY_free(k);
	return -1;
}

int
proxy_write(const char *path, X509 *cert, EVP_PKEY *key, STACK_OF(X509) *chain, char *err,
    size_t errlen)
{
	char tmp[4096];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Globus order: the proxy, its key (the traditional RSA form every grid tool reads),
	 * then the signer and the rest of its chain. */
	BIO *bio = BIO_new_fp(f, BIO_NOCLOSE);
	int ok = bio != NULL && fchmod(fd, 0600) == 0 && PEM_write_X509(f, cert) &&
	    fflush(f) == 0 &&
	    PEM_write_bio_PrivateKey_traditional(bio, key, NULL, NULL, 0, NULL, NULL) &&
	    BIO_flush(bio) == 1;
	BIO_free(bio);
	for (int i = 0; ok && i < sk_X509_num(chain); i++)
		ok = PEM_write_X509(f, sk_X509_value(chain, i));
	ok = ok && fflush(f) == 0 && fsync(fd) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "writing %s: %s", path, errno ? strerror(errno) : "failed");
		unlink(tmp);
		return -1;
	}
	return 0;
}

int
proxy_read_chain(const char *path, STACK_OF(X509) *chain, char *err, size_t errlen)
{
	X509 *x;
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (sk_X509_num(chain) < PROXY_CHAIN_MAX &&
	    (x = PEM_read_X509(f, NULL, NULL, NULL)) != NULL)
		sk_X509_push(chain, x);
	fclose(f);
	ERR_clear_error();
	if (sk_X509_num(chain) == 0) {
		snprintf(err, errlen, "%s: no PEM certificate in it", path);
		return -1;
	}
	return 0;
}
