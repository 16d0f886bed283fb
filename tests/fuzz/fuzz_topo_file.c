/*
 * fuzz_topo_file.c: libFuzzer target for the topology file, "rank site cluster node" per line
 * (mpi-glue/topo/qcg_topo_source.c), which every rank of a job reads when the user names one.
 * The parser reads a path, so the input is written to a memory file (memfd) and read back
 * through /proc/self/fd: the real fopen/fgets path, no disk. The rank looked up is chosen by
 * the input's first byte, so lines for other ranks are skipped as in a real job.
 * Besides not crashing, it checks the header's promises and aborts when one is broken: a
 * found line gives colors in 0..QCG_TOPO_COLOR_MAX, and a refusal names the file.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qcg_topo_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	int colors[QCG_TOPO_LEVELS] = { -1, -1, -1 };
	char err[512] = "";

	if (fd < 0) {
		if ((fd = memfd_create("fuzz_topo_file", 0)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	int rank = size > 0 ? data[0] % 8 : 0;
	int rc = qcg_topo_file_lookup(path, rank, colors, err, sizeof(err));
	if (rc == 1) {
		for (int l = 0; l < QCG_TOPO_LEVELS; l++)
			if (colors[l] < 0 || colors[l] > QCG_TOPO_COLOR_MAX)
				abort();
	} else if (rc == -1) {
		if (strncmp(err, "topology file ", 14) != 0 || strstr(err, path) == NULL)
			abort();
	} else if (rc != 0) {
		abort();
	}
	return 0;
}
