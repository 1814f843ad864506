/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers of the hook: allocation that aborts on OOM, reading a file. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

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

void *xreallocarray(void *p, size_t n, size_t size)
{
	return check(reallocarray(p, n ? n : 1, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return s ? check(strdup(s)) : NULL;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

int read_all_fd(int fd, size_t limit, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > limit) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}
