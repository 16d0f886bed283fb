/*
 * user_client.c: the start every broker-facing user command shares (see user_client.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "user_client.h"

const char *
user_broker_url(void)
{
	const char *url = getenv("QCG_BROKER_URL");
	return url != NULL && url[0] != '\0' ? url : USER_BROKER_DEFAULT;
}

int
user_broker_option(int argc, char **argv, const char **broker)
{
	if (argc > 2 && strcmp(argv[1], "--broker") == 0) {
		*broker = argv[2];
		return 3;
	}
	return 1;
}

struct soap *
user_client_open(struct user_creds *creds, const struct soap_client_settings *settings,
    char *err, size_t errlen)
{
	tls_global_init();
	/* A revoked user must not be served because a CRL happens to be missing. */
	creds->tls.crl_required = true;
	if (user_creds_load(creds, time(NULL), err, errlen) != 0)
		return NULL;
	return soap_client_new(&creds->tls, settings, err, errlen);
}
