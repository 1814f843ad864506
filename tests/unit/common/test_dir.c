/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of common/dir.c: a directory's entries, filtered and sorted, read
 * from its start on a descriptor that stays the caller's. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "tmpdir.h"

static int setup(void **state)
{
	if (tmpdir_make(state) < 0)
		return -1;
	const char *files[] = {"b", "a", ".hidden", "c-1", "c-10"};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, files[i]);
		if (file_write_atomic(p, "x", 1, 0600, false) < 0)
			return -1;
	}
	_cleanup_free_ char *sub = xasprintf("%s/d", dir);
	return mkdir(sub, 0700);
}

/* The names of v, space-separated. */
static char *joined(const struct dir_entry *v, size_t n)
{
	struct buf b = {0};
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", v[i].name);
	return buf_steal(&b, NULL);
}

static bool no_dot(const char *name, void *data)
{
	(void)data;
	return name[0] != '.';
}

static bool starts(const char *name, void *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

static void test_sorted(void **state)
{
	(void)state;
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct dir_entry *v = NULL;
	size_t n = 0;
	assert_int_equal(dir_list_sorted(fd, NULL, NULL, &v, &n), 0);
	_cleanup_free_ char *all = joined(v, n);
	assert_string_equal(all, ". .. .hidden a b c-1 c-10 d");
	assert_int_equal(v[7].type, DT_DIR);
	dir_entries_free(v, n);

	/* Again on the same descriptor: from its start. */
	assert_int_equal(dir_list_sorted(fd, no_dot, NULL, &v, &n), 0);
	_cleanup_free_ char *shown = joined(v, n);
	assert_string_equal(shown, "a b c-1 c-10 d");
	struct dir_entry key = {.name = "c-1"};
	assert_non_null(bsearch(&key, v, n, sizeof(*v), dir_entry_cmp));
	dir_entries_free(v, n);

	assert_int_equal(dir_list_sorted(fd, starts, "c-", &v, &n), 0);
	_cleanup_free_ char *some = joined(v, n);
	assert_string_equal(some, "c-1 c-10");
	dir_entries_free(v, n);

	assert_int_equal(dir_list_sorted(fd, starts, "none", &v, &n), 0);
	assert_int_equal(n, 0);
	dir_entries_free(v, n);
}

static void test_errors(void **state)
{
	(void)state;
	struct dir_entry *v = (struct dir_entry *)1;
	size_t n = 7;
	assert_int_equal(dir_list_sorted(-1, NULL, NULL, &v, &n), -EBADF);
	_cleanup_free_ char *p = xasprintf("%s/a", dir);
	_cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(dir_list_sorted(fd, NULL, NULL, &v, &n), -ENOTDIR);
	/* Nothing handed out on failure. */
	assert_ptr_equal(v, (struct dir_entry *)1);
	assert_int_equal(n, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sorted),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, setup, tmpdir_remove);
}
