/*
 * broker_pool.c: the shared broker client contexts (broker_pool.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "broker_pool.h"
#include "soap_client.h"

struct broker_pool {
	pthread_mutex_t lock;
	pthread_cond_t returned;
	size_t size;
	struct soap *ctx[BROKER_POOL_MAX];
	bool lent[BROKER_POOL_MAX];
};

struct broker_pool *
broker_pool_new(size_t size, const struct tls_settings *tls,
    const struct soap_client_settings *settings, char *err, size_t errlen)
{
	struct broker_pool *p = calloc(1, sizeof(*p));
	if (p == NULL || size == 0 || size > BROKER_POOL_MAX) {
		snprintf(err, errlen, p ? "broker pool size must be 1-%d" : "out of memory",
		    BROKER_POOL_MAX);
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->returned, NULL);
	for (p->size = 0; p->size < size; p->size++)
		if ((p->ctx[p->size] = soap_client_new(tls, settings, err, errlen)) == NULL) {
			broker_pool_free(p);
			return NULL;
		}
	return p;
}

void
broker_pool_free(struct broker_pool *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->size; i++)
		soap_client_free(p->ctx[i]);
	pthread_cond_destroy(&p->returned);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct soap *
broker_pool_borrow(struct broker_pool *p)
{
	pthread_mutex_lock(&p->lock);
	for (;;) {
		for (size_t i = 0; i < p->size; i++)
			if (!p->lent[i]) {
				p->lent[i] = true;
				pthread_mutex_unlock(&p->lock);
				soap_client_reset(p->ctx[i]);
				return p->ctx[i];
			}
		pthread_cond_wait(&p->returned, &p->lock);
	}
}

void
broker_pool_return(struct broker_pool *p, struct soap *soap)
{
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->size; i++)
		if (p->ctx[i] == soap)
			p->lent[i] = false;
	pthread_cond_signal(&p->returned);
	pthread_mutex_unlock(&p->lock);
}
