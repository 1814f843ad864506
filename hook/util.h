/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_UTIL_H
#define CNIHOOK_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))

void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)

/* Read all of fd; NUL terminated. Returns 0 or -errno. */
int read_all_fd(int fd, size_t limit, char **out, size_t *len);

#endif
