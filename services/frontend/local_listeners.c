/*
 * local_listeners.c: per-job lists of this cluster's listeners (local_listeners.h). A job's
 * list is an array searched linearly: one add per listener, at most LOCAL_LISTENERS_PER_JOB,
 * which costs less than the broker call that comes with each add.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local_listeners.h"

struct job_list {
	char job[QCG_NAME_MAX];
	unsigned long born;             /* order of creation: the oldest goes first when full */
	struct local_listener *v;
	size_t n, cap;
};

struct local_listeners {
	pthread_mutex_t lock;
	struct job_list jobs[LOCAL_LISTENERS_JOBS];
	unsigned long next_born;
};

struct local_listeners *
local_listeners_new(void)
{
	struct local_listeners *l = calloc(1, sizeof(*l));
	if (l != NULL)
		pthread_mutex_init(&l->lock, NULL);
	return l;
}

static void
list_clear(struct job_list *j)
{
	free(j->v);
	memset(j, 0, sizeof(*j));
}

void
local_listeners_free(struct local_listeners *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < LOCAL_LISTENERS_JOBS; i++)
		list_clear(&l->jobs[i]);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* job's list, or NULL; with create, a new one (in a free slot, or the oldest job's). */
static struct job_list *
list_of(struct local_listeners *l, const char *job, int create)
{
	struct job_list *oldest = NULL, *free_slot = NULL;
	for (size_t i = 0; i < LOCAL_LISTENERS_JOBS; i++) {
		struct job_list *j = &l->jobs[i];
		if (j->job[0] == '\0') {
			if (free_slot == NULL)
				free_slot = j;
			continue;
		}
		if (strcmp(j->job, job) == 0)
			return j;
		if (oldest == NULL || j->born < oldest->born)
			oldest = j;
	}
	if (!create)
		return NULL;
	struct job_list *j = free_slot ? free_slot : oldest;
	list_clear(j);
	snprintf(j->job, sizeof(j->job), "%s", job);
	j->born = l->next_born++;
	return j;
}

int
local_listeners_add(struct local_listeners *l, const char *job, const char *address,
    uint16_t port)
{
	int rc = 0;
	pthread_mutex_lock(&l->lock);
	struct job_list *j = list_of(l, job, 1);
	size_t i;
	for (i = 0; i < j->n &&
	    (j->v[i].port != port || strcmp(j->v[i].address, address) != 0); i++)
		;
	if (i == j->n) {
		if (j->n == LOCAL_LISTENERS_PER_JOB) {
			rc = -1;
			goto done;
		}
		if (j->n == j->cap) {
			size_t cap = j->cap ? j->cap * 2 : 16;
			struct local_listener *v = realloc(j->v, cap * sizeof(*v));
			if (v == NULL) {
				rc = -1;
				goto done;
			}
			j->v = v;
			j->cap = cap;
		}
		j->n++;
	}
	snprintf(j->v[i].address, sizeof(j->v[i].address), "%s", address);
	j->v[i].port = port;
done:
	pthread_mutex_unlock(&l->lock);
	return rc;
}

size_t
local_listeners_of_job(struct local_listeners *l, const char *job, struct local_listener *out,
    size_t max)
{
	size_t n = 0;
	pthread_mutex_lock(&l->lock);
	struct job_list *j = list_of(l, job, 0);
	if (j != NULL) {
		n = j->n < max ? j->n : max;
		memcpy(out, j->v, n * sizeof(*out));
	}
	pthread_mutex_unlock(&l->lock);
	return n;
}

void
local_listeners_drop_job(struct local_listeners *l, const char *job)
{
	pthread_mutex_lock(&l->lock);
	struct job_list *j = list_of(l, job, 0);
	if (j != NULL)
		list_clear(j);
	pthread_mutex_unlock(&l->lock);
}
