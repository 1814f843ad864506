/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/host/systemd-scope.c: a fake manager on a unix socket
 * checks the exact bytes of the authentication and of the call (D-Bus
 * specification, "Message Format", "Authentication Protocol"), and
 * answers as the manager would. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "host/systemd-scope.h"

#define NAME "cnihook-1000-42.scope"
#define PID  42

/* What the client must write first: a NUL, then AUTH EXTERNAL with no
 * identity. */
static const char auth[] = "\0AUTH EXTERNAL\r\n";

/* StartTransientUnit("cnihook-1000-42.scope", "fail", [("PIDs", <[42]>),
 * ("CollectMode", <"inactive-or-failed">), ("Description", <"test">)],
 * []), the offset of each line's first byte on its left. */
static const char call[] =
    /*   0 */ "l\1\0\1"
	      "\xa0\0\0\0" /* body: 160 bytes */
	      "\1\0\0\0"   /* serial */
	      "\xb6\0\0\0" /* header fields: 182 bytes */
	      /*  16 */ "\1\1o\0\x19\0\0\0/org/freedesktop/systemd1\0"
	      "\0\0\0\0\0\0"
	      /*  56 */ "\6\1s\0\x18\0\0\0org.freedesktop.systemd1\0"
	      "\0\0\0\0\0\0\0"
	      /*  96 */ "\2\1s\0\x20\0\0\0org.freedesktop.systemd1.Manager\0"
	      "\0\0\0\0\0\0\0"
	      /* 144 */ "\3\1s\0\x12\0\0\0StartTransientUnit\0"
	      "\0\0\0\0\0"
	      /* 176 */ "\x08\1g\0\x10ssa(sv)a(sa(sv))\0"
	      "\0\0"
	      /* 200, the body's 0 */ "\x15\0\0\0" NAME "\0"
	      "\0\0"
	      /*  28 */ "\4\0\0\0fail\0"
	      "\0\0\0"
	      /*  40 */ "\x65\0\0\0" /* properties: 101 bytes from 48 */
	      "\0\0\0\0"
	      /*  48 */ "\4\0\0\0PIDs\0\2au\0"
	      "\0\0\0"
	      /*  64 */ "\4\0\0\0\x2a\0\0\0"
	      /*  72 */ "\x0b\0\0\0CollectMode\0\1s\0"
	      "\0"
	      /*  92 */ "\x12\0\0\0inactive-or-failed\0"
	      "\0\0\0\0\0"
	      /* 120 */ "\x0b\0\0\0Description\0\1s\0"
	      "\0"
	      /* 140 */ "\4\0\0\0test\0"
	      "\0\0\0"
	      /* 152 */ "\0\0\0\0" /* auxiliary units: none */
	      "\0\0\0\0";

/* The manager's METHOD_RETURN to serial 1: the job's path. */
static const char ret[] = "l\2\1\1"
			  "\x24\0\0\0"
			  "\1\0\0\0"
			  "\x0f\0\0\0"
			  /* 16 */ "\5\1u\0\1\0\0\0"
			  /* 24 */ "\x08\1g\0\1o\0"
			  "\0"
			  /* 32 */ "\x1f\0\0\0/org/freedesktop/systemd1/job/7\0";

/* The same, big endian. */
static const char ret_big[] = "B\2\1\1"
			      "\0\0\0\x24"
			      "\0\0\0\1"
			      "\0\0\0\x0f"
			      "\5\1u\0\0\0\0\1"
			      "\x08\1g\0\1o\0"
			      "\0"
			      "\0\0\0\x1f/org/freedesktop/systemd1/job/7\0";

/* Its ERROR to serial 1. */
static const char error[] = "l\3\1\1"
			    "\x11\0\0\0"
			    "\2\0\0\0"
			    "\x3f\0\0\0"
			    /* 16 */ "\4\1s\0\x23\0\0\0org.freedesktop.systemd1.UnitExists\0"
			    "\0\0\0\0"
			    /* 64 */ "\5\1u\0\1\0\0\0"
			    /* 72 */ "\x08\1g\0\1s\0"
			    "\0"
			    /* 80 */ "\x0c\0\0\0Unit exists.\0";

/* A signal, which the client skips: JobNew with no body. */
static const char signal_msg[] = "l\4\1\1"
				 "\0\0\0\0"
				 "\3\0\0\0"
				 "\x0f\0\0\0"
				 /* 16 */ "\3\1s\0\6\0\0\0JobNew\0"
				 "\0";

/* What the fake manager does. */
struct script {
	bool data;	    /* ask for the (empty) data before OK */
	const char *answer; /* the authentication's last line */
	bool silent;	    /* say nothing after BEGIN */
	const char *pre;    /* a message before the reply */
	size_t pre_len;
	const char *reply; /* the reply, reply_len bytes */
	size_t reply_len;
	pid_t pid; /* the call's pid, when not PID */
};

/* Read exactly n bytes and compare them with want: the offset of the first
 * that differs is printed. */
static bool expect(int fd, const char *want, size_t n)
{
	char *got = xmalloc(n);
	size_t have = 0;
	ssize_t r;
	while (have < n && (r = read(fd, got + have, n - have)) > 0)
		have += (size_t)r;
	bool same = have == n && memcmp(got, want, n) == 0;
	for (size_t i = 0; !same && i < have; i++)
		if (got[i] != want[i]) {
			fprintf(stderr, "# byte %zu: 0x%02x, wanted 0x%02x\n", i,
				(unsigned char)got[i], (unsigned char)want[i]);
			break;
		}
	if (have < n)
		fprintf(stderr, "# %zu bytes of %zu\n", have, n);
	free(got);
	return same;
}

static bool say(int fd, const char *s, size_t n)
{
	return write(fd, s, n) == (ssize_t)n;
}

/* The fake manager, in a child: exit 0 when the client wrote what it
 * must, 1 when the authentication differs, 2 when the call does. */
static void manager(int lfd, const struct script *s)
{
	int fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		_exit(3);
	if (!expect(fd, auth, sizeof(auth) - 1))
		_exit(1);
	if (s->data && (!say(fd, "DATA\r\n", 6) || !expect(fd, "DATA\r\n", 6)))
		_exit(1);
	if (!say(fd, s->answer, strlen(s->answer)))
		_exit(3);
	if (strncmp(s->answer, "OK ", 3) != 0)
		_exit(0);
	if (!expect(fd, "BEGIN\r\n", 7))
		_exit(1);
	char want[sizeof(call) - 1];
	memcpy(want, call, sizeof(want));
	if (s->pid) /* the body's 68: little endian */
		for (int i = 0; i < 4; i++)
			want[200 + 68 + i] = (char)((uint32_t)s->pid >> (8 * i));
	if (!expect(fd, want, sizeof(want)))
		_exit(2);
	if (s->silent) {
		sleep(3);
		_exit(0);
	}
	if (s->pre && !say(fd, s->pre, s->pre_len))
		_exit(3);
	if (!say(fd, s->reply, s->reply_len))
		_exit(3);
	_exit(0);
}

/* systemd_scope_start() against the fake manager (enter: _enter()):
 * its return; *err its message; the manager's exit status checked. */
static int run(const struct script *s, bool enter, char **err)
{
	char dir[] = "/tmp/test_systemd_scope.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = xasprintf("%s/private", dir);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, path);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		manager(lfd, s);
	close(lfd);
	int r = enter ? systemd_scope_enter(path, NAME, "test", err)
		      : systemd_scope_start(path, NAME, "test", PID, err);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	return r;
}

/* The call as written, and the job's path as the answer: started. */
static void test_return(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	struct script s = {.answer = "OK 0123456789abcdef0123456789abcdef\r\n",
			   .reply = ret,
			   .reply_len = sizeof(ret) - 1};
	assert_int_equal(run(&s, false, &err), 0);
	assert_null(err);
	/* big endian; a signal first, skipped; the data asked for */
	s = (struct script){.data = true,
			    .answer = "OK 0123456789abcdef0123456789abcdef\r\n",
			    .pre = signal_msg,
			    .pre_len = sizeof(signal_msg) - 1,
			    .reply = ret_big,
			    .reply_len = sizeof(ret_big) - 1};
	assert_int_equal(run(&s, false, &err), 0);
	assert_null(err);
}

/* The manager's error: its name and message. */
static void test_error(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	struct script s = {.answer = "OK 0123456789abcdef0123456789abcdef\r\n",
			   .reply = error,
			   .reply_len = sizeof(error) - 1};
	assert_int_equal(run(&s, false, &err), -1);
	assert_non_null(strstr(err, "/private: StartTransientUnit " NAME
				    ": org.freedesktop.systemd1.UnitExists: Unit exists."));
}

/* Authentication refused; a manager that says nothing; no manager. */
static void test_failures(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	struct script s = {.answer = "REJECTED EXTERNAL\r\n"};
	assert_int_equal(run(&s, false, &err), -1);
	assert_non_null(
	    strstr(err, ": authentication: the manager answered \"REJECTED EXTERNAL\""));
	free(TAKE_PTR(err));
	s = (struct script){.answer = "OK 0123456789abcdef0123456789abcdef\r\n", .silent = true};
	assert_int_equal(run(&s, false, &err), -1);
	assert_non_null(strstr(err, ": no answer within 1000 ms"));
	free(TAKE_PTR(err));
	/* a reply cut short */
	s = (struct script){
	    .answer = "OK 0123456789abcdef0123456789abcdef\r\n", .reply = ret, .reply_len = 20};
	assert_int_equal(run(&s, false, &err), -1);
	assert_non_null(strstr(err, ": the manager closed the connection"));
	free(TAKE_PTR(err));
	assert_int_equal(systemd_scope_start("/nonexistent/private", NAME, "test", PID, &err), -1);
	assert_string_equal(err, "/nonexistent/private: connect: No such file or directory");
}

/* Started, but the process is not in the scope (the fake manager moves
 * nothing): an error after the wait. The socket's path. */
static void test_enter_not_moved(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	struct script s = {.answer = "OK 0123456789abcdef0123456789abcdef\r\n",
			   .reply = ret,
			   .reply_len = sizeof(ret) - 1,
			   .pid = getpid()};
	assert_int_equal(run(&s, true, &err), -1);
	assert_non_null(strstr(err, ": the manager started " NAME
				    ", but the process was not in it within 1000 ms"));
	_cleanup_free_ char *path = systemd_scope_socket("/run/user/1000");
	assert_string_equal(path, "/run/user/1000/systemd/private");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_return),
	    cmocka_unit_test(test_error),
	    cmocka_unit_test(test_failures),
	    cmocka_unit_test(test_enter_not_moved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
