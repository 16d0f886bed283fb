/*
 * registry_jobs.c: the jobs table: who submitted a job, its state and times, and its
 * description, for qcg-status, qcg-cancel and SOAP clients.
 *
 * A job in a final state (done, failed, cancelled) stays there: a late "running" or a cancel
 * after the end is refused with REGISTRY_DENIED rather than rewriting history.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

#define JOB_COLUMNS "id, owner_dn, state, submitted, started, finished, exit_code"
#define FINAL_STATES "('done', 'failed', 'cancelled')"

/* The state's name, or NULL (error set) when the enum value is not one. */
static const char *
state_name(struct registry *reg, enum job_state state, const char *op)
{
	const char *name = job_state_name(state);

	if (strcmp(name, "?") == 0) {
		reg_failf(reg, "%s: job state %d is not known", op, (int)state);
		return NULL;
	}
	return name;
}

static int
bind_job(struct registry *reg, sqlite3_stmt *st, const struct job *j, const char *op)
{
	const char *state = state_name(reg, j->state, op);

	if (state == NULL)
		return -1;
	if (j->description != NULL &&
	    strnlen(j->description, REGISTRY_DESCRIPTION_MAX + 1) > REGISTRY_DESCRIPTION_MAX)
		return reg_failf(reg, "%s: job '%.*s' description is longer than %d bytes", op,
		    QCG_NAME_MAX - 1, j->id, REGISTRY_DESCRIPTION_MAX);
	if (reg_bind_text(reg, st, 1, j->id, sizeof(j->id), op, "job id") != 0 ||
	    reg_bind_text(reg, st, 2, j->owner_dn, sizeof(j->owner_dn), op, "owner DN") != 0 ||
	    reg_bind_text(reg, st, 3, state, QCG_NAME_MAX, op, "state") != 0 ||
	    reg_bind_int64(reg, st, 4, j->submitted, op) != 0 ||
	    reg_bind_int64(reg, st, 5, j->started, op) != 0 ||
	    reg_bind_int64(reg, st, 6, j->finished, op) != 0 ||
	    reg_bind_int64(reg, st, 7, j->exit_code, op) != 0)
		return -1;
	if (j->description != NULL &&
	    sqlite3_bind_text(st, 8, j->description, -1, SQLITE_STATIC) != SQLITE_OK)
		return reg_fail_sqlite(reg, op);
	return 0;
}

int
registry_put_job(struct registry *reg, const struct job *j)
{
	const char *op = "registry_put_job";
	/* Resubmitting an id replaces the row only for the same owner (checked in the WHERE, so
	 * changes() says whether it happened). */
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_UPSERT,
	    "INSERT INTO jobs (" JOB_COLUMNS ", description) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
	    "ON CONFLICT (id) DO UPDATE SET state = excluded.state, "
	    "submitted = excluded.submitted, started = excluded.started, "
	    "finished = excluded.finished, exit_code = excluded.exit_code, "
	    "description = excluded.description WHERE jobs.owner_dn = excluded.owner_dn", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (bind_job(reg, st, j, op) != 0 || reg_step_done(reg, st, op) != 0)
		goto out;
	rc = 0;
	if (sqlite3_changes(reg->db) == 0) {
		reg_failf(reg, "%s: job '%s' belongs to another owner", op, j->id);
		rc = REGISTRY_DENIED;
	}
out:
	reg_release(st);
	return rc;
}

/* After an update that changed nothing: NOT_FOUND, or DENIED because the job has ended. */
static int
explain_no_state_change(struct registry *reg, const char *id, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_STATE, "SELECT state FROM jobs WHERE id = ?1", op);
	char state[QCG_NAME_MAX];
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, id, QCG_NAME_MAX, op, "job id") != 0)
		goto out;
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: no job '%s'", op, id);
		rc = REGISTRY_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		reg_fail_sqlite(reg, op);
	} else if (reg_column_text(reg, st, 0, state, sizeof(state), op) == 0) {
		reg_failf(reg, "%s: job '%s' has already ended (%s)", op, id, state);
		rc = REGISTRY_DENIED;
	}
out:
	reg_release(st);
	return rc;
}

int
registry_set_job_state(struct registry *reg, const char *id, enum job_state state,
    int exit_code, int64_t when)
{
	const char *op = "registry_set_job_state";
	/* ?4: entering running sets started; ?5: entering a final state sets finished and the
	 * exit code. */
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_SET_STATE,
	    "UPDATE jobs SET state = ?2, "
	    "started = CASE WHEN ?4 THEN ?6 ELSE started END, "
	    "finished = CASE WHEN ?5 THEN ?6 ELSE finished END, "
	    "exit_code = CASE WHEN ?5 THEN ?3 ELSE exit_code END "
	    "WHERE id = ?1 AND state NOT IN " FINAL_STATES, op);
	const char *name;
	int rc = -1;

	if (st == NULL)
		return -1;
	if ((name = state_name(reg, state, op)) == NULL)
		goto out;
	if (reg_bind_text(reg, st, 1, id, QCG_NAME_MAX, op, "job id") != 0 ||
	    reg_bind_text(reg, st, 2, name, QCG_NAME_MAX, op, "state") != 0 ||
	    reg_bind_int64(reg, st, 3, exit_code, op) != 0 ||
	    reg_bind_int64(reg, st, 4, state == JOB_RUNNING, op) != 0 ||
	    reg_bind_int64(reg, st, 5, job_state_is_final(state), op) != 0 ||
	    reg_bind_int64(reg, st, 6, when, op) != 0 ||
	    reg_step_done(reg, st, op) != 0)
		goto out;
	rc = sqlite3_changes(reg->db) ? 0 : explain_no_state_change(reg, id, op);
out:
	reg_release(st);
	/* A job that ended gives its multicast groups back, so other jobs can have them. */
	if (rc == 0 && job_state_is_final(state))
		rc = registry_release_multicast_groups(reg, id);
	return rc;
}

/* Read JOB_COLUMNS into j; description is left NULL. */
static int
read_job(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct job *j = dst;
	char state[QCG_NAME_MAX];
	int64_t exit_code;

	memset(j, 0, sizeof(*j));
	if (reg_column_text(reg, st, 0, j->id, sizeof(j->id), op) != 0 ||
	    reg_column_text(reg, st, 1, j->owner_dn, sizeof(j->owner_dn), op) != 0 ||
	    reg_column_text(reg, st, 2, state, sizeof(state), op) != 0 ||
	    reg_column_int64(reg, st, 3, &j->submitted, op) != 0 ||
	    reg_column_int64(reg, st, 4, &j->started, op) != 0 ||
	    reg_column_int64(reg, st, 5, &j->finished, op) != 0 ||
	    reg_column_range(reg, st, 6, INT32_MIN, INT32_MAX, &exit_code, op) != 0)
		return -1;
	if (job_state_parse(state, &j->state) != 0)
		return reg_failf(reg, "%s: job '%s' has unknown state '%s'", op, j->id, state);
	j->exit_code = (int)exit_code;
	return 0;
}

/* Copy column col (text or NULL) into a malloc'ed string at *out. */
static int
read_description(struct registry *reg, sqlite3_stmt *st, int col, char **out, const char *op)
{
	const unsigned char *text;
	int len;

	*out = NULL;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	if ((text = sqlite3_column_text(st, col)) == NULL)
		return reg_fail_sqlite(reg, op);
	len = sqlite3_column_bytes(st, col);
	if (len < 0 || len > REGISTRY_DESCRIPTION_MAX)
		return reg_failf(reg, "%s: stored description is %d bytes, more than %d", op, len,
		    REGISTRY_DESCRIPTION_MAX);
	if ((*out = malloc((size_t)len + 1)) == NULL)
		return reg_failf(reg, "%s: out of memory for a %d byte description", op, len);
	memcpy(*out, text, (size_t)len + 1);
	return 0;
}

int
registry_get_job(struct registry *reg, const char *id, struct job *out)
{
	const char *op = "registry_get_job";
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_GET,
	    "SELECT " JOB_COLUMNS ", description FROM jobs WHERE id = ?1", op);
	int rc = -1, step;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, id, QCG_NAME_MAX, op, "job id") != 0)
		goto out;
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		reg_failf(reg, "%s: no job '%s'", op, id);
		rc = REGISTRY_NOT_FOUND;
	} else if (step != SQLITE_ROW) {
		reg_fail_sqlite(reg, op);
	} else if (read_job(reg, st, out, op) == 0) {
		rc = read_description(reg, st, 7, &out->description, op);
	}
out:
	reg_release(st);
	return rc;
}

int
registry_list_jobs(struct registry *reg, size_t limit, struct job **out, size_t *count)
{
	const char *op = "registry_list_jobs";
	sqlite3_stmt *st = reg_stmt(reg, STMT_JOB_LIST,
	    "SELECT " JOB_COLUMNS " FROM jobs ORDER BY submitted DESC, id DESC LIMIT ?1", op);
	void *rows;

	if (st == NULL)
		return -1;
	if (limit > REG_LIST_MAX)
		limit = REG_LIST_MAX;
	if (reg_bind_int64(reg, st, 1, (int64_t)limit, op) != 0) {
		reg_release(st);
		return -1;
	}
	if (reg_collect(reg, st, sizeof(**out), read_job, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}
