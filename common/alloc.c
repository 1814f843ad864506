/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation helpers that abort on OOM. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static void *check(void *p)
{
	if (p == NULL)
		abort();
	return p;
}

void *xmalloc(size_t n)
{
	return check(malloc(n ? n : 1));
}

void *xzalloc(size_t n)
{
	return check(calloc(1, n ? n : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1));
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	return check(reallocarray(p, n ? n : 1, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return s ? check(strdup(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	return check(strndup(s, n));
}

void *xmemdup(const void *p, size_t n)
{
	void *r = xmalloc(n + 1);
	memcpy(r, p, n);
	((char *)r)[n] = '\0';
	return r;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
