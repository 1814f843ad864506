/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the unit tests of the hook's annotation readers share: a refusal
 * with exactly its message (helpers that report a char **problem), and
 * CNI_ARGS pairs compared with what is expected. Include after cmocka.h.
 */
#ifndef TESTS_UNIT_HOOKTEST_H
#define TESTS_UNIT_HOOKTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static inline void problem_is(int rc, char *problem, const char *want, const char *what)
{
	if (rc >= 0)
		fail_msg("%s succeeded, expected: %s", what, want);
	if (problem == NULL || strcmp(problem, want) != 0)
		fail_msg("%s: wrong message:\n  got      %s\n  expected %s", what,
			 problem ? problem : "(none)", want);
	free(problem);
}

/* expr, which sets the caller's `char *problem` on failure, fails with
 * want (problem is freed and reset). */
#define REFUSED(expr, want)                                                                        \
	do {                                                                                       \
		problem = NULL;                                                                    \
		int rc_ = (expr);                                                                  \
		problem_is(rc_, problem, want, #expr);                                             \
		problem = NULL;                                                                    \
	} while (0)

/* The pairs v[0..n) are expected ("KEY=VALUE"..., NULL). */
static inline void args_are(const struct kv *v, size_t n, const char *const *expected)
{
	size_t k = 0;
	for (; expected[k]; k++) {
		if (k >= n)
			fail_msg("only %zu CNI_ARGS pairs, expected %s next", n, expected[k]);
		char *pair = NULL;
		assert_true(asprintf(&pair, "%s=%s", v[k].key, v[k].value) > 0);
		if (strcmp(pair, expected[k]) != 0)
			fail_msg("CNI_ARGS pair %zu: got %s, expected %s", k, pair, expected[k]);
		free(pair);
	}
	assert_int_equal(n, k);
}

#endif
