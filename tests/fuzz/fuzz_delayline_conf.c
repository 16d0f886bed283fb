/*
 * fuzz_delayline_conf.c: libFuzzer target for the delay line's configuration, its command line
 * (deploy/delayline/dl_conf.c), which the testbed's scripts and admins write. The input is
 * split at NUL bytes into argv[1..] (at most DL_FUZZ_ARGS words), so options, their values and
 * port specs are all fuzzed, in any order. dl_conf_parse is called once per input in the same
 * process, as a test suite calls it, so getopt's state between calls is exercised too.
 * Besides not crashing, it checks the header's promises and aborts when one is broken: an
 * accepted configuration has 1..DL_PORTS_MAX ports with NUL-terminated, distinct, non-empty
 * interface names and a pool of at least one frame; a refusal comes with a message that does
 * not name the program as the bad option, and leaves nothing behind: a valid command line
 * parsed next is accepted (corpus bug_short_option_cluster: getopt's state outlived a refusal).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_conf.h"

#define DL_FUZZ_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_conf(const struct dl_conf *c)
{
	if (c->nports < 1 || c->nports > DL_PORTS_MAX || c->pool_frames < 1 ||
	    c->pool_frames > DL_POOL_FRAMES_MAX || c->rt_priority < 0 || c->rt_priority > 99)
		abort();
	for (size_t i = 0; i < c->nports; i++) {
		const struct dl_port_conf *p = &c->ports[i];
		if (memchr(p->host_if, '\0', sizeof(p->host_if)) == NULL ||
		    memchr(p->wan_if, '\0', sizeof(p->wan_if)) == NULL || p->host_if[0] == '\0' ||
		    p->wan_if[0] == '\0' || strcmp(p->host_if, p->wan_if) == 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dl_conf conf; /* large: not on the stack */
	char *argv[DL_FUZZ_ARGS + 2];
	char err[512] = "";
	int argc = 0;

	/* Words are NUL-terminated copies in one buffer that ends with a NUL of its own. */
	char *words = malloc(size + 1);
	if (words == NULL)
		return 0;
	memcpy(words, data, size);
	words[size] = '\0';
	argv[argc++] = "qcg-delayline";
	for (char *w = words; w < words + size + 1 && argc <= DL_FUZZ_ARGS; w += strlen(w) + 1)
		argv[argc++] = w;
	argv[argc] = NULL;
	if (dl_conf_parse(argc, argv, &conf, err, sizeof(err)) == 0) {
		check_conf(&conf);
	} else {
		if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL ||
		    strcmp(err, "bad option 'qcg-delayline'") == 0) /* argv[0] is no option */
			abort();
		free(words); /* as a caller may: the next parse must not look at these words */
		words = NULL;
		char a0[] = "qcg-delayline", a1[] = "--delay", a2[] = "5ms", a3[] = "eth0:eth1";
		char *valid[] = { a0, a1, a2, a3, NULL };
		if (dl_conf_parse(4, valid, &conf, err, sizeof(err)) != 0)
			abort();
	}
	free(words);
	return 0;
}
