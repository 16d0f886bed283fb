/*
 * call_cli.h: what the SOAP test clients (broker_call, frontend_call, helper_call, proxy_call)
 * share: their common options (--url or --broker, --cert, --key, --ca-dir), the TLS client they
 * make from them, argument checks, and one way of reporting a failed call.
 *
 * Exit codes, the same for every client: 0 done, 1 the call failed (fault on stderr), 2 usage,
 * 3 authentication (TLS) failure or unusable credentials.
 */
#ifndef QCG_CALL_CLI_H
#define QCG_CALL_CLI_H

#include <getopt.h>

#include "soap_client.h"

struct soap;

struct call_cli {
	const char *name;  /* the program, in messages */
	const char *usage; /* its usage line */
	const char *url;   /* the service URL: a default, or NULL when --url is required */
	struct soap_client_settings limits;
	/* The client's own options (terminated by a zero entry; NULL for none) and their handler;
	 * their short codes must not be 'u', 'c', 'k' or 'd'. */
	const struct option *extra;
	void (*extra_option)(int code, char *arg);
	int min_args;      /* words after the options: 1 for OP, 0 for a client without one */
};

/* Parse argv, make the TLS client; exits with 2 (usage) or 3 (credentials) on failure. Returns
 * the context; *first is the index of the first word after the options. */
struct soap *call_cli_start(struct call_cli *cli, int argc, char **argv, int *first);
/* The exit status for a call's gSOAP result rc, printing the failure as "NAME: OP: reason". */
int call_cli_status(const struct call_cli *cli, struct soap *soap, int rc, const char *op);
/* Exit 2 unless OP got at least want arguments. */
void call_cli_need(const struct call_cli *cli, int argc, int want, const char *op);
/* A TCP port number, or exit 2 naming the bad word. */
unsigned short call_cli_port(const struct call_cli *cli, const char *word);
/* Print the usage line and exit 2. */
void call_cli_usage(const struct call_cli *cli) __attribute__((noreturn));

#endif
