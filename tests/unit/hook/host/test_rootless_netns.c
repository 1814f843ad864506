/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/host/rootless-netns.c: the user from uid_map, the pid files
 * of slirp4netns and the forwarders, the directory's paths. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "host/rootless-netns.h"

/* uid_map: the line whose inside uid is 0, wherever it is; none, an error. */
static void test_host_uid(void **state)
{
	(void)state;
	unsigned long uid = 0;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(rootless_netns_host_uid("         0       1001          1\n"
						 "         1     100000      65536\n",
						 &uid, &err),
			 0);
	assert_int_equal(uid, 1001);
	assert_int_equal(rootless_netns_host_uid("1 100000 65536\n0 1002 1\n", &uid, &err), 0);
	assert_int_equal(uid, 1002);
	assert_int_equal(rootless_netns_host_uid("1 100000 65536\n", &uid, &err), -1);
	assert_string_equal(err, "uid_map: uid 0 of the user namespace maps to no host uid");
	free(TAKE_PTR(err));
	assert_int_equal(rootless_netns_host_uid("", &uid, &err), -1);
	assert_non_null(err);
}

/* The user's runtime directory: there and the owner's, or why not. */
static void test_check_run_dir(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(rootless_netns_check_run_dir("/", 1001, 0, &err), 0);
	assert_int_equal(rootless_netns_check_run_dir("/", 1001, 1001, &err), -1);
	assert_string_equal(err, "the user's runtime directory /: not a directory owned by "
				 "uid 1001");
	free(TAKE_PTR(err));
	assert_int_equal(rootless_netns_check_run_dir("/nonexistent/x", 1001, 0, &err), -1);
	assert_non_null(strstr(err, "systemd-logind"));
}

/* Freed: every path, the lock released. */
static void test_user_free(void **state)
{
	(void)state;
	struct rootless_user u = {.uid = 1001,
				  .run_dir = xstrdup("/run/user/1001"),
				  .dir = xstrdup("/run/user/1001/cnihook"),
				  .netns = xstrdup("/run/user/1001/cnihook/netns"),
				  .forwarders = xstrdup("/run/user/1001/cnihook/forwarders"),
				  .lock_fd = -1};
	rootless_netns_user_free(&u);
	assert_null(u.dir);
	assert_null(u.netns);
	assert_null(u.forwarders);
}

/* A child that waits to be killed. */
static pid_t sleeper(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* A child that ignores SIGTERM (set before this returns). */
static pid_t stubborn(void)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		close(fds[0]);
		close(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	char c;
	assert_int_equal(read(fds[0], &c, 1), 0);
	close(fds[0]);
	return pid;
}

/* Did pid die of signal sig within 3 s? (Killed and reaped either way.) */
static bool killed_by(pid_t pid, int sig)
{
	int status = 0;
	pid_t r = 0;
	for (int i = 0; i < 300 && (r = waitpid(pid, &status, WNOHANG)) == 0; i++)
		usleep(10000);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return false;
	}
	return r == pid && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/* A pid file names the process and its start time: stop kills that
 * process and removes the file; a pid file of a process gone (or another
 * process since) only goes; no file is no error; a process whose pid file
 * cannot be written is killed. */
static void test_pidfile(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_rootless_netns.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = xasprintf("%s/pid", dir);
	_cleanup_free_ char *err = NULL;
	pid_t pid = sleeper();
	assert_int_equal(rootless_netns_write_pidfile(path, pid, &err), 0);
	assert_int_equal(rootless_netns_stop_pidfile(path, &err), 0);
	int status;
	/* killed by SIGTERM; a zombie counts as gone (its parent reaps it) */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_int_equal(access(path, F_OK), -1);
	/* a start time that is not the process's: left alone */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%d 1\n", (int)getpid());
	fclose(f);
	assert_int_equal(rootless_netns_stop_pidfile(path, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	/* none */
	assert_int_equal(rootless_netns_stop_pidfile(path, &err), 0);
	/* garbage: removed, said */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("garbage\n", f);
	fclose(f);
	assert_int_equal(rootless_netns_stop_pidfile(path, &err), -1);
	_cleanup_free_ char *want = xasprintf("%s: not \"PID STARTTIME\": removed", path);
	assert_string_equal(err, want);
	assert_int_equal(access(path, F_OK), -1);
	/* a process that is gone: an error at writing */
	free(TAKE_PTR(err));
	assert_int_equal(rootless_netns_write_pidfile(path, pid, &err), -1);
	assert_non_null(err);
	/* a pid file that cannot be written: its process killed (nothing
	 * could stop it later) */
	free(TAKE_PTR(err));
	_cleanup_free_ char *bad = xasprintf("%s/none/pid", dir);
	pid = sleeper();
	assert_int_equal(rootless_netns_write_pidfile(bad, pid, &err), -1);
	assert_true(killed_by(pid, SIGKILL));
	assert_int_equal(rmdir(dir), 0);
}

/* How long the stop of pid, through a pid file at path, took (ms). */
static long long stop_ms(const char *path, pid_t pid)
{
	_cleanup_free_ char *err = NULL;
	assert_int_equal(rootless_netns_write_pidfile(path, pid, &err), 0);
	long long t0 = clock_monotonic_ms();
	assert_int_equal(rootless_netns_stop_pidfile(path, &err), 0);
	return clock_monotonic_ms() - t0;
}

/* A process that stays after SIGTERM is killed (SIGKILL) a second later;
 * one that goes on SIGTERM is not waited for that long. */
static void test_stop_waits(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_rootless_netns.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = xasprintf("%s/pid", dir);
	pid_t pid = stubborn();
	assert_true(stop_ms(path, pid) >= 1000);
	assert_true(killed_by(pid, SIGKILL));
	pid = sleeper();
	assert_true(stop_ms(path, pid) < 1000);
	assert_true(killed_by(pid, SIGTERM));
	assert_int_equal(rmdir(dir), 0);
}

/* Teardown stops every forwarder forwarders/ lists (SIGTERM), kills
 * slirp4netns (SIGKILL), then removes the user's directory. */
static void test_teardown_forwarders(void **state)
{
	(void)state;
	char run[] = "/tmp/test_rootless_netns.XXXXXX";
	assert_non_null(mkdtemp(run));
	_cleanup_free_ char *dir = xasprintf("%s/cnihook", run);
	struct rootless_user u = {.uid = 1001,
				  .run_dir = xstrdup(run),
				  .dir = xstrdup(dir),
				  .netns = xasprintf("%s/netns", dir),
				  .slirp_pid = xasprintf("%s/slirp4netns.pid", dir),
				  .watch_pid = xasprintf("%s/watch.pid", dir),
				  .state = xasprintf("%s/state", dir),
				  .forwarders = xasprintf("%s/forwarders", dir),
				  .lock_fd = -1};
	const char *fwd = u.forwarders;
	_cleanup_free_ char *path = xasprintf("%s/0123456789abcdef", fwd);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(mkdir(u.dir, 0700), 0);
	assert_int_equal(mkdir(fwd, 0700), 0);
	pid_t pid = sleeper();
	assert_int_equal(rootless_netns_write_pidfile(path, pid, &err), 0);
	_cleanup_free_ char *slirp = xasprintf("%s/slirp4netns.pid", u.dir);
	pid_t spid = sleeper();
	assert_int_equal(rootless_netns_write_pidfile(slirp, spid, &err), 0);
	assert_int_equal(rootless_netns_teardown(&u, &err), 0);
	assert_true(killed_by(pid, SIGTERM));
	assert_true(killed_by(spid, SIGKILL));
	assert_int_equal(access(u.dir, F_OK), -1);
	assert_int_equal(rmdir(run), 0);
	rootless_netns_user_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_uid),   cmocka_unit_test(test_check_run_dir),
	    cmocka_unit_test(test_user_free),  cmocka_unit_test(test_pidfile),
	    cmocka_unit_test(test_stop_waits), cmocka_unit_test(test_teardown_forwarders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
