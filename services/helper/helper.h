/*
 * helper.h: qcg-helper's shared state, as the SOAP handlers and the local API see it.
 */
#ifndef QCG_HELPER_H
#define QCG_HELPER_H

#include <pthread.h>

#include "acl.h"
#include "helper_config.h"
#include "helper_jobs.h"
#include "tls.h"

struct launch_table;

struct helper {
	struct helper_config cfg;
	struct tls_settings tls;          /* our host credentials, for serving and for calls */
	struct acl acl;                   /* role frontend: who may call our SOAP operations */
	struct helper_jobs *jobs;         /* tokens, inbound waiters, parked sockets */
	struct launch_table *launches;    /* what Launch started */
	pthread_mutex_t setups_lock;      /* guards setups */
	int setups;                       /* connection set-ups in flight (Deliver) */
};

#endif
