/*
 * replay.c: run a fuzz target's corpus as an ordinary regression test (as SQLite's fuzzcheck
 * does), so every input that once mattered is checked by `make check` with the normal
 * compiler. Linked with one fuzz_*.c; FUZZ_TARGET names it (e.g. "config"), and the corpus is
 * $top_srcdir/tests/fuzz/corpus_<target>, or the directories given as arguments.
 * A broken promise in the target aborts, which fails the test.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET must name the fuzz target (-DFUZZ_TARGET=\"config\")"
#endif

#define REPLAY_FILE_MAX (1024 * 1024) /* a corpus file larger than this is a mistake */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read one corpus file and feed it to the target. Returns 0, or -1 with a message. */
static int
replay_file(const char *path)
{
	static uint8_t buf[REPLAY_FILE_MAX + 1];
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t n = fread(buf, 1, sizeof(buf), f);
	int bad = ferror(f);
	fclose(f);
	if (bad || n > REPLAY_FILE_MAX) {
		fprintf(stderr, "replay: %s: unreadable or larger than %d bytes\n", path,
		    REPLAY_FILE_MAX);
		return -1;
	}
	/* A private copy of exactly n bytes, so an over-read is caught by ASan when enabled. */
	uint8_t *copy = malloc(n ? n : 1);
	if (copy == NULL) {
		fprintf(stderr, "replay: out of memory\n");
		return -1;
	}
	memcpy(copy, buf, n);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	return 0;
}

/* Replay every regular file of dir in name order. Returns how many, or -1 on an error. */
static int
replay_dir(const char *dir)
{
	struct dirent **names;
	int count = scandir(dir, &names, NULL, alphasort), replayed = 0, failed = 0;
	char path[4096 + 2 + 256]; /* dir, '/', a d_name */
	struct stat st;

	if (count < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) != 0)
				failed = 1;
			replayed++;
		}
		free(names[i]);
	}
	free(names);
	return failed ? -1 : replayed;
}

int
main(int argc, char **argv)
{
	char dir[4096];
	const char *top = getenv("top_srcdir");
	int total = 0;

	if (argc < 2 && top == NULL) {
		fprintf(stderr, "usage: %s [CORPUS_DIR...] (default $top_srcdir/tests/fuzz/corpus_%s)\n",
		    argv[0], FUZZ_TARGET);
		return 99;
	}
	for (int i = 1; i < argc || (argc < 2 && i == 1); i++) {
		if (argc >= 2)
			snprintf(dir, sizeof(dir), "%s", argv[i]);
		else
			snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus_%s", top, FUZZ_TARGET);
		int n = replay_dir(dir);
		if (n < 0)
			return 1;
		if (n == 0) {
			fprintf(stderr, "replay: %s: no corpus files (an empty corpus proves nothing)\n",
			    dir);
			return 1;
		}
		printf("replayed %d inputs of %s through fuzz_%s\n", n, dir, FUZZ_TARGET);
		total += n;
	}
	return total > 0 ? 0 : 1;
}
