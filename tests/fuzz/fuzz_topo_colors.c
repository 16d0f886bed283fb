/*
 * fuzz_topo_colors.c: libFuzzer target for QCG_TOPOLOGY_COLORS, "site,cluster,node"
 * (mpi-glue/topo/qcg_topo_source.c), which every rank of a job reads from its environment.
 * Besides not crashing, it checks the header's promises and aborts when one is broken:
 * accepted colors lie in 0..QCG_TOPO_COLOR_MAX, and a refusal comes with a message.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qcg_topo_source.h"

#define FUZZ_COLORS_MAX 4096 /* an environment value longer than this is not worth the time */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int colors[QCG_TOPO_LEVELS] = { -1, -1, -1 };
	char err[256] = "";

	if (size > FUZZ_COLORS_MAX)
		return 0;
	/* The environment hands the parser a NUL-terminated string: copy exactly that, so an
	 * over-read past the NUL is caught by ASan. */
	char *text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (qcg_topo_parse_colors(text, colors, err, sizeof(err)) == 0) {
		for (int l = 0; l < QCG_TOPO_LEVELS; l++)
			if (colors[l] < 0 || colors[l] > QCG_TOPO_COLOR_MAX)
				abort();
	} else if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL) {
		abort();
	}
	free(text);
	return 0;
}
