/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the hook. Error convention of hook/: a failing function returns
 * -1 and sets *err to a new message (free it) that names the field and the
 * problem; out parameters are written only on success.
 */
#ifndef CNIHOOK_UTIL_H
#define CNIHOOK_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"
#include "json.h"

/* The JSON the hook reads from container authors and engines (OCI state,
 * config.json, annotations, its own records): nesting to HOOK_JSON_DEPTH,
 * no comments, no NUL in strings; UTF-8 is checked where a value is read
 * (annotations.c names the annotation; a path need not be UTF-8).
 * cnihook.json adds comments (hookconf.c). */
#define HOOK_JSON_DEPTH 64
extern const struct json_limits hook_json;

/* A foreign value as it may appear in a message (one printable ASCII line,
 * text_shown()): bytes outside printable ASCII, '"' and '\\' as \xNN, cut
 * after 80 bytes with "...". */
char *shown(const char *s);
char *shown_n(const char *s, size_t len);
/* The same escaping, never cut: for paths the reader must be able to use. */
char *shown_whole(const char *s);
/* s with only its control bytes as \xNN (text_one_line()). */
#define one_line(s) text_one_line(s)

/* Set *err to a new message and return -1. */
int set_error(char **err, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* A key and a value (annotations, CNI_ARGS pairs). */
struct kv {
	char *key;
	char *value;
};
/* Key-value pairs in order: v[0..n). Zero-initialised: empty. */
struct kvlist {
	struct kv *v;
	size_t n;
};
/* Append copies of key and value. */
void kvlist_append(struct kvlist *l, const char *key, const char *value);
/* Append copies of the pairs of from. */
void kvlist_append_all(struct kvlist *l, const struct kvlist *from);
/* Free the pairs and leave l empty. */
void kvlist_free(struct kvlist *l);
/* The value of the first pair whose key is key ("" for a NULL value), or
 * NULL; pairs with a NULL key are skipped. */
const char *kvlist_get(const struct kvlist *l, const char *key);

/* A NULL-terminated vector of strings. */
void strv_append(char ***v, size_t *n, const char *s);
void strv_free(char **v, size_t n);

/* A set of strings: strv_append()ed, then sorted once and searched by
 * bisection (gc's and the verdicts' lookups among many containers). */
struct strset {
	char **v;
	size_t n;
};
void strset_sort(struct strset *s);
/* The member equal to key, or NULL. */
const char *strset_find(const struct strset *s, const char *key);

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
/* Files of the state directory are written with write_file_atomic()
 * (common.h) without fsync: the directory is on /run, whose content means
 * nothing after a crash (the pins are gone; gc cleans up from the cache,
 * which libcnirt does sync). */
/* mkdir -p with mode for the directories it creates. On failure *err is
 * "<path>: <strerror>". */
int mkdir_p(const char *path, int mode, char **err);

struct cnirt_error;
struct cnirt_kv;
/* The pairs as libcnirt takes them (cnirt_kv; the strings stay the
 * list's; free() the array). */
struct cnirt_kv *kvlist_to_cnirt(const struct kvlist *l);
/* `network "N": plugin "P": CNI error C: message (details)`, leaving out
 * what the error does not name; network is used when the error names none. */
char *cni_error_text(const char *network, const struct cnirt_error *e);

/* The start time of process `pid` (field 22 of /proc/<pid>/stat, in clock
 * ticks since boot), or -1 when there is no such process. */
int proc_start_time(long pid, unsigned long long *start);

#endif
