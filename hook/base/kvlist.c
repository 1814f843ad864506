/* SPDX-License-Identifier: Apache-2.0 */
/* Key-value lists, string vectors and sets (kvlist.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cnirt.h>

#include "base/kvlist.h"
#include "common.h"

void kvlist_append(struct kvlist *l, const char *key, const char *value)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].key = xstrdup(key);
	l->v[l->n].value = xstrdup(value);
	l->n++;
}

void kvlist_append_all(struct kvlist *l, const struct kvlist *from)
{
	for (size_t i = 0; i < from->n; i++)
		kvlist_append(l, from->v[i].key, from->v[i].value);
}

void kvlist_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	*l = (struct kvlist){0};
}

const char *kvlist_get(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].key && strcmp(l->v[i].key, key) == 0)
			return l->v[i].value ? l->v[i].value : "";
	return NULL;
}

void strv_append(char ***v, size_t *n, const char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(char *));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

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

cnirt_kv *kvlist_to_cnirt(const struct kvlist *l)
{
	cnirt_kv *v = xreallocarray(NULL, l->n ? l->n : 1, sizeof(*v));
	for (size_t i = 0; i < l->n; i++)
		v[i] = (cnirt_kv){l->v[i].key, l->v[i].value};
	return v;
}
