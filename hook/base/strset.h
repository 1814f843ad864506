/* SPDX-License-Identifier: Apache-2.0 */
/* Sorted string sets. */
#ifndef CNIHOOK_BASE_STRSET_H
#define CNIHOOK_BASE_STRSET_H

#include <stddef.h>

/* A set of strings: strv_append()ed, then sorted once and searched by
 * bisection (gc's and the verdicts' lookups among many containers). */
struct strset {
	char **v;
	size_t n;
};
void strset_sort(struct strset *s);
/* The member equal to key, or NULL. */
const char *strset_find(const struct strset *s, const char *key);

#endif
