/* SPDX-License-Identifier: Apache-2.0 */
/* A growable byte buffer, always NUL terminated (struct buf, common.h). */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1) {
		if (cap > SIZE_MAX / 2)
			abort();
		cap *= 2;
	}
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_appends(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_appends(b, s);
}

char *buf_steal(struct buf *b, size_t *len)
{
	buf_reserve(b, 0);
	b->data[b->len] = '\0';
	char *d = b->data;
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return d;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
