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
	assert_int_equal(write_file_atomic(path, "one", 3, 0600, false), 0);
	assert_int_equal(write_file_atomic(path, "two!", 4, 0644, true), 0);
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
	assert_int_equal(write_file_atomic(inner, "x", 1, 0600, false), 0);
	int r = write_file_atomic_at(dfd, dir, "d", "data", 4, 0600, false, &step);
	assert_true(r < 0);
	assert_string_equal(step, "rename");
	close(dfd);
	unlink(inner);
	rmdir(sub);
	_cleanup_free_ char *got = slurp(path);
	assert_string_equal(got, "two!");
	assert_only("f.json");
	assert_int_equal(write_file_atomic("/nonexistent-dir-x/f", "x", 1, 0600, false), -ENOENT);
}

int main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_replace),
	    cmocka_unit_test(test_write_fails),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	_cleanup_free_ char *path = xasprintf("%s/f.json", dir);
	unlink(path);
	rmdir(dir);
	return r;
}
