/*
 * call_cli.c: the SOAP test clients' shared command line and error reporting (call_cli.h).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_cli.h"
#include "soapH.h"

#define MAX_OPTIONS 16

static const struct option common_options[] = {
	{ "url", required_argument, NULL, 'u' }, { "broker", required_argument, NULL, 'u' },
	{ "cert", required_argument, NULL, 'c' }, { "key", required_argument, NULL, 'k' },
	{ "ca-dir", required_argument, NULL, 'd' },
};

void
call_cli_usage(const struct call_cli *cli)
{
	fprintf(stderr, "usage: %s\n", cli->usage);
	exit(2);
}

/* The common options followed by the client's own, in one getopt_long table. */
static void
merge_options(const struct call_cli *cli, struct option *all)
{
	size_t n = sizeof(common_options) / sizeof(common_options[0]);
	memcpy(all, common_options, sizeof(common_options));
	for (const struct option *o = cli->extra; o != NULL && o->name != NULL; o++) {
		if (n + 1 >= MAX_OPTIONS) {
			fprintf(stderr, "%s: too many options (at most %d)\n", cli->name, MAX_OPTIONS - 1);
			exit(2);
		}
		all[n++] = *o;
	}
	memset(&all[n], 0, sizeof(all[n]));
}

static void
copy_path(const struct call_cli *cli, char *dst, const char *arg, const char *what)
{
	if (strlen(arg) >= PATH_MAX) {
		fprintf(stderr, "%s: %s path longer than %d bytes\n", cli->name, what, PATH_MAX - 1);
		exit(2);
	}
	strcpy(dst, arg);
}

struct soap *
call_cli_start(struct call_cli *cli, int argc, char **argv, int *first)
{
	struct option all[MAX_OPTIONS];
	struct tls_settings tls = { .crl_required = true };
	char err[1024];
	int code;

	merge_options(cli, all);
	/* "+": options end at OP, whose own arguments may start with '-'. */
	while ((code = getopt_long(argc, argv, "+", all, NULL)) != -1) {
		if (code == 'u')
			cli->url = optarg;
		else if (code == 'c')
			copy_path(cli, tls.cert_file, optarg, "--cert");
		else if (code == 'k')
			copy_path(cli, tls.key_file, optarg, "--key");
		else if (code == 'd')
			copy_path(cli, tls.ca_dir, optarg, "--ca-dir");
		else if (code != '?' && cli->extra_option != NULL)
			cli->extra_option(code, optarg);
		else
			call_cli_usage(cli);
	}
	if (argc - optind < cli->min_args || cli->url == NULL || !tls.cert_file[0] ||
	    !tls.key_file[0] || !tls.ca_dir[0])
		call_cli_usage(cli);
	tls_global_init();
	struct soap *soap = soap_client_new(&tls, &cli->limits, err, sizeof(err));
	if (soap == NULL) {
		fprintf(stderr, "%s: %s\n", cli->name, err);
		exit(3);
	}
	*first = optind;
	return soap;
}

int
call_cli_status(const struct call_cli *cli, struct soap *soap, int rc, const char *op)
{
	char err[1024];
	if (rc == SOAP_OK)
		return 0;
	int auth = soap_client_error(soap, err, sizeof(err));
	fprintf(stderr, "%s: %s: %s\n", cli->name, op, err);
	return auth ? 3 : 1;
}

void
call_cli_need(const struct call_cli *cli, int argc, int want, const char *op)
{
	if (argc < want) {
		fprintf(stderr, "%s: %s needs %d arguments\n", cli->name, op, want);
		exit(2);
	}
}

unsigned short
call_cli_port(const struct call_cli *cli, const char *word)
{
	char *end;
	long v = strtol(word, &end, 10);
	if (*word == '\0' || *end != '\0' || v < 0 || v > 65535) {
		fprintf(stderr, "%s: bad port %s\n", cli->name, word);
		exit(2);
	}
	return (unsigned short)v;
}
