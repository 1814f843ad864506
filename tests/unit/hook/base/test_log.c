/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hook/base/log.c: level names, which levels are written, the line on
 * standard error ("cnihook: MESSAGE\n", always one line), the line in syslog
 * (ident "cnihook", LOG_PID, LOG_DAEMON), and error_cni_text() over errors
 * built by real library calls.
 *
 * The syslog test never reaches the host's syslog: a forked child (root
 * only) takes a private mount namespace and bind-mounts a datagram socket
 * of its own over /dev/log; the namespace dies with the child. The same
 * way, the fallbacks run where no syslog socket exists (an empty tmpfs on
 * /dev and on /run/systemd/journal), where /dev/log refuses, and where only
 * the journal's native socket listens: the file in the state directory,
 * its rotation, and concurrent writers.
 *
 * Plugin errors come from the recording fake plugin ($FAKEPLUGIN, see the
 * top of tests/plugins/fakeplugin.c) linked into a temp bin dir as "fake",
 * with a control file fake.STATUS telling it how to fail.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "base/util.h"

#define NETWORK "net-log"

/* ------------------------------------------------------------ helpers */

static int saved_stderr = -1;
static int capture_fd = -1;

/* Send fd 2 to a memory file until capture_end(). */
static void capture_begin(void)
{
	fflush(stderr);
	saved_stderr = fcntl(2, F_DUPFD_CLOEXEC, 3);
	assert_true(saved_stderr >= 0);
	capture_fd = memfd_create("stderr", MFD_CLOEXEC);
	assert_true(capture_fd >= 0);
	assert_int_equal(dup2(capture_fd, 2), 2);
}

/* What was written to fd 2 since capture_begin(); fd 2 is restored. */
static char *capture_end(void)
{
	fflush(stderr);
	assert_int_equal(dup2(saved_stderr, 2), 2);
	close(saved_stderr);
	saved_stderr = -1;
	assert_int_equal(lseek(capture_fd, 0, SEEK_SET), 0);
	char *out = NULL;
	size_t len;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(read_all_fd(capture_fd, 1 << 24, &out, &len, &err), 0);
	close(capture_fd);
	capture_fd = -1;
	assert_int_equal(strlen(out), len);
	return out;
}

/* The stderr output of log_msg(level, "%s", msg) at log_init(max, false, NULL). */
static char *logged(enum log_level max, enum log_level level, const char *msg)
{
	log_init(max, false, NULL);
	capture_begin();
	log_msg(level, "%s", msg);
	return capture_end();
}

static void assert_logged(enum log_level level, const char *msg, const char *want)
{
	_cleanup_free_ char *got = logged(LOG_LEVEL_DEBUG, level, msg);
	assert_string_equal(got, want);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	struct stat st;
	if (lstat(path, &st) == 0 || errno != ENOENT)
		fail_msg("temp dir %s is left behind", path);
}

static void need_root(void)
{
	if (geteuid() != 0) {
		print_message("needs root (a mount namespace of its own): skipped\n");
		skip();
	}
}

static const char *need_fakeplugin(void)
{
	const char *fake = getenv("FAKEPLUGIN");
	if (fake == NULL || access(fake, X_OK) != 0) {
		print_message("FAKEPLUGIN is not set to the built fake plugin: skipped\n");
		skip();
	}
	return fake;
}

static cnirt_netlist *list_of(const char *type)
{
	_cleanup_free_ char *text = xasprintf("{\"cniVersion\": \"1.1.0\", \"name\": \"" NETWORK
					      "\", \"plugins\": [{\"type\": \"%s\"}]}",
					      type);
	cnirt_netlist *l = NULL;
	cnirt_error *e = NULL;
	if (cnirt_netlist_parse(text, strlen(text), "test", &l, &e) < 0)
		fail_msg("bad test list: %s", cnirt_error_msg(e));
	return l;
}

/* The error of a STATUS of the list NETWORK, whose one plugin is the fake
 * plugin told by `control` (the lines of fake.STATUS) how to fail. */
static cnirt_error *plugin_error(const char *control)
{
	const char *fake = need_fakeplugin();
	char tmpl[] = "/tmp/test_log.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	_cleanup_free_ char *link = xasprintf("%s/fake", dir);
	_cleanup_free_ char *ctl = xasprintf("%s/fake.STATUS", dir);
	assert_int_equal(symlink(fake, link), 0);
	FILE *f = fopen(ctl, "we");
	assert_non_null(f);
	fputs(control, f);
	assert_int_equal(fclose(f), 0);

	cnirt_netlist *l = list_of("fake");
	cnirt_ctx *ctx = cnirt_ctx_new();
	const char *dirs[] = {dir};
	cnirt_ctx_set_bin_dirs(ctx, dirs, 1);
	cnirt_ctx_set_cache_dir(ctx, dir);
	cnirt_error *e = NULL;
	int r = cnirt_status(ctx, l, &e);
	cnirt_ctx_free(ctx);
	cnirt_netlist_free(l);
	remove_tree(dir);
	if (r == 0)
		fail_msg("STATUS succeeded, the fake plugin was told: %s", control);
	return e;
}

/* ------------------------------------------------------------ levels */

static void test_parse_level(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		enum log_level level;
	} good[] = {
	    {"error", LOG_LEVEL_ERROR},
	    {"warn", LOG_LEVEL_WARN},
	    {"info", LOG_LEVEL_INFO},
	    {"debug", LOG_LEVEL_DEBUG},
	};
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		enum log_level l = (enum log_level) - 1;
		assert_int_equal(log_parse_level(good[i].name, &l), 0);
		assert_int_equal(l, good[i].level);
	}

	/* cnihook.json(5): the names are error, warn, info and debug, in
	 * lower case; anything else is refused and *out left alone. */
	static const char *const bad[] = {
	    "ERROR", "Warn", "INFO",  "Debug", "warning", "err",
	    "fatal", "",     " info", "info ", "debug\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		enum log_level l = (enum log_level)42;
		if (log_parse_level(bad[i], &l) != -1)
			fail_msg("level \"%s\" was accepted", bad[i]);
		assert_int_equal(l, 42);
	}
}

/* A message is written when its level is at most the level of log_init(). */
static void test_filtering(void **state)
{
	(void)state;
	for (int max = LOG_LEVEL_ERROR; max <= LOG_LEVEL_DEBUG; max++) {
		for (int level = LOG_LEVEL_ERROR; level <= LOG_LEVEL_DEBUG; level++) {
			_cleanup_free_ char *got =
			    logged((enum log_level)max, (enum log_level)level, "m");
			const char *want = level <= max ? "cnihook: m\n" : "";
			if (strcmp(got, want) != 0)
				fail_msg("level %d at log_init(%d): wrote \"%s\", expected \"%s\"",
					 level, max, got, want);
		}
	}
}

/* The macros are log_msg at their level. */
static void test_macros(void **state)
{
	(void)state;
	log_init(LOG_LEVEL_WARN, false, NULL);
	capture_begin();
	log_error("e%d", 1);
	log_warn("w%d", 2);
	log_info("i%d", 3);
	log_debug("d%d", 4);
	_cleanup_free_ char *got = capture_end();
	assert_string_equal(got, "cnihook: e1\ncnihook: w2\n");
}

/* ------------------------------------------------------------ stderr */

static void test_stderr_format(void **state)
{
	(void)state;
	log_init(LOG_LEVEL_DEBUG, false, NULL);
	capture_begin();
	log_msg(LOG_LEVEL_INFO, "container \"%s\" stage %s: %d ms", "c1", "createRuntime", 12);
	log_msg(LOG_LEVEL_ERROR, "%s", "");
	log_msg(LOG_LEVEL_DEBUG, "100%% %s", "done");
	_cleanup_free_ char *got = capture_end();
	assert_string_equal(got, "cnihook: container \"c1\" stage createRuntime: 12 ms\n"
				 "cnihook: \n"
				 "cnihook: 100% done\n");

	/* No fixed-size buffer: a long message is written whole. */
	_cleanup_free_ char *big = xmalloc(100001);
	memset(big, 'x', 100000);
	big[100000] = '\0';
	_cleanup_free_ char *want = xasprintf("cnihook: %s\n", big);
	assert_logged(LOG_LEVEL_WARN, big, want);
}

/* One event is one line (cnihook.json(5), "log"): control characters in a
 * message, a plugin's multi-line msg for one, are written as \xNN; quotes,
 * backslashes and UTF-8 are left as they are. */
static void test_one_line(void **state)
{
	(void)state;
	assert_logged(LOG_LEVEL_ERROR, "two\nlines", "cnihook: two\\x0alines\n");
	assert_logged(LOG_LEVEL_ERROR, "\n", "cnihook: \\x0a\n");
	assert_logged(LOG_LEVEL_ERROR, "end\n", "cnihook: end\\x0a\n");
	assert_logged(LOG_LEVEL_WARN, "cr\rlf\r\n", "cnihook: cr\\x0dlf\\x0d\\x0a\n");
	assert_logged(LOG_LEVEL_WARN, "tab\there", "cnihook: tab\\x09here\n");
	assert_logged(LOG_LEVEL_INFO, "\x1b[2Jclear\x7f\x01", "cnihook: \\x1b[2Jclear\\x7f\\x01\n");
	assert_logged(LOG_LEVEL_INFO, "network \"a\\b\": caf\xc3\xa9",
		      "cnihook: network \"a\\b\": caf\xc3\xa9\n");
}

/* ------------------------------------------------------------ error_cni_text */

/* A runtime-side error that names no network or plugin: bad JSON. */
static void test_format_error_plain(void **state)
{
	(void)state;
	cnirt_netlist *l = NULL;
	cnirt_error *e = NULL;
	assert_int_equal(cnirt_netlist_parse("{", 1, "test", &l, &e), -1);
	assert_null(l);
	assert_null(cnirt_error_network(e));
	assert_null(cnirt_error_plugin(e));
	assert_null(cnirt_error_details(e));
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_DECODE);

	_cleanup_free_ char *want = xasprintf("CNI error 6: %s", cnirt_error_msg(e));
	_cleanup_free_ char *got = error_cni_text(NULL, e);
	assert_string_equal(got, want);

	/* The network the caller names, when the error names none; shown
	 * escaped, as a foreign value. */
	_cleanup_free_ char *want2 =
	    xasprintf("network \"blue\": CNI error 6: %s", cnirt_error_msg(e));
	_cleanup_free_ char *got2 = error_cni_text("blue", e);
	assert_string_equal(got2, want2);
	_cleanup_free_ char *want3 =
	    xasprintf("network \"a\\x22b\\x0a\": CNI error 6: %s", cnirt_error_msg(e));
	_cleanup_free_ char *got3 = error_cni_text("a\"b\n", e);
	assert_string_equal(got3, want3);
	cnirt_error_free(e);
}

/* Network and plugin named by the library; a well-known code, no details. */
static void test_format_error_not_found(void **state)
{
	(void)state;
	cnirt_netlist *l = list_of("nope");
	cnirt_ctx *ctx = cnirt_ctx_new(); /* no plugin directory */
	cnirt_error *e = NULL;
	assert_int_equal(cnirt_status(ctx, l, &e), -1);
	cnirt_ctx_free(ctx);
	cnirt_netlist_free(l);
	assert_false(cnirt_error_from_plugin(e));
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_INVALID_CONFIG);

	_cleanup_free_ char *want = xasprintf(
	    "network \"" NETWORK "\": plugin \"nope\": CNI error 7: %s", cnirt_error_msg(e));
	_cleanup_free_ char *got = error_cni_text(NULL, e);
	assert_string_equal(got, want);
	/* The error's own network wins over the caller's. */
	_cleanup_free_ char *got2 = error_cni_text("other", e);
	assert_string_equal(got2, want);
	cnirt_error_free(e);
}

/* Spec section 5, "Error": a plugin's error result has "code", "msg" and,
 * optionally, "details". */
static void test_format_error_plugin(void **state)
{
	(void)state;
	cnirt_error *e = plugin_error("exit=1\nstdout={\"cniVersion\": \"1.1.0\", \"code\": 50, "
				      "\"msg\": \"no bridge\", \"details\": \"br0 is gone\"}\n");
	assert_true(cnirt_error_from_plugin(e));
	_cleanup_free_ char *got = error_cni_text("other", e);
	assert_string_equal(got, "network \"" NETWORK "\": plugin \"fake\": "
				 "CNI error 50: no bridge (br0 is gone)");
	cnirt_error_free(e);

	/* Without details, and with empty ones: no parentheses. */
	e = plugin_error("exit=1\nstdout={\"cniVersion\": \"1.1.0\", \"code\": 11, "
			 "\"msg\": \"busy\"}\n");
	assert_null(cnirt_error_details(e));
	_cleanup_free_ char *got2 = error_cni_text(NULL, e);
	assert_string_equal(got2, "network \"" NETWORK "\": plugin \"fake\": CNI error 11: busy");
	cnirt_error_free(e);
	e = plugin_error("exit=1\nstdout={\"cniVersion\": \"1.1.0\", \"code\": 11, "
			 "\"msg\": \"busy\", \"details\": \"\"}\n");
	_cleanup_free_ char *got3 = error_cni_text(NULL, e);
	assert_string_equal(got3, "network \"" NETWORK "\": plugin \"fake\": CNI error 11: busy");
	cnirt_error_free(e);

	/* A plugin that failed without an error result: code 0, still shown,
	 * as the plugin itself failed. */
	e = plugin_error("exit=3\n");
	assert_true(cnirt_error_from_plugin(e));
	assert_int_equal(cnirt_error_code(e), 0);
	_cleanup_free_ char *got4 = error_cni_text(NULL, e);
	assert_string_equal(got4, "network \"" NETWORK "\": plugin \"fake\": "
				  "CNI error 0: exit status 3");
	cnirt_error_free(e);
}

/* A runtime-side failure of a plugin (killed by a signal): no CNI code. */
static void test_format_error_no_code(void **state)
{
	(void)state;
	cnirt_error *e = plugin_error("signal=9\n");
	assert_false(cnirt_error_from_plugin(e));
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_NONE);
	_cleanup_free_ char *want =
	    xasprintf("network \"" NETWORK "\": plugin \"fake\": %s", cnirt_error_msg(e));
	_cleanup_free_ char *got = error_cni_text(NULL, e);
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "signal 9"));
	cnirt_error_free(e);
}

/* A plugin's msg and details on several lines: the log line is one line. */
static void test_format_error_multiline(void **state)
{
	(void)state;
	cnirt_error *e = plugin_error("exit=1\nstdout={\"cniVersion\": \"1.1.0\", \"code\": 7, "
				      "\"msg\": \"bad\\nconfig\", \"details\": \"line 1\\nline "
				      "2\"}\n");
	assert_string_equal(cnirt_error_msg(e), "bad\nconfig");
	_cleanup_free_ char *msg = error_cni_text(NULL, e);
	cnirt_error_free(e);
	_cleanup_free_ char *got = logged(LOG_LEVEL_WARN, LOG_LEVEL_ERROR, msg);
	assert_string_equal(got, "cnihook: network \"" NETWORK "\": plugin \"fake\": "
				 "CNI error 7: bad\\x0aconfig (line 1\\x0aline 2)\n");
}

/* ------------------------------------------------------------ syslog */

/* In the child: report a failure to the parent and exit. */
static _Noreturn void PRINTF_LIKE(2, 3) child_fail(int report, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		_exit(2);
	va_end(ap);
	(void)!write(report, msg, strlen(msg));
	_exit(1);
}

/* The messages the child logs at log_init(LOG_LEVEL_INFO, true, DIR), and what
 * comes of them: the syslog priority (facility LOG_DAEMON) and the text, on
 * stderr after "cnihook: " and in syslog after "cnihook[PID]: "; -1: not
 * logged at all. */
static const struct {
	enum log_level level;
	const char *msg;
	int prio;
	const char *text;
} syslog_cases[] = {
    {LOG_LEVEL_ERROR, "an error", LOG_DAEMON | LOG_ERR, "an error"},
    {LOG_LEVEL_WARN, "a warning", LOG_DAEMON | LOG_WARNING, "a warning"},
    {LOG_LEVEL_INFO, "some info", LOG_DAEMON | LOG_INFO, "some info"},
    {LOG_LEVEL_DEBUG, "filtered out", -1, NULL},
    {LOG_LEVEL_ERROR, "two\nlines", LOG_DAEMON | LOG_ERR, "two\\x0alines"},
    {LOG_LEVEL_INFO, "tab\tand \"quotes\"", LOG_DAEMON | LOG_INFO, "tab\\x09and \"quotes\""},
    {LOG_LEVEL_DEBUG, "also filtered", -1, NULL},
    {LOG_LEVEL_WARN, "", LOG_DAEMON | LOG_WARNING, ""},
};

/* Check one datagram: "<PRI>TIMESTAMP cnihook[PID]: TEXT" (RFC 3164, as
 * glibc's syslog(3) sends it over /dev/log). */
static void check_datagram(int report, size_t i, const char *d, const char *tag)
{
	int prio, n = 0;
	if (sscanf(d, "<%d>%n", &prio, &n) != 1 || n == 0)
		child_fail(report, "syslog line %zu has no priority: \"%s\"", i, d);
	if (prio != syslog_cases[i].prio)
		child_fail(report, "syslog line %zu (\"%s\"): priority %d, expected %d", i,
			   syslog_cases[i].msg, prio, syslog_cases[i].prio);
	const char *t = strstr(d + n, tag);
	if (t == NULL)
		child_fail(report, "syslog line %zu has no tag \"%s\": \"%s\"", i, tag, d);
	for (const char *p = d + n; p < t; p++)
		if ((unsigned char)*p < 0x20)
			child_fail(report, "syslog line %zu: control character in the header", i);
	if (strcmp(t + strlen(tag), syslog_cases[i].text) != 0)
		child_fail(report, "syslog line %zu: text \"%s\", expected \"%s\"", i,
			   t + strlen(tag), syslog_cases[i].text);
}

/* A datagram socket bound to `path`, in the child. */
static int bind_dgram(int report, const char *path)
{
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (sock < 0 || strlen(path) >= sizeof(sa.sun_path))
		child_fail(report, "socket for %s: %s", path, strerror(errno));
	strcpy(sa.sun_path, path);
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		child_fail(report, "bind %s: %s", path, strerror(errno));
	return sock;
}

/* The syslog test proper, in the child; returns how /dev/log was made
 * ours. Fails through child_fail(). */
static const char *syslog_run(const char *dir, int report)
{
	_cleanup_free_ char *sock_path = xasprintf("%s/log.sock", dir);
	int sock = bind_dgram(report, sock_path);

	/* Bind the socket over /dev/log (following a symlink, as
	 * /run/systemd/journal/dev-log). A machine without a syslog socket:
	 * a tmpfs on /dev, in this namespace only, to hold one. */
	const char *how = "over /dev/log";
	struct stat st;
	if (stat("/dev/log", &st) < 0) {
		how = "over /dev/log in a private tmpfs on /dev (the machine has no /dev/log)";
		if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
			child_fail(report, "tmpfs on /dev: %s", strerror(errno));
		int fd = open("/dev/log", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0)
			child_fail(report, "creating /dev/log: %s", strerror(errno));
		close(fd);
	}
	if (mount(sock_path, "/dev/log", "none", MS_BIND, NULL) < 0)
		child_fail(report, "bind-mounting %s over /dev/log: %s", sock_path,
			   strerror(errno));

	_cleanup_free_ char *err_path = xasprintf("%s/stderr", dir);
	int err_fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (err_fd < 0 || dup2(err_fd, 2) != 2)
		child_fail(report, "stderr to %s: %s", err_path, strerror(errno));

	log_init(LOG_LEVEL_INFO, true, dir);
	for (size_t i = 0; i < ARRAY_SIZE(syslog_cases); i++)
		log_msg(syslog_cases[i].level, "%s", syslog_cases[i].msg);
	log_init(LOG_LEVEL_INFO, false, NULL); /* closes the socket */
	/* syslog took every line: no file fallback. */
	_cleanup_free_ char *file = xasprintf("%s/" LOG_FILE_NAME, dir);
	if (access(file, F_OK) == 0)
		child_fail(report, "%s was written although syslog took the lines", file);

	/* stderr: the same texts, "cnihook: TEXT\n" each. */
	_cleanup_free_ char *err_text = NULL, *read_err = NULL;
	size_t err_len;
	if (lseek(err_fd, 0, SEEK_SET) != 0 ||
	    read_all_fd(err_fd, 1 << 20, &err_text, &err_len, &read_err) < 0)
		child_fail(report, "reading %s", err_path);
	_cleanup_free_ char *want_err = xstrdup("");
	for (size_t i = 0; i < ARRAY_SIZE(syslog_cases); i++) {
		if (syslog_cases[i].text == NULL)
			continue;
		char *w = xasprintf("%scnihook: %s\n", want_err, syslog_cases[i].text);
		free(want_err);
		want_err = w;
	}
	if (strcmp(err_text, want_err) != 0)
		child_fail(report, "stderr: \"%s\", expected \"%s\"", err_text, want_err);
	close(err_fd);

	/* syslog: one datagram per logged message, in order; none for the
	 * filtered ones. */
	_cleanup_free_ char *tag = xasprintf("cnihook[%ld]: ", (long)getpid());
	char buf[65536];
	size_t i = 0;
	for (;;) {
		ssize_t n = recv(sock, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			child_fail(report, "recv: %s", strerror(errno));
		buf[n] = '\0';
		if (strlen(buf) != (size_t)n)
			child_fail(report, "syslog datagram with a NUL byte: \"%s\"", buf);
		while (i < ARRAY_SIZE(syslog_cases) && syslog_cases[i].text == NULL)
			i++;
		if (i == ARRAY_SIZE(syslog_cases))
			child_fail(report, "one syslog datagram too many: \"%s\"", buf);
		check_datagram(report, i, buf, tag);
		i++;
	}
	while (i < ARRAY_SIZE(syslog_cases) && syslog_cases[i].text == NULL)
		i++;
	if (i != ARRAY_SIZE(syslog_cases))
		child_fail(report, "no syslog datagram for \"%s\"", syslog_cases[i].msg);
	close(sock);
	return how;
}

/* Run body(dir, report) in a forked child (root only) in a mount namespace
 * of its own, made private first: nothing it mounts propagates to the
 * host's mounts, and it all goes with the child. dir: a new temp dir. The
 * child fails through child_fail(); what body returns is printed. */
static void in_child(const char *name, const char *(*body)(const char *dir, int report))
{
	need_root();
	char tmpl[] = "/tmp/test_log.XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	int fds[2];
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (unshare(CLONE_NEWNS) < 0)
			child_fail(fds[1], "unshare(CLONE_NEWNS): %s", strerror(errno));
		/* (The file system type is ignored here and for MS_BIND;
		 * "none" rather than NULL keeps valgrind quiet.) */
		if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
			child_fail(fds[1], "making / private: %s", strerror(errno));
		/* What is logged on stderr, out of the way. */
		_cleanup_free_ char *err_path = xasprintf("%s/child-stderr", dir);
		int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (err_fd < 0 || dup2(err_fd, 2) != 2)
			child_fail(fds[1], "stderr to %s: %s", err_path, strerror(errno));
		const char *how = body(dir, fds[1]);
		if (write(fds[1], "OK ", 3) != 3 || write(fds[1], how, strlen(how)) < 0)
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	_cleanup_free_ char *report = NULL;
	size_t len;
	_cleanup_free_ char *read_err = NULL;
	int r = read_all_fd(fds[0], 1 << 20, &report, &len, &read_err);
	close(fds[0]);
	int st;
	pid_t w = waitpid(pid, &st, 0);
	remove_tree(dir);
	assert_int_equal(r, 0);
	assert_int_equal(w, pid);
	if (WIFSIGNALED(st))
		fail_msg("the %s child was killed by signal %d", name, WTERMSIG(st));
	if (WEXITSTATUS(st) != 0 || strncmp(report, "OK ", 3) != 0)
		fail_msg("%s (child status %d): %s", name, WEXITSTATUS(st), report);
	print_message("%s: %s\n", name, report + 3);
}

static void test_syslog(void **state)
{
	(void)state;
	in_child("syslog", syslog_run);
}

/* ------------------------------------------------------------ fallbacks */

/* In the child's namespace: no syslog socket and no journal socket, as on
 * a host without a syslog daemon (this one, CI). An empty tmpfs on /dev
 * (where /dev/log would be) and on /run/systemd/journal when it exists. */
static void no_log_sockets(int report)
{
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
		child_fail(report, "tmpfs on /dev: %s", strerror(errno));
	struct stat st;
	if (stat("/run/systemd/journal", &st) == 0 &&
	    mount("tmpfs", "/run/systemd/journal", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
		child_fail(report, "tmpfs on /run/systemd/journal: %s", strerror(errno));
}

/* The whole of a file in the child; NULL when it does not exist. */
static char *child_read(int report, const char *path)
{
	char *text = NULL;
	size_t len;
	_cleanup_free_ char *err = NULL;
	int errnum = 0;
	if (read_file(path, 64u << 20, &text, &len, &errnum, &err) < 0) {
		if (errnum == ENOENT)
			return NULL;
		child_fail(report, "reading %s", err);
	}
	if (strlen(text) != len)
		child_fail(report, "%s has a NUL byte", path);
	return text;
}

/* Check one line of the log file, without its newline:
 * "YYYY-MM-DDTHH:MM:SS.uuuuuuZ cnihook[PID]: LEVEL: TEXT". Returns TEXT;
 * *pid and *level set. */
static const char *check_file_line(int report, const char *line, long *pid, const char **level)
{
	int n = 0;
	unsigned y, mo, d, h, mi, sec, us;
	if (sscanf(line, "%4u-%2u-%2uT%2u:%2u:%2u.%6uZ cnihook[%ld]: %n", &y, &mo, &d, &h, &mi,
		   &sec, &us, pid, &n) != 8 ||
	    n != 39 + (int)snprintf(NULL, 0, "%ld", *pid) || y < 2000 || mo < 1 || mo > 12 ||
	    d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		child_fail(report,
			   "log file line not \"RFC3339 cnihook[PID]: LEVEL: TEXT\": \"%s\"", line);
	static const char *const levels[] = {"error: ", "warn: ", "info: ", "debug: "};
	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		if (strncmp(line + n, levels[i], strlen(levels[i])) == 0) {
			*level = levels[i];
			return line + n + strlen(levels[i]);
		}
	}
	child_fail(report, "log file line without a level: \"%s\"", line);
}

/* What the file fallback must hold after fallback_cases are logged. */
static const struct {
	enum log_level level;
	const char *msg;
	const char *want; /* LEVEL: TEXT, or NULL: filtered out */
} fallback_cases[] = {
    {LOG_LEVEL_ERROR, "an error", "error: an error"},
    {LOG_LEVEL_WARN, "a warning", "warn: a warning"},
    {LOG_LEVEL_DEBUG, "filtered out", NULL},
    {LOG_LEVEL_INFO, "two\nlines", "info: two\\x0alines"},
};

/* Log fallback_cases at level info into state (not there yet), then check
 * the file: the directory made 0700, the file 0600, a line per message. */
static void fallback_check(const char *state, int report)
{
	_cleanup_free_ char *file = xasprintf("%s/" LOG_FILE_NAME, state);
	log_init(LOG_LEVEL_INFO, true, state);
	struct stat st;
	log_debug("not logged: nothing is opened");
	if (lstat(state, &st) == 0)
		child_fail(report, "%s was made before a line was logged", state);
	for (size_t i = 0; i < ARRAY_SIZE(fallback_cases); i++)
		log_msg(fallback_cases[i].level, "%s", fallback_cases[i].msg);
	log_init(LOG_LEVEL_INFO, false, NULL);

	if (lstat(state, &st) < 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 07777) != 0700)
		child_fail(report, "%s is not a directory of mode 0700", state);
	if (lstat(file, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 07777) != 0600)
		child_fail(report, "%s is not a file of mode 0600", file);
	_cleanup_free_ char *text = child_read(report, file);
	if (text == NULL)
		child_fail(report, "no %s", file);
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	for (size_t i = 0; i < ARRAY_SIZE(fallback_cases); i++) {
		if (fallback_cases[i].want == NULL)
			continue;
		if (line == NULL)
			child_fail(report, "no line for \"%s\" in %s", fallback_cases[i].msg, file);
		long pid;
		const char *level;
		const char *t = check_file_line(report, line, &pid, &level);
		_cleanup_free_ char *got = xasprintf("%s%s", level, t);
		if (pid != (long)getpid() || strcmp(got, fallback_cases[i].want) != 0)
			child_fail(report, "line \"%s\", expected \"%s\" from pid %ld", line,
				   fallback_cases[i].want, (long)getpid());
		line = strtok_r(NULL, "\n", &save);
	}
	if (line)
		child_fail(report, "one line too many in %s: \"%s\"", file, line);
}

/* No syslog socket at all, or one that nothing listens on any more (a
 * syslog daemon that died leaves it): connect() fails either way. */
static const char *no_socket_body(const char *dir, int report)
{
	no_log_sockets(report);
	_cleanup_free_ char *state = xasprintf("%s/state/sub", dir);
	fallback_check(state, report);
	close(bind_dgram(report, "/dev/log"));
	_cleanup_free_ char *state2 = xasprintf("%s/state2", dir);
	fallback_check(state2, report);
	return "no /dev/log, or a refusing one, no journal: lines in <stateDir>/" LOG_FILE_NAME;
}

/* cnihook(8), FILES: without a syslog socket, the lines go to a file in the
 * state directory, made when the first line is logged. */
static void test_fallback_file(void **state)
{
	(void)state;
	in_child("fallback", no_socket_body);
}

/* Without /dev/log, but with journald: its native protocol. */
static const char *journal_body(const char *dir, int report)
{
	no_log_sockets(report);
	struct stat st;
	if (stat("/run/systemd", &st) < 0 &&
	    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0)
		child_fail(report, "tmpfs on /run: %s", strerror(errno));
	_cleanup_free_ char *err = NULL;
	if (dir_mkdir_p("/run/systemd/journal", 0755, &err) < 0)
		child_fail(report, "mkdir %s", err);
	int sock = bind_dgram(report, "/run/systemd/journal/socket");

	_cleanup_free_ char *state = xasprintf("%s/state", dir);
	log_init(LOG_LEVEL_INFO, true, state);
	for (size_t i = 0; i < ARRAY_SIZE(fallback_cases); i++)
		log_msg(fallback_cases[i].level, "%s", fallback_cases[i].msg);
	log_init(LOG_LEVEL_INFO, false, NULL);

	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	char buf[65536];
	for (size_t i = 0; i < ARRAY_SIZE(fallback_cases); i++) {
		if (fallback_cases[i].want == NULL)
			continue;
		ssize_t n = recv(sock, buf, sizeof(buf) - 1, MSG_DONTWAIT);
		if (n < 0)
			child_fail(report, "no journal datagram for \"%s\": %s",
				   fallback_cases[i].msg, strerror(errno));
		buf[n] = '\0';
		const char *text = strchr(fallback_cases[i].want, ' ') + 1;
		_cleanup_free_ char *want =
		    xasprintf("PRIORITY=%d\nSYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=cnihook\n"
			      "SYSLOG_PID=%ld\nMESSAGE=%s\n",
			      prio[fallback_cases[i].level], (long)getpid(), text);
		if (strcmp(buf, want) != 0)
			child_fail(report, "journal datagram \"%s\", expected \"%s\"", buf, want);
	}
	if (recv(sock, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		child_fail(report, "one journal datagram too many");
	close(sock);
	if (lstat(state, &st) == 0)
		child_fail(report, "%s was made although the journal took the lines", state);
	return "no /dev/log: lines in the journal's native protocol";
}

static void test_fallback_journal(void **state)
{
	(void)state;
	in_child("journal", journal_body);
}

/* Lines of `size` bytes (newline included) in the file for `msg`. */
static char *line_of(size_t size, const char *tag)
{
	/* "2026-01-02T03:04:05.123456Z cnihook[PID]: info: TAG xxx...\n" */
	size_t head = 28 + (size_t)snprintf(NULL, 0, "cnihook[%ld]: info: ", (long)getpid());
	size_t fill = size - head - strlen(tag) - 2;
	char *m = xmalloc(strlen(tag) + fill + 2);
	sprintf(m, "%s ", tag);
	memset(m + strlen(tag) + 1, 'x', fill);
	m[strlen(tag) + 1 + fill] = '\0';
	return m;
}

static const char *rotation_body(const char *dir, int report)
{
	no_log_sockets(report);
	_cleanup_free_ char *file = xasprintf("%s/" LOG_FILE_NAME, dir);
	_cleanup_free_ char *old = xasprintf("%s/" LOG_FILE_ROTATED, dir);
	log_init(LOG_LEVEL_INFO, true, dir);
	/* 1000-byte lines: 1048 fit in a file; 2500 fill two and a half. */
	const int total = 2500, per_file = LOG_FILE_MAX_BYTES / 1000;
	for (int i = 0; i < total; i++) {
		_cleanup_free_ char *tag = xasprintf("line%05d", i);
		_cleanup_free_ char *m = line_of(1000, tag);
		log_info("%s", m);
	}
	log_init(LOG_LEVEL_INFO, false, NULL);
	_cleanup_free_ char *two = xasprintf("%s/" LOG_FILE_NAME ".2", dir);
	if (access(two, F_OK) == 0)
		child_fail(report, "%s exists: one old file only", two);
	struct stat st, st_old;
	if (stat(file, &st) < 0 || stat(old, &st_old) < 0)
		child_fail(report, "%s or %s is missing", file, old);
	/* The newest lines: the last 2500 % 1048 in the file, the 1048
	 * before them in the old file, whole. */
	int in_file = total % per_file;
	if (st.st_size != in_file * 1000 || st_old.st_size != per_file * 1000)
		child_fail(report, "sizes %lld and %lld, expected %d and %d", (long long)st.st_size,
			   (long long)st_old.st_size, in_file * 1000, per_file * 1000);
	_cleanup_free_ char *a = child_read(report, old);
	_cleanup_free_ char *b = child_read(report, file);
	int next = total - in_file - per_file;
	char *text[] = {a, b};
	for (size_t f = 0; f < 2; f++) {
		char *save = NULL;
		for (char *line = strtok_r(text[f], "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save), next++) {
			long pid;
			const char *level;
			const char *t = check_file_line(report, line, &pid, &level);
			_cleanup_free_ char *tag = xasprintf("line%05d ", next);
			if (strncmp(t, tag, strlen(tag)) != 0)
				child_fail(report, "expected %s, found \"%.40s\"", tag, t);
		}
	}
	if (next != total)
		child_fail(report, "%d lines in the two files, expected the last %d", next,
			   per_file + in_file);
	return "rotated at 1 MiB, one old file kept";
}

/* cnihook(8), FILES: the file is moved to cnihook.log.1 when the next line
 * would take it past 1 MiB; the one before is dropped. */
static void test_fallback_rotation(void **state)
{
	(void)state;
	in_child("rotation", rotation_body);
}

#define WRITERS 8

/* WRITERS processes log `lines` lines each of `size` bytes; then every line
 * of both files is whole; with `all`, each line is there, once, in the
 * order of its writer. */
static void concurrent(const char *dir, int report, int lines, size_t size, bool all)
{
	pid_t pids[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		if (pids[w] < 0)
			child_fail(report, "fork: %s", strerror(errno));
		if (pids[w] == 0) {
			log_init(LOG_LEVEL_INFO, true, dir);
			for (int i = 0; i < lines; i++) {
				_cleanup_free_ char *tag = xasprintf("w%d.%05d", w, i);
				_cleanup_free_ char *m = line_of(size, tag);
				log_info("%s", m);
			}
			_exit(0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int st;
		if (waitpid(pids[w], &st, 0) != pids[w] || !WIFEXITED(st) || WEXITSTATUS(st))
			child_fail(report, "writer %d failed", w);
	}
	int next[WRITERS] = {0};
	_cleanup_free_ char *file = xasprintf("%s/" LOG_FILE_NAME, dir);
	_cleanup_free_ char *old = xasprintf("%s/" LOG_FILE_ROTATED, dir);
	char *text[] = {child_read(report, old), child_read(report, file)};
	int seen = 0;
	for (size_t f = 0; f < 2; f++) {
		if (text[f] == NULL)
			continue;
		size_t len = strlen(text[f]);
		if (len && text[f][len - 1] != '\n')
			child_fail(report, "%s ends in the middle of a line", f ? file : old);
		char *save = NULL;
		for (char *line = strtok_r(text[f], "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			long pid;
			const char *level;
			const char *t = check_file_line(report, line, &pid, &level);
			int w, i, n = 0;
			if (strlen(line) + 1 != size || sscanf(t, "w%d.%d %n", &w, &i, &n) != 2 ||
			    w < 0 || w >= WRITERS || pids[w] != pid ||
			    strspn(t + n, "x") != strlen(t + n))
				child_fail(report, "a line cut or mixed: \"%.100s\"", line);
			if (all && i != next[w])
				child_fail(report, "writer %d: line %d, expected %d", w, i,
					   next[w]);
			next[w] = i + 1;
			seen++;
		}
		free(text[f]);
	}
	if (all && seen != WRITERS * lines)
		child_fail(report, "%d lines, expected %d", seen, WRITERS * lines);
}

static const char *concurrent_body(const char *dir, int report)
{
	no_log_sockets(report);
	_cleanup_free_ char *a = xasprintf("%s/a", dir);
	_cleanup_free_ char *b = xasprintf("%s/b", dir);
	/* Within the cap: every line, whole, once. */
	concurrent(a, report, 200, 300, true);
	/* 8 x 1500 lines of 500 bytes: 6 MB, rotated five times or more while
	 * they write. */
	concurrent(b, report, 1500, 500, false);
	struct stat st;
	_cleanup_free_ char *file = xasprintf("%s/" LOG_FILE_NAME, b);
	if (stat(file, &st) < 0 || st.st_size > LOG_FILE_MAX_BYTES + WRITERS * 500)
		child_fail(report, "%s: %lld bytes, far past the cap", file,
			   (long long)(st.st_size));
	return "8 writers: lines whole and apart, rotation included";
}

/* Hooks run in parallel: their lines never mix, even across a rotation. */
static void test_fallback_concurrent(void **state)
{
	(void)state;
	in_child("concurrent writers", concurrent_body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_level),
	    cmocka_unit_test(test_filtering),
	    cmocka_unit_test(test_macros),
	    cmocka_unit_test(test_stderr_format),
	    cmocka_unit_test(test_one_line),
	    cmocka_unit_test(test_format_error_plain),
	    cmocka_unit_test(test_format_error_not_found),
	    cmocka_unit_test(test_format_error_plugin),
	    cmocka_unit_test(test_format_error_no_code),
	    cmocka_unit_test(test_format_error_multiline),
	    cmocka_unit_test(test_syslog),
	    cmocka_unit_test(test_fallback_file),
	    cmocka_unit_test(test_fallback_journal),
	    cmocka_unit_test(test_fallback_rotation),
	    cmocka_unit_test(test_fallback_concurrent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
