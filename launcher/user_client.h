/*
 * user_client.h: how a user's command starts talking to the grid: which broker, the user's
 * credentials checked up front (user_creds.h), and a mutual-TLS SOAP client carrying them.
 * qcg-submit, qcg-status and qcg-cancel start the same way.
 */
#ifndef QCG_USER_CLIENT_H
#define QCG_USER_CLIENT_H

#include <stddef.h>

#include "soap_client.h"
#include "user_creds.h"

#define USER_BROKER_DEFAULT "https://localhost:8443/"

/* $QCG_BROKER_URL when set and not empty, else USER_BROKER_DEFAULT. */
const char *user_broker_url(void);

/* A leading "--broker URL" of argv sets *broker (otherwise left as it is). Returns the index
 * of the first argument after it. */
int user_broker_option(int argc, char **argv, const char **broker);

/* Initialise TLS, find and check the user's credentials (CRLs required) into creds, and open a
 * client with them. NULL with err naming the file or reason; creds->dn is set on success. */
struct soap *user_client_open(struct user_creds *creds,
    const struct soap_client_settings *settings, char *err, size_t errlen);

#endif
