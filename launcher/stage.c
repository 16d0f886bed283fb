/*
 * stage.c: stage-in and stage-out through the front-ends (stage.h).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "remote_run.h"
#include "stage.h"

static const char *
workdir_of(const struct job_desc *job)
{
	return job->workdir.line ? job->workdir.text : "/tmp";
}

/* Run argv (3 + extra words) on node of part p; its stdout into out (may be NULL). */
static int
run_on_node(struct soap *soap, const struct coalloc_part *p, const char *node,
    const struct job_desc *job, char **argv, int argc, FILE *out, char *err, size_t errlen)
{
	char id[REMOTE_LAUNCH_ID_MAX], why[512];
	static char path[] = "PATH=/usr/local/bin:/usr/bin:/bin"; /* base64, wc: coreutils */
	char *env[] = { path };
	struct remote_command cmd = { p->frontend_url, p->reservation, node, argv, argc, env, 1,
		workdir_of(job) };
	struct remote_status st;
	FILE *errs = tmpfile();
	if (errs == NULL || remote_launch(soap, &cmd, id, err, errlen) != 0 ||
	    remote_stream(soap, p->frontend_url, id, NULL, out ? out : errs, errs, &st, err,
	    errlen) != 0) {
		if (errs)
			fclose(errs);
		return -1;
	}
	int code = remote_status_code(&st);
	if (code != 0) {
		size_t n = 0;
		rewind(errs);
		n = fread(why, 1, sizeof(why) - 1, errs);
		why[n] = '\0';
		why[strcspn(why, "\n")] = '\0';
		snprintf(err, errlen, "exit %d on %s: %s", code, node, n ? why : "(no message)");
	}
	fclose(errs);
	return code == 0 ? 0 : -1;
}

/* The whole of a local file, at most STAGE_FILE_MAX bytes, base64-encoded (malloc'd). */
static char *
encode_file(const char *path, char *err, size_t errlen)
{
	static unsigned char buf[STAGE_FILE_MAX + 1];
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, errlen, "stage-in %s: %s", path, strerror(errno));
		return NULL;
	}
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n > STAGE_FILE_MAX) {
		snprintf(err, errlen, "stage-in %s: larger than %d bytes", path, STAGE_FILE_MAX);
		return NULL;
	}
	char *b64 = malloc(4 * (n / 3 + 1) + 1);
	if (b64)
		EVP_EncodeBlock((unsigned char *)b64, buf, (int)n);
	return b64;
}

int
stage_in(struct soap *soap, const struct coalloc *c, const struct job_desc *job, char *err,
    size_t errlen)
{
	char why[1024];
	for (int i = 0; i < job->stage_in_count; i++) {
		const struct job_stage *s = &job->stage_in[i];
		char *b64 = encode_file(s->from.text, err, errlen);
		if (b64 == NULL)
			return -1;
		/* The path and the data are the shell's positional parameters, never its code. */
		char *argv[] = { "/bin/sh", "-c", "printf %s \"$1\" | base64 -d > \"$2\"", "stage-in",
			b64, (char *)s->to.text };
		for (int p = 0; p < c->count; p++)
			for (int n = 0; n < c->part[p].node_count; n++)
				if (run_on_node(soap, &c->part[p], c->part[p].node[n].name, job, argv, 6,
				    NULL, why, sizeof(why)) != 0) {
					snprintf(err, errlen, "stage-in %s -> %s:%s: %s", s->from.text,
					    c->part[p].node[n].name, s->to.text, why);
					free(b64);
					return -1;
				}
		free(b64);
	}
	return 0;
}

/* Decode b64 (len bytes, no newlines) into path. */
static int
write_decoded(const char *path, const char *b64, size_t len)
{
	unsigned char *raw = malloc(len / 4 * 3 + 3);
	int n = raw ? EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)len) : -1;
	if (n < 0 || len % 4 != 0) {
		free(raw);
		return -1;
	}
	for (size_t k = len; k > 0 && b64[k - 1] == '='; k--)
		n--; /* EVP_DecodeBlock counts the padding as zero bytes */
	FILE *f = fopen(path, "wb");
	int rc = f && fwrite(raw, 1, (size_t)n, f) == (size_t)n ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(raw);
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
		char size[16];
		snprintf(size, sizeof(size), "%d", STAGE_FILE_MAX);
		char *argv[] = { "/bin/sh", "-c", "[ $(wc -c < \"$1\") -le $2 ] || "
			"{ echo \"larger than $2 bytes\" >&2; exit 1; }; base64 -w0 < \"$1\"",
			"stage-out", (char *)s->from.text, size };
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		int rc = out ? run_on_node(soap, p, p->node[0].name, job, argv, 6, out, why,
		    sizeof(why)) : -1;
		if (out)
			fclose(out);
		if (rc == 0 && write_decoded(s->to.text, text ? text : "", len) != 0) {
			snprintf(why, sizeof(why), "cannot decode or write it here: %s",
			    strerror(errno));
			rc = -1;
		}
		free(text);
		if (rc != 0) {
			snprintf(err, errlen, "stage-out %s:%s -> %s: %s", p->node[0].name,
			    s->from.text, s->to.text, why);
			return -1;
		}
	}
	return 0;
}
