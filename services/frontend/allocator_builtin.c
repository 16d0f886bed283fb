/*
 * allocator_builtin.c: the static [nodes] list (allocator.h). The reservation table's own
 * slot planning is the whole allocation; nothing backs a reservation but the table, and
 * launches run as the helper starts them.
 */
#include "config.h"

#include "allocator_backend.h"

static void *
builtin_open(const struct fe_config *cfg, struct resv_table *t, char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	return t;
}

static void
builtin_close(void *state)
{
	(void)state;
}

static enum resv_status
builtin_reserve(void *state, double now, const struct resv_request *req,
    struct resv_grant *out, char *err, size_t errlen)
{
	return resv_reserve(state, now, req, out, err, errlen);
}

static void
builtin_released(void *state, const char *id)
{
	(void)state;
	(void)id;
}

static int
builtin_check(void *state, double now, char id[RESV_ID_LEN], char *why, size_t whylen,
    struct resv_launch_info *launches, size_t max, size_t *count)
{
	(void)state, (void)now, (void)id, (void)why, (void)whylen, (void)launches, (void)max;
	*count = 0;
	return 0;
}

static void
builtin_job_of(void *state, const char *id, char job[ALLOC_JOB_ID_MAX])
{
	(void)state;
	(void)id;
	job[0] = '\0';
}

static int
builtin_launch_prefix(void *state, const char *id, const char *node, char *const *env,
    int env_count, const char *prefix[ALLOC_LAUNCH_PREFIX_MAX], char *storage,
    size_t storage_len, int *drop_env_index, char *err, size_t errlen)
{
	(void)state, (void)id, (void)node, (void)env, (void)env_count, (void)prefix;
	(void)storage, (void)storage_len, (void)err, (void)errlen;
	*drop_env_index = -1;
	return 0;
}

const struct allocator_ops allocator_builtin_ops = {
	"builtin", builtin_open, builtin_close, builtin_reserve, builtin_released, builtin_check,
	builtin_job_of, builtin_launch_prefix,
};
