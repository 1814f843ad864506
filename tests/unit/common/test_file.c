/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of common/file.c: the one atomic writer. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common.h"

static char dir[] = "/tmp/test_file.XXXXXX";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	char *buf = xzalloc(4096);
	size_t n = fread(buf, 1, 4095, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Only `name` in the directory: no temp file left behind. */
static void assert_only(const char *name)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (strcmp(e->d_name, name) != 0)
			fail_msg("left in %s: %s", dir, e->d_name);
	}
	closedir(d);
}

static void test_write_replace(void **state)
{
	(void)state;
	_cleanup_free_ char *path = xasprintf("%s/f.json", dir);
	assert_int_equal(file_write_atomic(path, "one", 3, 0600, false), 0);
	assert_int_equal(file_write_atomic(path, "two!", 4, 0644, true), 0);
	_cleanup_free_ char *got = slurp(path);
	assert_string_equal(got, "two!");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_only("f.json");
}

/* A failure leaves the old content and no temp file, and says which step. */
static void test_write_fails(void **state)
{
	(void)state;
	_cleanup_free_ char *path = xasprintf("%s/f.json", dir);
	_cleanup_free_ char *sub = xasprintf("%s/d", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	const char *step = NULL;
	/* rename over a non-empty directory fails */
	_cleanup_free_ char *inner = xasprintf("%s/d/x", dir);
	assert_int_equal(file_write_atomic(inner, "x", 1, 0600, false), 0);
	int r = file_write_atomic_at(dfd, dir, "d", "data", 4, 0600, false, &step);
	assert_true(r < 0);
	assert_string_equal(step, "rename");
	close(dfd);
	unlink(inner);
	rmdir(sub);
	_cleanup_free_ char *got = slurp(path);
	assert_string_equal(got, "two!");
	assert_only("f.json");
	assert_int_equal(file_write_atomic("/nonexistent-dir-x/f", "x", 1, 0600, false), -ENOENT);
}

/* This process's pid namespace inode and start time, as the stamp has them. */
static void own_stamp(unsigned long long *pidns, unsigned long long *start)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_int_equal(sscanf(link, "pid:[%llu]", pidns), 1);
	_cleanup_free_ char *stat = slurp("/proc/self/stat");
	const char *p = strrchr(stat, ')');
	assert_non_null(p);
	assert_int_equal(sscanf(p + 1,
				" %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
				"%*d %*d %*d %*d %llu",
				start),
			 1);
}

static void touch(const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "we");
	assert_non_null(f);
	fclose(f);
}

static bool exists(const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The temp file's name says whose it is: this process's, while it writes. */
static void test_temp_name(void **state)
{
	(void)state;
	unsigned long long ns, start;
	own_stamp(&ns, &start);
	_cleanup_free_ char *want =
	    xasprintf(".f.json.tmp.cnihook.%llu.%ld.%llu.", ns, (long)getpid(), start);
	_cleanup_free_ char *t = xasprintf("%sAbC123", want);
	assert_true(file_is_temp(t));
	assert_false(file_is_temp("f.json"));
	assert_false(file_is_temp(".f.json.tmpAbC123"));
	_cleanup_free_ char *short_random = xasprintf("%sAbC12", want);
	assert_false(file_is_temp(short_random));
	_cleanup_free_ char *no_dot = xasprintf("%s", want + 1);
	assert_false(file_is_temp(no_dot));
}

/* A sweep removes the temp files of writers gone (a pid that is no
 * process, a pid whose process started at another time) and leaves a live
 * writer's, another pid namespace's, and anything else whatever its name. */
static void test_temps_sweep(void **state)
{
	(void)state;
	unsigned long long ns, start;
	own_stamp(&ns, &start);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	_cleanup_free_ char *dead =
	    xasprintf(".a.tmp.cnihook.%llu.%ld.%llu.AbC123", ns, (long)child, start);
	_cleanup_free_ char *reused =
	    xasprintf(".b.tmp.cnihook.%llu.%ld.%llu.AbC123", ns, (long)getpid(), start + 1);
	_cleanup_free_ char *live =
	    xasprintf(".c.tmp.cnihook.%llu.%ld.%llu.AbC123", ns, (long)getpid(), start);
	_cleanup_free_ char *other_ns =
	    xasprintf(".d.tmp.cnihook.%llu.%ld.%llu.AbC123", ns + 1, (long)child, start);
	const char *foreign[] = {".e.tmpAbC123", "e.tmp", ".e.tmp.cnihook.1.2.AbC123",
				 ".e.json.tmp123456", "f.json"};
	const char *mine[] = {dead, reused, live, other_ns};
	for (size_t i = 0; i < ARRAY_SIZE(mine); i++)
		touch(mine[i]);
	for (size_t i = 0; i < ARRAY_SIZE(foreign); i++)
		touch(foreign[i]);
	assert_int_equal(file_temps_sweep(dir), 2);
	assert_false(exists(dead));
	assert_false(exists(reused));
	assert_true(exists(live));
	assert_true(exists(other_ns));
	for (size_t i = 0; i < ARRAY_SIZE(foreign); i++)
		assert_true(exists(foreign[i]));
	for (size_t i = 2; i < ARRAY_SIZE(mine); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, mine[i]);
		unlink(p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(foreign) - 1; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, foreign[i]);
		unlink(p);
	}
	assert_int_equal(file_temps_sweep("/nonexistent-dir-x"), -ENOENT);
}

int main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_replace),
	    cmocka_unit_test(test_write_fails),
	    cmocka_unit_test(test_temp_name),
	    cmocka_unit_test(test_temps_sweep),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	_cleanup_free_ char *path = xasprintf("%s/f.json", dir);
	unlink(path);
	rmdir(dir);
	return r;
}
