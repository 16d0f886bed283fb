/*
 * fuzz_soap.c: the in-memory SOAP server the services' fuzz targets share (fuzz_soap.h).
 *
 * A request is served as lib/soap_server.c serves one on a connection: a context in strict XML
 * and UTF-8 string mode, the namespace table of all services, the size limit on a request,
 * soap->user pointing at a struct soap_request whose peer_dn the TLS layer would have set, and
 * the generated soap_serve. Only the transport differs: gSOAP's frecv reads the fuzz input,
 * its fsend discards the answer, and nothing waits (the connection is over when the input is).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soapH.h"
#include "fuzz_soap.h"
#include "log.h"
#include "soap_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes of the current input that gSOAP has not read yet. */
struct fuzz_input {
	const uint8_t *data;
	size_t size, used;
};

static struct fuzz_input current;

/* gSOAP's frecv: the next bytes of the input, 0 at its end (the client closed). */
static size_t
fuzz_recv(struct soap *soap, char *buf, size_t len)
{
	size_t n = current.size - current.used;
	(void)soap;
	if (n > len)
		n = len;
	memcpy(buf, current.data + current.used, n);
	current.used += n;
	return n;
}

static int show_answers; /* FUZZ_SOAP_SHOW set: answers go to stderr, to see what inputs reach */

/* The start of the current answer, for the target's never_answers check. */
static char answer[FUZZ_SOAP_ANSWER_KEPT + 1];
static size_t answer_len;

/* gSOAP's fsend: the answer is kept in part (and shown when asked), all of it "sent". */
static int
fuzz_send(struct soap *soap, const char *buf, size_t len)
{
	(void)soap;
	size_t keep = FUZZ_SOAP_ANSWER_KEPT - answer_len;
	if (keep > len)
		keep = len;
	memcpy(answer + answer_len, buf, keep);
	answer_len += keep;
	if (show_answers && fwrite(buf, 1, len, stderr) != len)
		return SOAP_EOF;
	return SOAP_OK;
}

/* gSOAP's fclose and fopen must never touch a socket: there is none. */
static int
fuzz_close(struct soap *soap)
{
	(void)soap;
	return SOAP_OK;
}

#define FUZZ_SOAP_FILES_MAX 8

static char scratch[256];

static void
remove_scratch(void)
{
	char cmd[sizeof(scratch) + 16];
	if (scratch[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_soap: could not remove %s\n", scratch);
}

const char *
fuzz_soap_scratch_dir(void)
{
	if (scratch[0] == '\0') {
		const char *tmp = getenv("TMPDIR");
		snprintf(scratch, sizeof(scratch), "%s/fuzz_soap.XXXXXX",
		    tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
		if (mkdtemp(scratch) == NULL) {
			perror("fuzz_soap: mkdtemp");
			exit(2);
		}
		atexit(remove_scratch);
	}
	return scratch;
}

const char *
fuzz_soap_write_file(const char *name, const char *text)
{
	static char paths[FUZZ_SOAP_FILES_MAX][sizeof(scratch) + 64];
	static size_t used;
	FILE *f;

	if (used == FUZZ_SOAP_FILES_MAX || strlen(name) >= 64) {
		fprintf(stderr, "fuzz_soap: %s: too many or too long file names\n", name);
		exit(2);
	}
	char *path = paths[used++]; /* kept for the process's life: the state may refer to it */
	snprintf(path, sizeof(paths[0]), "%s/%s", fuzz_soap_scratch_dir(), name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	return path;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_soap_target target;
	static int ready;
	struct soap_request req;

	if (!ready) {
		/* Warnings name every refused caller: at fuzzing speed they would be all the
		 * output. Errors still show (FUZZ_SOAP_LOG=debug shows everything). */
		const char *level = getenv("FUZZ_SOAP_LOG");
		log_init("fuzz_soap", level ? (enum log_level)log_level_parse(level) :
		    LOG_LEVEL_ERROR, 0);
		show_answers = getenv("FUZZ_SOAP_SHOW") != NULL;
		fuzz_soap_target_init(&target);
		if (target.identities == 0 || target.identities > FUZZ_SOAP_IDENTITIES_MAX)
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	memset(&req, 0, sizeof(req));
	snprintf(req.peer_dn, sizeof(req.peer_dn), "%s", target.identity[data[0] %
	    target.identities]);
	snprintf(req.peer_address, sizeof(req.peer_address), "127.0.0.1");
	req.app = target.app;
	req.worker_state = target.worker_state;
	current = (struct fuzz_input){ .data = data + 1, .size = size - 1 };

	/* One context for all inputs, as a kept-alive connection has one for all its requests:
	 * made with the modes and limits soap_server_open and apply_limits give every
	 * connection, cleaned with soap_destroy and soap_end after each request as the server's
	 * after_request does, and reset to a new message (soap_begin) before the next. */
	static struct soap *soap;
	if (soap == NULL) {
		if ((soap = soap_new1(SOAP_XML_STRICT | SOAP_C_UTFSTRING)) == NULL)
			abort();
		soap_set_namespaces(soap, namespaces);
		soap->recv_maxlength = FUZZ_SOAP_MAX_MESSAGE;
		soap->frecv = fuzz_recv;
		soap->fsend = fuzz_send;
		soap->fclose = fuzz_close;
	}
	answer_len = 0;
	soap_begin(soap);
	soap->keep_alive = 0; /* the input is the whole connection: no next request on it */
	soap->user = &req;
	soap_serve(soap);
	soap_destroy(soap);
	soap_end(soap);
	soap->user = NULL;
	answer[answer_len] = '\0';
	if (target.never_answers != NULL && strstr(answer, target.never_answers) != NULL) {
		fprintf(stderr, "fuzz_soap_%s: the answer holds '%s':\n%s\n", target.name,
		    target.never_answers, answer);
		abort();
	}
	if (target.after_request != NULL)
		target.after_request();
	return 0;
}
