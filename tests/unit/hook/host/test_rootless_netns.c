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

/* The paths of the user's directory. */
static void test_paths(void **state)
{
	(void)state;
	struct rootless_user u = {.uid = 1001,
				  .run_dir = xstrdup("/run/user/1001"),
				  .dir = xstrdup("/run/user/1001/cnihook"),
				  .lock_fd = -1};
	_cleanup_free_ char *ns = rootless_netns_path(&u, "netns");
	assert_string_equal(ns, "/run/user/1001/cnihook/netns");
	rootless_netns_user_free(&u);
	assert_null(u.dir);
}

/* A pid file names the process and its start time: stop kills that
 * process and removes the file; a pid file of a process gone (or another
 * process since) only goes; no file is no error. */
static void test_pidfile(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_rootless_netns.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = xasprintf("%s/pid", dir);
	_cleanup_free_ char *err = NULL;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
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
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_uid),
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_pidfile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
