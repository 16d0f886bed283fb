/*
 * fuzz_soap.h: the in-memory SOAP server the four services' fuzz targets share (fuzz_soap.c).
 *
 * One fuzz input is one connection: its first byte chooses who the caller is (as the TLS layer
 * would have established it from the client's certificate chain), the rest is what the client
 * sent, HTTP headers and SOAP envelope. gSOAP reads it from the buffer through a custom frecv,
 * the generated soap_serve dispatches it to the service's real handlers with the service's real
 * state, and the answer is discarded through a custom fsend. No socket, no TLS, no thread.
 *
 * Each service's target (fuzz_soap_<service>.c) defines fuzz_soap_target_init, which builds
 * the minimal real state its handlers need and names the identities.
 */
#ifndef QCG_FUZZ_SOAP_H
#define QCG_FUZZ_SOAP_H

#include <stddef.h>

#define FUZZ_SOAP_IDENTITIES_MAX 6
#define FUZZ_SOAP_MAX_MESSAGE (1024 * 1024) /* recv_maxlength, the servers' default order */
#define FUZZ_SOAP_ANSWER_KEPT (64 * 1024)   /* bytes of an answer never_answers looks at */

struct fuzz_soap_target {
	const char *name;               /* the service, for messages */
	/* The callers the first input byte chooses from (byte % count): typically a service the
	 * ACL lets in, a mapped user and a DN nobody knows, so that inputs reach the handlers'
	 * work as well as their refusals. */
	const char *identity[FUZZ_SOAP_IDENTITIES_MAX];
	size_t identities;
	void *app;                      /* soap_request.app: the service's shared state */
	void *worker_state;             /* soap_request.worker_state (a broker's registry, ...) */
	void (*after_request)(void);    /* called after each input (state resets); may be NULL */
	/* Text no answer may hold (the start of it, FUZZ_SOAP_ANSWER_KEPT bytes): a broken promise
	 * aborts, e.g. a Server fault where the state is sound and only the input can be at
	 * fault. NULL: none. */
	const char *never_answers;
};

/* Defined by each service's target: fill *t once, before the first input. Exits on failure. */
void fuzz_soap_target_init(struct fuzz_soap_target *t);

/* A private scratch directory for the target's files (ACL, grid-mapfile, database), made on
 * first use under $TMPDIR (or /tmp) and removed at exit. */
const char *fuzz_soap_scratch_dir(void);
/* Write text to <scratch>/name and return its path (static storage, one per name). Exits on
 * failure. */
const char *fuzz_soap_write_file(const char *name, const char *text);

#endif
