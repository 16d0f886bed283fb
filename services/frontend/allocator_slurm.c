/*
 * allocator_slurm.c: the site's Slurm allocates the nodes (allocator.h).
 *
 * Reserve runs `salloc --no-shell --immediate=pending_timeout`: Slurm grants an allocation
 * that runs nothing and is held until scancel, or salloc gives up once the allocation has
 * stayed pending that long. salloc rather than a held sbatch: a held job never starts, so it
 * would hold no nodes, and releasing the hold starts a batch script; salloc --no-shell is
 * exactly "allocate and hold, start nothing", and its --immediate bounds the pending wait in
 * Slurm itself. The nodes and CPUs granted (`scontrol -o show job -d`) become the
 * reservation's slots in the table. Every reservation that is gone (released, lapsed, reaped
 * at its wall time, ended with its job) has its Slurm job cancelled; a live one whose job
 * ended or whose node was drained or lost is revoked, naming the cause.
 */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocator_backend.h"
#include "log.h"
#include "slurm_cmd.h"
#include "slurm_parse.h"

struct slurm_alloc {
	bool used;
	char resv_id[RESV_ID_LEN];
	char job_id[SLURM_JOB_ID_MAX];
	char nodes[1024];       /* comma-separated, for sinfo -n */
	double next_check;      /* monotonic seconds */
};

struct slurm_state {
	pthread_mutex_t lock;
	struct resv_table *table;
	struct fe_slurm_config cfg;
	char cluster[QCG_NAME_MAX]; /* in each job's comment (slurm_parse.h) */
	struct slurm_alloc *alloc;
	size_t max;
};

/* Run a Slurm command with the configured bound; 0 when it ran and exited 0. */
static int
run(struct slurm_state *s, char *const argv[], long timeout_s, struct slurm_cmd_result *res,
    char *why, size_t whylen)
{
	if (slurm_cmd_run(argv, s->cfg.slurm_conf, timeout_s * 1000, res, why, whylen) != 0)
		return -1;
	if (res->truncated) {
		snprintf(why, whylen, "%s printed more than %d bytes", argv[0], SLURM_CMD_OUTPUT_MAX);
		return -1;
	}
	if (res->exit_status != 0) {
		snprintf(why, whylen, "%s exited with %d: %.200s", argv[0], res->exit_status,
		    res->err);
		return -1;
	}
	return 0;
}

/* scancel job_id, logging a failure (the job then ends at its Slurm time limit at the latest). */
static void
cancel_job(struct slurm_state *s, const char *job_id, const char *reason)
{
	char arg[SLURM_JOB_ID_MAX], why[256];
	snprintf(arg, sizeof(arg), "%s", job_id);
	char *argv[] = { "scancel", arg, NULL };
	struct slurm_cmd_result *res = malloc(sizeof(*res));
	if (res == NULL || run(s, argv, s->cfg.command_timeout, res, why, sizeof(why)) != 0)
		log_warn("Slurm job %s (%s) could not be cancelled: %s", job_id, reason,
		    res ? why : "out of memory");
	else
		log_info("Slurm job %s cancelled: %s", job_id, reason);
	free(res);
}

/* Cancel the Slurm jobs a previous life of this front-end left (it crashed or was killed
 * before it could cancel them): nothing else would end them before their time limit, and
 * until then they hold nodes no reservation knows of. They are found by their comment, which
 * names this front-end's cluster. A Slurm that does not answer within command_timeout is not
 * waited for longer: the front-end starts, and those jobs end at their time limit. */
static void
reclaim(struct slurm_state *s)
{
	char why[256], (*ids)[SLURM_JOB_ID_MAX] = calloc(s->max, sizeof(*ids));
	/* Only the partition ours run in, when one is configured: squeue's answer must fit in
	 * SLURM_CMD_OUTPUT_MAX, or it is not read at all. */
	char *argv[] = { "squeue", "-h", "-o", "%i %k", NULL, NULL, NULL };
	if (s->cfg.partition[0]) {
		argv[4] = "-p";
		argv[5] = s->cfg.partition;
	}
	struct slurm_cmd_result *res = malloc(sizeof(*res));
	size_t n = 0;
	if (ids == NULL || res == NULL)
		log_warn("Slurm jobs of a previous life are not looked for: out of memory");
	else if (run(s, argv, s->cfg.command_timeout, res, why, sizeof(why)) != 0 ||
	    slurm_parse_own_jobs(res->out, s->cluster, ids, s->max, &n, why, sizeof(why)) != 0)
		log_warn("Slurm jobs of a previous life of this front-end could not be looked "
		    "for (they end at their time limit): %s", why);
	free(res);
	for (size_t i = 0; i < n; i++)
		cancel_job(s, ids[i], "held by a previous life of this front-end");
	free(ids);
}

static void *
slurm_open(const struct fe_config *cfg, struct resv_table *t, char *err, size_t errlen)
{
	struct slurm_state *s = calloc(1, sizeof(*s));
	if (s == NULL || (s->alloc = calloc((size_t)cfg->max_reservations,
	    sizeof(*s->alloc))) == NULL) {
		free(s);
		snprintf(err, errlen, "slurm allocator: out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->table = t;
	s->cfg = cfg->slurm;
	s->max = (size_t)cfg->max_reservations;
	snprintf(s->cluster, sizeof(s->cluster), "%s", cfg->cluster.name);
	reclaim(s);
	return s;
}

static void
slurm_close(void *state)
{
	struct slurm_state *s = state;
	/* Nothing may outlive the front-end that held it: a held allocation runs nothing. */
	for (size_t i = 0; i < s->max; i++)
		if (s->alloc[i].used)
			cancel_job(s, s->alloc[i].job_id, "the front-end stops");
	pthread_mutex_destroy(&s->lock);
	free(s->alloc);
	free(s);
}

/* Ask salloc; on GRANTED job_id holds the job. Maps Slurm's answer to a reservation status. */
static enum resv_status
allocate(struct slurm_state *s, const struct resv_request *req, char job_id[SLURM_JOB_ID_MAX],
    char *err, size_t errlen)
{
	char *argv[SLURM_ARGV_MAX], storage[SLURM_ARGV_STORAGE], why[256];
	/* Slurm's limit counts from the grant; ours from the commit, which may come up to the
	 * reservation's timeout later. */
	struct slurm_salloc_request r = { req->job, req->slots, req->per_node, req->nodes,
		req->node_count, req->walltime > 0 ? req->walltime + req->timeout : 0,
		s->cfg.pending_timeout, s->cfg.partition, s->cfg.account, s->cfg.qos, "",
		s->cluster };
	/* Slurm lets only a job's owner create steps in it (srun has no --uid since 20.11), and
	 * the helper starts the srun as the grid user's mapped account: a front-end running as
	 * root makes that account the owner. Otherwise the job is the front-end's own, and grid
	 * users must map to its account (README.md). */
	if (geteuid() == 0 && strcmp(req->account, "root") != 0)
		r.run_as = req->account;
	job_id[0] = '\0';
	if (slurm_salloc_argv(&r, argv, storage, sizeof(storage), err, errlen) != 0)
		return RESV_BAD_REQUEST;
	struct slurm_cmd_result *res = malloc(sizeof(*res));
	if (res == NULL) {
		snprintf(err, errlen, "out of memory");
		return RESV_FULL;
	}
	int ran = slurm_cmd_run(argv, s->cfg.slurm_conf,
	    (s->cfg.pending_timeout + s->cfg.command_timeout) * 1000, res, why, sizeof(why));
	enum slurm_salloc_outcome o = slurm_parse_salloc(res->err, job_id, err, errlen);
	enum resv_status st = RESV_OK;
	if (ran != 0 && o != SLURM_SALLOC_GRANTED) {
		snprintf(err, errlen, "Slurm: %s", why);
		st = res->timed_out ? RESV_BUSY : RESV_FULL;
	} else if (o == SLURM_SALLOC_GRANTED && (res->exit_status != 0 || res->truncated)) {
		snprintf(err, errlen, "Slurm: salloc granted job %s but exited with %d", job_id,
		    res->exit_status);
		st = RESV_FULL;
	} else if (o == SLURM_SALLOC_PENDING) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "Slurm's allocation of %d tasks stayed pending for %ld s (the "
		    "front-end's pending_timeout) and was withdrawn: %s", req->slots,
		    s->cfg.pending_timeout, msg);
		st = RESV_BUSY;
	} else if (o == SLURM_SALLOC_IMPOSSIBLE) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "Slurm refuses %d tasks%s%s: %s", req->slots,
		    s->cfg.partition[0] ? " in partition " : "", s->cfg.partition, msg);
		st = RESV_NO_CAPACITY;
	} else if (o == SLURM_SALLOC_FAILED) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "Slurm: salloc failed (exit %d): %s", res->exit_status, msg);
		st = RESV_FULL;
	}
	free(res);
	/* A job salloc named but we do not hold (timed out, revoked) must not stay queued. */
	if (st != RESV_OK && job_id[0])
		cancel_job(s, job_id, "its allocation was given up");
	return st;
}

/* Place req's slots on the nodes and CPUs of job_id, in Slurm's node order. */
static enum resv_status
placement(struct slurm_state *s, const struct resv_request *req, const char *job_id,
    struct resv_slot *slots, size_t *slot_count, char *nodes_csv, size_t csv_len, char *err,
    size_t errlen)
{
	char arg[SLURM_JOB_ID_MAX + 8], state[64], why[256];
	struct slurm_alloc_node nodes[SLURM_ALLOC_NODES_MAX];
	size_t n = 0;
	snprintf(arg, sizeof(arg), "%s", job_id);
	char *argv[] = { "scontrol", "-o", "show", "job", "-d", arg, NULL };
	struct slurm_cmd_result *res = malloc(sizeof(*res));
	if (res == NULL || run(s, argv, s->cfg.command_timeout, res, why, sizeof(why)) != 0 ||
	    slurm_parse_job_detail(res->out, state, sizeof(state), nodes, SLURM_ALLOC_NODES_MAX,
		&n, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "Slurm job %s: %s", job_id, res ? why : "out of memory");
		free(res);
		return RESV_FULL;
	}
	free(res);
	int rest = req->slots;
	*slot_count = 0;
	nodes_csv[0] = '\0';
	for (size_t i = 0; i < n && rest > 0; i++) {
		int take = nodes[i].cpus < rest ? nodes[i].cpus : rest;
		if (req->per_node > 0 && take > req->per_node)
			take = req->per_node;
		snprintf(slots[*slot_count].node, QCG_NAME_MAX, "%.63s", nodes[i].name);
		slots[(*slot_count)++].count = take;
		rest -= take;
		size_t used = strlen(nodes_csv);
		snprintf(nodes_csv + used, csv_len - used, "%s%.63s", used ? "," : "", nodes[i].name);
	}
	if (rest > 0) {
		snprintf(err, errlen, "Slurm job %s holds too few CPUs for %d tasks", job_id,
		    req->slots);
		return RESV_FULL;
	}
	return RESV_OK;
}

static enum resv_status
slurm_reserve(void *state, double now, const struct resv_request *req, struct resv_grant *out,
    char *err, size_t errlen)
{
	struct slurm_state *s = state;
	char job_id[SLURM_JOB_ID_MAX], nodes_csv[1024];
	struct resv_slot slots[SLURM_ALLOC_NODES_MAX];
	size_t slot_count = 0;
	/* The request's own checks first: Slurm is not asked for what the table would refuse. */
	for (size_t i = 0; i < req->node_count; i++)
		if (req->nodes[i] == NULL || strchr(req->nodes[i], ',') != NULL) {
			snprintf(err, errlen, "a requested node name is missing or holds a comma");
			return RESV_BAD_REQUEST;
		}
	if (req->slots < 1 || req->slots > FE_SLOTS_MAX * FE_NODES_MAX) {
		snprintf(err, errlen, "slots must be a positive number, got %d", req->slots);
		return RESV_BAD_REQUEST;
	}
	enum resv_status st = allocate(s, req, job_id, err, errlen);
	if (st != RESV_OK)
		return st;
	st = placement(s, req, job_id, slots, &slot_count, nodes_csv, sizeof(nodes_csv), err,
	    errlen);
	if (st == RESV_OK)
		st = resv_reserve_placed(s->table, now, req, slots, slot_count, out, err, errlen);
	if (st != RESV_OK) {
		cancel_job(s, job_id, "the reservation could not be made");
		return st;
	}
	pthread_mutex_lock(&s->lock);
	size_t i = 0;
	while (i < s->max && s->alloc[i].used)
		i++;
	if (i < s->max) {
		struct slurm_alloc *a = &s->alloc[i];
		a->used = true;
		snprintf(a->resv_id, sizeof(a->resv_id), "%s", out->id);
		snprintf(a->job_id, sizeof(a->job_id), "%s", job_id);
		snprintf(a->nodes, sizeof(a->nodes), "%s", nodes_csv);
		a->next_check = now + (double)s->cfg.check_interval;
	}
	pthread_mutex_unlock(&s->lock);
	if (i == s->max) {
		/* Entries of gone reservations are freed by the next check: until then a full
		 * table must not leave a Slurm job that nothing would cancel. */
		struct resv_launch_info none;
		size_t n;
		resv_revoke(s->table, now, out->id, "the front-end tracks too many Slurm jobs", &none,
		    0, &n);
		cancel_job(s, job_id, "no room to track it");
		snprintf(err, errlen, "%zu Slurm allocations are held: the front-end's limit", s->max);
		return RESV_FULL;
	}
	log_info("reservation %s is Slurm job %s on %s (grid job %s)", out->id, job_id, nodes_csv,
	    req->job);
	return RESV_OK;
}

/* Forget entry i and return its job id (to cancel outside the lock). */
static void
take_entry(struct slurm_state *s, size_t i, char job_id[SLURM_JOB_ID_MAX])
{
	snprintf(job_id, SLURM_JOB_ID_MAX, "%s", s->alloc[i].job_id);
	s->alloc[i].used = false;
}

static void
slurm_released(void *state, const char *id)
{
	struct slurm_state *s = state;
	char job_id[SLURM_JOB_ID_MAX] = "";
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->max; i++)
		if (s->alloc[i].used && strcmp(s->alloc[i].resv_id, id) == 0)
			take_entry(s, i, job_id);
	pthread_mutex_unlock(&s->lock);
	if (job_id[0])
		cancel_job(s, job_id, "its reservation was released");
}

/* Why Slurm job a no longer backs its reservation (into why), or 0 when it still does. */
static int
broken(struct slurm_state *s, const struct slurm_alloc *a, char *why, size_t whylen)
{
	char job[SLURM_JOB_ID_MAX], nodes[1024], err[256];
	snprintf(job, sizeof(job), "%s", a->job_id);
	snprintf(nodes, sizeof(nodes), "%s", a->nodes);
	char *sq[] = { "squeue", "-h", "-j", job, "-o", "%T", NULL };
	char *si[] = { "sinfo", "-h", "-N", "-n", nodes, "-o", "%N %t", NULL };
	struct slurm_cmd_result *res = malloc(sizeof(*res));
	int rc = 0;
	if (res == NULL)
		return 0;
	/* squeue fails with "Invalid job id" once Slurm has forgotten the job: it ended. Any
	 * other failure (slurmctld restarting, a timeout) says nothing about the job: it is
	 * asked again at the next check rather than failing a grid job on a hiccup. */
	if (run(s, sq, s->cfg.command_timeout, res, err, sizeof(err)) != 0) {
		if (!res->timed_out && strstr(res->err, "Invalid job id") != NULL) {
			snprintf(why, whylen, "Slurm job %s has ended (%.120s)", job, err);
			rc = 1;
		} else
			log_warn("Slurm job %s could not be checked: %s", job, err);
	} else if (strncmp(res->out, "RUNNING", 7) != 0 &&
	    strncmp(res->out, "CONFIGURING", 11) != 0) {
		snprintf(why, whylen, "Slurm job %s is %.*s", job, (int)strcspn(res->out, "\n"),
		    res->out[0] ? res->out : "gone");
		rc = 1;
	} else if (run(s, si, s->cfg.command_timeout, res, err, sizeof(err)) == 0) {
		for (char *line = strtok(res->out, "\n"); line && !rc; line = strtok(NULL, "\n")) {
			char name[QCG_NAME_MAX], st[32], word[64];
			if (sscanf(line, "%63s %31s", name, st) == 2 && slurm_node_state_lost(st)) {
				snprintf(why, whylen, "node %s of Slurm job %s is %s", name, job,
				    slurm_node_state_word(st, word, sizeof(word)));
				rc = 1;
			}
		}
	}
	free(res);
	return rc;
}

static int
slurm_check(void *state, double now, char id[RESV_ID_LEN], char *why, size_t whylen,
    struct resv_launch_info *launches, size_t max, size_t *count)
{
	struct slurm_state *s = state;
	struct slurm_alloc a;
	*count = 0;
	for (size_t i = 0; i < s->max; i++) {
		char job_id[SLURM_JOB_ID_MAX] = "";
		pthread_mutex_lock(&s->lock);
		a = s->alloc[i];
		if (a.used && !resv_is_live(s->table, now, a.resv_id))
			take_entry(s, i, job_id);
		else if (a.used && a.next_check <= now)
			s->alloc[i].next_check = now + (double)s->cfg.check_interval;
		pthread_mutex_unlock(&s->lock);
		if (job_id[0]) {
			cancel_job(s, job_id, "its reservation is gone (lapsed, wall time or job end)");
			continue;
		}
		if (!a.used || a.next_check > now || !broken(s, &a, why, whylen))
			continue;
		/* Revoke first, so that no launch starts on it meanwhile, then cancel. */
		enum resv_status st = resv_revoke(s->table, now, a.resv_id, why, launches, max, count);
		pthread_mutex_lock(&s->lock);
		if (s->alloc[i].used && strcmp(s->alloc[i].resv_id, a.resv_id) == 0)
			take_entry(s, i, job_id);
		pthread_mutex_unlock(&s->lock);
		if (job_id[0])
			cancel_job(s, job_id, why);
		if (st == RESV_OK) {
			snprintf(id, RESV_ID_LEN, "%s", a.resv_id);
			return 1;
		}
	}
	return 0;
}

static void
slurm_job_of(void *state, const char *id, char job[ALLOC_JOB_ID_MAX])
{
	struct slurm_state *s = state;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->max; i++)
		if (s->alloc[i].used && strcmp(s->alloc[i].resv_id, id) == 0)
			snprintf(job, ALLOC_JOB_ID_MAX, "%s", s->alloc[i].job_id);
	pthread_mutex_unlock(&s->lock);
}

static int
slurm_launch_prefix(void *state, const char *id, const char *node, char *const *env,
    int env_count, const char *prefix[ALLOC_LAUNCH_PREFIX_MAX], char *storage,
    size_t storage_len, int *drop_env_index, char *err, size_t errlen)
{
	char job[ALLOC_JOB_ID_MAX] = "";
	slurm_job_of(state, id, job);
	if (job[0] == '\0') {
		snprintf(err, errlen, "reservation %.40s holds no Slurm allocation", id);
		return -1;
	}
	return slurm_step_prefix(job, node, ((struct slurm_state *)state)->cfg.slurm_conf, env, env_count, prefix, ALLOC_LAUNCH_PREFIX_MAX,
	    storage, storage_len, drop_env_index, err, errlen);
}

const struct allocator_ops allocator_slurm_ops = {
	"slurm", slurm_open, slurm_close, slurm_reserve, slurm_released, slurm_check,
	slurm_job_of, slurm_launch_prefix,
};
