/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/attachment-list.c: a container's attachment list beside the
 * cache written, read back and removed; damaged and missing lists; the
 * sweep of lists of containers gone and of old temp files. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "state/attachment-list.h"
#include "state/layout.h"
#include "state/record.h"
#include "tmpdir.h"
#include "base/util.h"

static char *list_file(const char *id)
{
	return layout_attachment_list(dir, id);
}

static void put(const char *id, const char *text)
{
	_cleanup_free_ char *d = layout_attachment_list_dir(dir);
	_cleanup_free_ char *e = NULL;
	assert_int_equal(dir_mkdir_p(d, 0700, &e), 0);
	_cleanup_free_ char *path = list_file(id);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0600, false), 0);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct record_att v[2] = {{.network = "net1", .ifname = "eth0"},
				  {.network = "net-2", .ifname = "net1"}};
	struct record rec = {.id = "c1", .v = v, .n = 2};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(attachment_list_write(dir, "c1", &rec, &err), 0);
	_cleanup_free_ char *path = list_file("c1");
	_cleanup_free_ char *buf = NULL;
	size_t len;
	assert_int_equal(read_file(path, 4096, &buf, &len, NULL, &err), 0);
	assert_string_equal(buf, "net1\teth0\nnet-2\tnet1\n");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);

	struct attachment_list l;
	assert_int_equal(attachment_list_read(dir, "c1", &l, &err), 1);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0].network, "net1");
	assert_string_equal(l.v[0].ifname, "eth0");
	assert_string_equal(l.v[1].network, "net-2");
	assert_string_equal(l.v[1].ifname, "net1");
	attachment_list_free(&l);

	attachment_list_remove(dir, "c1");
	assert_int_equal(access(path, F_OK), -1);
	_cleanup_free_ char *d = layout_attachment_list_dir(dir);
	assert_int_equal(access(d, F_OK), -1); /* the empty directory goes too */
}

static void test_missing(void **state)
{
	(void)state;
	struct attachment_list l;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(attachment_list_read(dir, "none", &l, &err), 0);
	assert_null(err);
	assert_int_equal(l.n, 0);
	attachment_list_remove(dir, "none"); /* no error */
}

static void test_damaged(void **state)
{
	(void)state;
	const char *bad[] = {"net1 eth0\n", "\teth0\n", "net1\t\n", "net/1\teth0\n",
			     "net1\teth0/x\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		put("c2", bad[i]);
		struct attachment_list l;
		_cleanup_free_ char *err = NULL;
		assert_int_equal(attachment_list_read(dir, "c2", &l, &err), -1);
		assert_non_null(err);
		assert_non_null(strstr(err, "attachment list"));
		assert_null(l.v);
		assert_null(l.buf);
	}
	attachment_list_remove(dir, "c2");
}

static bool alive_a(void *data, const char *id)
{
	(void)data;
	return strcmp(id, "a") == 0;
}

/* The lists of containers gone go; temp files are not the sweep's
 * (file_temps_sweep() proves their writer gone), whatever their age. */
static void test_sweep(void **state)
{
	(void)state;
	put("a", "net1\teth0\n");
	put("b", "net1\teth0\n");
	put(".b.tmpOLD", "net1\t");
	_cleanup_free_ char *old = list_file(".b.tmpOLD");
	struct timeval tv[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
	assert_int_equal(utimes(old, tv), 0);
	attachment_list_sweep(dir, alive_a, NULL);
	_cleanup_free_ char *a = list_file("a");
	_cleanup_free_ char *b = list_file("b");
	assert_int_equal(access(a, F_OK), 0);
	assert_int_equal(access(b, F_OK), -1);
	assert_int_equal(access(old, F_OK), 0);
	unlink(old);
	attachment_list_remove(dir, "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
