/*
 * proxy_delegate.c: a proxy of the user's credential for the job (proxy_delegate.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "proxy_delegate.h"
#include "proxy_make.h"

long
proxy_delegate_lifetime(long walltime, long grace_seconds)
{
	long s = walltime > 0 ? walltime + grace_seconds : PROXY_DELEGATE_SECONDS_DEFAULT;
	if (s < PROXY_DELEGATE_SECONDS_MIN)
		s = PROXY_DELEGATE_SECONDS_MIN;
	return s > PROXY_SECONDS_MAX ? PROXY_SECONDS_MAX : s;
}

/* The certificates of path, leaf first, and the key of key_path (the same file for a proxy).
 * 0, or -1 with err. */
static int
read_signer(const char *path, const char *key_path, STACK_OF(X509) *chain, EVP_PKEY **key,
    char *err, size_t errlen)
{
	FILE *f;
	if (proxy_read_chain(path, chain, err, errlen) != 0)
		return -1;
	if ((f = fopen(key_path, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", key_path, strerror(errno));
		return -1;
	}
	/* No passphrase prompt: qcg-submit may run without a terminal. An encrypted key is
	 * refused with the hint to make a proxy first. */
	*key = PEM_read_PrivateKey(f, NULL, NULL, (void *)"");
	fclose(f);
	ERR_clear_error();
	if (*key == NULL) {
		snprintf(err, errlen, "%s: cannot read the private key without a passphrase; make a "
		    "proxy first (qcg-proxy-init) and submit with it", key_path);
		return -1;
	}
	return 0;
}

int
proxy_delegate_write(const struct user_creds *creds, long seconds, time_t now,
    const char *path, char *err, size_t errlen)
{
	STACK_OF(X509) *chain = sk_X509_new_null();
	EVP_PKEY *signer_key = NULL, *key = NULL;
	X509 *proxy = NULL;
	int rc = -1;
	if (chain == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (read_signer(creds->tls.cert_file, creds->tls.key_file, chain, &signer_key, err,
	    errlen) != 0)
		goto out;
	struct proxy_request r = { sk_X509_value(chain, 0), signer_key, PROXY_DELEGATE_BITS,
		seconds, now };
	if (proxy_make(&r, &proxy, &key, err, errlen) != 0 ||
	    proxy_write(path, proxy, key, chain, err, errlen) != 0)
		goto out;
	rc = 0;
out:
	X509_free(proxy);
	EVP_PKEY_free(key);
	EVP_PKEY_free(signer_key);
	sk_X509_pop_free(chain, X509_free);
	return rc;
}
