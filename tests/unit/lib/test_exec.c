/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of lib/exec.c: finding and executing a plugin (spec section 2,
 * "Execution Protocol"), with the recording fake plugin
 * (tests/plugins/fakeplugin.c, $FAKEPLUGIN) copied into a temp bin dir as
 * "fake".
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "internal.h"

#define DEFAULT_FAKEPLUGIN "/tmp/b-exec/tests/plugins/fakeplugin"
#define SYSTEM_PATH	   "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct fixture {
	char *dir;    /* the temp bin dir */
	char *plugin; /* dir/fake */
	cnirt_ctx *ctx;
};

/* ------------------------------------------------------------ helpers */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void msleep(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The whole file, NUL terminated, or NULL if it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct buf b = {0};
	char chunk[65536];
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = TEMP_FAILURE_RETRY(read(fd, chunk, sizeof(chunk)))) > 0)
		buf_append(&b, chunk, (size_t)n);
	if (n < 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b, len);
}

static void put_file(const char *path, const void *data, size_t len, mode_t mode)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	const char *p = data;

	assert_true(fd >= 0);
	while (len > 0) {
		ssize_t n = TEMP_FAILURE_RETRY(write(fd, p, len));
		assert_true(n > 0);
		p += n;
		len -= (size_t)n;
	}
	assert_int_equal(fchmod(fd, mode), 0);
}

/* Write DIR/name. */
static char *put(struct fixture *f, const char *name, const char *text, mode_t mode)
{
	char *path = xasprintf("%s/%s", f->dir, name);

	put_file(path, text, strlen(text), mode);
	return path;
}

/* The control file of the fake plugin for `command` (or "default"). */
static void control(struct fixture *f, const char *command, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void control(struct fixture *f, const char *command, const char *fmt, ...)
{
	va_list ap;
	_cleanup_free_ char *name = xasprintf("fake.%s", command);

	va_start(ap, fmt);
	_cleanup_free_ char *text = xvasprintf(fmt, ap);
	va_end(ap);
	free(put(f, name, text, 0644));
}

/* The recorded file `ext` of the last call of the fake plugin, or NULL. */
static char *recorded(struct fixture *f, const char *ext, size_t *len)
{
	_cleanup_free_ char *pattern = xasprintf("%s/rec/*%s", f->dir, ext);
	glob_t g;
	char *data = NULL;

	if (glob(pattern, 0, NULL, &g) != 0)
		return NULL;
	if (g.gl_pathc > 0)
		data = slurp(g.gl_pathv[g.gl_pathc - 1], len);
	globfree(&g);
	return data;
}

static int nftw_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A process that is gone, or a zombie nobody reaped yet (pid 1 of a
 * container may not reap). */
static bool process_gone(pid_t pid)
{
	_cleanup_free_ char *path = xasprintf("/proc/%d/stat", (int)pid);
	_cleanup_free_ char *stat = NULL;
	const char *p;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	stat = slurp(path, NULL);
	if (stat == NULL)
		return true;
	p = strrchr(stat, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}

static bool wait_gone(pid_t pid, long ms)
{
	long long end = now_ms() + ms;

	while (!process_gone(pid)) {
		if (now_ms() > end)
			return false;
		msleep(10);
	}
	return true;
}

/* The pids the fake plugin wrote to its pid-file. */
static void read_pids(const char *path, pid_t *plugin, pid_t *child)
{
	_cleanup_free_ char *text = slurp(path, NULL);
	int a = 0, b = 0;

	assert_non_null(text);
	assert_true(sscanf(text, "%d %d", &a, &b) >= 1);
	*plugin = a;
	*child = b;
}

static int run_req(struct fixture *f, const struct exec_request *req, char **out, size_t *out_len,
		   cnirt_error **err)
{
	return exec_plugin(f->ctx, f->plugin, req, out, out_len, err);
}

/* An ADD of the fake plugin with fixed parameters. */
static int run(struct fixture *f, const char *in, size_t in_len, char **out, size_t *out_len,
	       cnirt_error **err)
{
	struct exec_request req = {
	    .command = "ADD",
	    .container_id = "ctr1",
	    .netns = "/var/run/netns/test",
	    .ifname = "eth0",
	    .args = "IgnoreUnknown=1;K=V",
	    .stdin_data = in,
	    .stdin_len = in_len,
	};
	return run_req(f, &req, out, out_len, err);
}

static const char CONF[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"fake\"}";

static int run_conf(struct fixture *f, char **out, size_t *out_len, cnirt_error **err)
{
	return run(f, CONF, strlen(CONF), out, out_len, err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Split text into its lines, sorted. */
static char **sorted_lines(char *text, size_t *n)
{
	char **v = NULL;
	char *save = NULL;

	*n = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		v = xreallocarray(v, *n + 1, sizeof(char *));
		v[(*n)++] = l;
	}
	qsort(v, *n, sizeof(char *), cmp_str);
	return v;
}

static void assert_env(const char *env_text, const char *const *expected, size_t n_expected)
{
	_cleanup_free_ char *copy = xstrdup(env_text);
	_cleanup_free_ const char **want = xcalloc(n_expected, sizeof(char *));
	size_t n;
	_cleanup_free_ char **got = sorted_lines(copy, &n);

	memcpy(want, expected, n_expected * sizeof(char *));
	qsort(want, n_expected, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n && i < n_expected; i++)
		assert_string_equal(got[i], want[i]);
	assert_int_equal(n, n_expected);
}

/* ------------------------------------------------------------ fixture */

static int setup(void **state)
{
	struct fixture *f = xzalloc(sizeof(*f));
	const char *fake = getenv("FAKEPLUGIN");
	char tmpl[] = "/tmp/test_exec.XXXXXX";
	size_t len;
	_cleanup_free_ char *bin = NULL;

	if (fake == NULL || *fake == '\0')
		fake = DEFAULT_FAKEPLUGIN;
	bin = slurp(fake, &len);
	if (bin == NULL) {
		fprintf(stderr, "cannot read the fake plugin %s (set FAKEPLUGIN)\n", fake);
		free(f);
		return -1;
	}
	if (mkdtemp(tmpl) == NULL) {
		free(f);
		return -1;
	}
	f->dir = xstrdup(tmpl);
	f->plugin = xasprintf("%s/fake", f->dir);
	put_file(f->plugin, bin, len, 0755);

	f->ctx = cnirt_ctx_new();
	cnirt_ctx_set_bin_path(f->ctx, f->dir);
	cnirt_ctx_set_timeout_ms(f->ctx, 20000);
	*state = f;
	return 0;
}

/* A preexec function that does nothing: the tests that run again with it
 * check that the preexec path of exec (the one the plugin sandbox takes)
 * keeps every promise of the plain one. */
static int preexec_noop(void *data)
{
	(void)data;
	return 0;
}

/* The fixture of the tests that run again with a preexec function. */
static int setup_preexec(void **state)
{
	int r = setup(state);

	if (r == 0) {
		struct fixture *f = *state;

		cnirt_ctx_set_preexec(f->ctx, preexec_noop, NULL);
	}
	return r;
}

/* Under valgrind a failed execve() kills the child (valgrind cannot
 * recover from it), so the ETXTBSY tests cannot run there. */
static bool under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "valgrind");
}

/* Whether pid runs a program of our temp dir (and so is ours to kill). */
static bool runs_from(pid_t pid, const char *dir)
{
	_cleanup_free_ char *path = xasprintf("/proc/%d/cmdline", (int)pid);
	_cleanup_free_ char *cmdline = slurp(path, NULL);

	return cmdline && strncmp(cmdline, dir, strlen(dir)) == 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *pids = xasprintf("%s/pids", f->dir);
	_cleanup_free_ char *text = slurp(pids, NULL);
	int a = 0, b = 0;

	/* A failed test may have left the plugin or its child running. */
	if (text && sscanf(text, "%d %d", &a, &b) >= 1) {
		if (a > 0 && runs_from(a, f->dir))
			kill(a, SIGKILL);
		if (b > 0 && runs_from(b, f->dir))
			kill(b, SIGKILL);
	}
	nftw(f->dir, nftw_remove, 16, FTW_DEPTH | FTW_PHYS);
	cnirt_ctx_free(f->ctx);
	free(f->plugin);
	free(f->dir);
	free(f);
	return 0;
}

/* ------------------------------------------------------------ finding */

/* Spec section 3, "Adding an attachment": "Look up the executable specified
 * in the `type` field. If this does not exist, then this is an error." */
static void test_find_found(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *path = NULL;
	_cleanup_error_ cnirt_error *err = NULL;

	assert_int_equal(exec_find_plugin(f->ctx, "fake", &path, &err), 0);
	assert_string_equal(path, f->plugin);
}

static void test_find_in_order(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *empty = xasprintf("%s/empty", f->dir);
	_cleanup_free_ char *second = xasprintf("%s/second", f->dir);
	_cleanup_free_ char *second_fake = xasprintf("%s/second/fake", f->dir);
	_cleanup_free_ char *second_only = xasprintf("%s/second/only", f->dir);
	const char *dirs[] = {empty, f->dir, second};
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char *path2 = NULL;
	_cleanup_error_ cnirt_error *err = NULL;

	assert_int_equal(mkdir(empty, 0755), 0);
	assert_int_equal(mkdir(second, 0755), 0);
	put_file(second_fake, "#!/bin/sh\n", 10, 0755);
	put_file(second_only, "#!/bin/sh\n", 10, 0755);
	cnirt_ctx_set_bin_dirs(f->ctx, dirs, 3);

	/* The first directory that has it wins. */
	assert_int_equal(exec_find_plugin(f->ctx, "fake", &path, &err), 0);
	assert_string_equal(path, f->plugin);
	assert_int_equal(exec_find_plugin(f->ctx, "only", &path2, &err), 0);
	assert_string_equal(path2, second_only);
}

static void test_find_not_found(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *second = xasprintf("%s/second", f->dir);
	const char *dirs[] = {f->dir, second};
	_cleanup_free_ char *want = xasprintf("plugin \"nope\" not found in %s:%s", f->dir, second);
	char *path = NULL;
	_cleanup_error_ cnirt_error *err = NULL;

	cnirt_ctx_set_bin_dirs(f->ctx, dirs, 2);
	assert_int_equal(exec_find_plugin(f->ctx, "nope", &path, &err), -1);
	assert_null(path);
	assert_string_equal(cnirt_error_msg(err), want);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_CONFIG);
	assert_string_equal(cnirt_error_plugin(err), "nope");
	assert_false(cnirt_error_from_plugin(err));
}

static void test_find_not_executable(void **state)
{
	struct fixture *f = *state;
	char *path = NULL;
	_cleanup_error_ cnirt_error *err = NULL;

	free(put(f, "noexec", "#!/bin/sh\n", 0644));
	assert_int_equal(exec_find_plugin(f->ctx, "noexec", &path, &err), -1);
	assert_null(path);
	/* Found, but not executable: said so, not "not found". */
	assert_non_null(strstr(cnirt_error_msg(err), "is not executable"));
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_NOT_EXECUTABLE);
	cnirt_error_free(TAKE_PTR(err));
	assert_int_equal(exec_find_plugin(f->ctx, "absent", &path, &err), -1);
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_NOT_FOUND);
}

static void test_find_directory(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *sub = xasprintf("%s/subdir", f->dir);
	char *path = NULL;
	_cleanup_error_ cnirt_error *err = NULL;

	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(exec_find_plugin(f->ctx, "subdir", &path, &err), -1);
	assert_null(path);
	assert_non_null(strstr(cnirt_error_msg(err), "plugin \"subdir\" not found"));
}

static void test_find_bad_type(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *abs = xstrdup(f->plugin);
	const char *bad[] = {"../fake", "sub/fake", abs, "/", ""};
	char *path = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		_cleanup_error_ cnirt_error *err = NULL;

		assert_int_equal(exec_find_plugin(f->ctx, bad[i], &path, &err), -1);
		assert_null(path);
		assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_CONFIG);
		assert_non_null(strstr(cnirt_error_msg(err), "field \"type\""));
	}
}

/* ------------------------------------------------------------ protocol */

/* Spec section 2, "Parameters": "Protocol parameters are passed to the
 * plugins via OS environment variables" - CNI_COMMAND, CNI_CONTAINERID,
 * CNI_NETNS, CNI_IFNAME, CNI_ARGS, CNI_PATH. Nothing of the runtime's own
 * environment reaches the plugin, only a sane PATH. */
static void test_env_exact(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *env = NULL;
	_cleanup_free_ char *cni_path = xasprintf("CNI_PATH=%s", f->dir);
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;
	const char *want[] = {
	    "CNI_COMMAND=ADD",	 "CNI_CONTAINERID=ctr1",	 "CNI_NETNS=/var/run/netns/test",
	    "CNI_IFNAME=eth0",	 "CNI_ARGS=IgnoreUnknown=1;K=V", cni_path,
	    "PATH=" SYSTEM_PATH,
	};

	setenv("CNIRT_TEST_MUST_NOT_LEAK", "1", 1);
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	unsetenv("CNIRT_TEST_MUST_NOT_LEAK");
	env = recorded(f, "-fake-ADD.env", NULL);
	assert_non_null(env);
	assert_env(env, want, ARRAY_SIZE(want));
}

/* Absent request fields are passed empty (the spec requires only
 * CNI_COMMAND for VERSION); the caller's PATH replaces the default. */
static void test_env_null_fields_and_path(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *env = NULL;
	_cleanup_free_ char *cni_path = xasprintf("CNI_PATH=%s", f->dir);
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;
	struct exec_request req = {
	    .command = "VERSION", .stdin_data = "{\"cniVersion\":\"1.0.0\"}", .stdin_len = 22};
	const char *want[] = {
	    "CNI_COMMAND=VERSION", "CNI_CONTAINERID=", "CNI_NETNS=",	       "CNI_IFNAME=",
	    "CNI_ARGS=",	   cni_path,	       "PATH=/opt/x/bin:/bin",
	};

	cnirt_ctx_set_path_env(f->ctx, "/opt/x/bin:/bin");
	assert_int_equal(run_req(f, &req, &out, &len, &err), 0);
	env = recorded(f, "-fake-VERSION.env", NULL);
	assert_non_null(env);
	assert_env(env, want, ARRAY_SIZE(want));
}

/* The plugin is run by its full path with no other argument. */
static void test_argv(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *argv = NULL;
	_cleanup_free_ char *want = xasprintf("%s\n", f->plugin);
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	argv = recorded(f, "-fake-ADD.argv", NULL);
	assert_non_null(argv);
	assert_string_equal(argv, want);
}

/* Spec section 2: "It supplies configuration via stdin." Byte-exact,
 * including bytes a C string would stop at. */
static void test_stdin_exact(void **state)
{
	struct fixture *f = *state;
	static const char in[] =
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"n\xc3\xa9\",\"x\":\"a\\u0000b\"}"
	    "\n\0tail";
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *rec = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len, rec_len = 0;

	assert_int_equal(run(f, in, sizeof(in) - 1, &out, &len, &err), 0);
	rec = recorded(f, "-fake-ADD.stdin", &rec_len);
	assert_non_null(rec);
	assert_int_equal(rec_len, sizeof(in) - 1);
	assert_memory_equal(rec, in, sizeof(in) - 1);
}

static void test_stdin_large(void **state)
{
	struct fixture *f = *state;
	size_t n = 1 << 20;
	_cleanup_free_ char *in = xmalloc(n);
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *rec = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len, rec_len = 0;

	for (size_t i = 0; i < n; i++)
		in[i] = (char)('a' + i % 26);
	control(f, "ADD", "stdout=ok\n");
	assert_int_equal(run(f, in, n, &out, &len, &err), 0);
	rec = recorded(f, "-fake-ADD.stdin", &rec_len);
	assert_non_null(rec);
	assert_int_equal(rec_len, n);
	assert_memory_equal(rec, in, n);
}

/* A plugin that exits without reading a big stdin: EPIPE for us, not a
 * SIGPIPE that kills the caller; its exit status decides. */
static void test_stdin_not_read(void **state)
{
	struct fixture *f = *state;
	size_t n = 4 << 20;
	_cleanup_free_ char *in = xzalloc(n);
	_cleanup_free_ char *script = put(f, "quick", "#!/bin/sh\necho done\n", 0755);
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct exec_request req = {.command = "DEL", .stdin_data = in, .stdin_len = n};
	size_t len;

	memset(in, ' ', n);
	assert_int_equal(exec_plugin(f->ctx, script, &req, &out, &len, &err), 0);
	assert_string_equal(out, "done\n");
}

/* Spec section 2: "The plugin returns a result on stdout on success". */
static void test_stdout_returned(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len = 0;

	control(f, "ADD", "stdout={\"cniVersion\":\"1.0.0\"}\nstderr=some log line\n");
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	assert_null(err);
	/* stderr is not mixed in. */
	assert_string_equal(out, "{\"cniVersion\":\"1.0.0\"}");
	assert_int_equal(len, strlen(out));
}

static void test_stdout_empty(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct exec_request req = {.command = "DEL", .stdin_data = CONF, .stdin_len = strlen(CONF)};
	size_t len = 99;

	assert_int_equal(run_req(f, &req, &out, &len, &err), 0);
	assert_non_null(out);
	assert_int_equal(len, 0);
	assert_string_equal(out, "");
}

static void test_stdout_large(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len = 0;

	control(f, "ADD", "flood=%d\n", 3 << 20);
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	assert_int_equal(len, 3 << 20);
	for (size_t i = 0; i < len; i++)
		if (out[i] != 'x')
			fail_msg("byte %zu of the output is not 'x'", i);
}

/* ------------------------------------------------------------ errors */

/* Spec section 5, "Error": the plugin's code, msg and details are kept. */
static void test_error_from_stdout(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	control(f, "ADD",
		"exit=1\nstdout={\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"Invalid "
		"Configuration\",\"details\":\"Network 192.168.0.0/31 too small to allocate "
		"from.\"}\nstderr={\"code\":11,\"msg\":\"not this one\"}\n");
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_null(out);
	assert_int_equal(cnirt_error_code(err), 7);
	assert_string_equal(cnirt_error_msg(err), "Invalid Configuration");
	assert_string_equal(cnirt_error_details(err),
			    "Network 192.168.0.0/31 too small to allocate from.");
	assert_true(cnirt_error_from_plugin(err));
	assert_string_equal(cnirt_error_plugin(err), "fake");
}

/* Codes of 100 and more are the plugin's own: kept as they are. */
static void test_error_plugin_code(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	control(f, "ADD",
		"exit=1\nstdout={\"cniVersion\":\"1.0.0\",\"code\":123,\"msg\":\"own\"}\n");
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_int_equal(cnirt_error_code(err), 123);
	assert_string_equal(cnirt_error_msg(err), "own");
	assert_null(cnirt_error_details(err));
}

static void test_error_from_stderr(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	control(f, "ADD",
		"exit=2\nstdout=not json\nstderr={\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":"
		"\"try again later\"}\n");
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_TRY_AGAIN);
	assert_string_equal(cnirt_error_msg(err), "try again later");
	assert_true(cnirt_error_from_plugin(err));
}

static void test_error_exit_status_with_stderr(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *text = put(f, "errtext", "first line\nsecond line\n", 0644);
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	control(f, "ADD", "exit=3\nstderr-file=%s\n", text);
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_string_equal(cnirt_error_msg(err), "exit status 3: first line");
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_NONE);
	assert_true(cnirt_error_from_plugin(err));
	assert_string_equal(cnirt_error_plugin(err), "fake");
	/* The whole stderr is kept with the error, not only its first line. */
	size_t n = 0;
	const char *whole = cnirt_error_stderr(err, &n);
	assert_non_null(whole);
	assert_int_equal(n, strlen("first line\nsecond line\n"));
	assert_memory_equal(whole, "first line\nsecond line\n", n);
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_PLUGIN);
}

/* Extra environment set by the engine reaches the plugin; CNI_* and PATH
 * cannot be set that way. */
static void test_env_extra(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	assert_int_equal(cnirt_ctx_set_env(f->ctx, "TRACEPARENT", "00-abc-def-01", &err), 0);
	assert_int_equal(cnirt_ctx_set_env(f->ctx, "BAGGAGE", "k=v", &err), 0);
	assert_int_equal(cnirt_ctx_set_env(f->ctx, "DROPPED", "x", &err), 0);
	assert_int_equal(cnirt_ctx_set_env(f->ctx, "DROPPED", NULL, &err), 0);
	assert_int_equal(cnirt_ctx_set_env(f->ctx, "CNI_COMMAND", "DEL", &err), -1);
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_CONFIG);
	cnirt_error_free(TAKE_PTR(err));
	assert_int_equal(cnirt_ctx_set_env(f->ctx, "PATH", "/tmp", &err), -1);
	cnirt_error_free(TAKE_PTR(err));
	control(f, "ADD", "stdout={}\n");
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	_cleanup_free_ char *env = recorded(f, "-fake-ADD.env", NULL);
	assert_non_null(env);
	assert_non_null(strstr(env, "TRACEPARENT=00-abc-def-01"));
	assert_non_null(strstr(env, "BAGGAGE=k=v"));
	assert_null(strstr(env, "DROPPED"));
	assert_non_null(strstr(env, "CNI_COMMAND=ADD"));
}

static void test_error_exit_status(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	control(f, "ADD", "exit=4\nstdout=\n");
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_string_equal(cnirt_error_msg(err), "exit status 4");
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_NONE);
}

static void test_killed_by_signal(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	control(f, "ADD", "signal=9\nstdout={}\n");
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_null(out);
	assert_string_equal(cnirt_error_msg(err), "killed by signal 9 (SIGKILL)");
	assert_false(cnirt_error_from_plugin(err));
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_SIGNAL);
	assert_int_equal(cnirt_error_signal(err), 9);
	assert_string_equal(cnirt_error_plugin(err), "fake");
}

/* The plugin starts with no signal blocked, whatever the caller blocks. */
static void test_signal_mask_reset(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	sigset_t set, old;
	size_t len;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	control(f, "ADD", "signal=15\n");
	int r = run_conf(f, &out, &len, &err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(out);
	assert_int_equal(r, -1);
	assert_string_equal(cnirt_error_msg(err), "killed by signal 15 (SIGTERM)");
}

/* ... and with default dispositions, whatever the caller ignores. */
static void test_signal_ignore_reset(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	size_t len;

	sigaction(SIGPIPE, &ign, &old);
	control(f, "ADD", "signal=13\n");
	int r = run_conf(f, &out, &len, &err);
	sigaction(SIGPIPE, &old, NULL);
	free(out);
	assert_int_equal(r, -1);
	assert_string_equal(cnirt_error_msg(err), "killed by signal 13 (SIGPIPE)");
}

static void on_signal(int sig)
{
	(void)sig;
}

/* The child's disposition of SIGTERM, seen by the preexec function: it
 * runs in the child after the reset and before execve. */
static int preexec_sigterm_default(void *data)
{
	struct sigaction cur;

	(void)data;
	if (sigaction(SIGTERM, NULL, &cur) < 0)
		return errno;
	return cur.sa_handler == SIG_DFL ? 0 : EBUSY;
}

/* ... and a signal the caller handles has its default action too. execve
 * would reset a caught signal anyway, so the plugin cannot tell; but the
 * child runs in the caller's memory until it execs (CLONE_VM), where a
 * handler of the caller must not run once the signals are unblocked: the
 * preexec function, which runs there, sees SIGTERM at its default. */
static void test_signal_handler_reset(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct sigaction sa = {.sa_handler = on_signal}, old;
	size_t len;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old);
	cnirt_ctx_set_preexec(f->ctx, preexec_sigterm_default, NULL);
	control(f, "ADD", "signal=15\n");
	int r = run_conf(f, &out, &len, &err);
	sigaction(SIGTERM, &old, NULL);
	free(out);
	assert_int_equal(r, -1);
	assert_string_equal(cnirt_error_msg(err), "killed by signal 15 (SIGTERM)");
}

/* Whatever exec does about SIGPIPE while it writes a stdin the plugin does
 * not read, the caller gets its signal state back: SIGPIPE not blocked,
 * none pending. */
static void test_sigpipe_state_restored(void **state)
{
	struct fixture *f = *state;
	size_t n = 4 << 20;
	_cleanup_free_ char *in = xzalloc(n);
	_cleanup_free_ char *script = put(f, "quick", "#!/bin/sh\nexit 0\n", 0755);
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct exec_request req = {.command = "DEL", .stdin_data = in, .stdin_len = n};
	sigset_t mask, pending;
	size_t len;

	memset(in, ' ', n);
	assert_int_equal(exec_plugin(f->ctx, script, &req, &out, &len, &err), 0);
	sigemptyset(&mask);
	sigemptyset(&pending);
	assert_int_equal(pthread_sigmask(SIG_SETMASK, NULL, &mask), 0);
	assert_int_equal(sigpending(&pending), 0);
	if (sigismember(&mask, SIGPIPE))
		fail_msg("SIGPIPE is still blocked after exec");
	if (sigismember(&pending, SIGPIPE))
		fail_msg("a SIGPIPE is left pending after exec");
}

/* A caller running with its standard descriptors closed: the pipes get the
 * numbers 0, 1 and 2, and must still reach the plugin's stdin and come from
 * its stdout, without clobbering one another on the way. */
static void test_std_fds_closed(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *rec = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len = 0, rec_len = 0;
	int saved[3];
	int r;

	control(f, "ADD", "stdout={\"ok\":true}\n");
	fflush(stdout);
	fflush(stderr);
	for (int fd = 0; fd < 3; fd++) {
		saved[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 10);
		assert_true(saved[fd] >= 0);
	}
	for (int fd = 0; fd < 3; fd++)
		close(fd);
	r = run_conf(f, &out, &len, &err);
	for (int fd = 0; fd < 3; fd++) {
		dup2(saved[fd], fd);
		close(saved[fd]);
	}
	if (r < 0)
		fail_msg("exec with 0, 1 and 2 closed failed: %s", cnirt_error_msg(err));
	assert_string_equal(out, "{\"ok\":true}");
	rec = recorded(f, "-fake-ADD.stdin", &rec_len);
	assert_non_null(rec);
	assert_int_equal(rec_len, strlen(CONF));
	assert_memory_equal(rec, CONF, rec_len);
}

/* ------------------------------------------------------------ limits */

static void test_timeout(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *pids = xasprintf("%s/pids", f->dir);
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	pid_t plugin = 0, child = 0;
	long long start;
	size_t len;

	control(f, "ADD", "child-sleep-ms=30000\npid-file=%s\nsleep-ms=30000\nstdout={}\n", pids);
	cnirt_ctx_set_timeout_ms(f->ctx, 400);
	start = now_ms();
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	long long took = now_ms() - start;
	assert_null(out);
	assert_string_equal(cnirt_error_msg(err), "plugin \"fake\" ADD timed out after 400 ms");
	assert_false(cnirt_error_from_plugin(err));
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_TIMEOUT);
	if (took < 400 || took > 400 + 1500)
		fail_msg("the timeout of 400 ms returned after %lld ms", took);

	/* The plugin and its child (same process group) are killed. */
	read_pids(pids, &plugin, &child);
	assert_true(plugin > 0 && child > 0);
	if (!wait_gone(plugin, 2000))
		fail_msg("the timed out plugin %d still runs", (int)plugin);
	if (!wait_gone(child, 2000))
		fail_msg("the child %d of the timed out plugin still runs", (int)child);
}

/* The plugin exits but leaves a child that holds stdout and stderr open:
 * exec must not wait for that child (a generous bound: it sleeps 5 s). */
static void test_grandchild_holds_pipes(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *pids = xasprintf("%s/pids", f->dir);
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	pid_t plugin = 0, child = 0;
	long long start;
	size_t len;

	control(f, "ADD", "child-sleep-ms=5000\npid-file=%s\nstdout={\"ok\":true}\n", pids);
	start = now_ms();
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	long long took = now_ms() - start;
	assert_string_equal(out, "{\"ok\":true}");
	if (took >= 2000)
		fail_msg("exec waited %lld ms for a grandchild holding the pipes", took);

	/* What the plugin left in its process group is killed. */
	read_pids(pids, &plugin, &child);
	assert_true(child > 0);
	if (!wait_gone(child, 2000))
		fail_msg("the plugin's child %d still runs", (int)child);
}

static void test_output_over_cap(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	cnirt_ctx_set_output_limit(f->ctx, 1000);
	control(f, "ADD", "flood=1000000\n");
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_null(out);
	assert_string_equal(cnirt_error_msg(err), "plugin output exceeds 1000 bytes");
	assert_string_equal(cnirt_error_plugin(err), "fake");
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_OUTPUT_LIMIT);
}

static void test_output_at_cap(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len = 0;

	cnirt_ctx_set_output_limit(f->ctx, 1000);
	control(f, "ADD", "flood=1000\n");
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	assert_int_equal(len, 1000);
}

static void test_stderr_over_cap(void **state)
{
	struct fixture *f = *state;
	size_t n = 200000;
	_cleanup_free_ char *big = xmalloc(n + 1);
	_cleanup_free_ char *path = NULL;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	memset(big, 'e', n);
	big[n] = '\0';
	path = put(f, "bigerr", big, 0644);
	cnirt_ctx_set_output_limit(f->ctx, 4096);
	control(f, "ADD", "stdout={}\nstderr-file=%s\n", path);
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_string_equal(cnirt_error_msg(err), "plugin output exceeds 4096 bytes");
}

/* ------------------------------------------------------------ exec */

static void test_exec_missing(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *path = xasprintf("%s/missing", f->dir);
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct exec_request req = {.command = "ADD"};
	size_t len;

	assert_int_equal(exec_plugin(f->ctx, path, &req, &out, &len, &err), -1);
	assert_int_equal(cnirt_error_errno(err), ENOENT);
	assert_non_null(strstr(cnirt_error_msg(err), path));
	assert_string_equal(cnirt_error_plugin(err), "missing");
}

static void test_exec_not_executable(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *path = put(f, "noexec", "#!/bin/sh\n", 0644);
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct exec_request req = {.command = "ADD"};
	size_t len;

	assert_int_equal(exec_plugin(f->ctx, path, &req, &out, &len, &err), -1);
	assert_int_equal(cnirt_error_errno(err), EACCES);
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_NOT_EXECUTABLE);
	assert_non_null(strstr(cnirt_error_msg(err), strerror(EACCES)));
}

/* Descriptors of the caller, even without O_CLOEXEC, do not reach the
 * plugin. */
static void test_fds_not_inherited(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *script =
	    put(f, "fds",
		"#!/bin/sh\nfor fd in 50 51; do [ -e /proc/self/fd/$fd ] && exit 9; done\n"
		"exit 0\n",
		0755);
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	struct exec_request req = {.command = "ADD"};
	size_t len;
	int fd = open("/dev/null", O_RDONLY); /* deliberately without O_CLOEXEC */

	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, 50), 50);
	assert_int_equal(dup2(fd, 51), 51);
	int r = exec_plugin(f->ctx, script, &req, &out, &len, &err);
	close(50);
	close(51);
	close(fd);
	if (r < 0)
		fail_msg("the plugin saw a descriptor of the caller: %s", cnirt_error_msg(err));
}

static void *close_later(void *arg)
{
	int *fd = arg;

	msleep(60);
	close(*fd);
	*fd = -1;
	return NULL;
}

/* A binary being written fails execve with ETXTBSY: exec tries again and
 * succeeds once the writer is done. */
static void test_etxtbsy_retry(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	pthread_t t;
	size_t len;
	int fd;

	if (under_valgrind())
		skip();
	fd = open(f->plugin, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pthread_create(&t, NULL, close_later, &fd), 0);
	control(f, "ADD", "stdout=ran\n");
	int r = run_conf(f, &out, &len, &err);
	pthread_join(t, NULL);
	if (r < 0)
		fail_msg("exec of a binary busy for 60 ms failed: %s", cnirt_error_msg(err));
	assert_string_equal(out, "ran");
}

/* ... but not forever. */
static void test_etxtbsy_gives_up(void **state)
{
	struct fixture *f = *state;
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;
	int fd;

	if (under_valgrind())
		skip();
	fd = open(f->plugin, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	int r = run_conf(f, &out, &len, &err);
	close(fd);
	assert_int_equal(r, -1);
	assert_int_equal(cnirt_error_errno(err), ETXTBSY);
}

static int preexec_fail(void *data)
{
	(void)data;
	return EPERM;
}

static void test_preexec_fails(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *rec = xasprintf("%s/rec", f->dir);
	char *out = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	cnirt_ctx_set_preexec(f->ctx, preexec_fail, NULL);
	assert_int_equal(run_conf(f, &out, &len, &err), -1);
	assert_null(out);
	assert_int_equal(cnirt_error_errno(err), EPERM);
	assert_non_null(strstr(cnirt_error_msg(err), strerror(EPERM)));
	assert_non_null(strstr(cnirt_error_msg(err), "preexec"));
	/* The plugin did not run. */
	assert_int_equal(access(rec, F_OK), -1);
}

/* Write the number n into the file at path, from the child. */
static int write_number(const char *path, int n)
{
	char text[32];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int len = snprintf(text, sizeof(text), "%d", n);

	if (fd < 0)
		return errno;
	if (write(fd, text, (size_t)len) != len) {
		close(fd);
		return EIO;
	}
	close(fd);
	return 0;
}

static int preexec_record_pid(void *data)
{
	return write_number(data, (int)getpid());
}

/* The preexec function runs in the child, and the plugin runs after it. */
static void test_preexec_runs_in_child(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *pidfile = xasprintf("%s/preexec.pid", f->dir);
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *env = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	cnirt_ctx_set_preexec(f->ctx, preexec_record_pid, pidfile);
	assert_int_equal(run_conf(f, &out, &len, &err), 0);
	text = slurp(pidfile, NULL);
	assert_non_null(text);
	assert_int_not_equal(atoi(text), (int)getpid());
	env = recorded(f, "-fake-ADD.env", NULL);
	assert_non_null(env);
}

/* ------------------------------------------------- direct children */

/* The fixture of the tests that run again with the plugin as our own child
 * (cnirt_ctx_set_spawn_direct()), as cnihook runs them: every promise of
 * the helper's way holds the same. */
static int setup_direct(void **state)
{
	int r = setup_preexec(state);

	if (r == 0)
		cnirt_ctx_set_spawn_direct(((struct fixture *)*state)->ctx, true);
	return r;
}

/* The preexec function writes the child's parent pid. */
static int preexec_record_ppid(void *data)
{
	return write_number(data, (int)getppid());
}

/* The plugin's parent: ours when direct (where pidfds work: not under
 * valgrind 3.19, for one), the helper's otherwise. */
static void test_direct_parent(void **state)
{
	struct fixture *f = *state;
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0U);
	bool have_pidfd = pidfd >= 0;

	if (pidfd >= 0)
		close(pidfd);
	_cleanup_free_ char *pidfile = xasprintf("%s/ppid", f->dir);
	_cleanup_error_ cnirt_error *err = NULL;
	size_t len;

	for (int direct = 0; direct <= 1; direct++) {
		_cleanup_free_ char *out = NULL;
		_cleanup_free_ char *text = NULL;

		cnirt_ctx_set_spawn_direct(f->ctx, direct);
		cnirt_ctx_set_preexec(f->ctx, preexec_record_ppid, pidfile);
		assert_int_equal(run_conf(f, &out, &len, &err), 0);
		text = slurp(pidfile, NULL);
		assert_non_null(text);
		if (direct && have_pidfd)
			assert_int_equal(atoi(text), (int)getpid());
		else
			assert_int_not_equal(atoi(text), (int)getpid());
	}
	/* Nothing is left to reap: the plugin was reaped by the library. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG | __WALL), -1);
	assert_int_equal(errno, ECHILD);
}

/* A SIGCHLD ignored would reap a direct child before the library takes its
 * status: then the helper is used, and the exit status still comes back. */
static void test_direct_sigchld_ignored(void **state)
{
	struct fixture *f = *state;
	struct sigaction ign = {.sa_handler = SIG_IGN}, nocldwait = {.sa_handler = SIG_DFL};
	struct sigaction old;
	nocldwait.sa_flags = SA_NOCLDWAIT;
	const struct sigaction *models[] = {&ign, &nocldwait};

	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *out = NULL;
		_cleanup_error_ cnirt_error *err = NULL;
		size_t len;

		control(f, "ADD", "exit=4\nstdout=\n");
		assert_int_equal(sigaction(SIGCHLD, models[i], &old), 0);
		int r = run_conf(f, &out, &len, &err);
		sigaction(SIGCHLD, &old, NULL);
		assert_int_equal(r, -1);
		assert_string_equal(cnirt_error_msg(err), "exit status 4");
	}
}

/* clang-format off */
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
/* The same test with a preexec function. */
#define F(fn) {#fn " (preexec)", fn, setup_preexec, teardown, NULL}
/* The same test with the plugin as our own child. */
#define D(fn) {#fn " (direct)", fn, setup_direct, teardown, NULL}
/* clang-format on */

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_find_found),
	    T(test_find_in_order),
	    T(test_find_not_found),
	    T(test_find_not_executable),
	    T(test_find_directory),
	    T(test_find_bad_type),
	    T(test_env_exact),
	    T(test_env_null_fields_and_path),
	    T(test_argv),
	    T(test_stdin_exact),
	    T(test_stdin_large),
	    T(test_stdin_not_read),
	    T(test_stdout_returned),
	    T(test_stdout_empty),
	    T(test_stdout_large),
	    T(test_error_from_stdout),
	    T(test_error_plugin_code),
	    T(test_error_from_stderr),
	    T(test_error_exit_status_with_stderr),
	    T(test_error_exit_status),
	    T(test_env_extra),
	    T(test_killed_by_signal),
	    T(test_signal_mask_reset),
	    T(test_signal_ignore_reset),
	    T(test_signal_handler_reset),
	    T(test_sigpipe_state_restored),
	    T(test_std_fds_closed),
	    T(test_timeout),
	    T(test_grandchild_holds_pipes),
	    T(test_output_over_cap),
	    T(test_output_at_cap),
	    T(test_stderr_over_cap),
	    T(test_exec_missing),
	    T(test_exec_not_executable),
	    T(test_fds_not_inherited),
	    T(test_etxtbsy_retry),
	    T(test_etxtbsy_gives_up),
	    T(test_preexec_fails),
	    T(test_preexec_runs_in_child),
	    F(test_env_exact),
	    F(test_stdin_exact),
	    F(test_stdin_large),
	    F(test_stdin_not_read),
	    F(test_stdout_large),
	    F(test_error_from_stderr),
	    F(test_signal_mask_reset),
	    F(test_signal_ignore_reset),
	    F(test_signal_handler_reset),
	    F(test_sigpipe_state_restored),
	    F(test_std_fds_closed),
	    F(test_timeout),
	    F(test_grandchild_holds_pipes),
	    F(test_output_over_cap),
	    F(test_exec_missing),
	    F(test_exec_not_executable),
	    F(test_fds_not_inherited),
	    F(test_etxtbsy_retry),
	    F(test_etxtbsy_gives_up),
	    D(test_env_exact),
	    D(test_stdin_large),
	    D(test_stdin_not_read),
	    D(test_stdout_large),
	    D(test_error_from_stderr),
	    D(test_error_exit_status),
	    D(test_killed_by_signal),
	    D(test_signal_mask_reset),
	    D(test_signal_ignore_reset),
	    D(test_signal_handler_reset),
	    D(test_std_fds_closed),
	    D(test_timeout),
	    D(test_grandchild_holds_pipes),
	    D(test_output_over_cap),
	    D(test_exec_missing),
	    D(test_exec_not_executable),
	    D(test_fds_not_inherited),
	    D(test_etxtbsy_retry),
	    D(test_preexec_fails),
	    D(test_direct_sigchld_ignored),
	    T(test_direct_parent),
	};
#undef D
#undef F
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
