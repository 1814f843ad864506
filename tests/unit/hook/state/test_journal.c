/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/journal.c: the ADD journal written (the container's
 * journal directory made on the first write), read back, replaced,
 * removed; absent is no error; clearing removes temp files and the
 * directory. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "state/journal.h"
#include "state/layout.h"
#include "tmpdir.h"

static void make_container_dir(const char *id)
{
	_cleanup_free_ char *d = layout_container_dir(dir, id);
	assert_true(mkdir(d, 0700) == 0 || errno == EEXIST);
}

static void test_round_trip(void **state)
{
	(void)state;
	make_container_dir("c1");
	_cleanup_free_ char *err = NULL;
	const char *one = "{\"cniVersion\":\"1.0.0\"}";
	const char *two = "{\"cniVersion\":\"1.0.0\",\"ips\":[]}";
	assert_int_equal(journal_write(dir, "c1", "net-a", "eth0", one, strlen(one), &err), 0);
	assert_int_equal(journal_write(dir, "c1", "net-a", "eth0", two, strlen(two), &err), 0);
	/* (net, a-eth0) is another attachment: another file */
	assert_int_equal(journal_write(dir, "c1", "net", "a-eth0", one, strlen(one), &err), 0);
	_cleanup_free_ char *got = NULL;
	assert_int_equal(journal_read(dir, "c1", "net-a", "eth0", &got, &err), 0);
	assert_string_equal(got, two);
	_cleanup_free_ char *other = NULL;
	assert_int_equal(journal_read(dir, "c1", "net", "a-eth0", &other, &err), 0);
	assert_string_equal(other, one);
	journal_remove(dir, "c1", "net-a", "eth0");
	_cleanup_free_ char *gone = NULL;
	assert_int_equal(journal_read(dir, "c1", "net-a", "eth0", &gone, &err), 0);
	assert_null(gone);
	assert_null(err);
	journal_clear(dir, "c1");
	_cleanup_free_ char *jdir = layout_journal_dir(dir, "c1");
	assert_int_equal(access(jdir, F_OK), -1);
}

static void test_absent(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *got = NULL;
	assert_int_equal(journal_read(dir, "nobody", "n", "eth0", &got, &err), 0);
	assert_null(got);
	assert_null(err);
	journal_remove(dir, "nobody", "n", "eth0");
	journal_clear(dir, "nobody");
}

/* No container directory: the write fails with a message naming it. */
static void test_no_container_dir(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(journal_write(dir, "missing", "n", "eth0", "{}", 2, &err), -1);
	assert_non_null(strstr(err, "ADD journal"));
}

/* A temp file left by a hook killed in a write goes with the rest. */
static void test_clear_temp_files(void **state)
{
	(void)state;
	make_container_dir("c2");
	_cleanup_free_ char *err = NULL;
	assert_int_equal(journal_write(dir, "c2", "n", "eth0", "{}", 2, &err), 0);
	_cleanup_free_ char *jdir = layout_journal_dir(dir, "c2");
	_cleanup_free_ char *tmp = xasprintf("%s/.n:eth0.tmpXYZ", jdir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	journal_clear(dir, "c2");
	assert_int_equal(access(jdir, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_absent),
	    cmocka_unit_test(test_no_container_dir),
	    cmocka_unit_test(test_clear_temp_files),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
