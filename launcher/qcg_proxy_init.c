/*
 * qcg_proxy_init.c: qcg-proxy-init, single sign-on: an RFC 3820 proxy from the user's
 * long-term credentials, which every qcg command (and every Globus tool) then uses.
 *
 *   qcg-proxy-init [-hours N] [-valid H:M] [-bits N] [-cert FILE] [-key FILE] [-out FILE] [-q]
 *
 * Credentials: -cert/-key, else $X509_USER_CERT/$X509_USER_KEY, else ~/.globus/usercert.pem
 * and userkey.pem (an encrypted key asks for its passphrase on the terminal). Output: -out,
 * else $X509_USER_PROXY, else /tmp/x509up_u<uid>, mode 0600, replaced atomically. Defaults:
 * 12 hours, 2048 bits. Exit codes: 0 made, 1 failed (reason on stderr), 2 bad usage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>

#include "proxy_make.h"
#include "user_creds.h"

struct init_options {
	char cert[4096], key[4096], out[4096];
	long seconds;
	int bits;
	int quiet;
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: qcg-proxy-init [-hours N] [-valid H:M] [-bits N] [-cert FILE] "
	    "[-key FILE] [-out FILE] [-q]\n"
	    "  -hours N    lifetime in hours (default 12; never past the certificate's end)\n"
	    "  -valid H:M  lifetime in hours and minutes (as grid-proxy-init)\n"
	    "  -bits N     proxy key size (default 2048, %d-%d)\n"
	    "  -cert, -key the user's credentials (default $X509_USER_CERT, $X509_USER_KEY,\n"
	    "              ~/.globus/usercert.pem, ~/.globus/userkey.pem)\n"
	    "  -out FILE   where to write it (default $X509_USER_PROXY, /tmp/x509up_u<uid>)\n",
	    PROXY_BITS_MIN, PROXY_BITS_MAX);
}

static int
number(const char *s, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
copy_arg(char *dst, const char *src)
{
	if (strlen(src) >= 4096)
		return -1;
	strcpy(dst, src);
	return 0;
}

/* Parse one option with its value; returns how many argv entries it used, or -1. */
static int
parse_option(struct init_options *o, char **argv, int left)
{
	const char *opt = argv[0] + (argv[0][1] == '-'); /* -hours and --hours alike */
	const char *v = left > 1 ? argv[1] : NULL;
	long n, h, m;
	if (strcmp(opt, "-q") == 0)
		return o->quiet = 1;
	if (v == NULL)
		return -1;
	if (strcmp(opt, "-hours") == 0 && number(v, PROXY_SECONDS_MAX / 3600, &n) == 0 && n > 0)
		o->seconds = n * 3600;
	else if (strcmp(opt, "-valid") == 0 && sscanf(v, "%ld:%ld", &h, &m) == 2 && h >= 0 &&
	    m >= 0 && m < 60 && h * 3600 + m * 60 > 0 && h * 3600 + m * 60 <= PROXY_SECONDS_MAX)
		o->seconds = h * 3600 + m * 60;
	else if (strcmp(opt, "-bits") == 0 && number(v, PROXY_BITS_MAX, &n) == 0 &&
	    n >= PROXY_BITS_MIN)
		o->bits = (int)n;
	else if (strcmp(opt, "-cert") == 0 && copy_arg(o->cert, v) == 0)
		;
	else if (strcmp(opt, "-key") == 0 && copy_arg(o->key, v) == 0)
		;
	else if (strcmp(opt, "-out") == 0 && copy_arg(o->out, v) == 0)
		;
	else {
		fprintf(stderr, "qcg-proxy-init: bad option or value: %s %s\n", argv[0], v);
		return -1;
	}
	return 2;
}

static int
parse_options(int argc, char **argv, struct init_options *o)
{
	const char *home = getenv("HOME") ? getenv("HOME") : "";
	o->seconds = 12 * 3600;
	o->bits = 2048;
	for (int i = 1; i < argc;) {
		if (strcmp(argv[i], "-help") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		int used = parse_option(o, argv + i, argc - i);
		if (used < 0)
			return -1;
		i += used;
	}
	if (!o->cert[0])
		snprintf(o->cert, sizeof(o->cert), "%s", getenv("X509_USER_CERT") ?
		    getenv("X509_USER_CERT") : "");
	if (!o->cert[0])
		snprintf(o->cert, sizeof(o->cert), "%s/.globus/usercert.pem", home);
	if (!o->key[0])
		snprintf(o->key, sizeof(o->key), "%s", getenv("X509_USER_KEY") ?
		    getenv("X509_USER_KEY") : "");
	if (!o->key[0])
		snprintf(o->key, sizeof(o->key), "%s/.globus/userkey.pem", home);
	if (!o->out[0] && getenv("X509_USER_PROXY"))
		snprintf(o->out, sizeof(o->out), "%s", getenv("X509_USER_PROXY"));
	if (!o->out[0])
		snprintf(o->out, sizeof(o->out), "/tmp/x509up_u%u", (unsigned)getuid());
	return 0;
}

/* Read the certificate file (leaf first) and the key. */
static int
read_credentials(const struct init_options *o, STACK_OF(X509) *chain, EVP_PKEY **key,
    char *err, size_t errlen)
{
	FILE *f;
	if (proxy_read_chain(o->cert, chain, err, errlen) != 0)
		return -1;
	if ((f = fopen(o->key, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", o->key, strerror(errno));
		return -1;
	}
	*key = PEM_read_PrivateKey(f, NULL, NULL, NULL); /* OpenSSL asks for a passphrase */
	fclose(f);
	if (*key == NULL) {
		snprintf(err, errlen, "%s: cannot read the private key (wrong passphrase, or not a "
		    "PEM key)", o->key);
		ERR_clear_error();
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct init_options o = { 0 };
	struct user_creds creds = { 0 };
	char err[1024], until[64];
	STACK_OF(X509) *chain = sk_X509_new_null();
	EVP_PKEY *user_key = NULL, *key = NULL;
	X509 *proxy = NULL;
	int rc = 1;

	if (parse_options(argc, argv, &o) != 0) {
		usage(stderr);
		return 2;
	}
	time_t now = time(NULL);
	if (chain == NULL || user_creds_check_file(o.cert, now, &creds, err, sizeof(err)) != 0 ||
	    read_credentials(&o, chain, &user_key, err, sizeof(err)) != 0)
		goto out;
	struct proxy_request r = { sk_X509_value(chain, 0), user_key, o.bits, o.seconds, now };
	if (proxy_make(&r, &proxy, &key, err, sizeof(err)) != 0 ||
	    proxy_write(o.out, proxy, key, chain, err, sizeof(err)) != 0)
		goto out;
	struct tm tm;
	if (ASN1_TIME_to_tm(X509_get0_notAfter(proxy), &tm) != 1 ||
	    strftime(until, sizeof(until), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		snprintf(until, sizeof(until), "?");
	if (!o.quiet)
		printf("Your identity: %s\nProxy written to %s (%d bits), valid until %s\n",
		    creds.dn, o.out, o.bits, until);
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "qcg-proxy-init: %s\n", err);
	X509_free(proxy);
	EVP_PKEY_free(key);
	EVP_PKEY_free(user_key);
	sk_X509_pop_free(chain, X509_free);
	return rc;
}
