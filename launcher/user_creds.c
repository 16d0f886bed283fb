/*
 * user_creds.c: find a user's credentials and check their validity period up front.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "user_creds.h"

/* Print t as an ISO 8601 UTC time. */
static void
iso_time(const ASN1_TIME *t, char *buf, size_t len)
{
	struct tm tm;
	if (ASN1_TIME_to_tm(t, &tm) != 1 || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "(unreadable time)");
}

/* Check one certificate's validity period at now; keep the earliest notAfter in c. */
static int
check_period(X509 *x, const char *path, int index, time_t now, struct user_creds *c,
    char *err, size_t errlen)
{
	char when[64];
	const ASN1_TIME *nb = X509_get0_notBefore(x), *na = X509_get0_notAfter(x);
	int proxy = (X509_get_extension_flags(x) & EXFLAG_PROXY) != 0;
	const char *what = proxy ? "proxy certificate" : "certificate";

	if (X509_cmp_time(nb, &now) > 0) {
		iso_time(nb, when, sizeof(when));
		snprintf(err, errlen, "%s: %s %d is not valid before %s (check the clock)", path,
		    what, index + 1, when);
		return -1;
	}
	if (X509_cmp_time(na, &now) < 0) {
		iso_time(na, when, sizeof(when));
		snprintf(err, errlen, "%s: %s %d expired at %s%s", path, what, index + 1, when,
		    proxy ? "; make a new proxy with qcg-proxy-init" : "");
		return -1;
	}
	struct tm tm;
	if (ASN1_TIME_to_tm(na, &tm) == 1) {
		time_t t = timegm(&tm);
		if (c->not_after == 0 || t < c->not_after)
			c->not_after = t;
	}
	return 0;
}

int
user_creds_check_file(const char *path, time_t now, struct user_creds *c, char *err,
    size_t errlen)
{
	FILE *f = fopen(path, "r");
	STACK_OF(X509) *chain = sk_X509_new_null();
	X509 *x;
	int rc = -1, n = 0;

	if (f == NULL || chain == NULL) {
		snprintf(err, errlen, "%s: %s", path, f ? "out of memory" : strerror(errno));
		goto out;
	}
	c->not_after = 0;
	c->proxies = 0;
	while (n < USER_CREDS_CHAIN_MAX && (x = PEM_read_X509(f, NULL, NULL, NULL)) != NULL) {
		if (sk_X509_push(chain, x) <= 0) {
			X509_free(x);
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
		if (check_period(x, path, n, now, c, err, errlen) != 0)
			goto out;
		if (c->proxies == n && (X509_get_extension_flags(x) & EXFLAG_PROXY))
			c->proxies++;
		n++;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: no PEM certificate in it", path);
		goto out;
	}
	char why[256];
	if (tls_chain_end_entity_dn(chain, c->dn, sizeof(c->dn), why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	sk_X509_pop_free(chain, X509_free);
	return rc;
}

int
user_creds_load(struct user_creds *c, time_t now, char *err, size_t errlen)
{
	if (tls_find_user_credentials(&c->tls, err, errlen) != 0)
		return -1;
	return user_creds_check_file(c->tls.cert_file, now, c, err, errlen);
}
