/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary plugin directories of recording fake plugins, and their records. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "recorder.h"

char *read_whole_file(const char *path, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		fail_msg("open %s: %s", path, strerror(errno));
	}
	struct buf b = {0};
	char chunk[8192];
	for (;;) {
		ssize_t n = TEMP_FAILURE_RETRY(read(fd, chunk, sizeof(chunk)));
		if (n < 0)
			fail_msg("read %s: %s", path, strerror(errno));
		if (n == 0)
			break;
		buf_append(&b, chunk, (size_t)n);
	}
	return buf_steal(&b, len);
}

void write_whole_file(const char *path, const void *data, size_t len, unsigned mode)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	const char *p = data;
	while (len > 0) {
		ssize_t n = TEMP_FAILURE_RETRY(write(fd, p, len));
		if (n < 0)
			fail_msg("write %s: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, (mode_t)mode) < 0)
		fail_msg("chmod %s: %s", path, strerror(errno));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		fprintf(stderr, "recorder: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *make_dir(const char *parent, const char *name)
{
	char *p = xasprintf("%s/%s", parent, name);
	if (mkdir(p, 0700) < 0)
		fail_msg("mkdir %s: %s", p, strerror(errno));
	return p;
}

struct recorder *recorder_new(void)
{
	const char *fake = getenv("FAKEPLUGIN");
	struct stat st;
	if (fake == NULL || fake[0] == '\0' || stat(fake, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	const char *tmp = getenv("TMPDIR");
	_cleanup_free_ char *tmpl =
	    xasprintf("%s/cnirt-conform-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmpl) == NULL)
		fail_msg("mkdtemp %s: %s", tmpl, strerror(errno));
	struct recorder *r = xzalloc(sizeof(*r));
	r->root = TAKE_PTR(tmpl);
	r->fake = xstrdup(fake);
	r->bin_dir = make_dir(r->root, "bin");
	r->cache_dir = make_dir(r->root, "cache");
	r->files_dir = make_dir(r->root, "files");
	return r;
}

void recorder_free(struct recorder *r)
{
	if (r == NULL)
		return;
	remove_tree(r->root);
	free(r->root);
	free(r->bin_dir);
	free(r->cache_dir);
	free(r->files_dir);
	free(r->fake);
	free(r);
}

void recorder_add_plugin(struct recorder *r, const char *name)
{
	size_t len;
	_cleanup_free_ char *bytes = read_whole_file(r->fake, &len);
	if (bytes == NULL)
		fail_msg("fake plugin %s is gone", r->fake);
	_cleanup_free_ char *path = xasprintf("%s/%s", r->bin_dir, name);
	write_whole_file(path, bytes, len, 0755);
}

void recorder_remove_plugin(struct recorder *r, const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", r->bin_dir, name);
	if (unlink(path) < 0 && errno != ENOENT)
		fail_msg("unlink %s: %s", path, strerror(errno));
}

static char *control_path(const struct recorder *r, const char *plugin, const char *command)
{
	return xasprintf("%s/%s.%s", r->bin_dir, plugin, command ? command : "default");
}

void recorder_control(struct recorder *r, const char *plugin, const char *command, const char *fmt,
		      ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *text = xvasprintf(fmt, ap);
	va_end(ap);
	_cleanup_free_ char *path = control_path(r, plugin, command);
	write_whole_file(path, text, strlen(text), 0644);
}

void recorder_control_remove(struct recorder *r, const char *plugin, const char *command)
{
	_cleanup_free_ char *path = control_path(r, plugin, command);
	if (unlink(path) < 0 && errno != ENOENT)
		fail_msg("unlink %s: %s", path, strerror(errno));
}

char *recorder_file(struct recorder *r, const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", r->files_dir, name);
	write_whole_file(path, data, len, 0644);
	return path;
}

void recorder_answer(struct recorder *r, const char *plugin, const char *command,
		     const char *answer, int status)
{
	_cleanup_free_ char *name = xasprintf("%s.%s.out", plugin, command ? command : "default");
	_cleanup_free_ char *path = recorder_file(r, name, answer, strlen(answer));
	recorder_control(r, plugin, command, "exit=%d\nstdout-file=%s\n", status, path);
}

void recorder_answer_json(struct recorder *r, const char *plugin, const char *command,
			  const json *answer, int status)
{
	_cleanup_free_ char *text = json_gen(answer, true, NULL);
	recorder_answer(r, plugin, command, text, status);
}

static int compare_calls(const void *a, const void *b)
{
	const struct rec_call *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "NNNN-NAME-COMMAND.stdin": NAME may hold '-', COMMAND never does. */
static bool parse_record_name(const char *name, struct rec_call *c)
{
	size_t len = strlen(name);
	static const char suffix[] = ".stdin";
	if (len <= sizeof(suffix) - 1 || strcmp(name + len - (sizeof(suffix) - 1), suffix) != 0)
		return false;
	_cleanup_free_ char *stem = xstrndup(name, len - (sizeof(suffix) - 1));
	char *first = strchr(stem, '-');
	char *last = strrchr(stem, '-');
	if (first == NULL || last == first)
		return false;
	*first = '\0';
	*last = '\0';
	char *end;
	unsigned long seq = strtoul(stem, &end, 10);
	if (*end != '\0' || end == stem)
		return false;
	c->seq = (unsigned)seq;
	c->plugin = xstrdup(first + 1);
	c->command = xstrdup(last + 1);
	return true;
}

size_t recorder_calls(const struct recorder *r, struct rec_call **out)
{
	_cleanup_free_ char *rec = xasprintf("%s/rec", r->bin_dir);
	struct rec_call *v = NULL;
	size_t n = 0;
	DIR *d = opendir(rec);
	if (d == NULL) {
		if (errno != ENOENT)
			fail_msg("opendir %s: %s", rec, strerror(errno));
		*out = NULL;
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		struct rec_call c = {0};
		if (!parse_record_name(de->d_name, &c))
			continue;
		size_t len = strlen(de->d_name) - strlen(".stdin");
		c.prefix = xasprintf("%s/%.*s", rec, (int)len, de->d_name);
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = c;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), compare_calls);
	*out = v;
	return n;
}

void rec_calls_free(struct rec_call *calls, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(calls[i].plugin);
		free(calls[i].command);
		free(calls[i].prefix);
	}
	free(calls);
}

void recorder_clear(struct recorder *r)
{
	_cleanup_free_ char *rec = xasprintf("%s/rec", r->bin_dir);
	remove_tree(rec);
}

char *rec_call_stdin(const struct rec_call *c, size_t *len)
{
	_cleanup_free_ char *path = xasprintf("%s.stdin", c->prefix);
	char *data = read_whole_file(path, len);
	if (data == NULL)
		fail_msg("no record %s", path);
	return data;
}

json *rec_call_stdin_json(const struct rec_call *c)
{
	size_t len;
	_cleanup_free_ char *data = rec_call_stdin(c, &len);
	_cleanup_error_ cnirt_error *err = NULL;
	json *j = NULL;
	if (json_read_parse(data, len, "recorded stdin", &j, &err) < 0)
		fail_msg("stdin of call %u (%s %s) is not JSON: %s\n%s", c->seq, c->plugin,
			 c->command, cnirt_error_msg(err), data);
	return j;
}

void rec_call_env(const struct rec_call *c, struct rec_env *env)
{
	_cleanup_free_ char *path = xasprintf("%s.env", c->prefix);
	_cleanup_free_ char *data = read_whole_file(path, NULL);
	if (data == NULL)
		fail_msg("no record %s", path);
	memset(env, 0, sizeof(*env));
	char *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		env->keys = xreallocarray(env->keys, env->n + 1, sizeof(char *));
		env->values = xreallocarray(env->values, env->n + 1, sizeof(char *));
		env->keys[env->n] = eq ? xstrndup(line, (size_t)(eq - line)) : xstrdup(line);
		env->values[env->n] = xstrdup(eq ? eq + 1 : "");
		env->n++;
	}
}

const char *rec_env_get(const struct rec_env *env, const char *key)
{
	for (size_t i = 0; i < env->n; i++)
		if (strcmp(env->keys[i], key) == 0)
			return env->values[i];
	return NULL;
}

void rec_env_free(struct rec_env *env)
{
	for (size_t i = 0; i < env->n; i++) {
		free(env->keys[i]);
		free(env->values[i]);
	}
	free(env->keys);
	free(env->values);
	memset(env, 0, sizeof(*env));
}
