/*
 * registry_multicast.c: the multicast_groups table: groups of the administratively scoped
 * 239.192.0.0/16 handed to jobs for the multicast broadcast, so that two jobs never share one.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "registry_internal.h"

#define MCAST_PREFIX 0xefc00000u /* 239.192.0.0 */
#define MCAST_SLOTS 65536u       /* the /16; slot 0 (239.192.0.0) is never handed out */
#define MCAST_PORT 7000
#define MCAST_JOB_MAX 256        /* groups one job may hold (one per communicator and cluster) */

/* Mark in `taken` every slot of the /16 that some job holds on MCAST_PORT. */
static int
mark_taken(struct registry *reg, unsigned char *taken, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_MCAST_TAKEN,
	    "SELECT address FROM multicast_groups WHERE port = ?1", op);
	char address[QCG_ADDR_MAX];
	struct in_addr in;
	int rc;

	if (st == NULL)
		return -1;
	if (reg_bind_int64(reg, st, 1, MCAST_PORT, op) != 0)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t host;

		if (reg_column_text(reg, st, 0, address, sizeof(address), op) != 0)
			goto fail;
		if (inet_pton(AF_INET, address, &in) != 1) {
			reg_failf(reg, "%s: stored multicast address '%s' is not IPv4", op, address);
			goto fail;
		}
		host = ntohl(in.s_addr);
		/* Groups outside the /16 (none are made here) cannot collide with ours. */
		if ((host & 0xffff0000u) == MCAST_PREFIX) {
			uint32_t slot = host & 0xffffu;
			taken[slot / 8] |= (unsigned char)(1u << (slot % 8));
		}
	}
	if (rc != SQLITE_DONE) {
		reg_fail_sqlite(reg, op);
		goto fail;
	}
	reg_release(st);
	return 0;
fail:
	reg_release(st);
	return -1;
}

/* Refuse a job that already holds MCAST_JOB_MAX groups or has ended (its groups were released;
 * a late request must not take one again). */
static int
job_below_cap(struct registry *reg, const char *job, const char *op)
{
	struct multicast_group *list = NULL;
	struct job j;
	size_t n = 0;
	if (registry_get_job(reg, job, &j) != 0)
		return -1; /* no such job (the message says so) or a failure */
	free(j.description);
	if (j.state != JOB_PENDING && j.state != JOB_RUNNING) {
		reg_failf(reg, "%s: job '%s' has ended", op, job);
		return -1;
	}
	if (registry_list_multicast_groups(reg, job, &list, &n) != 0)
		return -1;
	free(list);
	if (n >= MCAST_JOB_MAX) {
		reg_failf(reg, "%s: job '%s' already holds %zu multicast groups (the limit)", op,
		    job, n);
		return -1;
	}
	return 0;
}

/* The lowest free slot from 1 on, or 0 when the /16 is full. */
static uint32_t
lowest_free(const unsigned char *taken)
{
	for (uint32_t slot = 1; slot < MCAST_SLOTS; slot++)
		if (!(taken[slot / 8] & (1u << (slot % 8))))
			return slot;
	return 0;
}

/* Record group g as held by g->job. */
static int
insert_group(struct registry *reg, const struct multicast_group *g, const char *op)
{
	sqlite3_stmt *st = reg_stmt(reg, STMT_MCAST_INSERT,
	    "INSERT INTO multicast_groups (job, address, port, allocated) VALUES (?1, ?2, ?3, ?4)",
	    op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, g->job, sizeof(g->job), op, "job") != 0 ||
	    reg_bind_text(reg, st, 2, g->address, sizeof(g->address), op, "address") != 0 ||
	    reg_bind_int64(reg, st, 3, g->port, op) != 0 ||
	    reg_bind_int64(reg, st, 4, g->allocated, op) != 0)
		goto out;
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else if (sqlite3_extended_errcode(reg->db) == SQLITE_CONSTRAINT_FOREIGNKEY)
		reg_failf(reg, "%s: job '%s' is not registered", op, g->job);
	else
		reg_fail_sqlite(reg, op);
out:
	reg_release(st);
	return rc;
}

int
registry_allocate_multicast_group(struct registry *reg, const char *job,
    struct multicast_group *out)
{
	const char *op = "registry_allocate_multicast_group";
	unsigned char taken[MCAST_SLOTS / 8] = { 0 };
	struct in_addr in;
	uint32_t slot;

	if (reg_check_length(reg, job, sizeof(out->job), op, "job") != 0)
		return -1;
	/* IMMEDIATE: another broker worker must not pick the same slot between our read and
	 * our insert. */
	if (reg_begin(reg, op) != 0)
		return -1;
	if (job_below_cap(reg, job, op) != 0 || mark_taken(reg, taken, op) != 0)
		goto fail;
	if ((slot = lowest_free(taken)) == 0) {
		reg_failf(reg, "%s: every group of 239.192.0.0/16 is taken", op);
		goto fail;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->job, sizeof(out->job), "%s", job);
	in.s_addr = htonl(MCAST_PREFIX | slot);
	if (inet_ntop(AF_INET, &in, out->address, sizeof(out->address)) == NULL) {
		reg_failf(reg, "%s: cannot format group %u", op, (unsigned)slot);
		goto fail;
	}
	out->port = MCAST_PORT;
	out->allocated = (int64_t)time(NULL);
	if (insert_group(reg, out, op) != 0)
		goto fail;
	return reg_commit(reg, op);
fail:
	reg_rollback(reg);
	return -1;
}

int
registry_release_multicast_groups(struct registry *reg, const char *job)
{
	const char *op = "registry_release_multicast_groups";
	sqlite3_stmt *st = reg_stmt(reg, STMT_MCAST_RELEASE,
	    "DELETE FROM multicast_groups WHERE job = ?1", op);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (reg_bind_text(reg, st, 1, job, QCG_NAME_MAX, op, "job") != 0 ||
	    reg_step_done(reg, st, op) != 0)
		goto out;
	rc = 0;
out:
	reg_release(st);
	return rc;
}

static int
read_group(struct registry *reg, sqlite3_stmt *st, void *dst, const char *op)
{
	struct multicast_group *g = dst;
	int64_t port;

	if (reg_column_text(reg, st, 0, g->job, sizeof(g->job), op) != 0 ||
	    reg_column_text(reg, st, 1, g->address, sizeof(g->address), op) != 0 ||
	    reg_column_range(reg, st, 2, 1, UINT16_MAX, &port, op) != 0 ||
	    reg_column_int64(reg, st, 3, &g->allocated, op) != 0)
		return -1;
	g->port = (uint16_t)port;
	return 0;
}

int
registry_list_multicast_groups(struct registry *reg, const char *job,
    struct multicast_group **out, size_t *count)
{
	const char *op = "registry_list_multicast_groups";
	sqlite3_stmt *st = reg_stmt(reg, STMT_MCAST_LIST,
	    "SELECT job, address, port, allocated FROM multicast_groups WHERE job = ?1 "
	    "ORDER BY rowid", op);
	void *rows;

	if (reg_collect_for_job(reg, st, job, sizeof(**out), read_group, &rows, count, op) != 0)
		return -1;
	*out = rows;
	return 0;
}
