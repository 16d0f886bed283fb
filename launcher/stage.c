/*
 * stage.c: stage-in and stage-out through the front-ends, streamed and checksummed
 * (stage.h).
 */
#define _GNU_SOURCE /* fopencookie */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "soapH.h"
#include "http_stream.h"
#include "remote_run.h"
#include "soap_client.h"
#include "stage.h"

#define STAGE_ERR_KEEP 4096 /* bytes of a node's stderr kept for the message */

static const char *
workdir_of(const struct job_desc *job)
{
	return job->workdir.line ? job->workdir.text : "/tmp";
}

static void
hex_of(const unsigned char *md, char hex[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* SHA-256 of an open file (read from its start); 0 with hex, or -1 with errno. */
static int
sha256_of_file(FILE *f, char hex[65])
{
	static unsigned char buf[STAGE_CHUNK];
	unsigned char md[32];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t n;
	int rc = -1;
	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		goto out;
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (EVP_DigestUpdate(ctx, buf, n) != 1)
			goto out;
	if (ferror(f) || EVP_DigestFinal_ex(ctx, md, &mdlen) != 1)
		goto out;
	hex_of(md, hex);
	rewind(f);
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* The first line of a node's stderr, for a message. */
static void
first_line(FILE *errs, char *why, size_t whylen)
{
	size_t n;
	rewind(errs);
	n = fread(why, 1, whylen - 1, errs);
	why[n] = '\0';
	why[strcspn(why, "\n")] = '\0';
	if (n == 0)
		snprintf(why, whylen, "(no message)");
}

/* Wait for a staging launch to end; 0 when it exited 0, else -1 with why (its stderr's first
 * line). Its stdout goes to out. */
static int
await_launch(struct soap *soap, const char *url, const char *id, FILE *out, FILE *errs,
    char *why, size_t whylen)
{
	struct remote_status st;
	if (remote_stream(soap, url, id, NULL, out, errs, &st, why, whylen) != 0)
		return -1;
	int code = remote_status_code(&st);
	if (code == 0)
		return 0;
	char line[512];
	first_line(errs, line, sizeof(line));
	snprintf(why, whylen, "exit %d: %s", code, line);
	return -1;
}

static void
kill_launch(struct soap *soap, const char *url, const char *id)
{
	struct _qf__Signal req = { (char *)id, 15 };
	struct _qf__SignalResponse resp;
	soap_call___qf__Signal(soap, url, NULL, &req, &resp); /* it may have ended: no matter */
	soap_client_reset(soap);
}

/* Whether the staged name is the job's program (as "prog" or "./prog"): it gets mode 0700,
 * so that a program staged from the user's host runs on nodes that never installed it. */
static bool
is_the_executable(const struct job_desc *job, const char *to)
{
	const char *e = job->executable.text;
	if (strncmp(e, "./", 2) == 0)
		e += 2;
	return strcmp(e, to) == 0;
}

/* The bytes' PUT failed after sent of them: the node's own reason when its receiver ended (it
 * refused the name, or the checksum), else the PUT's. Always -1. */
static int
node_refused(struct soap *soap, const char *url, const char *id, uint64_t sent,
    const char *call_error, char *why, size_t whylen)
{
	char node[512] = "";
	FILE *errs = tmpfile();
	kill_launch(soap, url, id); /* a receiver still waiting must not linger */
	if (errs != NULL && await_launch(soap, url, id, errs, errs, node, sizeof(node)) != 0 &&
	    strstr(node, "exit 143") == NULL) /* 143: our TERM, nothing the node found */
		snprintf(why, whylen, "%s", node);
	else
		snprintf(why, whylen, "%.300s: the file's bytes after %" PRIu64 " sent: %s", url, sent,
		    call_error);
	if (errs)
		fclose(errs);
	return -1;
}

/* The launch id a StageIn or StageOut call (rc, op) answered, into id; -1 with why when the
 * call failed or the answer holds no usable id. Resets soap either way. */
static int
launch_id_of(struct soap *soap, int rc, const char *answered, const char *url, const char *op,
    char id[REMOTE_LAUNCH_ID_MAX], char *why, size_t whylen)
{
	char msg[256];
	if (rc != SOAP_OK || answered == NULL || strlen(answered) >= REMOTE_LAUNCH_ID_MAX) {
		soap_client_error(soap, msg, sizeof(msg));
		snprintf(why, whylen, "%.300s: %s: %s", url, op, msg);
		soap_client_reset(soap);
		return -1;
	}
	snprintf(id, REMOTE_LAUNCH_ID_MAX, "%s", answered);
	soap_client_reset(soap);
	return 0;
}

/* f as a PUT's source. */
static ssize_t
read_file(void *ctx, char *buf, size_t len)
{
	FILE *f = ctx;
	size_t n = fread(buf, 1, len, f);
	return n > 0 ? (ssize_t)n : ferror(f) ? -1 : 0;
}

/* Stream f (size bytes, digest hex) to one node as name under workdir; mode 0700 when
 * executable, else 0600. */
static int
send_named(struct soap *soap, const struct coalloc_part *p, const char *node, const char *name,
    const char *workdir, bool executable, FILE *f, uint64_t size, const char *hex, char *why,
    size_t whylen)
{
	char id[REMOTE_LAUNCH_ID_MAX], msg[256];
	struct _qf__StageIn req = { (char *)p->reservation, (char *)node, (char *)name,
		(LONG64)size, (char *)hex, executable ? xsd__boolean__true_ : xsd__boolean__false_,
		(char *)workdir };
	struct _qf__StageInResponse resp;
	int started = soap_call___qf__StageIn(soap, p->frontend_url, NULL, &req, &resp);
	if (launch_id_of(soap, started, resp.launchId, p->frontend_url, "StageIn", id, why,
	    whylen) != 0)
		return -1;
	/* The bytes as a PUT body (lib/http_stream.h): no base64, and the front-end relays
	 * each block to the node while the next arrives. */
	char target[HTTP_STREAM_TARGET_MAX];
	uint64_t sent;
	snprintf(target, sizeof(target), HTTP_STREAM_STAGE_IN "%s", id);
	rewind(f);
	int status = http_stream_put(soap, p->frontend_url, target, size, read_file, f, &sent,
	    msg, sizeof(msg));
	if (status != 200) {
		if (ferror(f)) {
			snprintf(why, whylen, "cannot read it here: %s", strerror(errno));
			/* the receiver gets TERM and removes its temporary file */
			kill_launch(soap, p->frontend_url, id);
			return -1;
		}
		return node_refused(soap, p->frontend_url, id, sent, msg, why, whylen);
	}
	FILE *errs = tmpfile();
	if (errs == NULL) {
		snprintf(why, whylen, "tmpfile: %s", strerror(errno));
		return -1;
	}
	int rc = await_launch(soap, p->frontend_url, id, errs, errs, why, whylen);
	fclose(errs);
	return rc;
}

/* Stream f to one node as the description's stage-in s. */
static int
send_file(struct soap *soap, const struct coalloc_part *p, const char *node,
    const struct job_desc *job, const struct job_stage *s, FILE *f, uint64_t size,
    const char *hex, char *why, size_t whylen)
{
	return send_named(soap, p, node, s->to.text, workdir_of(job),
	    is_the_executable(job, s->to.text), f, size, hex, why, whylen);
}

int
stage_put_file(struct soap *soap, const struct coalloc_part *p, const char *node,
    const char *local, const char *name, const char *workdir, char *err, size_t errlen)
{
	char why[1024], hex[65];
	struct stat sb;
	FILE *f = fopen(local, "rb");
	if (f == NULL || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sha256_of_file(f, hex) != 0) {
		snprintf(err, errlen, "%s: %s", local, f && !S_ISREG(sb.st_mode) ?
		    "not a regular file" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	int rc = send_named(soap, p, node, name, workdir, false, f, (uint64_t)sb.st_size, hex,
	    why, sizeof(why));
	fclose(f);
	if (rc != 0)
		snprintf(err, errlen, "%s -> %s:%s/%s: %s", local, node, workdir, name, why);
	return rc;
}

/* One cluster's share of a stage-in: the file to each of its nodes, one after another. */
struct part_transfer {
	struct soap *soap; /* the caller's, or a connection of this transfer's own */
	const struct coalloc_part *part;
	const struct job_desc *job;
	const struct job_stage *stage;
	uint64_t size;
	const char *hex;
	int rc;
	char err[4096]; /* the paths, the node and its reason */
	pthread_t thread;
	bool started;
};

static void *
transfer_part(void *arg)
{
	struct part_transfer *t = arg;
	char why[1024];
	const struct coalloc_part *p = t->part;
	/* a FILE of its own: the threads read the same file at their own offsets */
	FILE *f = fopen(t->stage->from.text, "rb");
	t->rc = -1;
	if (f == NULL) {
		snprintf(t->err, sizeof(t->err), "stage-in %s: %s", t->stage->from.text,
		    strerror(errno));
		return NULL;
	}
	for (int n = 0; n < p->node_count; n++)
		if (send_file(t->soap, p, p->node[n].name, t->job, t->stage, f, t->size, t->hex,
		    why, sizeof(why)) != 0) {
			snprintf(t->err, sizeof(t->err), "stage-in %s -> %s:%s: %s",
			    t->stage->from.text, p->node[n].name, t->stage->to.text, why);
			fclose(f);
			return NULL;
		}
	fclose(f);
	t->rc = 0;
	return NULL;
}

/* A client like soap (its timeouts and size bound) with the same credentials, for one
 * cluster's transfer; NULL with err. */
static struct soap *
client_like(const struct soap *soap, const struct tls_settings *tls, char *err, size_t errlen)
{
	struct soap_client_settings s = { soap->connect_timeout, soap->recv_timeout,
		(uint64_t)soap->recv_maxlength };
	return soap_client_new(tls, &s, err, errlen);
}

int
stage_in(struct soap *soap, const struct tls_settings *tls, const struct coalloc *c,
    const struct job_desc *job, char *err, size_t errlen)
{
	char hex[65];
	struct part_transfer t[JOB_CLUSTERS_MAX];
	if (c->count > JOB_CLUSTERS_MAX) {
		snprintf(err, errlen, "stage-in: %d clusters, at most %d", c->count,
		    JOB_CLUSTERS_MAX);
		return -1;
	}
	for (int i = 0; i < job->stage_in_count; i++) {
		const struct job_stage *s = &job->stage_in[i];
		FILE *f = fopen(s->from.text, "rb");
		struct stat sb;
		if (f == NULL || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ||
		    sha256_of_file(f, hex) != 0) {
			snprintf(err, errlen, "stage-in %s: %s", s->from.text,
			    f && !S_ISREG(sb.st_mode) ? "not a regular file" : strerror(errno));
			if (f)
				fclose(f);
			return -1;
		}
		fclose(f);
		/* Each cluster's front-end is a host of its own (a site's gateway): its
		 * transfer runs in a thread with its own connection, so the clusters' copies
		 * overlap instead of queueing behind each other. One cluster: no thread. */
		memset(t, 0, sizeof(t[0]) * (size_t)c->count);
		for (int p = 0; p < c->count; p++) {
			t[p] = (struct part_transfer){ .soap = soap, .part = &c->part[p], .job = job,
				.stage = s, .size = (uint64_t)sb.st_size, .hex = hex };
			if (c->count == 1)
				break;
			char why[1024];
			if ((t[p].soap = client_like(soap, tls, why, sizeof(why))) == NULL) {
				snprintf(t[p].err, sizeof(t[p].err), "stage-in %s: no connection for "
				    "cluster %s: %s", s->from.text, c->part[p].cluster->name, why);
				t[p].rc = -1;
				break;
			}
			if (pthread_create(&t[p].thread, NULL, transfer_part, &t[p]) != 0) {
				snprintf(t[p].err, sizeof(t[p].err), "stage-in %s: cannot start a "
				    "thread for cluster %s", s->from.text, c->part[p].cluster->name);
				soap_client_free(t[p].soap);
				t[p].soap = NULL;
				t[p].rc = -1;
				break;
			}
			t[p].started = true;
		}
		if (c->count == 1)
			transfer_part(&t[0]);
		for (int p = 0; p < c->count; p++) {
			if (t[p].started) {
				pthread_join(t[p].thread, NULL);
				soap_client_free(t[p].soap);
			}
		}
		/* the first failed cluster's reason, in the description's order (those never
		 * started after a failure to start one kept rc 0) */
		for (int p = 0; p < c->count; p++)
			if (t[p].rc != 0) {
				snprintf(err, errlen, "%s", t[p].err);
				return -1;
			}
	}
	return 0;
}

/* A FILE that hashes what is written to it on the way to the file under it. */
struct hashing_file {
	FILE *to;
	EVP_MD_CTX *ctx;
	int failed;
};

static ssize_t
hashing_write(void *cookie, const char *buf, size_t n)
{
	struct hashing_file *h = cookie;
	if (EVP_DigestUpdate(h->ctx, buf, n) != 1 || fwrite(buf, 1, n, h->to) != n) {
		h->failed = 1;
		return -1;
	}
	return (ssize_t)n;
}

/* Fetch one file from node into a temporary file beside to, check its digest, rename. */
static int
fetch_file(struct soap *soap, const struct coalloc_part *p, const char *node,
    const struct job_desc *job, const struct job_stage *s, char *why, size_t whylen)
{
	char id[REMOTE_LAUNCH_ID_MAX], msg[256], tmp[4096], got[65], told[80];
	unsigned char md[32];
	unsigned int mdlen = 0;
	struct _qf__StageOut req = { (char *)p->reservation, (char *)node, (char *)s->from.text,
		(char *)workdir_of(job) };
	struct _qf__StageOutResponse resp;
	if (snprintf(tmp, sizeof(tmp), "%s.qcg-stage.XXXXXX", s->to.text) >= (int)sizeof(tmp)) {
		snprintf(why, whylen, "the local name is too long");
		return -1;
	}
	int started = soap_call___qf__StageOut(soap, p->frontend_url, NULL, &req, &resp);
	if (launch_id_of(soap, started, resp.launchId, p->frontend_url, "StageOut", id, why,
	    whylen) != 0)
		return -1;
	int fd = mkstemp(tmp);
	bool made = fd >= 0;
	FILE *to = made ? fdopen(fd, "wb") : NULL;
	if (made && to == NULL)
		close(fd);
	FILE *errs = tmpfile();
	struct hashing_file h = { to, EVP_MD_CTX_new(), 0 };
	cookie_io_functions_t io = { .write = hashing_write };
	FILE *out = to && errs && h.ctx && EVP_DigestInit_ex(h.ctx, EVP_sha256(), NULL) == 1 ?
	    fopencookie(&h, "w", io) : NULL;
	int rc = -1;
	if (out == NULL) {
		snprintf(why, whylen, "cannot write here: %s", strerror(errno));
		kill_launch(soap, p->frontend_url, id);
		goto out;
	}
	rc = await_launch(soap, p->frontend_url, id, out, errs, why, whylen);
	int closed = fclose(out); /* flushes the last bytes through hashing_write */
	out = NULL;
	if (rc == 0 && (closed != 0 || h.failed || fflush(to) != 0 || fsync(fileno(to)) != 0)) {
		snprintf(why, whylen, "cannot write it here: %s", strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		goto out;
	EVP_DigestFinal_ex(h.ctx, md, &mdlen);
	hex_of(md, got);
	/* the node's digest is the last line of its stderr */
	told[0] = '\0';
	rewind(errs);
	while (fgets(msg, sizeof(msg), errs) != NULL)
		snprintf(told, sizeof(told), "%.*s", (int)strcspn(msg, "\n"), msg);
	if (strcmp(told, got) != 0) {
		snprintf(why, whylen, "checksum mismatch: the node sent SHA-256 %s, %s arrived",
		    told[0] ? told : "(none)", got);
		rc = -1;
		goto out;
	}
	int put = fclose(to);
	to = NULL;
	if (put != 0 || rename(tmp, s->to.text) != 0) {
		snprintf(why, whylen, "cannot put it in place: %s", strerror(errno));
		rc = -1;
		goto out;
	}
	made = false; /* renamed: nothing to remove */
out:
	if (out)
		fclose(out);
	if (to)
		fclose(to);
	if (made)
		unlink(tmp);
	if (errs)
		fclose(errs);
	EVP_MD_CTX_free(h.ctx);
	return rc;
}

int
stage_out(struct soap *soap, const struct coalloc *c, const struct job_desc *job, char *err,
    size_t errlen)
{
	char why[1024];
	if (c->count == 0 || c->part[0].node_count == 0)
		return job->stage_out_count ? -1 : 0;
	const struct coalloc_part *p = &c->part[0];
	for (int i = 0; i < job->stage_out_count; i++) {
		const struct job_stage *s = &job->stage_out[i];
		if (fetch_file(soap, p, p->node[0].name, job, s, why, sizeof(why)) != 0) {
			snprintf(err, errlen, "stage-out %s:%s -> %s: %s", p->node[0].name,
			    s->from.text, s->to.text, why);
			return -1;
		}
	}
	return 0;
}

/* Remove the staged-in files on one node, then the working directory if that left it empty
 * (the stage-in created it if it was missing). Names are positional parameters. */
static int
clean_node(struct soap *soap, const struct coalloc_part *p, const char *node,
    const struct job_desc *job, char *why, size_t whylen)
{
	static char script[] = "wd=$1; shift; cd -- \"$wd\" 2>/dev/null || exit 0; "
		"rm -f -- \"$@\" && cd / && rmdir -- \"$wd\" 2>/dev/null; exit 0";
	static char path[] = "PATH=/usr/bin:/bin";
	char *argv[4 + JOB_STAGE_MAX + 1], *env[] = { path }, id[REMOTE_LAUNCH_ID_MAX];
	int argc = 0;
	argv[argc++] = "/bin/sh";
	argv[argc++] = "-c";
	argv[argc++] = script;
	argv[argc++] = "qcg-stage-clean";
	argv[argc++] = (char *)workdir_of(job);
	for (int i = 0; i < job->stage_in_count; i++)
		argv[argc++] = (char *)job->stage_in[i].to.text;
	struct remote_command cmd = { p->frontend_url, p->reservation, node, argv, argc, env, 1,
		"/" };
	FILE *errs = tmpfile();
	int rc = errs && remote_launch(soap, &cmd, id, why, whylen) == 0 ?
	    await_launch(soap, p->frontend_url, id, errs, errs, why, whylen) : -1;
	if (errs)
		fclose(errs);
	return rc;
}

void
stage_clean(struct soap *soap, const struct coalloc *c, const struct job_desc *job)
{
	char why[1024];
	if (job->stage_in_count == 0)
		return;
	for (int p = 0; p < c->count; p++)
		for (int n = 0; n < c->part[p].node_count; n++)
			if (clean_node(soap, &c->part[p], c->part[p].node[n].name, job, why,
			    sizeof(why)) != 0)
				fprintf(stderr, "qcg-submit: could not remove the staged files on %s: "
				    "%s\n", c->part[p].node[n].name, why);
}
