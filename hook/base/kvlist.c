/* SPDX-License-Identifier: Apache-2.0 */
/* Key-value lists (kvlist.h). */
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

cnirt_kv *kvlist_to_cnirt(const struct kvlist *l)
{
	cnirt_kv *v = xreallocarray(NULL, l->n ? l->n : 1, sizeof(*v));
	for (size_t i = 0; i < l->n; i++)
		v[i] = (cnirt_kv){l->v[i].key, l->v[i].value};
	return v;
}
