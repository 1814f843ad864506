/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/snapshot.c: the state directory read once, its names
 * sorted and found without a stat, which of them are containers, a
 * missing directory and one that cannot be listed. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/snapshot.h"
#include "tmpdir.h"
#include "base/util.h"

static char *sub(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void make_dir(const char *name)
{
	_cleanup_free_ char *p = sub(name);
	assert_int_equal(mkdir(p, 0700), 0);
}

static void make_file(const char *name)
{
	_cleanup_free_ char *p = sub(name);
	assert_int_equal(file_write_atomic(p, "x", 1, 0600, false), 0);
}

static void make_link(const char *target, const char *name)
{
	_cleanup_free_ char *p = sub(name);
	assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
	if (tmpdir_make(state) < 0)
		return -1;
	make_dir("ctr-b");
	make_dir("ctr-a");
	make_dir("ports");
	make_dir(".hidden");
	make_dir("bad id!");
	make_dir("@pins");
	make_file("ctr-c");
	make_file("ctr-a.lock");
	make_link("ctr-a", "ctr-link");
	make_link("missing", "dangling");
	return 0;
}

static void test_sorted_and_found(void **state)
{
	(void)state;
	struct snapshot sd;
	int errnum = 0;
	assert_int_equal(snapshot_open(dir, &sd, &errnum), 0);
	assert_true(sd.listed);
	assert_true(sd.fd >= 0);
	for (size_t i = 1; i < sd.n; i++)
		assert_true(strcmp(sd.v[i - 1].name, sd.v[i].name) < 0);
	assert_non_null(snapshot_find(&sd, "ctr-a"));
	assert_non_null(snapshot_find(&sd, "ctr-a.lock"));
	assert_null(snapshot_find(&sd, "ctr-"));
	assert_null(snapshot_find(&sd, "zzz"));
	assert_true(snapshot_is_dir(&sd, "ctr-a"));
	assert_true(snapshot_is_dir(&sd, "ctr-link")); /* followed, as stat() */
	assert_false(snapshot_is_dir(&sd, "ctr-c"));
	assert_false(snapshot_is_dir(&sd, "dangling"));
	assert_false(snapshot_is_dir(&sd, "none"));
	snapshot_close(&sd);
	assert_int_equal(sd.fd, -1);
	assert_null(sd.v);
}

static void test_containers(void **state)
{
	(void)state;
	struct snapshot sd;
	int errnum = 0;
	assert_int_equal(snapshot_open(dir, &sd, &errnum), 0);
	_cleanup_free_ char *got = xstrdup("");
	for (size_t i = 0; i < sd.n; i++)
		if (snapshot_is_container(&sd, &sd.v[i])) {
			char *more = xasprintf("%s%s ", got, sd.v[i].name);
			free(got);
			got = more;
		}
	/* Not the file, the lock, the link, "ports", a dot name, an invalid
	 * id or the pin index. */
	assert_string_equal(got, "ctr-a ctr-b ");
	/* A type readdir did not give is asked of the file system. */
	struct dir_entry unknown = {.name = "ctr-b", .type = DT_UNKNOWN};
	assert_true(snapshot_is_container(&sd, &unknown));
	unknown.name = "ctr-link";
	assert_false(snapshot_is_container(&sd, &unknown));
	snapshot_close(&sd);
}

static void test_missing(void **state)
{
	(void)state;
	_cleanup_free_ char *p = sub("no-such-dir");
	struct snapshot sd;
	int errnum = 0;
	assert_int_equal(snapshot_open(p, &sd, &errnum), 0);
	assert_true(sd.listed);
	assert_int_equal(sd.n, 0);
	assert_null(snapshot_find(&sd, "ctr-a"));
	assert_false(snapshot_is_dir(&sd, "ctr-a"));
	snapshot_close(&sd);
}

static void test_not_a_directory(void **state)
{
	(void)state;
	_cleanup_free_ char *p = sub("ctr-c");
	struct snapshot sd;
	int errnum = 0;
	assert_int_equal(snapshot_open(p, &sd, &errnum), -1);
	assert_int_equal(errnum, ENOTDIR);
	assert_false(sd.listed);
	assert_null(snapshot_find(&sd, "x"));
	snapshot_close(&sd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sorted_and_found),
	    cmocka_unit_test(test_containers),
	    cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_not_a_directory),
	};
	return cmocka_run_group_tests(tests, setup, tmpdir_remove);
}
