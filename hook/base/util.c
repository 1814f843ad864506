/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers of the hook: JSON limits, messages, reading a file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/util.h"

const struct json_limits hook_json = {
    .max_depth = HOOK_JSON_DEPTH, .no_nul = true, .utf8_unchecked = true};

char *shown_n(const char *s, size_t len)
{
	return text_shown(s, len, 80, true);
}

char *shown_whole(const char *s)
{
	return text_shown(s, strlen(s), 0, true);
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

/* "larger than 16 MiB", "larger than 64 bytes" */
static int too_large(size_t limit, char **err)
{
	if (limit >= (1u << 20) && limit % (1u << 20) == 0)
		return set_error(err, "larger than %zu MiB", limit >> 20);
	return set_error(err, "larger than %zu bytes", limit);
}

/* read_all_fd(), and the errno of a failure in *errnum (EFBIG: the limit). */
static int read_fd(int fd, size_t limit, char **out, size_t *len, int *errnum, char **err)
{
	size_t cap = 4096, n = 0;
	_cleanup_free_ char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		ssize_t r = TEMP_FAILURE_RETRY(read(fd, buf + n, cap - n - 1));
		if (r < 0) {
			*errnum = errno;
			return set_error(err, "%s", strerror(errno));
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > limit) {
			*errnum = EFBIG;
			return too_large(limit, err);
		}
	}
	buf[n] = '\0';
	*out = TAKE_PTR(buf);
	*len = n;
	return 0;
}

int read_all_fd(int fd, size_t limit, char **out, size_t *len, char **err)
{
	int errnum;
	return read_fd(fd, limit, out, len, &errnum, err);
}

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

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strset_sort(struct strset *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), strp_cmp);
}

const char *strset_find(const struct strset *s, const char *key)
{
	char *const *hit = s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), strp_cmp) : NULL;
	return hit ? *hit : NULL;
}

int read_file_at(int dirfd, const char *path, size_t limit, char **out, size_t *len, int *errnum,
		 char **err)
{
	int ignored;
	if (errnum == NULL)
		errnum = &ignored;
	_cleanup_close_ int fd =
	    TEMP_FAILURE_RETRY(openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY));
	if (fd < 0) {
		*errnum = errno;
		return set_error(err, "%s: %s", path, strerror(errno));
	}
	_cleanup_free_ char *e = NULL;
	if (read_fd(fd, limit, out, len, errnum, &e) < 0)
		return set_error(err, "%s: %s", path, e);
	return 0;
}

int read_file(const char *path, size_t limit, char **out, size_t *len, int *errnum, char **err)
{
	return read_file_at(AT_FDCWD, path, limit, out, len, errnum, err);
}

int mkdir_p(const char *path, int mode, char **err)
{
	struct stat there;
	if (stat(path, &there) == 0 && S_ISDIR(there.st_mode))
		return 0; /* the common case: one system call */
	_cleanup_free_ char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
			return set_error(err, "%s: %s", path, strerror(errno));
		*s = c;
		if (c == '\0')
			break;
	}
	return 0;
}

char *cni_error_text(const char *network, const cnirt_error *e)
{
	const char *net = cnirt_error_network(e) ? cnirt_error_network(e) : network;
	const char *plugin = cnirt_error_plugin(e);
	const char *details = cnirt_error_details(e);
	bool has_code = cnirt_error_code(e) || cnirt_error_from_plugin(e);
	_cleanup_free_ char *net_shown = net ? shown(net) : NULL;
	_cleanup_free_ char *plugin_shown = plugin ? shown(plugin) : NULL;
	_cleanup_free_ char *n = net ? xasprintf("network \"%s\": ", net_shown) : xstrdup("");
	_cleanup_free_ char *p = plugin ? xasprintf("plugin \"%s\": ", plugin_shown) : xstrdup("");
	_cleanup_free_ char *c =
	    has_code ? xasprintf("CNI error %d: ", cnirt_error_code(e)) : xstrdup("");
	_cleanup_free_ char *d = details && *details ? xasprintf(" (%s)", details) : xstrdup("");
	return xasprintf("%s%s%s%s%s", n, p, c, cnirt_error_msg(e), d);
}

cnirt_kv *kvlist_to_cnirt(const struct kvlist *l)
{
	cnirt_kv *v = xreallocarray(NULL, l->n ? l->n : 1, sizeof(*v));
	for (size_t i = 0; i < l->n; i++)
		v[i] = (cnirt_kv){l->v[i].key, l->v[i].value};
	return v;
}

/* The start time of process `pid` (field 22 of /proc/<pid>/stat, in clock
 * ticks since boot, as runc and crun record it), or -1 when there is no
 * such process. */
int proc_start_time(long pid, unsigned long long *start)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len = 0;
	if (read_file(path, 4096, &buf, &len, NULL, &err) < 0)
		return -1;
	/* After the command's ")": the state is field 3, the start time 22. */
	const char *p = strrchr(buf, ')');
	if (p == NULL ||
	    sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu",
		   start) != 1)
		return -1;
	return 0;
}
