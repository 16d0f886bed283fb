/*
 * user_creds.h: a user's grid credentials for the launcher's commands: found the grid way
 * (lib/tls.h tls_find_user_credentials), then checked before any service is called, so that an
 * expired or not yet valid proxy is refused with a sentence that says so instead of a TLS
 * alert from the first front-end.
 */
#ifndef QCG_USER_CREDS_H
#define QCG_USER_CREDS_H

#include <stddef.h>
#include <time.h>

#include "tls.h"

#define USER_CREDS_CHAIN_MAX 16 /* certificates in one credential file */
#define USER_CREDS_DN_MAX 1024

struct user_creds {
	struct tls_settings tls;       /* cert_file, key_file, ca_dir as found */
	char dn[USER_CREDS_DN_MAX];    /* the end-entity DN (what the grid-mapfile maps) */
	time_t not_after;              /* earliest notAfter of the chain in the file */
	int proxies;                   /* how many RFC 3820 proxy certificates lead the chain */
};

/* Find the credentials (fields of c->tls already set are kept) and check every certificate of
 * the certificate file against now: valid, not expired, an end-entity DN behind any proxies.
 * Returns 0, or -1 with err naming the file and the reason. */
int user_creds_load(struct user_creds *c, time_t now, char *err, size_t errlen);

/* The same check on one PEM file (the certificates of a chain, leaf first). */
int user_creds_check_file(const char *path, time_t now, struct user_creds *c, char *err,
    size_t errlen);

#endif
