/*
 * helper_input_put.h: a launch's standard input as an HTTP PUT body (lib/http_stream.h), the
 * front-end's relay of a stage-in: PUT /launch-input/<launch id> on the helper's TLS port.
 *
 * Only a caller the ACL names frontend (or admin) may; the launch must have been started with
 * its input open. The body goes to the launch's stdin block by block (launch_write_input: a
 * full pipe holds the sender back, so memory stays one block), and the input is closed after
 * the last byte. A body that ends early or a write that fails TERMs the launch, so its
 * receiver removes what it wrote: a short body never becomes a file.
 */
#ifndef QCG_HELPER_INPUT_PUT_H
#define QCG_HELPER_INPUT_PUT_H

#include <stdint.h>

struct soap;

/* soap_service.put of the helper. */
int helper_input_put(struct soap *soap, const char *target, uint64_t length);

#endif
