/*
 * tls_identity.c: the parts of lib/tls.h that need OpenSSL but no TLS connection: where
 * credentials and trust come from, and who a verified chain names. Kept apart from tls.c so
 * that tools and tests can use them without gSOAP.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/x509v3.h>

#include "config_file.h"
#include "tls.h"

#define TLS_DEFAULT_CA_DIR "/etc/grid-security/certificates"

/* Copy a path from the environment (configuration values go through config_copy). */
static int
copy_path(char *dst, const char *src, const char *what, char *err, size_t errlen)
{
	if (strlen(src) >= PATH_MAX) {
		snprintf(err, errlen, "%s path too long", what);
		return -1;
	}
	strcpy(dst, src);
	return 0;
}

int
tls_settings_from_config(const struct config *cfg, const char *section, struct tls_settings *out,
    bool allow_missing_cert, char *err, size_t errlen)
{
	char key[CONFIG_KEY_MAX];

	memset(out, 0, sizeof(*out));
	snprintf(key, sizeof(key), "%s.cert", section);
	if (config_copy(cfg, key, NULL, out->cert_file, sizeof(out->cert_file), err, errlen) < 0)
		return -1;
	snprintf(key, sizeof(key), "%s.key", section);
	if (config_copy(cfg, key, out->cert_file[0] ? out->cert_file : NULL, out->key_file,
	    sizeof(out->key_file), err, errlen) < 0)
		return -1;
	snprintf(key, sizeof(key), "%s.ca_dir", section);
	if (config_copy(cfg, key, TLS_DEFAULT_CA_DIR, out->ca_dir, sizeof(out->ca_dir), err,
	    errlen) < 0)
		return -1;
	snprintf(key, sizeof(key), "%s.crl_required", section);
	if (config_get_bool(cfg, key, true, &out->crl_required, err, errlen) != 0)
		return -1;
	if (!allow_missing_cert && (out->cert_file[0] == '\0' || out->key_file[0] == '\0')) {
		snprintf(err, errlen, "[%s] cert and key must be set", section);
		return -1;
	}
	return 0;
}

static int
readable_file(const char *path)
{
	return path[0] != '\0' && access(path, R_OK) == 0;
}

int
tls_find_user_credentials(struct tls_settings *s, char *err, size_t errlen)
{
	char buf[PATH_MAX];
	const char *env;

	if (s->ca_dir[0] == '\0' &&
	    copy_path(s->ca_dir, (env = getenv("X509_CERT_DIR")) ? env : TLS_DEFAULT_CA_DIR,
		"X509_CERT_DIR", err, errlen))
		return -1;
	if (s->cert_file[0] != '\0')
		return 0;
	if ((env = getenv("X509_USER_PROXY")) != NULL) {
		if (!readable_file(env)) {
			snprintf(err, errlen, "X509_USER_PROXY=%s: %s", env, strerror(errno));
			return -1;
		}
		return copy_path(s->cert_file, env, "proxy", err, errlen) ||
		    copy_path(s->key_file, env, "proxy", err, errlen);
	}
	snprintf(buf, sizeof(buf), "/tmp/x509up_u%u", (unsigned)getuid());
	if (readable_file(buf))
		return copy_path(s->cert_file, buf, "proxy", err, errlen) ||
		    copy_path(s->key_file, buf, "proxy", err, errlen);
	const char *home = getenv("HOME");
	if ((env = getenv("X509_USER_CERT")) != NULL)
		snprintf(buf, sizeof(buf), "%s", env);
	else
		snprintf(buf, sizeof(buf), "%s/.globus/usercert.pem", home ? home : "");
	if (readable_file(buf) && copy_path(s->cert_file, buf, "cert", err, errlen) == 0) {
		if ((env = getenv("X509_USER_KEY")) != NULL)
			snprintf(buf, sizeof(buf), "%s", env);
		else
			snprintf(buf, sizeof(buf), "%s/.globus/userkey.pem", home ? home : "");
		return copy_path(s->key_file, buf, "key", err, errlen);
	}
	snprintf(err, errlen,
	    "no credentials: set X509_USER_PROXY, make a proxy (qcg-proxy-init), or install "
	    "~/.globus/usercert.pem and userkey.pem");
	return -1;
}

/* Append "/FIELD=value" to dn with the value escaped: '\' as "\\" and '=' as "\=". Without the
 * escape, O="Grid/OU=qcg-ompi" followed by CN="Grid Admin" would read as the three RDNs of the
 * admin's DN; with it, every unescaped '=' in a DN follows a field name, so a DN has one reading.
 * '/' stays as it is: Globus host DNs ("CN=host/gw-a") are written that way, in the
 * grid-mapfile, the ACL and by qcg-ca. */
static int
dn_append(char *dn, size_t dnlen, size_t *used, const char *field, const unsigned char *v,
    int len)
{
	size_t u = *used;
	int n = snprintf(dn + u, dnlen - u, "/%s=", field);
	if (n < 0 || (size_t)n >= dnlen - u)
		return -1;
	u += (size_t)n;
	for (int i = 0; i < len; i++) {
		bool esc = v[i] == '\\' || v[i] == '=';
		if (u + (esc ? 2 : 1) >= dnlen)
			return -1;
		if (esc)
			dn[u++] = '\\';
		dn[u++] = (char)v[i];
	}
	dn[u] = '\0';
	*used = u;
	return 0;
}

int
tls_name_to_dn(const X509_NAME *name, char *dn, size_t dnlen, char *err, size_t errlen)
{
	size_t used = 0;

	if (dnlen > 0)
		dn[0] = '\0';
	for (int i = 0; i < X509_NAME_entry_count(name); i++) {
		const X509_NAME_ENTRY *entry = X509_NAME_get_entry(name, i);
		int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
		const char *field = nid != NID_undef ? OBJ_nid2sn(nid) : "UNDEF";
		unsigned char *value = NULL;
		int len = ASN1_STRING_to_UTF8(&value, X509_NAME_ENTRY_get_data(entry));
		if (len < 0) {
			snprintf(err, errlen, "DN entry %d is not a string", i);
			return -1;
		}
		/* A NUL inside a value would cut the DN short here ("CN=Jane Doe\0..." read as
		 * "CN=Jane Doe"), and a newline or other control character would forge lines in
		 * logs and files: such a name has no identity at all. */
		for (int k = 0; k < len; k++)
			if (value[k] < 0x20 || value[k] == 0x7f) {
				OPENSSL_free(value);
				snprintf(err, errlen, "DN entry %d contains a %s", i,
				    value[k] == 0 ? "NUL byte" : "control character");
				return -1;
			}
		int rc = dn_append(dn, dnlen, &used, field, value, len);
		OPENSSL_free(value);
		if (rc != 0) {
			snprintf(err, errlen, "DN longer than %zu bytes", dnlen - 1);
			return -1;
		}
	}
	if (used == 0) {
		snprintf(err, errlen, "empty DN");
		return -1;
	}
	return 0;
}

/* The policy language of an RFC 3820 proxy certificate. */
enum proxy_language { PROXY_INHERIT_ALL, PROXY_INDEPENDENT, PROXY_LIMITED, PROXY_UNKNOWN };

#define GLOBUS_LIMITED_PROXY_OID "1.3.6.1.4.1.3536.1.1.1.9"

static enum proxy_language
proxy_language(X509 *cert, char *oid, size_t oidlen)
{
	PROXY_CERT_INFO_EXTENSION *pci = X509_get_ext_d2i(cert, NID_proxyCertInfo, NULL, NULL);
	enum proxy_language lang = PROXY_UNKNOWN;

	snprintf(oid, oidlen, "(none)");
	if (pci == NULL || pci->proxyPolicy == NULL || pci->proxyPolicy->policyLanguage == NULL) {
		PROXY_CERT_INFO_EXTENSION_free(pci);
		return PROXY_UNKNOWN;
	}
	const ASN1_OBJECT *obj = pci->proxyPolicy->policyLanguage;
	OBJ_obj2txt(oid, (int)oidlen, obj, 1);
	switch (OBJ_obj2nid(obj)) {
	case NID_id_ppl_inheritAll: lang = PROXY_INHERIT_ALL; break;
	case NID_Independent: lang = PROXY_INDEPENDENT; break;
	default:
		if (strcmp(oid, GLOBUS_LIMITED_PROXY_OID) == 0)
			lang = PROXY_LIMITED;
	}
	PROXY_CERT_INFO_EXTENSION_free(pci);
	return lang;
}

int
tls_chain_proxy_policy(STACK_OF(X509) *chain, bool *limited, char *err, size_t errlen)
{
	char oid[128];
	int n = chain ? sk_X509_num(chain) : 0;

	*limited = false;
	for (int i = 0; i < n; i++) {
		X509 *cert = sk_X509_value(chain, i);
		if (!(X509_get_extension_flags(cert) & EXFLAG_PROXY))
			break; /* the end-entity certificate: no proxy above it counts */
		switch (proxy_language(cert, oid, sizeof(oid))) {
		case PROXY_LIMITED: *limited = true; break;
		case PROXY_UNKNOWN:
			snprintf(err, errlen, "proxy certificate at depth %d has an unknown policy "
			    "language %s", i, oid);
			return -1;
		default: break;
		}
	}
	return 0;
}

int
tls_chain_end_entity_dn(STACK_OF(X509) *chain, char *dn, size_t dnlen, char *err, size_t errlen)
{
	char oid[128];
	int n = chain ? sk_X509_num(chain) : 0;
	int independent = -1; /* the independent proxy nearest the leaf, if any */

	for (int i = 0; i < n; i++) {
		X509 *cert = sk_X509_value(chain, i);
		uint32_t flags = X509_get_extension_flags(cert);
		if (flags & EXFLAG_PROXY) {
			if (independent < 0 && proxy_language(cert, oid, sizeof(oid)) ==
			    PROXY_INDEPENDENT)
				independent = i;
			continue;
		}
		if (flags & EXFLAG_CA) {
			snprintf(err, errlen, "chain has no end-entity certificate below its CA");
			return -1;
		}
		/* RFC 3820 3.8: an independent proxy holds none of its issuer's rights, so it
		 * speaks only for itself (its own DN, which no grid-mapfile maps). */
		if (independent >= 0)
			cert = sk_X509_value(chain, independent);
		return tls_name_to_dn(X509_get_subject_name(cert), dn, dnlen, err, errlen);
	}
	snprintf(err, errlen, "chain has no end-entity certificate");
	return -1;
}
