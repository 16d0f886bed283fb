/*
 * allocator_backend.h: the private interface between allocator.c and its backends (one
 * table of functions per backend, chosen at start-up from the configuration).
 */
#ifndef QCG_ALLOCATOR_BACKEND_H
#define QCG_ALLOCATOR_BACKEND_H

#include "allocator.h"

struct allocator_ops {
	const char *name;
	void *(*open)(const struct fe_config *cfg, struct resv_table *t, char *err, size_t errlen);
	void (*close)(void *state);
	enum resv_status (*reserve)(void *state, double now, const struct resv_request *req,
	    struct resv_grant *out, char *err, size_t errlen);
	void (*released)(void *state, const char *id);
	int (*check)(void *state, double now, char id[RESV_ID_LEN], char *why, size_t whylen,
	    struct resv_launch_info *launches, size_t max, size_t *count);
	void (*job_of)(void *state, const char *id, char job[ALLOC_JOB_ID_MAX]);
	int (*launch_prefix)(void *state, const char *id, const char *node, char *const *env,
	    int env_count, const char *prefix[ALLOC_LAUNCH_PREFIX_MAX], char *storage,
	    size_t storage_len, int *drop_env_index, char *err, size_t errlen);
};

extern const struct allocator_ops allocator_builtin_ops;
extern const struct allocator_ops allocator_slurm_ops;

#endif
