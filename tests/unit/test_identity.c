/*
 * test_identity.c: a peer's identity (lib/tls): the DN of the end-entity certificate of a
 * verified chain, never a proxy's, in the Globus one-line form the grid-mapfile uses; and where
 * a user's credentials are found. Driven by test_identity.sh, which makes a fresh CA, a user
 * certificate, a proxy, a proxy of that proxy and a host certificate with deploy/qcg-ca.
 *
 * Usage: test_identity CA_DIR CA_CERT USER_CERT PROXY PROXY2 HOST_CERT WORK_DIR
 * (CA_DIR is the hash-named trust store; WORK_DIR an empty scratch directory.)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "check.h"
#include "config_file.h"
#include "model.h"
#include "tls.h"


#define JANE "/O=Grid/OU=qcg-ompi/CN=Jane Doe"
#define GW_A "/O=Grid/OU=qcg-ompi/CN=host/gw-a"

static const char *ca_dir, *ca_cert, *user_cert, *proxy1, *proxy2, *host_cert, *work_dir;
static char err[512];

#define VERIFY_FLAGS_GRID                                                                          \
	(X509_V_FLAG_ALLOW_PROXY_CERTS | X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL)

/* Every certificate of a PEM file, in file order (leaf first); other PEM blocks are skipped. */
static STACK_OF(X509) *
read_certs(const char *path)
{
	STACK_OF(X509) *certs = sk_X509_new_null();
	BIO *in = BIO_new_file(path, "r");
	X509 *cert;

	if (certs == NULL || in == NULL) {
		fprintf(stderr, "test_identity: cannot read %s\n", path);
		exit(99);
	}
	while ((cert = PEM_read_bio_X509(in, NULL, NULL, NULL)) != NULL)
		sk_X509_push(certs, cert);
	ERR_clear_error(); /* the end of the file reads as a "no start line" error */
	BIO_free(in);
	if (sk_X509_num(certs) == 0) {
		fprintf(stderr, "test_identity: no certificate in %s\n", path);
		exit(99);
	}
	return certs;
}

/*
 * Verify the credential file at path against the CA directory with the given flags, then take
 * the end-entity DN of the verified chain into dn. Returns the X509_V_* result of verification
 * (X509_V_OK on success), and *dn_rc the result of tls_chain_end_entity_dn (-2 when not called).
 */
static int
verify_and_identify(const char *path, unsigned long flags, char *dn, size_t dnlen, int *dn_rc)
{
	STACK_OF(X509) *certs = read_certs(path);
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	X509_LOOKUP *lookup = store ? X509_STORE_add_lookup(store, X509_LOOKUP_hash_dir()) : NULL;

	if (ctx == NULL || lookup == NULL ||
	    X509_LOOKUP_add_dir(lookup, ca_dir, X509_FILETYPE_PEM) != 1 ||
	    X509_STORE_CTX_init(ctx, store, sk_X509_value(certs, 0), certs) != 1) {
		fprintf(stderr, "test_identity: cannot set up verification of %s\n", path);
		exit(99);
	}
	X509_STORE_CTX_set_flags(ctx, flags);
	int result = X509_verify_cert(ctx) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
	*dn_rc = -2;
	dn[0] = '\0';
	if (result == X509_V_OK)
		*dn_rc = tls_chain_end_entity_dn(X509_STORE_CTX_get0_chain(ctx), dn, dnlen, err,
		    sizeof(err));
	else
		fprintf(stderr, "  (%s: %s)\n", path, X509_verify_cert_error_string(result));
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	sk_X509_pop_free(certs, X509_free);
	return result;
}

/* The grid verification of path succeeds and the identity is want_dn. */
static void
expect_identity(const char *path, int want_chain_len, const char *want_dn)
{
	char dn[QCG_DN_MAX];
	int dn_rc;
	STACK_OF(X509) *certs = read_certs(path);

	CHECK_INT_EQ(sk_X509_num(certs), want_chain_len);
	sk_X509_pop_free(certs, X509_free);
	CHECK_INT_EQ(verify_and_identify(path, VERIFY_FLAGS_GRID, dn, sizeof(dn), &dn_rc), X509_V_OK);
	CHECK_INT_EQ(dn_rc, 0);
	CHECK_STR_EQ(dn, want_dn);
}

static void
end_entity_certificate_identity_is_its_dn(void)
{
	expect_identity(user_cert, 1, JANE);
}

static void
proxy_identity_is_the_end_entity_dn_not_the_proxy_dn(void)
{
	expect_identity(proxy1, 2, JANE);
}

static void
proxy_of_proxy_identity_is_the_end_entity_dn(void)
{
	expect_identity(proxy2, 3, JANE);
}

static void
host_certificate_identity_is_globus_form_with_unescaped_slash(void)
{
	expect_identity(host_cert, 1, GW_A);
}

static void
chain_of_only_the_ca_certificate_has_no_identity(void)
{
	char dn[QCG_DN_MAX];
	int dn_rc;
	CHECK_INT_EQ(verify_and_identify(ca_cert, VERIFY_FLAGS_GRID, dn, sizeof(dn), &dn_rc),
	    X509_V_OK);
	CHECK_INT_EQ(dn_rc, -1);
	CHECK(strstr(err, "end-entity") != NULL);
}

static void
proxy_fails_verification_without_the_proxy_flag(void)
{
	char dn[QCG_DN_MAX];
	int dn_rc;
	unsigned long no_proxy = X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL;

	/* The control: the same flags accept the plain end-entity certificate. */
	CHECK_INT_EQ(verify_and_identify(user_cert, no_proxy, dn, sizeof(dn), &dn_rc), X509_V_OK);
	CHECK_INT_EQ(verify_and_identify(proxy1, no_proxy, dn, sizeof(dn), &dn_rc),
	    X509_V_ERR_PROXY_CERTIFICATES_NOT_ALLOWED);
	CHECK_INT_EQ(dn_rc, -2);
	CHECK_INT_EQ(verify_and_identify(proxy2, no_proxy, dn, sizeof(dn), &dn_rc),
	    X509_V_ERR_PROXY_CERTIFICATES_NOT_ALLOWED);
}

static void
unverified_chain_of_proxies_only_has_no_identity(void)
{
	/* The leaf proxy and its signing proxy, without the user certificate below them. */
	STACK_OF(X509) *certs = read_certs(proxy2);
	X509_free(sk_X509_pop(certs));
	char dn[QCG_DN_MAX] = "";
	CHECK_INT_EQ(sk_X509_num(certs), 2);
	CHECK_INT_EQ(tls_chain_end_entity_dn(certs, dn, sizeof(dn), err, sizeof(err)), -1);
	CHECK(strstr(err, "no end-entity") != NULL);
	sk_X509_pop_free(certs, X509_free);

	STACK_OF(X509) *empty = sk_X509_new_null();
	CHECK_INT_EQ(tls_chain_end_entity_dn(empty, dn, sizeof(dn), err, sizeof(err)), -1);
	sk_X509_free(empty);
	CHECK_INT_EQ(tls_chain_end_entity_dn(NULL, dn, sizeof(dn), err, sizeof(err)), -1);
}

static void
identity_too_long_for_the_buffer_is_an_error(void)
{
	STACK_OF(X509) *certs = read_certs(user_cert);
	char dn[sizeof(JANE)]; /* exactly fits */
	CHECK_INT_EQ(tls_chain_end_entity_dn(certs, dn, sizeof(dn), err, sizeof(err)), 0);
	CHECK_STR_EQ(dn, JANE);
	CHECK_INT_EQ(tls_chain_end_entity_dn(certs, dn, sizeof(dn) - 1, err, sizeof(err)), -1);
	CHECK(strstr(err, "longer") != NULL);
	sk_X509_pop_free(certs, X509_free);
}

/* A name built in memory: (field, bytes, len) triples, UTF-8 strings. */
static X509_NAME *
make_name(const char *field, const char *value, int len)
{
	X509_NAME *name = X509_NAME_new();
	if (name == NULL || X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
				(const unsigned char *)"Grid", -1, -1, 0) != 1 ||
	    X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, (const unsigned char *)value,
		len, -1, 0) != 1) {
		fprintf(stderr, "test_identity: cannot build a name\n");
		exit(99);
	}
	return name;
}

/* UTF-8 and '/' stay as they are (Globus host DNs are "CN=host/gw-a"); '=' and '\\' in a value
 * are escaped, so a value cannot forge RDNs (issue 17). */
static void
name_to_dn_keeps_utf8_and_slash_and_escapes_equals_and_backslash(void)
{
	char dn[QCG_DN_MAX];
	X509_NAME *name = make_name("CN", "Zo\xc3\xab O'Brien, Jr.=x+y/z\\w", -1);
	CHECK_INT_EQ(tls_name_to_dn(name, dn, sizeof(dn), err, sizeof(err)), 0);
	CHECK_STR_EQ(dn, "/O=Grid/CN=Zo\xc3\xab O'Brien, Jr.\\=x+y/z\\\\w");
	X509_NAME_free(name);

	name = X509_NAME_new();
	CHECK_INT_EQ(tls_name_to_dn(name, dn, sizeof(dn), err, sizeof(err)), -1);
	CHECK(strstr(err, "empty") != NULL);
	X509_NAME_free(name);
}

/* Issue 17: O="Grid/OU=qcg-ompi" then CN="Grid Admin" must not read as the admin's DN. */
static void
name_with_forged_rdns_differs_from_the_real_dn(void)
{
	char dn[QCG_DN_MAX];
	X509_NAME *name = X509_NAME_new();
	X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
	    (const unsigned char *)"Grid/OU=qcg-ompi", -1, -1, 0);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)"Grid Admin",
	    -1, -1, 0);
	CHECK_INT_EQ(tls_name_to_dn(name, dn, sizeof(dn), err, sizeof(err)), 0);
	CHECK_STR_EQ(dn, "/O=Grid/OU\\=qcg-ompi/CN=Grid Admin");
	X509_NAME_free(name);
}

/* A newline or other control character in a DN would forge log and file lines: no identity. */
static void
name_with_control_character_is_rejected(void)
{
	char dn[QCG_DN_MAX];
	X509_NAME *name = make_name("CN", "Jane\nDoe", -1);
	CHECK_INT_EQ(tls_name_to_dn(name, dn, sizeof(dn), err, sizeof(err)), -1);
	CHECK(strstr(err, "control character") != NULL);
	X509_NAME_free(name);
}

/* Known bug: a NUL byte inside a name entry truncates the DN instead of failing, so
 * "CN=Jane Doe\0evil" would be taken for "CN=Jane Doe" (the classic null-prefix attack). */
static void
name_with_nul_byte_is_rejected(void)
{
	char dn[QCG_DN_MAX] = "";
	X509_NAME *name = make_name("CN", "Jane Doe\0/CN=evil", 17);
	CHECK_INT_EQ(tls_name_to_dn(name, dn, sizeof(dn), err, sizeof(err)), -1);
	if (dn[0] != '\0')
		fprintf(stderr, "  got dn '%s'\n", dn);
	X509_NAME_free(name);
}

static void
settings_from_config_read_cert_key_ca_dir_and_crl(void)
{
	static struct config cfg; /* large: static */
	struct tls_settings s;

	config_init(&cfg);
	CHECK_INT_EQ(config_apply_override(&cfg, "svc.cert=/x/proxy.pem", err, sizeof(err)), 0);
	CHECK_INT_EQ(config_apply_override(&cfg, "svc.ca_dir=/x/ca", err, sizeof(err)), 0);
	CHECK_INT_EQ(tls_settings_from_config(&cfg, "svc", &s, false, err, sizeof(err)), 0);
	CHECK_STR_EQ(s.cert_file, "/x/proxy.pem");
	CHECK_STR_EQ(s.key_file, "/x/proxy.pem"); /* key defaults to the cert file */
	CHECK_STR_EQ(s.ca_dir, "/x/ca");
	CHECK(s.crl_required == true);
	CHECK_INT_EQ(config_apply_override(&cfg, "svc.key=/x/key.pem", err, sizeof(err)), 0);
	CHECK_INT_EQ(config_apply_override(&cfg, "svc.crl_required=no", err, sizeof(err)), 0);
	CHECK_INT_EQ(tls_settings_from_config(&cfg, "svc", &s, false, err, sizeof(err)), 0);
	CHECK_STR_EQ(s.key_file, "/x/key.pem");
	CHECK(s.crl_required == false);
	CHECK_INT_EQ(config_apply_override(&cfg, "svc.crl_required=perhaps", err, sizeof(err)), 0);
	CHECK_INT_EQ(tls_settings_from_config(&cfg, "svc", &s, false, err, sizeof(err)), -1);
	CHECK(strstr(err, "svc.crl_required") != NULL);

	config_init(&cfg);
	CHECK_INT_EQ(tls_settings_from_config(&cfg, "svc", &s, false, err, sizeof(err)), -1);
	CHECK(strstr(err, "[svc]") != NULL);
	CHECK_INT_EQ(tls_settings_from_config(&cfg, "svc", &s, true, err, sizeof(err)), 0);
	CHECK_STR_EQ(s.ca_dir, "/etc/grid-security/certificates");
	CHECK_STR_EQ(s.cert_file, "");
}

/* ---- where a user's credentials are found ---- */

static char home[300], globus_cert[340], globus_key[340], user_proxy[340], tmp_proxy[64];

static void
touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || close(fd) != 0) {
		fprintf(stderr, "test_identity: cannot create %s: %s\n", path, strerror(errno));
		exit(99);
	}
}

/* A scratch HOME with ~/.globus/usercert.pem and userkey.pem, and a proxy file elsewhere. */
static void
make_credential_files(void)
{
	char dir[320];
	if (strlen(work_dir) > 200) {
		fprintf(stderr, "test_identity: WORK_DIR path longer than 200 bytes\n");
		exit(99);
	}
	snprintf(home, sizeof(home), "%s/home", work_dir);
	snprintf(dir, sizeof(dir), "%s/.globus", home);
	if (mkdir(home, 0700) != 0 || mkdir(dir, 0700) != 0) {
		fprintf(stderr, "test_identity: cannot make %s: %s\n", dir, strerror(errno));
		exit(99);
	}
	snprintf(globus_cert, sizeof(globus_cert), "%s/usercert.pem", dir);
	snprintf(globus_key, sizeof(globus_key), "%s/userkey.pem", dir);
	snprintf(user_proxy, sizeof(user_proxy), "%s/x509up_env", work_dir);
	touch(globus_cert);
	touch(globus_key);
	touch(user_proxy);
	snprintf(tmp_proxy, sizeof(tmp_proxy), "/tmp/x509up_u%u", (unsigned)getuid());
	setenv("HOME", home, 1);
	unsetenv("X509_USER_PROXY");
	unsetenv("X509_USER_CERT");
	unsetenv("X509_USER_KEY");
	unsetenv("X509_CERT_DIR");
}

static int
find_credentials(struct tls_settings *s)
{
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return tls_find_user_credentials(s, err, sizeof(err));
}

/*
 * Create /tmp/x509up_u<uid> only when it does not exist (O_EXCL), call fn, and remove it
 * again at once: other programs on this machine may look for it. Returns false (and the
 * caller skips) when the file already exists: it belongs to someone and is left alone.
 */
static bool
with_own_tmp_proxy(void (*fn)(void))
{
	int fd = open(tmp_proxy, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return false;
	close(fd);
	fn();
	unlink(tmp_proxy);
	return true;
}

static void
check_x509_user_proxy_wins(void)
{
	struct tls_settings s;
	setenv("X509_USER_PROXY", user_proxy, 1);
	CHECK_INT_EQ(find_credentials(&s), 0);
	CHECK_STR_EQ(s.cert_file, user_proxy);
	CHECK_STR_EQ(s.key_file, user_proxy);
	unsetenv("X509_USER_PROXY");
}

static void
credentials_x509_user_proxy_beats_tmp_proxy_and_globus(void)
{
	if (!with_own_tmp_proxy(check_x509_user_proxy_wins)) {
		printf("  (%s exists and is not ours: checked against ~/.globus only)\n", tmp_proxy);
		check_x509_user_proxy_wins();
	}
}

static void
credentials_unreadable_x509_user_proxy_is_an_error_not_a_fallback(void)
{
	struct tls_settings s;
	char missing[340];
	snprintf(missing, sizeof(missing), "%s/no-such-proxy", work_dir);
	setenv("X509_USER_PROXY", missing, 1);
	CHECK_INT_EQ(find_credentials(&s), -1);
	CHECK(strstr(err, "X509_USER_PROXY") != NULL);
	CHECK(strstr(err, missing) != NULL);
	CHECK_STR_EQ(s.cert_file, "");
	unsetenv("X509_USER_PROXY");
}

static void
check_tmp_proxy_wins(void)
{
	struct tls_settings s;
	CHECK_INT_EQ(find_credentials(&s), 0);
	CHECK_STR_EQ(s.cert_file, tmp_proxy);
	CHECK_STR_EQ(s.key_file, tmp_proxy);
}

static bool tmp_proxy_is_foreign; /* /tmp/x509up_u<uid> exists and is not ours */

static void
credentials_tmp_proxy_beats_globus(void)
{
	if (!with_own_tmp_proxy(check_tmp_proxy_wins)) {
		tmp_proxy_is_foreign = true;
		printf("  (skipped: %s exists and is not ours)\n", tmp_proxy);
	}
}

static void
credentials_globus_directory_is_the_last_resort(void)
{
	struct tls_settings s;
	if (tmp_proxy_is_foreign) {
		printf("  (skipped: %s exists and would win)\n", tmp_proxy);
		return;
	}
	CHECK_INT_EQ(find_credentials(&s), 0);
	CHECK_STR_EQ(s.cert_file, globus_cert);
	CHECK_STR_EQ(s.key_file, globus_key);

	setenv("X509_USER_CERT", user_proxy, 1); /* any readable file */
	setenv("X509_USER_KEY", "/elsewhere/key.pem", 1);
	CHECK_INT_EQ(find_credentials(&s), 0);
	CHECK_STR_EQ(s.cert_file, user_proxy);
	CHECK_STR_EQ(s.key_file, "/elsewhere/key.pem");
	unsetenv("X509_USER_CERT");
	unsetenv("X509_USER_KEY");

	unlink(globus_cert);
	CHECK_INT_EQ(find_credentials(&s), -1);
	CHECK(strstr(err, "no credentials") != NULL);
	touch(globus_cert);
}

static void
credentials_ca_dir_from_environment_and_preset_fields_are_kept(void)
{
	struct tls_settings s;
	CHECK_INT_EQ(find_credentials(&s), 0);
	CHECK_STR_EQ(s.ca_dir, "/etc/grid-security/certificates");
	setenv("X509_CERT_DIR", ca_dir, 1);
	CHECK_INT_EQ(find_credentials(&s), 0);
	CHECK_STR_EQ(s.ca_dir, ca_dir);
	unsetenv("X509_CERT_DIR");

	/* Set by configuration: neither the environment nor the search replaces them. */
	memset(&s, 0, sizeof(s));
	snprintf(s.cert_file, sizeof(s.cert_file), "/configured/cert.pem");
	snprintf(s.key_file, sizeof(s.key_file), "/configured/key.pem");
	snprintf(s.ca_dir, sizeof(s.ca_dir), "/configured/ca");
	setenv("X509_USER_PROXY", user_proxy, 1);
	setenv("X509_CERT_DIR", ca_dir, 1);
	CHECK_INT_EQ(tls_find_user_credentials(&s, err, sizeof(err)), 0);
	CHECK_STR_EQ(s.cert_file, "/configured/cert.pem");
	CHECK_STR_EQ(s.key_file, "/configured/key.pem");
	CHECK_STR_EQ(s.ca_dir, "/configured/ca");
	unsetenv("X509_USER_PROXY");
	unsetenv("X509_CERT_DIR");
}

int
main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: %s CA_DIR CA_CERT USER_CERT PROXY PROXY2 HOST_CERT WORK_DIR\n"
				"(run by test_identity.sh, which makes these with deploy/qcg-ca)\n",
		    argv[0]);
		return 99;
	}
	ca_dir = argv[1], ca_cert = argv[2], user_cert = argv[3], proxy1 = argv[4];
	proxy2 = argv[5], host_cert = argv[6], work_dir = argv[7];

	RUN(end_entity_certificate_identity_is_its_dn);
	RUN(proxy_identity_is_the_end_entity_dn_not_the_proxy_dn);
	RUN(proxy_of_proxy_identity_is_the_end_entity_dn);
	RUN(host_certificate_identity_is_globus_form_with_unescaped_slash);
	RUN(chain_of_only_the_ca_certificate_has_no_identity);
	RUN(proxy_fails_verification_without_the_proxy_flag);
	RUN(unverified_chain_of_proxies_only_has_no_identity);
	RUN(identity_too_long_for_the_buffer_is_an_error);
	RUN(name_to_dn_keeps_utf8_and_slash_and_escapes_equals_and_backslash);
	RUN(name_with_forged_rdns_differs_from_the_real_dn);
	RUN(name_with_control_character_is_rejected);
	RUN(name_with_nul_byte_is_rejected);
	RUN(settings_from_config_read_cert_key_ca_dir_and_crl);
	make_credential_files();
	RUN(credentials_x509_user_proxy_beats_tmp_proxy_and_globus);
	RUN(credentials_unreadable_x509_user_proxy_is_an_error_not_a_fallback);
	RUN(credentials_tmp_proxy_beats_globus);
	RUN(credentials_globus_directory_is_the_last_resort);
	RUN(credentials_ca_dir_from_environment_and_preset_fields_are_kept);
	return check_exit();
}
