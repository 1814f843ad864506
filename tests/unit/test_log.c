/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hook/log.c: level names, which levels are written, the line on
 * standard error ("cnihook: MESSAGE\n", always one line), the line in syslog
 * (ident "cnihook", LOG_PID, LOG_DAEMON), and log_format_error() over errors
 * built by real library calls.
 *
 * The syslog test never reaches the host's syslog: a forked child (root
 * only) takes a private mount namespace and bind-mounts a datagram socket
 * of its own over /dev/log; the namespace dies with the child.
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

#include "log.h"
#include "util.h"

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
	assert_int_equal(read_all_fd(capture_fd, 1 << 24, &out, &len), 0);
	close(capture_fd);
	capture_fd = -1;
	assert_int_equal(strlen(out), len);
	return out;
}

/* The stderr output of log_msg(level, "%s", msg) at log_init(max, 0). */
static char *logged(enum log_level max, enum log_level level, const char *msg)
{
	log_init(max, 0);
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
	_cleanup_free_ char *json = xasprintf("{\"cniVersion\": \"1.1.0\", \"name\": \"" NETWORK
					      "\", \"plugins\": [{\"type\": \"%s\"}]}",
					      type);
	cnirt_netlist *l = NULL;
	cnirt_error *e = NULL;
	if (cnirt_netlist_parse(json, strlen(json), "test", &l, &e) < 0)
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
	log_init(LOG_LEVEL_WARN, 0);
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
	log_init(LOG_LEVEL_DEBUG, 0);
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

/* ------------------------------------------------------------ log_format_error */

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
	_cleanup_free_ char *got = log_format_error(NULL, e);
	assert_string_equal(got, want);

	/* The network the caller names, when the error names none; shown
	 * escaped, as a foreign value. */
	_cleanup_free_ char *want2 =
	    xasprintf("network \"blue\": CNI error 6: %s", cnirt_error_msg(e));
	_cleanup_free_ char *got2 = log_format_error("blue", e);
	assert_string_equal(got2, want2);
	_cleanup_free_ char *want3 =
	    xasprintf("network \"a\\\"b\\x0a\": CNI error 6: %s", cnirt_error_msg(e));
	_cleanup_free_ char *got3 = log_format_error("a\"b\n", e);
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
	_cleanup_free_ char *got = log_format_error(NULL, e);
	assert_string_equal(got, want);
	/* The error's own network wins over the caller's. */
	_cleanup_free_ char *got2 = log_format_error("other", e);
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
	_cleanup_free_ char *got = log_format_error("other", e);
	assert_string_equal(got, "network \"" NETWORK "\": plugin \"fake\": "
				 "CNI error 50: no bridge (br0 is gone)");
	cnirt_error_free(e);

	/* Without details, and with empty ones: no parentheses. */
	e = plugin_error("exit=1\nstdout={\"cniVersion\": \"1.1.0\", \"code\": 11, "
			 "\"msg\": \"busy\"}\n");
	assert_null(cnirt_error_details(e));
	_cleanup_free_ char *got2 = log_format_error(NULL, e);
	assert_string_equal(got2, "network \"" NETWORK "\": plugin \"fake\": CNI error 11: busy");
	cnirt_error_free(e);
	e = plugin_error("exit=1\nstdout={\"cniVersion\": \"1.1.0\", \"code\": 11, "
			 "\"msg\": \"busy\", \"details\": \"\"}\n");
	_cleanup_free_ char *got3 = log_format_error(NULL, e);
	assert_string_equal(got3, "network \"" NETWORK "\": plugin \"fake\": CNI error 11: busy");
	cnirt_error_free(e);

	/* A plugin that failed without an error result: code 0, still shown,
	 * as the plugin itself failed. */
	e = plugin_error("exit=3\n");
	assert_true(cnirt_error_from_plugin(e));
	assert_int_equal(cnirt_error_code(e), 0);
	_cleanup_free_ char *got4 = log_format_error(NULL, e);
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
	_cleanup_free_ char *got = log_format_error(NULL, e);
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
	_cleanup_free_ char *msg = log_format_error(NULL, e);
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

/* The messages the child logs at log_init(LOG_LEVEL_INFO, 1), and what
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

/* The syslog test proper, in the child; returns how /dev/log was made
 * ours. Fails through child_fail(). */
static const char *syslog_run(const char *dir, int report)
{
	if (unshare(CLONE_NEWNS) < 0)
		child_fail(report, "unshare(CLONE_NEWNS): %s", strerror(errno));
	/* Private first: nothing below propagates to the host's mounts. (The
	 * file system type is ignored here and for MS_BIND; "none" rather
	 * than NULL keeps valgrind quiet.) */
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		child_fail(report, "making / private: %s", strerror(errno));

	_cleanup_free_ char *sock_path = xasprintf("%s/log.sock", dir);
	int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (sock < 0 || strlen(sock_path) >= sizeof(sa.sun_path))
		child_fail(report, "socket: %s", strerror(errno));
	strcpy(sa.sun_path, sock_path);
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		child_fail(report, "bind %s: %s", sock_path, strerror(errno));

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

	log_init(LOG_LEVEL_INFO, 1);
	for (size_t i = 0; i < ARRAY_SIZE(syslog_cases); i++)
		log_msg(syslog_cases[i].level, "%s", syslog_cases[i].msg);
	closelog();

	/* stderr: the same texts, "cnihook: TEXT\n" each. */
	_cleanup_free_ char *err_text = NULL;
	size_t err_len;
	if (lseek(err_fd, 0, SEEK_SET) != 0 ||
	    read_all_fd(err_fd, 1 << 20, &err_text, &err_len) < 0)
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

static _Noreturn void syslog_child(const char *dir, int report)
{
	const char *how = syslog_run(dir, report);
	if (write(report, "OK ", 3) != 3 || write(report, how, strlen(how)) < 0)
		_exit(3);
	_exit(0);
}

static void test_syslog(void **state)
{
	(void)state;
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
		syslog_child(dir, fds[1]);
	}
	close(fds[1]);
	_cleanup_free_ char *report = NULL;
	size_t len;
	int r = read_all_fd(fds[0], 1 << 20, &report, &len);
	close(fds[0]);
	int st;
	pid_t w = waitpid(pid, &st, 0);
	remove_tree(dir);
	assert_int_equal(r, 0);
	assert_int_equal(w, pid);
	if (WIFSIGNALED(st))
		fail_msg("the syslog child was killed by signal %d", WTERMSIG(st));
	if (WEXITSTATUS(st) != 0 || strncmp(report, "OK ", 3) != 0)
		fail_msg("syslog (child status %d): %s", WEXITSTATUS(st), report);
	print_message("syslog: socket bound %s\n", report + 3);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
