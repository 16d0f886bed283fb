/*
 * check.h: the unit tests' tiny harness. A test program runs its cases, each CHECK prints the
 * failing expression with file and line, and check_exit() returns automake's exit code
 * (0 pass, 1 fail, 77 skip).
 */
#ifndef QCG_CHECK_H
#define QCG_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		check_count++;                                                                     \
		if (!(cond)) {                                                                     \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);           \
		}                                                                                  \
	} while (0)

#define CHECK_INT_EQ(got, want)                                                                    \
	do {                                                                                       \
		long long check_got_ = (long long)(got), check_want_ = (long long)(want);          \
		check_count++;                                                                     \
		if (check_got_ != check_want_) {                                                   \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s == %lld, want %lld\n", __FILE__,          \
			    __LINE__, #got, check_got_, check_want_);                              \
		}                                                                                  \
	} while (0)

#define CHECK_STR_EQ(got, want)                                                                    \
	do {                                                                                       \
		const char *check_got_ = (got), *check_want_ = (want);                             \
		check_count++;                                                                     \
		if (check_got_ == NULL || strcmp(check_got_, check_want_) != 0) {                  \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s == \"%s\", want \"%s\"\n", __FILE__,      \
			    __LINE__, #got, check_got_ ? check_got_ : "(null)", check_want_);      \
		}                                                                                  \
	} while (0)

/* Run one named case; its name says what it proves. */
#define RUN(test_fn)                                                                               \
	do {                                                                                       \
		int check_before_ = check_failures;                                                \
		test_fn();                                                                         \
		printf("%s %s\n", check_failures == check_before_ ? "ok  " : "FAIL", #test_fn);    \
	} while (0)

static inline int
check_exit(void)
{
	if (check_count == 0) {
		fprintf(stderr, "no checks ran\n");
		return 1;
	}
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
