/* SPDX-License-Identifier: Apache-2.0 */
/* Sorted string sets (strset.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/strset.h"

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strset_sort(struct strset *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), strp_cmp);
}

const char *strset_find(const struct strset *s, const char *key)
{
	char *const *hit = s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), strp_cmp) : NULL;
	return hit ? *hit : NULL;
}
