/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the hook. Error convention of hook/: a failing function returns
 * -1 and sets *err to a new message (free it) that names the field and the
 * problem; out parameters are written only on success.
 */
#ifndef CNIHOOK_UTIL_H
#define CNIHOOK_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)	  (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_(f)   __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _tp = (p);                                                           \
		(p) = NULL;                                                                        \
		_tp;                                                                               \
	})

/* A foreign value as it may appear in a message (one printable ASCII line):
 * '"' and '\\' escaped with a backslash, bytes outside printable ASCII as
 * \xNN, cut after 80 bytes with "...". */
char *shown(const char *s);
char *shown_n(const char *s, size_t len);
/* The same escaping, never cut: for paths the reader must be able to use. */
char *shown_whole(const char *s);
/* s with only its control bytes (newlines first) as \xNN: one line, UTF-8,
 * quotes and backslashes left as they are. */
char *one_line(const char *s);

/* Set *err to a new message and return -1. */
int set_error(char **err, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* A key and a value (annotations, CNI_ARGS pairs). */
struct kv {
	char *key;
	char *value;
};
void kv_append(struct kv **v, size_t *n, const char *key, const char *value);
void kv_free(struct kv *v, size_t n);

/* A NULL-terminated vector of strings. */
void strv_append(char ***v, size_t *n, const char *s);
void strv_free(char **v, size_t n);

/* Read all of fd, at most `limit` bytes; NUL terminated. 0 or -errno
 * (-EFBIG over the limit). */
int read_all_fd(int fd, size_t limit, char **out, size_t *len);
/* Read a whole file (O_CLOEXEC). 0 or -errno. */
int read_file(const char *path, size_t limit, char **out, size_t *len);
/* Write a file atomically: temp file in the same directory, then rename, so
 * that a reader sees the old or the new content, never a part. No fsync:
 * this is for the state directory, on /run, whose content means nothing
 * after a crash (the pins are gone; gc cleans up from the cache, which
 * libcnirt does sync). 0 or -errno. */
int write_file_atomic(const char *path, const char *data, size_t len, int mode);
/* mkdir -p with mode for the directories it creates. 0 or -errno. */
int mkdir_p(const char *path, int mode);

#endif
