/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/lock.c: the per-container lock and the result cache's. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "state/lock.h"

static char dir[] = "/tmp/test_lock.XXXXXX";

/* The state directory is created; the lock file is <dir>/<id>.lock, 0600. */
static void test_take_creates(void **state)
{
	(void)state;
	_cleanup_free_ char *sd = xasprintf("%s/state/sub", dir);
	_cleanup_free_ char *err = NULL;
	int fd = -1;
	assert_int_equal(lock_take(sd, "c1", &fd, &err), 0);
	assert_true(fd >= 0);
	_cleanup_free_ char *path = xasprintf("%s/c1.lock", sd);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(sd, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	lock_release(sd, "c1", fd, true);
	assert_int_equal(access(path, F_OK), -1);
}

/* lock_try: 1 while another process holds the lock, 0 once it is free. */
static void test_try_held(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	int fd = -1;
	assert_int_equal(lock_take(dir, "c2", &fd, &err), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd2 = -1;
		char *e = NULL;
		_exit(lock_try(dir, "c2", &fd2, &e) == 1 && fd2 == -1 ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	lock_release(dir, "c2", fd, false);
	int fd2 = -1;
	assert_int_equal(lock_try(dir, "c2", &fd2, &err), 0);
	assert_true(fd2 >= 0);
	lock_release(dir, "c2", fd2, true);
}

/* A lock file removed (and created anew) under the holder's successor is no
 * lock: lock_try says "held" (1), lock_path takes the new file. The check
 * is one (same inode and device) for both. */
static void test_removed_under_us(void **state)
{
	(void)state;
	_cleanup_free_ char *path = xasprintf("%s/c3.lock", dir);
	_cleanup_free_ char *err = NULL;
	int fd = -1;
	assert_int_equal(lock_path(path, &fd, &err), 0);
	struct stat a, b;
	assert_int_equal(fstat(fd, &a), 0);
	/* replaced by another file of the same name */
	assert_int_equal(unlink(path), 0);
	int other = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(other >= 0);
	close(other);
	close(fd);
	fd = -1;
	assert_int_equal(lock_path(path, &fd, &err), 0);
	assert_int_equal(fstat(fd, &b), 0);
	assert_int_equal(stat(path, &a), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	close(fd);
	unlink(path);
}

/* Errors name the lock file or the state directory. */
static void test_errors(void **state)
{
	(void)state;
	_cleanup_free_ char *file = xasprintf("%s/plain", dir);
	int f = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(f >= 0);
	close(f);
	_cleanup_free_ char *sd = xasprintf("%s/plain/sub", dir);
	_cleanup_free_ char *err = NULL;
	int fd = -1;
	assert_int_equal(lock_take(sd, "c4", &fd, &err), -1);
	assert_int_equal(fd, -1);
	_cleanup_free_ char *want = xasprintf("state directory %s: Not a directory", sd);
	assert_string_equal(err, want);
	unlink(file);
}

/* The result cache's lock: <cacheDir>/results made 0700 and locked on
 * itself; shared holders together, an exclusive one only alone. */
static void test_results(void **state)
{
	(void)state;
	_cleanup_free_ char *cd = xasprintf("%s/cache", dir);
	_cleanup_free_ char *err = NULL;
	int a = -1, b = -1;
	assert_int_equal(lock_results(cd, false, &a, &err), 0);
	assert_int_equal(lock_results(cd, false, &b, &err), 0);
	_cleanup_free_ char *results = xasprintf("%s/results", cd);
	struct stat st;
	assert_int_equal(stat(results, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	int probe = open(results, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(probe >= 0);
	assert_int_equal(flock(probe, LOCK_EX | LOCK_NB), -1); /* held shared */
	close(a);
	assert_int_equal(flock(probe, LOCK_EX | LOCK_NB), -1);
	close(b);
	assert_int_equal(flock(probe, LOCK_EX | LOCK_NB), 0); /* free */
	close(probe);
	assert_int_equal(lock_results(cd, true, &a, &err), 0);
	probe = open(results, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(flock(probe, LOCK_SH | LOCK_NB), -1); /* held exclusive */
	close(probe);
	close(a);
	/* A cache directory that is a file: the error names it. */
	_cleanup_free_ char *file = xasprintf("%s/plainc", dir);
	int f = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	close(f);
	assert_int_equal(lock_results(file, false, &a, &err), -1);
	assert_non_null(strstr(err, "cache directory"));
	unlink(file);
}

int main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_take_creates),     cmocka_unit_test(test_try_held),
	    cmocka_unit_test(test_removed_under_us), cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_results),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		r = 1;
	return r;
}
