/* SPDX-License-Identifier: Apache-2.0 */
/* String vectors (strv.h). */
#include "config.h"

#include <stdlib.h>

#include "base/strv.h"
#include "common.h"

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

char *strv_join(char *const *v, size_t n, const char *sep)
{
	struct buf b = {0};
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? sep : "", v[i]);
	return buf_steal(&b, NULL);
}
