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

/* A list of the pairs a[0..n) (an array of struct kv; NULL, 0: none). */
#define KVLIST_N(a, count) (&(const struct kvlist){.v = (a), .n = (count)})
/* A list of all the pairs of the array a. */
#define KVLIST(a) KVLIST_N(a, sizeof(a) / sizeof((a)[0]))

/* What annotations_parse() reads a container's annotations with:
 * cnihook.json's defaultNetworks nets[0..count), and the file's container
 * id CID (request/annotations.h). */
#define DEFAULTS(nets, count) (&(const struct container_defaults){(nets), (count), CID})

/* The pairs of l are expected ("KEY=VALUE"..., NULL). */
static inline void args_are(const struct kvlist *l, const char *const *expected)
{
	size_t k = 0, n = l->n;
	for (; expected[k]; k++) {
		if (k >= n)
			fail_msg("only %zu CNI_ARGS pairs, expected %s next", n, expected[k]);
		char *pair = NULL;
		assert_true(asprintf(&pair, "%s=%s", l->v[k].key, l->v[k].value) > 0);
		if (strcmp(pair, expected[k]) != 0)
			fail_msg("CNI_ARGS pair %zu: got %s, expected %s", k, pair, expected[k]);
		free(pair);
	}
	assert_int_equal(n, k);
}

#endif
