/*
 * allocator.c: choose the allocation backend and pass calls to it (allocator.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "allocator_backend.h"

struct allocator {
	const struct allocator_ops *ops;
	void *state;
};

struct allocator *
allocator_new(const struct fe_config *cfg, struct resv_table *t, char *err, size_t errlen)
{
	struct allocator *a = calloc(1, sizeof(*a));
	if (a == NULL) {
		snprintf(err, errlen, "allocator: out of memory");
		return NULL;
	}
	a->ops = cfg->allocator == FE_ALLOCATOR_SLURM ? &allocator_slurm_ops :
	    &allocator_builtin_ops;
	if ((a->state = a->ops->open(cfg, t, err, errlen)) == NULL) {
		free(a);
		return NULL;
	}
	return a;
}

void
allocator_free(struct allocator *a)
{
	if (a == NULL)
		return;
	a->ops->close(a->state);
	free(a);
}

const char *
allocator_name(const struct allocator *a)
{
	return a->ops->name;
}

enum resv_status
allocator_reserve(struct allocator *a, double now, const struct resv_request *req,
    struct resv_grant *out, char *err, size_t errlen)
{
	return a->ops->reserve(a->state, now, req, out, err, errlen);
}

void
allocator_released(struct allocator *a, const char *id)
{
	a->ops->released(a->state, id);
}

int
allocator_check(struct allocator *a, double now, char id[RESV_ID_LEN], char *why,
    size_t whylen, struct resv_launch_info *launches, size_t max, size_t *count)
{
	*count = 0;
	return a->ops->check(a->state, now, id, why, whylen, launches, max, count);
}

void
allocator_job_of(struct allocator *a, const char *id, char job[ALLOC_JOB_ID_MAX])
{
	job[0] = '\0';
	a->ops->job_of(a->state, id, job);
}

int
allocator_launch_prefix(struct allocator *a, const char *id, const char *node,
    char *const *env, int env_count, const char *prefix[ALLOC_LAUNCH_PREFIX_MAX],
    char *storage, size_t storage_len, int *drop_env_index, char *err, size_t errlen)
{
	*drop_env_index = -1;
	return a->ops->launch_prefix(a->state, id, node, env, env_count, prefix, storage,
	    storage_len, drop_env_index, err, errlen);
}
