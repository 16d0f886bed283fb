/*
 * slurm_parse.c: parsing Slurm's command output (slurm_parse.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurm_parse.h"

/* Copy the decimal number at p (at most SLURM_JOB_ID_MAX-1 digits) into id; 0 if one is there. */
static int
take_job_id(const char *p, char id[SLURM_JOB_ID_MAX])
{
	size_t n = 0;
	while (isdigit((unsigned char)p[n]) && n < SLURM_JOB_ID_MAX - 1)
		n++;
	if (n == 0 || isdigit((unsigned char)p[n]))
		return -1;
	memcpy(id, p, n);
	id[n] = '\0';
	return 0;
}

/* The line of text holding p, without its newline, into buf. */
static void
line_of(const char *text, const char *p, char *buf, size_t len)
{
	const char *start = p;
	while (start > text && start[-1] != '\n')
		start--;
	size_t n = strcspn(start, "\n");
	snprintf(buf, len, "%.*s", (int)(n < 200 ? n : 200), start);
}

enum slurm_salloc_outcome
slurm_parse_salloc(const char *text, char job_id[SLURM_JOB_ID_MAX], char *why, size_t whylen)
{
	static const char *const id_markers[] = { "Granted job allocation ",
		"Pending job allocation ", "Job allocation " };
	/* Reasons Slurm gives at submission for a request this partition can never run. */
	static const char *const impossible[] = { "Requested node configuration is not available",
		"Node count specification invalid", "More processors requested than permitted",
		"Requested time limit is invalid", "Invalid partition name specified",
		"Invalid account or account/partition combination specified",
		"Invalid qos specification", "Job violates accounting/QOS policy",
		"Requested partition configuration not available now" };
	job_id[0] = '\0';
	snprintf(why, whylen, "salloc gave no recognisable answer");
	for (size_t i = 0; i < sizeof(id_markers) / sizeof(id_markers[0]) && !job_id[0]; i++) {
		const char *p = strstr(text, id_markers[i]);
		if (p != NULL && take_job_id(p + strlen(id_markers[i]), job_id) != 0)
			job_id[0] = '\0';
	}
	const char *granted = strstr(text, "salloc: Granted job allocation ");
	if (granted != NULL && job_id[0])
		return SLURM_SALLOC_GRANTED;
	for (size_t i = 0; i < sizeof(impossible) / sizeof(impossible[0]); i++) {
		const char *p = strstr(text, impossible[i]);
		if (p != NULL) {
			line_of(text, p, why, whylen);
			return SLURM_SALLOC_IMPOSSIBLE;
		}
	}
	const char *error = strstr(text, "error:");
	if (job_id[0] || strstr(text, "queued and waiting") != NULL) {
		if (error != NULL)
			line_of(text, error, why, whylen);
		else
			snprintf(why, whylen, "the allocation stayed pending");
		return SLURM_SALLOC_PENDING;
	}
	if (error != NULL)
		line_of(text, error, why, whylen);
	return SLURM_SALLOC_FAILED;
}

/* Add name to nodes (unless full). */
static int
add_node(const char *name, size_t len, struct slurm_alloc_node *nodes, size_t max,
    size_t *count, char *err, size_t errlen)
{
	if (len == 0 || len >= QCG_NAME_MAX) {
		snprintf(err, errlen, "a host name of %zu bytes in a Slurm hostlist", len);
		return -1;
	}
	if (*count >= max) {
		snprintf(err, errlen, "more than %zu hosts in a Slurm hostlist", max);
		return -1;
	}
	memcpy(nodes[*count].name, name, len);
	nodes[*count].name[len] = '\0';
	nodes[*count].cpus = 0;
	(*count)++;
	return 0;
}

/* Expand one item "prefix[ranges]suffix" or a plain name. */
static int
expand_item(const char *item, size_t len, struct slurm_alloc_node *nodes, size_t max,
    size_t *count, char *err, size_t errlen)
{
	const char *open = memchr(item, '[', len);
	if (open == NULL)
		return add_node(item, len, nodes, max, count, err, errlen);
	const char *close = memchr(open, ']', len - (size_t)(open - item));
	if (close == NULL || memchr(close, '[', len - (size_t)(close - item)) != NULL) {
		snprintf(err, errlen, "unsupported Slurm hostlist item '%.*s'", (int)len, item);
		return -1;
	}
	size_t plen = (size_t)(open - item), slen = len - (size_t)(close + 1 - item);
	const char *p = open + 1;
	while (p < close) {
		char *end;
		const char *digits = p;
		unsigned long lo = strtoul(p, &end, 10), hi;
		int width = (int)(end - digits);
		if (end == p || width > 9)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi - lo > 10000)
				goto bad;
			p = end;
		}
		if (*p != ',' && p != close)
			goto bad;
		if (*p == ',')
			p++;
		for (unsigned long v = lo; v <= hi; v++) {
			char name[QCG_NAME_MAX + 16];
			int n = snprintf(name, sizeof(name), "%.*s%0*lu%.*s", (int)plen, item, width, v,
			    (int)slen, close + 1);
			if (n < 0 || add_node(name, (size_t)n, nodes, max, count, err, errlen) != 0)
				return -1;
		}
	}
	return 0;
bad:
	snprintf(err, errlen, "malformed range in Slurm hostlist item '%.*s'", (int)len, item);
	return -1;
}

int
slurm_hostlist_expand(const char *list, struct slurm_alloc_node *nodes, size_t max,
    size_t *count, char *err, size_t errlen)
{
	*count = 0;
	const char *p = list;
	if (*p == '\0') {
		snprintf(err, errlen, "empty Slurm hostlist");
		return -1;
	}
	while (*p) {
		/* An item ends at a comma outside brackets. */
		const char *q = p;
		int depth = 0;
		for (; *q && (depth > 0 || *q != ','); q++) {
			if (*q == '[')
				depth++;
			else if (*q == ']') {
				if (--depth < 0)
					break;
			} else if (!isalnum((unsigned char)*q) && !strchr("-_.,", *q)) {
				snprintf(err, errlen, "unexpected character in Slurm hostlist '%.80s'", list);
				return -1;
			}
		}
		if (depth != 0) {
			snprintf(err, errlen, "unbalanced brackets in Slurm hostlist '%.80s'", list);
			return -1;
		}
		if (expand_item(p, (size_t)(q - p), nodes, max, count, err, errlen) != 0)
			return -1;
		p = *q == ',' ? q + 1 : q;
	}
	return 0;
}

int
slurm_cpu_ids_count(const char *ids)
{
	int total = 0;
	const char *p = ids;
	do {
		char *end;
		long lo = strtol(p, &end, 10), hi;
		if (end == p || lo < 0 || !isdigit((unsigned char)*p))
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi - lo > 65536)
				return -1;
			p = end;
		}
		total += (int)(hi - lo + 1);
		if (total > 65536)
			return -1;
		if (*p != ',')
			break;
		p++; /* a comma must be followed by another id: strtol's check above */
	} while (1);
	return *p == '\0' ? total : -1;
}

/* The value of " key=" in text (up to the next space), into buf; NULL if absent or too long.
 * from gives where the search starts; *next gets where the value ends. */
static const char *
field(const char *text, const char *from, const char *key, char *buf, size_t len,
    const char **next)
{
	size_t klen = strlen(key);
	for (const char *p = strstr(from, key); p; p = strstr(p + 1, key)) {
		if (p != text && p[-1] != ' ')
			continue;
		if (p[klen] != '=')
			continue;
		const char *v = p + klen + 1;
		size_t n = strcspn(v, " \n");
		if (n >= len)
			return NULL;
		memcpy(buf, v, n);
		buf[n] = '\0';
		if (next)
			*next = v + n;
		return buf;
	}
	return NULL;
}

int
slurm_parse_job_detail(const char *text, char *state, size_t statelen,
    struct slurm_alloc_node *nodes, size_t max, size_t *count, char *err, size_t errlen)
{
	char buf[1024], ids[256];
	const char *p = text, *next;
	*count = 0;
	if (field(text, text, "JobState", state, statelen, NULL) == NULL) {
		snprintf(err, errlen, "scontrol show job gave no JobState: '%.120s'", text);
		return -1;
	}
	/* The detail pairs: " Nodes=LIST CPU_IDs=IDS" (the summary is NodeList=, not Nodes=). */
	while (field(text, p, "Nodes", buf, sizeof(buf), &next) != NULL) {
		size_t before = *count, added;
		if (slurm_hostlist_expand(buf, nodes + before, max - before, &added, err,
			errlen) != 0)
			return -1;
		*count += added;
		if (strncmp(next, " CPU_IDs=", 9) != 0 ||
		    field(text, next, "CPU_IDs", ids, sizeof(ids), &p) == NULL) {
			snprintf(err, errlen, "scontrol show job: Nodes=%.60s without CPU_IDs", buf);
			return -1;
		}
		int cpus = slurm_cpu_ids_count(ids);
		if (cpus < 1) {
			snprintf(err, errlen, "scontrol show job: malformed CPU_IDs=%.60s", ids);
			return -1;
		}
		for (size_t i = before; i < *count; i++)
			nodes[i].cpus = cpus;
	}
	return 0;
}

bool
slurm_node_state_lost(const char *state)
{
	static const char *const lost[] = { "down", "drain", "drng", "drained", "draining",
		"fail", "failg", "failing", "maint", "npc", "unk", "boot", "pow_dn", "powered_down" };
	char s[32];
	size_t n = strcspn(state, "*~#!%$@^-+");
	if (n == 0 || n >= sizeof(s))
		return true; /* nothing we can read is a state to trust */
	for (size_t i = 0; i < n; i++)
		s[i] = (char)tolower((unsigned char)state[i]);
	s[n] = '\0';
	for (size_t i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		if (strcmp(s, lost[i]) == 0)
			return true;
	return false;
}

const char *
slurm_node_state_word(const char *state, char *buf, size_t buflen)
{
	/* sinfo's compact forms (%t) of the states slurm_node_state_lost() names, spelt out. */
	static const char *const words[][2] = { { "drng", "draining" }, { "drain", "drained" },
		{ "failg", "failing" }, { "fail", "failed" }, { "maint", "in maintenance" },
		{ "npc", "not power capable" }, { "unk", "in an unknown state" },
		{ "boot", "booting" }, { "pow_dn", "powered down" } };
	size_t n = strcspn(state, "*~#!%$@^-+");
	const char *word = NULL;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && word == NULL; i++)
		if (strlen(words[i][0]) == n && strncasecmp(state, words[i][0], n) == 0)
			word = words[i][1];
	/* '*' is Slurm's "not responding" flag: the reason a node is down or lost. */
	snprintf(buf, buflen, "%s%.*s%s", word ? word : "", word ? 0 : (int)(n < 31 ? n : 31),
	    state, state[n] == '*' ? " (not responding)" : "");
	if (buf[0] == '\0' || buf[0] == ' ')
		snprintf(buf, buflen, "in state '%.31s'", state);
	return buf;
}

long
slurm_minutes(long seconds)
{
	long m = (seconds + 59) / 60;
	return m < 1 ? 1 : m;
}

/* Appends one argument to an argv under construction. */
struct argv_builder {
	char **argv;       /* or const char ** for prefixes: both hold pointers into storage */
	size_t count, max;
	char *storage;
	size_t used, len;
	int failed;
};

/* Append the argument head followed by value (head is "--opt=" or "", value the rest). */
static void
arg_add(struct argv_builder *b, const char *head, const char *value)
{
	if (b->failed)
		return;
	size_t room = b->len - b->used;
	int n = snprintf(b->storage + b->used, room, "%s%s", head, value);
	if (n < 0 || (size_t)n >= room || b->count + 1 >= b->max) {
		b->failed = 1;
		return;
	}
	b->argv[b->count++] = b->storage + b->used;
	b->argv[b->count] = NULL;
	b->used += (size_t)n + 1;
}

static void
arg_add_long(struct argv_builder *b, const char *head, long value)
{
	char num[32];
	snprintf(num, sizeof(num), "%ld", value);
	arg_add(b, head, num);
}

int
slurm_salloc_argv(const struct slurm_salloc_request *r, char *argv[SLURM_ARGV_MAX],
    char *storage, size_t storage_len, char *err, size_t errlen)
{
	struct argv_builder b = { argv, 0, SLURM_ARGV_MAX, storage, 0, storage_len, 0 };
	char nodes[1024] = "";
	if (r->run_as && r->run_as[0]) {
		arg_add(&b, "", "runuser");
		arg_add(&b, "", "-u");
		arg_add(&b, "", r->run_as);
		arg_add(&b, "", "--");
	}
	arg_add(&b, "", "salloc");
	arg_add(&b, "", "--no-shell");
	arg_add_long(&b, "--immediate=", r->pending_seconds < 1 ? 1 : r->pending_seconds);
	arg_add(&b, "--job-name=qcg-", r->grid_job);
	char comment[512];
	if ((size_t)snprintf(comment, sizeof(comment), "%s%s%s", r->grid_job,
	    r->cluster && r->cluster[0] ? SLURM_COMMENT_OWNER : "", r->cluster ? r->cluster : "")
	    >= sizeof(comment))
		b.failed = 1;
	arg_add(&b, "--comment=" SLURM_COMMENT_HEAD, comment);
	arg_add_long(&b, "--ntasks=", r->tasks);
	if (r->per_node > 0)
		arg_add_long(&b, "--ntasks-per-node=", r->per_node);
	for (size_t i = 0; i < r->node_count; i++) {
		size_t used = strlen(nodes);
		if ((size_t)snprintf(nodes + used, sizeof(nodes) - used, "%s%s", i ? "," : "",
			r->nodes[i]) >= sizeof(nodes) - used)
			b.failed = 1;
	}
	if (r->node_count > 0)
		arg_add(&b, "--nodelist=", nodes);
	if (r->time_seconds > 0)
		arg_add_long(&b, "--time=", slurm_minutes(r->time_seconds));
	if (r->partition && r->partition[0])
		arg_add(&b, "--partition=", r->partition);
	if (r->account && r->account[0])
		arg_add(&b, "--account=", r->account);
	if (r->qos && r->qos[0])
		arg_add(&b, "--qos=", r->qos);
	if (b.failed) {
		snprintf(err, errlen, "the salloc command line for job %.40s is too long", r->grid_job);
		return -1;
	}
	return 0;
}

int
slurm_parse_own_jobs(const char *text, const char *cluster, char (*ids)[SLURM_JOB_ID_MAX],
    size_t max, size_t *count, char *err, size_t errlen)
{
	char tail[QCG_NAME_MAX + 32];
	size_t tail_len = (size_t)snprintf(tail, sizeof(tail), SLURM_COMMENT_OWNER "%s", cluster);
	*count = 0;
	for (const char *line = text; *line; ) {
		size_t len = strcspn(line, "\n");
		const char *next = line + len + (line[len] == '\n');
		size_t id_len = strspn(line, "0123456789");
		/* Ours are plain salloc jobs with a decimal id; array tasks (12_3), heterogeneous
		 * components (12+0) and anything else are some user's, whatever their comment. */
		if (id_len == 0 || id_len >= SLURM_JOB_ID_MAX || (id_len < len && line[id_len] != ' ')) {
			line = next;
			continue;
		}
		const char *comment = line + id_len + (id_len < len);
		size_t comment_len = len - (size_t)(comment - line);
		if (comment_len > strlen(SLURM_COMMENT_HEAD) + tail_len &&
		    strncmp(comment, SLURM_COMMENT_HEAD, strlen(SLURM_COMMENT_HEAD)) == 0 &&
		    strncmp(comment + comment_len - tail_len, tail, tail_len) == 0) {
			if (*count == max) {
				snprintf(err, errlen, "more than %zu Slurm jobs of this front-end", max);
				return -1;
			}
			snprintf(ids[(*count)++], SLURM_JOB_ID_MAX, "%.*s", (int)id_len, line);
		}
		line = next;
	}
	return 0;
}

int
slurm_step_prefix(const char *job_id, const char *node, const char *slurm_conf,
    char *const *env, int env_count,
    const char **prefix, size_t prefix_max, char *storage, size_t storage_len, int *moved,
    char *err, size_t errlen)
{
	struct argv_builder b = { (char **)prefix, 0, prefix_max, storage, 0, storage_len, 0 };
	const char *preload = NULL;
	*moved = -1;
	for (int i = 0; i < env_count; i++)
		if (env[i] && strncmp(env[i], "LD_PRELOAD=", 11) == 0) {
			preload = env[i] + 11;
			*moved = i;
		}
	/* --export splits at commas: a list of preloads cannot pass through it. */
	if (preload && strchr(preload, ',') != NULL) {
		snprintf(err, errlen, "LD_PRELOAD holds a comma, which srun --export cannot carry");
		return -1;
	}
	if (slurm_conf && slurm_conf[0]) {
		arg_add(&b, "", "env");
		arg_add(&b, "SLURM_CONF=", slurm_conf);
	}
	arg_add(&b, "", "srun");
	arg_add(&b, "--jobid=", job_id);
	arg_add(&b, "", "--overlap");
	arg_add(&b, "--nodelist=", node);
	arg_add(&b, "", "--nodes=1");
	arg_add(&b, "", "--ntasks=1");
	arg_add(&b, "", "--kill-on-bad-exit=1");
	arg_add(&b, "", "--quiet");
	if (preload)
		arg_add(&b, "--export=ALL,LD_PRELOAD=", preload);
	else
		arg_add(&b, "", "--export=ALL");
	if (b.failed) {
		snprintf(err, errlen, "the srun prefix for job %.24s on %.63s is too long", job_id,
		    node);
		return -1;
	}
	return (int)b.count;
}

long
slurm_daemonize_word(const char *arg)
{
	static const char word[] = "--daemonize";
	const size_t wlen = sizeof(word) - 1;
	for (const char *at = arg; (at = strstr(at, word)) != NULL; at += wlen)
		if ((at == arg || at[-1] == ' ') && (at[wlen] == '\0' || at[wlen] == ' '))
			return (long)(at - arg);
	return -1;
}
