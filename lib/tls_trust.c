/*
 * tls_trust.c: the reloading grid CA directory and the grid checks of a verified chain (see
 * tls_trust.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "log.h"
#include "model.h"
#include "signing_policy.h"
#include "tls.h"
#include "tls_trust.h"

#define TLS_TRUST_DIRS_MAX 4 /* CA directories one process uses (normally one) */

/* One CA's signing policy, by the subject hash that names its file. */
struct trust_policy {
	unsigned long hash;
	struct signing_policy policy;
};

/* What the directory held when it was read; shared by the handshakes that use it. */
struct trust_snapshot {
	int refs;                      /* handshakes using it, plus one while it is current */
	STACK_OF(X509) *cas;           /* <hash>.N */
	STACK_OF(X509_CRL) *crls;      /* <hash>.rN */
	struct trust_policy *policies; /* <hash>.signing_policy */
	size_t npolicies;
};

struct tls_trust {
	char dir[PATH_MAX];
	pthread_mutex_t lock;            /* guards current, fingerprint, checked */
	struct trust_snapshot *current;
	uint64_t fingerprint;            /* of the names, sizes and mtimes current was read from */
	struct timespec checked;         /* when the directory was last compared */
};

static pthread_mutex_t trusts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tls_trust *trusts[TLS_TRUST_DIRS_MAX];
static int refusal_index = -1; /* SSL ex_data: the reason string of a refusal made here */

static void
refusal_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
	(void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
	free(ptr);
}

/* The kinds of files of a CApath: "<8 hex>.<digits>", "<8 hex>.r<digits>",
 * "<8 hex>.signing_policy". */
enum trust_file { TRUST_OTHER, TRUST_CA, TRUST_CRL, TRUST_POLICY };

static enum trust_file
trust_file_kind(const char *name, unsigned long *hash)
{
	char *end;
	if (strlen(name) < 10 || name[8] != '.')
		return TRUST_OTHER;
	for (int i = 0; i < 8; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return TRUST_OTHER;
	*hash = strtoul(name, &end, 16);
	const char *ext = name + 9;
	if (strcmp(ext, "signing_policy") == 0)
		return TRUST_POLICY;
	enum trust_file kind = TRUST_CA;
	if (*ext == 'r') {
		kind = TRUST_CRL;
		ext++;
	}
	if (*ext == '\0' || strspn(ext, "0123456789") != strlen(ext))
		return TRUST_OTHER;
	return kind;
}

/* FNV-1a over the bytes of one value, folded into h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* A fingerprint of the trust files' names, sizes and mtimes, independent of readdir order. */
static int
trust_fingerprint(const char *dir, uint64_t *out)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	uint64_t sum = 0;
	struct dirent *e;
	char path[PATH_MAX];
	unsigned long hash;
	int seen = 0;
	while ((e = readdir(d)) != NULL && seen++ < TLS_TRUST_FILES_MAX) {
		struct stat st;
		if (trust_file_kind(e->d_name, &hash) == TRUST_OTHER)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		uint64_t h = fnv(14695981039346656037ULL, e->d_name, strlen(e->d_name));
		h = fnv(h, &st.st_size, sizeof(st.st_size));
		h = fnv(h, &st.st_mtim, sizeof(st.st_mtim));
		h = fnv(h, &st.st_ino, sizeof(st.st_ino));
		sum += h;
	}
	closedir(d);
	*out = sum;
	return 0;
}

static void
snapshot_release(struct trust_snapshot *s)
{
	if (s == NULL || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	sk_X509_pop_free(s->cas, X509_free);
	sk_X509_CRL_pop_free(s->crls, X509_CRL_free);
	free(s->policies);
	free(s);
}

/* Read every certificate (or CRL) of one PEM file into the snapshot. */
static int
snapshot_add_pem(struct trust_snapshot *s, const char *path, enum trust_file kind)
{
	struct stat st;
	if (stat(path, &st) != 0 || st.st_size > TLS_TRUST_FILE_MAX)
		return -1;
	BIO *bio = BIO_new_file(path, "r");
	if (bio == NULL)
		return -1;
	int n = 0;
	for (;;) {
		if (kind == TRUST_CA) {
			X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
			if (x == NULL || !sk_X509_push(s->cas, x)) {
				X509_free(x);
				break;
			}
		} else {
			X509_CRL *c = PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL);
			if (c == NULL || !sk_X509_CRL_push(s->crls, c)) {
				X509_CRL_free(c);
				break;
			}
		}
		n++;
	}
	ERR_clear_error(); /* the end of the file reads as a "no start line" error */
	BIO_free(bio);
	return n > 0 ? 0 : -1;
}

static int
snapshot_add_policy(struct trust_snapshot *s, const char *path, unsigned long hash)
{
	char err[512];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char *text = malloc(SIGNING_POLICY_FILE_MAX + 1);
	size_t n = text ? fread(text, 1, SIGNING_POLICY_FILE_MAX + 1, f) : 0;
	fclose(f);
	struct trust_policy *grown = realloc(s->policies, (s->npolicies + 1) * sizeof(*grown));
	if (text == NULL || grown == NULL || n > SIGNING_POLICY_FILE_MAX) {
		free(text);
		if (grown)
			s->policies = grown;
		log_error("%s: unreadable or larger than %d bytes: its CA may sign nothing", path,
		    SIGNING_POLICY_FILE_MAX);
		return -1;
	}
	s->policies = grown;
	text[n] = '\0';
	struct trust_policy *p = &s->policies[s->npolicies];
	if (signing_policy_parse(&p->policy, text, path, err, sizeof(err)) != 0) {
		log_error("%s: its CA may sign nothing", err);
		free(text);
		return -1;
	}
	free(text);
	p->hash = hash;
	s->npolicies++;
	return 0;
}

/* Read the directory into a new snapshot (reference count 1). NULL with err on failure. */
static struct trust_snapshot *
snapshot_load(const char *dir, char *err, size_t errlen)
{
	struct trust_snapshot *s = calloc(1, sizeof(*s));
	DIR *d = opendir(dir);
	if (s == NULL || d == NULL || (s->cas = sk_X509_new_null()) == NULL ||
	    (s->crls = sk_X509_CRL_new_null()) == NULL) {
		snprintf(err, errlen, "CA directory %s: %s", dir, d ? "out of memory" : strerror(errno));
		if (d)
			closedir(d);
		if (s) {
			s->refs = 1;
			snapshot_release(s);
		}
		return NULL;
	}
	s->refs = 1;
	struct dirent *e;
	char path[PATH_MAX];
	unsigned long hash;
	int seen = 0;
	while ((e = readdir(d)) != NULL && seen++ < TLS_TRUST_FILES_MAX) {
		enum trust_file kind = trust_file_kind(e->d_name, &hash);
		if (kind == TRUST_OTHER)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		int rc = kind == TRUST_POLICY ? snapshot_add_policy(s, path, hash) :
		    snapshot_add_pem(s, path, kind);
		if (rc != 0 && kind != TRUST_POLICY)
			log_warn("CA directory %s: %s holds no PEM %s; skipped", dir, e->d_name,
			    kind == TRUST_CA ? "certificate" : "CRL");
	}
	closedir(d);
	if (sk_X509_num(s->cas) == 0) {
		snprintf(err, errlen, "CA directory %s holds no CA certificate (<hash>.0)", dir);
		snapshot_release(s);
		return NULL;
	}
	return s;
}

/* Replace t's snapshot by a fresh read of its directory; t->lock held. */
static void
trust_reload_locked(struct tls_trust *t, uint64_t fingerprint, const char *why)
{
	char err[512];
	struct trust_snapshot *s = snapshot_load(t->dir, err, sizeof(err));
	if (s == NULL) {
		log_error("%s; keeping the CAs and CRLs read before", err);
		return; /* the fingerprint stays old, so the next check tries again */
	}
	snapshot_release(t->current);
	t->current = s;
	t->fingerprint = fingerprint;
	log_info("CA directory %s %s: %d CA certificates, %d CRLs, %zu signing policies", t->dir,
	    why, sk_X509_num(s->cas), sk_X509_CRL_num(s->crls), s->npolicies);
}

/* The current snapshot, with a reference the caller releases; rescans when it is stale. */
static struct trust_snapshot *
trust_acquire(struct tls_trust *t)
{
	struct timespec now;
	uint64_t fp;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&t->lock);
	if (now.tv_sec - t->checked.tv_sec >= TLS_TRUST_CHECK_SECONDS) {
		t->checked = now;
		if (trust_fingerprint(t->dir, &fp) == 0 && fp != t->fingerprint)
			trust_reload_locked(t, fp, "changed, re-read");
	}
	struct trust_snapshot *s = t->current;
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&t->lock);
	return s;
}

/* A new trust for dir, loaded; NULL with err. */
static struct tls_trust *
trust_new(const char *dir, char *err, size_t errlen)
{
	struct tls_trust *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (strlen(dir) >= sizeof(t->dir)) {
		snprintf(err, errlen, "CA directory path too long");
		free(t);
		return NULL;
	}
	strcpy(t->dir, dir);
	if (trust_fingerprint(dir, &t->fingerprint) != 0) {
		snprintf(err, errlen, "CA directory %s: %s", dir, strerror(errno));
		free(t);
		return NULL;
	}
	if ((t->current = snapshot_load(dir, err, errlen)) == NULL) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t->checked);
	/* debug: command-line clients load it too, and print info lines on stderr */
	log_debug("CA directory %s: %d CA certificates, %d CRLs, %zu signing policies", dir,
	    sk_X509_num(t->current->cas), sk_X509_CRL_num(t->current->crls),
	    t->current->npolicies);
	return t;
}

struct tls_trust *
tls_trust_of_dir(const char *ca_dir, char *err, size_t errlen)
{
	struct tls_trust *t = NULL;
	int i;

	pthread_mutex_lock(&trusts_lock);
	if (refusal_index < 0)
		refusal_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, refusal_free);
	for (i = 0; i < TLS_TRUST_DIRS_MAX && trusts[i] != NULL && t == NULL; i++)
		if (strcmp(trusts[i]->dir, ca_dir) == 0)
			t = trusts[i];
	if (t == NULL && i == TLS_TRUST_DIRS_MAX)
		snprintf(err, errlen, "more than %d CA directories in one process",
		    TLS_TRUST_DIRS_MAX);
	else if (t == NULL && (t = trust_new(ca_dir, err, errlen)) != NULL)
		trusts[i] = t; /* kept for the life of the process, as the contexts that use it */
	pthread_mutex_unlock(&trusts_lock);
	return t;
}

void
tls_trust_reload_all(void)
{
	pthread_mutex_lock(&trusts_lock);
	for (int i = 0; i < TLS_TRUST_DIRS_MAX && trusts[i] != NULL; i++) {
		struct tls_trust *t = trusts[i];
		uint64_t fp = 0;
		pthread_mutex_lock(&t->lock);
		trust_fingerprint(t->dir, &fp);
		clock_gettime(CLOCK_MONOTONIC, &t->checked);
		trust_reload_locked(t, fp, "re-read on request");
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&trusts_lock);
}

const char *
tls_trust_refusal(const SSL *ssl)
{
	return refusal_index < 0 ? NULL : SSL_get_ex_data(ssl, refusal_index);
}

static const struct signing_policy *
snapshot_policy(const struct trust_snapshot *s, X509 *ca)
{
	unsigned long hash = X509_NAME_hash_ex(X509_get_subject_name(ca), NULL, NULL, NULL);
	for (size_t i = 0; i < s->npolicies; i++)
		if (s->policies[i].hash == hash)
			return &s->policies[i].policy;
	return NULL;
}

/* Every certificate below the trust anchor that is not a proxy must be a subject the anchor's
 * signing policy allows. 0, or -1 with the reason. */
static int
check_signing_policy(const struct trust_snapshot *s, STACK_OF(X509) *chain, char *why,
    size_t whylen)
{
	int n = sk_X509_num(chain);
	X509 *anchor = sk_X509_value(chain, n - 1);
	char ca_dn[QCG_DN_MAX], dn[QCG_DN_MAX], err[128];
	const struct signing_policy *policy = snapshot_policy(s, anchor);

	if (tls_name_to_dn(X509_get_subject_name(anchor), ca_dn, sizeof(ca_dn), err,
		sizeof(err)) != 0)
		snprintf(ca_dn, sizeof(ca_dn), "(%s)", err);
	for (int i = n - 2; i >= 0; i--) {
		X509 *cert = sk_X509_value(chain, i);
		if (X509_get_extension_flags(cert) & EXFLAG_PROXY)
			continue;
		if (policy == NULL) {
			snprintf(why, whylen, "CA %s has no signing policy in the CA directory",
			    ca_dn);
			return -1;
		}
		if (tls_name_to_dn(X509_get_subject_name(cert), dn, sizeof(dn), err,
			sizeof(err)) != 0) {
			snprintf(why, whylen, "certificate subject: %s", err);
			return -1;
		}
		if (!signing_policy_allows(policy, dn)) {
			snprintf(why, whylen, "CA %s may not sign %s (its signing_policy)", ca_dn, dn);
			return -1;
		}
	}
	return 0;
}

/* Record why the grid checks refused the chain and let the verify callback decide, as for any
 * other verification failure (a server completes the handshake to answer with the reason). */
static int
refuse_chain(X509_STORE_CTX *xs, const char *why)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(xs, SSL_get_ex_data_X509_STORE_CTX_idx());
	if (ssl != NULL && refusal_index >= 0) {
		free(SSL_get_ex_data(ssl, refusal_index));
		SSL_set_ex_data(ssl, refusal_index, strdup(why));
	}
	log_warn("certificate refused: %s", why);
	X509_STORE_CTX_set_error(xs, X509_V_ERR_APPLICATION_VERIFICATION);
	X509_STORE_CTX_verify_cb cb = X509_STORE_CTX_get_verify_cb(xs);
	return cb ? cb(0, xs) : 0;
}

/* SSL_CTX cert_verify_callback: OpenSSL's verification against the current snapshot, then the
 * grid's own checks. */
static int
trust_verify(X509_STORE_CTX *xs, void *arg)
{
	struct trust_snapshot *s = trust_acquire(arg);
	char why[QCG_DN_MAX * 2 + 128], dn[QCG_DN_MAX];
	bool limited;

	X509_STORE_CTX_set0_trusted_stack(xs, s->cas);
	X509_STORE_CTX_set0_crls(xs, s->crls);
	int ok = X509_verify_cert(xs);
	if (ok > 0 && X509_STORE_CTX_get_error(xs) == X509_V_OK) {
		STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(xs);
		if (check_signing_policy(s, chain, why, sizeof(why)) != 0 ||
		    tls_chain_proxy_policy(chain, &limited, why, sizeof(why)) != 0 ||
		    tls_chain_end_entity_dn(chain, dn, sizeof(dn), why, sizeof(why)) != 0)
			ok = refuse_chain(xs, why);
	}
	/* The context must not point at the snapshot once it is released. */
	X509_STORE_CTX_set0_trusted_stack(xs, NULL);
	X509_STORE_CTX_set0_crls(xs, NULL);
	snapshot_release(s);
	return ok;
}

void
tls_trust_attach(SSL_CTX *ctx, struct tls_trust *t)
{
	SSL_CTX_set_cert_verify_callback(ctx, trust_verify, t);
}
