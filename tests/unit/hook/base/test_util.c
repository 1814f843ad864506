/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/base/util.c: reading files and descriptors within a limit,
 * dir_mkdir_p, error_set, and util_json's limits. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmpdir.h"
#include "base/util.h"

static char *put(const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	assert_int_equal(file_write_atomic(path, text, len, 0600, false), 0);
	return path;
}

static void test_set_error(void **state)
{
	(void)state;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(error_set(&err, "field \"%s\": %s", "x", "bad"), -1);
	assert_string_equal(err, "field \"x\": bad");
}

/* A file of exactly `limit` bytes is read whole; one byte more is refused,
 * with EFBIG and a message that names the file and the limit. */
/* strv_join(): the strings in order between their separators; "" for
 * none. */
static void test_strv_join(void **state)
{
	(void)state;
	char **v = NULL;
	size_t n = 0;
	_cleanup_free_ char *none = strv_join(v, n, ",");
	assert_string_equal(none, "");
	strv_append(&v, &n, "10.0.0.2/24");
	_cleanup_free_ char *one = strv_join(v, n, ",");
	assert_string_equal(one, "10.0.0.2/24");
	strv_append(&v, &n, "fd00::2/64");
	strv_append(&v, &n, "");
	_cleanup_free_ char *three = strv_join(v, n, ", ");
	assert_string_equal(three, "10.0.0.2/24, fd00::2/64, ");
	strv_free(v, n);
}

static void test_read_file_limit(void **state)
{
	(void)state;
	char text[65];
	memset(text, 'a', sizeof(text));
	_cleanup_free_ char *at = put("at", text, 64), *over = put("over", text, 65);
	_cleanup_free_ char *buf = NULL, *err = NULL;
	size_t len = 0;
	int errnum = 0;
	assert_int_equal(read_file(at, 64, &buf, &len, &errnum, &err), 0);
	assert_int_equal(len, 64);
	assert_int_equal(strlen(buf), 64);
	assert_null(err);

	_cleanup_free_ char *buf2 = NULL;
	assert_int_equal(read_file(over, 64, &buf2, &len, &errnum, &err), -1);
	assert_null(buf2);
	assert_int_equal(errnum, EFBIG);
	_cleanup_free_ char *want = xasprintf("%s: larger than 64 bytes", over);
	assert_string_equal(err, want);
}

/* Limits of whole MiB are said in MiB, as the messages users see say them
 * ("larger than 1 MiB"). */
static void test_read_file_limit_mib(void **state)
{
	(void)state;
	size_t n = (1u << 20) + 1;
	_cleanup_free_ char *big = xmalloc(n);
	memset(big, ' ', n);
	_cleanup_free_ char *path = put("big", big, n);
	_cleanup_free_ char *buf = NULL, *err = NULL;
	size_t len;
	assert_int_equal(read_file(path, 1u << 20, &buf, &len, NULL, &err), -1);
	_cleanup_free_ char *want = xasprintf("%s: larger than 1 MiB", path);
	assert_string_equal(err, want);
}

/* A missing file: -1, the path and strerror, and ENOENT for the callers
 * that take it as "absent". */
static void test_read_file_missing(void **state)
{
	(void)state;
	_cleanup_free_ char *path = xasprintf("%s/none", dir);
	_cleanup_free_ char *buf = NULL, *err = NULL;
	size_t len;
	int errnum = 0;
	assert_int_equal(read_file(path, 64, &buf, &len, &errnum, &err), -1);
	assert_int_equal(errnum, ENOENT);
	_cleanup_free_ char *want = xasprintf("%s: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);
	/* A directory opens but cannot be read. */
	_cleanup_free_ char *err2 = NULL;
	assert_int_equal(read_file(dir, 64, &buf, &len, &errnum, &err2), -1);
	assert_int_equal(errnum, EISDIR);
	_cleanup_free_ char *want2 = xasprintf("%s: %s", dir, strerror(EISDIR));
	assert_string_equal(err2, want2);
}

/* read_all_fd: the problem alone, for the caller to name what it read. */
static void test_read_all_fd(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "12345", 5), 5);
	close(fds[1]);
	_cleanup_free_ char *buf = NULL, *err = NULL;
	size_t len;
	assert_int_equal(read_all_fd(fds[0], 4, &buf, &len, &err), -1);
	assert_string_equal(err, "larger than 4 bytes");
	close(fds[0]);
	_cleanup_free_ char *err2 = NULL;
	assert_int_equal(read_all_fd(fds[0], 4, &buf, &len, &err2), -1);
	assert_string_equal(err2, strerror(EBADF));
	assert_null(buf);
}

/* dir_mkdir_p makes every missing directory with the mode; a file in the way
 * fails with the path asked for and the reason. */
static void test_mkdir_p(void **state)
{
	(void)state;
	_cleanup_free_ char *deep = xasprintf("%s/a/b/c", dir);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(dir_mkdir_p(deep, 0700, &err), 0);
	assert_int_equal(dir_mkdir_p(deep, 0700, &err), 0); /* already there */
	struct stat st;
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_null(err);

	_cleanup_free_ char *file = put("file", "x", 1);
	_cleanup_free_ char *below = xasprintf("%s/sub", file);
	assert_int_equal(dir_mkdir_p(below, 0700, &err), -1);
	_cleanup_free_ char *want = xasprintf("%s: %s", below, strerror(ENOTDIR));
	assert_string_equal(err, want);
}

/* util_json: nesting to UTIL_JSON_DEPTH, one more refused; no comments. */
static void test_hook_json_limits(void **state)
{
	(void)state;
	char text[2 * (UTIL_JSON_DEPTH + 1) + 1];
	for (int depth = UTIL_JSON_DEPTH; depth <= UTIL_JSON_DEPTH + 1; depth++) {
		memset(text, '[', (size_t)depth);
		memset(text + depth, ']', (size_t)depth);
		text[2 * depth] = '\0';
		json *v = NULL;
		_cleanup_free_ char *err = NULL;
		int r = json_parse_with(text, strlen(text), "t", &util_json, &v, &err);
		assert_int_equal(r, depth == UTIL_JSON_DEPTH ? 0 : -1);
		json_free(v);
	}
	json *v = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(json_parse_with("/*c*/{}", 7, "t", &util_json, &v, &err), -1);
}

static void test_kvlist(void **state)
{
	(void)state;
	struct kv ann[] = {{NULL, (char *)"x"}, {(char *)"a", NULL}, {(char *)"b", (char *)"1"}};
	const struct kvlist l = {ann, 3}, first2 = {ann, 2};
	assert_string_equal(kvlist_get(&l, "a"), "");
	assert_string_equal(kvlist_get(&l, "b"), "1");
	assert_null(kvlist_get(&first2, "b"));

	struct kvlist v = {0};
	kvlist_append(&v, "k", "v1");
	kvlist_append(&v, "k", "v2");
	kvlist_append_all(&v, &first2);
	assert_int_equal(v.n, 4);
	assert_string_equal(kvlist_get(&v, "k"), "v1");
	assert_string_equal(v.v[1].value, "v2");
	assert_null(v.v[2].key);
	assert_string_equal(v.v[2].value, "x");
	assert_string_equal(v.v[3].key, "a");
	assert_null(v.v[3].value);
	kvlist_free(&v);
	assert_null(v.v);
	assert_int_equal(v.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_set_error),
	    cmocka_unit_test(test_strv_join),
	    cmocka_unit_test(test_read_file_limit),
	    cmocka_unit_test(test_read_file_limit_mib),
	    cmocka_unit_test(test_read_file_missing),
	    cmocka_unit_test(test_read_all_fd),
	    cmocka_unit_test(test_mkdir_p),
	    cmocka_unit_test(test_hook_json_limits),
	    cmocka_unit_test(test_kvlist),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
