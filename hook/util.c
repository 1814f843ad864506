/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers of the hook: allocation that aborts on OOM, reading a file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
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

char *xstrndup(const char *s, size_t n)
{
	return check(strndup(s, n));
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

/* The first `cut` bytes of s[0..len), escaped: control bytes (and with
 * `all`, '"' and '\\' with a backslash and bytes above 0x7e) as \xNN. */
static char *escaped(const char *s, size_t len, size_t cut, bool all)
{
	char *out = xmalloc(cut * 4 + 4);
	size_t o = 0;
	for (size_t i = 0; i < cut; i++) {
		unsigned char c = (unsigned char)s[i];
		if (all && (c == '"' || c == '\\')) {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f || (all && c > 0x7f)) {
			o += (size_t)sprintf(out + o, "\\x%02x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	if (cut < len)
		o += (size_t)sprintf(out + o, "...");
	out[o] = '\0';
	return out;
}

char *shown_n(const char *s, size_t len)
{
	return escaped(s, len, len > 80 ? 80 : len, true);
}

char *shown_whole(const char *s)
{
	size_t len = strlen(s);
	return escaped(s, len, len, true);
}

char *one_line(const char *s)
{
	size_t len = strlen(s);
	return escaped(s, len, len, false);
}

char *shown(const char *s)
{
	return shown_n(s, strlen(s));
}

int set_error(char **err, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	*err = s;
	return -1;
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

void kv_append(struct kv **v, size_t *n, const char *key, const char *value)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n].key = xstrdup(key);
	(*v)[*n].value = xstrdup(value);
	(*n)++;
}

void kv_free(struct kv *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
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

int read_file(const char *path, size_t limit, char **out, size_t *len)
{
	int fd;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -errno;
	int r = read_all_fd(fd, limit, out, len);
	close(fd);
	return r;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len, int mode)
{
	_cleanup_free_ char *tmp = xasprintf("%s.tmpXXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = fchmod(fd, (mode_t)mode) < 0 ? -errno : 0;
	if (r == 0)
		r = write_all(fd, data, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int mkdir_p(const char *path, int mode)
{
	_cleanup_free_ char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
			return -errno;
		*s = c;
		if (c == '\0')
			break;
	}
	return 0;
}
