/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The internal layer that libcnirt (lib/) and cnihook (hook/) share, linked
 * into both with hidden visibility (common/libcommon.la): allocation that
 * aborts on OOM, a growable buffer, cleanup attributes, and the escaping of
 * foreign text for messages, the monotonic clock, a directory's sorted
 * names and the atomic writing of a file. The JSON tree
 * is json.h. Functions here that can fail return 0 or -errno; each layer
 * turns that into its own error convention.
 */
#ifndef CNI_COMMON_H
#define CNI_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)	  (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------- alloc.c */
/* Allocation failure is not a code path: these abort on OOM. */
void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);
char *xvasprintf(const char *fmt, va_list ap) PRINTF_LIKE(1, 0);

/* Growable byte buffer, always NUL terminated. */
struct buf {
	char *data;
	size_t len;
	size_t cap;
};
void buf_append(struct buf *b, const void *p, size_t n);
void buf_appends(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Hand the data out (never NULL) and reset the buffer. */
char *buf_steal(struct buf *b, size_t *len);
void buf_free(struct buf *b);

static inline void freep(void *p)
{
	free(*(void **)p);
}
static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
static inline void closedirp(DIR **d)
{
	if (*d) {
		int saved = errno;
		closedir(*d);
		errno = saved;
	}
}
#define _cleanup_(f)	   __attribute__((cleanup(f)))
#define _cleanup_free_	   _cleanup_(freep)
#define _cleanup_close_	   _cleanup_(closep)
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Take ownership out of a cleanup variable. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _tp = (p);                                                           \
		(p) = NULL;                                                                        \
		_tp;                                                                               \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _tf = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_tf;                                                                               \
	})

#ifndef TEMP_FAILURE_RETRY
#define TEMP_FAILURE_RETRY(expr)                                                                   \
	({                                                                                         \
		long _r;                                                                           \
		do                                                                                 \
			_r = (long)(expr);                                                         \
		while (_r == -1L && errno == EINTR);                                               \
		_r;                                                                                \
	})
#endif

/* ------------------------------------------------------- text.c */
/*
 * Foreign text in a message or a log line, one escaper per output kind.
 * text_shown(): one line of printable ASCII, for messages that quote a
 * value: bytes outside it (and with `quotes`, '"' and '\\') as \xNN, cut
 * after `max` bytes (0: never) with "...". The \xNN form is the one a log
 * reader can paste back into printf(1); a quote escaped so cannot end the
 * quoted value it stands in.
 * text_one_line(): the control bytes only (newlines first) as \xNN: one
 * line, UTF-8 and quotes left as they are.
 * JSON strings are escaped by the JSON writer (json.h), not here.
 */
char *text_shown(const char *s, size_t len, size_t max, bool quotes);
char *text_one_line(const char *s);
/* Offset of the first byte of s[0..len) that does not begin well-formed
 * UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF), or -1 when all of it is. */
long text_utf8_invalid_at(const char *s, size_t len);

/* ------------------------------------------------------- clock.c */
/* CLOCK_MONOTONIC in microseconds (durations) and in milliseconds
 * (deadlines, timeouts): never set back, unlike the time of day. */
long long clock_monotonic_usec(void);
long long clock_monotonic_ms(void);

/* ------------------------------------------------------- dir.c */
/* An entry of a directory: its name and its type as readdir gave it
 * (DT_*; DT_UNKNOWN where the file system does not say). */
struct dir_entry {
	char *name;
	unsigned char type;
};
/* The entries of the directory open as `dfd`, read from its start (dfd
 * stays the caller's, open), sorted by name (dir_entry_cmp: strcmp), those
 * that keep(name, data) keeps (keep NULL: all, "." and ".." too). 0, or
 * -errno and nothing in *out. */
int dir_list_sorted(int dfd, bool (*keep)(const char *name, void *data), void *data,
		    struct dir_entry **out, size_t *n);
int dir_entry_cmp(const void *a, const void *b);
/* fn(dfd, name, data) for each entry of the directory at `path` whose name
 * does not start with '.' (".", ".." and temp files), in readdir order.
 * 0, or -errno when it cannot be opened. */
int dir_each(const char *path, void (*fn)(int dfd, const char *name, void *data), void *data);
void dir_entries_free(struct dir_entry *v, size_t n);
/* mkdir -p with mode for the directories it creates. On failure *err is
 * "<path>: <strerror>". */
int dir_mkdir_p(const char *path, int mode, char **err);

/* ------------------------------------------------------- read.c */
/* Read all of fd, at most `limit` bytes; NUL terminated. On failure *err
 * is the problem ("larger than 16 MiB", strerror), for the caller to name
 * what it read. */
int read_all_fd(int fd, size_t limit, char **out, size_t *len, char **err);
/* Read a whole file (O_CLOEXEC). On failure *err is "<path>: <problem>"
 * and, when errnum is not NULL, *errnum the errno of the cause (EFBIG over
 * the limit): ENOENT is "absent" for some callers. */
int read_file(const char *path, size_t limit, char **out, size_t *len, int *errnum, char **err);
/* The same for a path relative to the directory open as dirfd. */
int read_file_at(int dirfd, const char *path, size_t limit, char **out, size_t *len, int *errnum,
		 char **err);

/* ------------------------------------------------------- file.c */
/* Write `name` in the directory `dir` (open as dfd) atomically: a temp file
 * beside it, "." + name + ".tmp.cnihook." + the writer's stamp (its pid
 * namespace, pid and start time) + ".XXXXXX", with `mode`, written whole,
 * flushed to disk (fdatasync) when `sync`, then renamed over the name, so
 * that a reader sees the old content or the new, never a part. On failure
 * the temp file is removed, *step names what failed ("create", "write",
 * "rename"...) and -errno is returned. A writer killed before its rename
 * leaves the temp file: file_temps_sweep() removes it. */
int file_write_atomic_at(int dfd, const char *dir, const char *name, const char *data, size_t len,
			 int mode, bool sync, const char **step);
/* The same for a path (its directory opened here). 0 or -errno. */
int file_write_atomic(const char *path, const char *data, size_t len, int mode, bool sync);
/* Is `name` a temp file of the writer above, by its name? */
bool file_is_temp(const char *name);
/* Remove the temp files of the directory (open as dfd, or at `dir`) whose
 * writer is provably gone: a process of this pid namespace that no longer
 * exists, or a pid now another process's (its start time differs), or a
 * zombie. A live writer's, another pid namespace's and every file whose
 * name is not exactly such a temp file's (another program's, whatever it
 * looks like) are left. The number removed, or -errno when the directory
 * cannot be read. */
int file_temps_sweep_at(int dfd);
int file_temps_sweep(const char *dir);

#endif
