/*
 * replay.h: bench-broker's light client. It records the bytes of one call as gSOAP's client
 * sends them (request line, headers and envelope) and then sends those same bytes on the same
 * kept-alive TLS connection for every later call, reading each answer with SSL_read and
 * checking its status, length and the Decision's method, without gSOAP's serialisation and
 * parsing. On a machine where the clients share the broker's CPUs, the clients' own CPU time
 * is less of the measurement; the broker does the same work per call as for gSOAP's client.
 */
#ifndef QCG_BENCH_REPLAY_H
#define QCG_BENCH_REPLAY_H

#include <stddef.h>

struct soap;

#define REPLAY_REQUEST_MAX 8192
#define REPLAY_RESPONSE_MAX 65536

struct replay {
	int (*engine_send)(struct soap *, const char *, size_t); /* gSOAP's fsend */
	int recording;
	char request[REPLAY_REQUEST_MAX];
	size_t request_len;
	int request_too_long;
	char response[REPLAY_RESPONSE_MAX];
};

/* Record what soap sends from now until replay_record_stop; soap->user must stay as it is
 * (replay finds itself through the pointer given). */
void replay_record_start(struct replay *r, struct soap *soap);
/* Stop recording; 0 when a whole request was recorded. */
int replay_record_stop(struct replay *r, struct soap *soap);
/* Send the recorded request on soap's TLS connection and read the answer, each step bounded by
 * timeout_ms. 0 when the answer is HTTP 200, keeps the connection alive and carries the
 * method named expect (NULL: any); else -1 with the reason in err. */
int replay_call(struct replay *r, struct soap *soap, const char *expect, int timeout_ms,
    char *err, size_t errlen);

#endif
