/*
 * model.c: the names of the domain enums, one table each, so that configuration, SOAP and SQL
 * all spell them the same way.
 */
#include "config.h"

#include <string.h>

#include "model.h"

static const char *const policy_names[] = { "open", "port-range", "nat", "closed" };
static const char *const method_names[] = { "direct", "port-range", "reversal", "traversal",
	"relay", "relay-chain", "none" };
static const char *const job_state_names[] = { "pending", "running", "done", "failed",
	"cancelled", "queued" };
static const char *const event_kind_names[] = { "connect", "job-ended", "relay",
	"policy-changed" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int
name_index(const char *const *names, size_t count, const char *name)
{
	for (size_t i = 0; i < count; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *
cluster_policy_name(enum cluster_policy policy)
{
	return (unsigned)policy < NELEM(policy_names) ? policy_names[policy] : "?";
}

int
cluster_policy_parse(const char *name, enum cluster_policy *out)
{
	int i = name_index(policy_names, NELEM(policy_names), name);
	if (i < 0)
		return -1;
	*out = (enum cluster_policy)i;
	return 0;
}

const char *
connect_method_name(enum connect_method method)
{
	return (unsigned)method < NELEM(method_names) ? method_names[method] : "?";
}

int
connect_method_parse(const char *name, enum connect_method *out)
{
	int i = name_index(method_names, NELEM(method_names), name);
	if (i < 0)
		return -1;
	*out = (enum connect_method)i;
	return 0;
}

const char *
job_state_name(enum job_state state)
{
	return (unsigned)state < NELEM(job_state_names) ? job_state_names[state] : "?";
}

int
job_state_parse(const char *name, enum job_state *out)
{
	int i = name_index(job_state_names, NELEM(job_state_names), name);
	if (i < 0)
		return -1;
	*out = (enum job_state)i;
	return 0;
}

const char *
event_kind_name(enum event_kind kind)
{
	return (unsigned)kind < NELEM(event_kind_names) ? event_kind_names[kind] : "?";
}

int
event_kind_parse(const char *name, enum event_kind *out)
{
	int i = name_index(event_kind_names, NELEM(event_kind_names), name);
	if (i < 0)
		return -1;
	*out = (enum event_kind)i;
	return 0;
}
