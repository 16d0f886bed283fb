/*
 * frontend_links.c: connections to the front-ends, opened together ahead of use
 * (frontend_links.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "soapH.h"
#include "frontend_links.h"
#include "soap_client.h"

struct frontend_link {
	struct soap *soap;
	const char *url;     /* the caller's string: it outlives the links */
	pthread_t thread;
	bool started;        /* the opening thread runs or ran */
	bool joined;
};

struct frontend_links {
	int count;
	struct frontend_link link[JOB_CLUSTERS_MAX];
};

/*
 * Open link's connection as gSOAP's own connect would (soap_set_endpoint, then its fopen: TCP,
 * the TLS handshake, the server's chain and host name checked), and mark it kept alive, so
 * that the first call on the context finds it open to the same host and port and sends on
 * it. gSOAP checks such a connection before reusing it (soap_client.c's fpoll, which lets
 * TLS 1.3's session tickets wait); a failed opening is closed here and the call connects by
 * itself.
 */
static void *
open_link(void *arg)
{
	struct frontend_link *l = arg;
	struct soap *soap = l->soap;
	soap_set_endpoint(soap, l->url);
	soap->socket = soap->fopen(soap, l->url, soap->host, soap->port);
	if (!soap_valid_socket(soap->socket) || soap->error != SOAP_OK) {
		soap->keep_alive = 0;
		soap_closesock(soap);
		soap->error = SOAP_OK; /* the call reports its own attempt's failure */
	} else {
		soap->keep_alive = -1; /* as gSOAP marks a fresh SOAP_IO_KEEPALIVE connection */
	}
	return NULL;
}

struct frontend_links *
frontend_links_open(const char *const *urls, int n, const struct tls_settings *tls,
    const struct soap_client_settings *settings, char *err, size_t errlen)
{
	if (n < 1 || n > JOB_CLUSTERS_MAX) {
		snprintf(err, errlen, "front-end links: %d front-ends (1-%d)", n, JOB_CLUSTERS_MAX);
		return NULL;
	}
	struct frontend_links *links = calloc(1, sizeof(*links));
	if (links == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		struct frontend_link *l = &links->link[i];
		links->count = i + 1;
		l->url = urls[i];
		if ((l->soap = soap_client_new(tls, settings, err, errlen)) == NULL)
			goto fail;
		if (pthread_create(&l->thread, NULL, open_link, l) != 0) {
			snprintf(err, errlen, "front-end links: cannot start a thread for %s", l->url);
			goto fail;
		}
		l->started = true;
	}
	return links;
fail:
	frontend_links_close(links);
	return NULL;
}

struct soap *
frontend_links_get(struct frontend_links *links, int i)
{
	if (links == NULL || i < 0 || i >= links->count)
		return NULL;
	struct frontend_link *l = &links->link[i];
	if (l->started && !l->joined) {
		pthread_join(l->thread, NULL); /* bounded by the context's connect timeout */
		l->joined = true;
	}
	return l->soap;
}

void
frontend_links_close(struct frontend_links *links)
{
	if (links == NULL)
		return;
	for (int i = 0; i < links->count; i++) {
		struct frontend_link *l = &links->link[i];
		if (l->soap == NULL)
			continue;
		frontend_links_get(links, i);
		l->soap->keep_alive = 0; /* or soap_closesock leaves a kept-alive connection open */
		soap_closesock(l->soap);
		soap_client_free(l->soap);
	}
	free(links);
}
