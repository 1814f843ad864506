/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/pod-members.c: a podman pod's annotated members,
 * written, read back, removed with the last one, and a damaged file. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/pod-members.h"
#include "tmpdir.h"

#define POD "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* The pod's state directory made, its members file absent. */
static void fresh(void)
{
	_cleanup_free_ char *d = layout_container_dir(dir, POD);
	_cleanup_free_ char *f = layout_pod_members(dir, POD);
	unlink(f);
	mkdir(d, 0700);
}

/* The members file's whole text, or NULL when absent. */
static char *members_text(void)
{
	_cleanup_free_ char *f = layout_pod_members(dir, POD);
	char *buf = NULL, *err = NULL;
	size_t len;
	if (read_file(f, 1 << 20, &buf, &len, NULL, &err) < 0) {
		free(err);
		return NULL;
	}
	return buf;
}

static void put(const char *text)
{
	_cleanup_free_ char *f = layout_pod_members(dir, POD);
	assert_int_equal(file_write_atomic(f, text, strlen(text), 0600, false), 0);
}

/* Absent: 0 and nothing; members added once each, in order, written and
 * read back; the last one removed takes the file with it. */
static void test_round_trip(void **state)
{
	(void)state;
	fresh();
	struct pod_members m;
	char *err = NULL;
	assert_int_equal(pod_members_read(dir, POD, &m, &err), 0);
	assert_int_equal(m.n, 0);
	assert_null(m.request);

	m.request = xstrdup("abc123");
	pod_members_add(&m, "c1");
	pod_members_add(&m, "c2");
	pod_members_add(&m, "c1");
	assert_int_equal(m.n, 2);
	assert_int_equal(pod_members_write(dir, POD, &m, &err), 0);
	_cleanup_free_ char *text = members_text();
	assert_string_equal(text, "request abc123\nmember c1\nmember c2\n");
	pod_members_free(&m);

	assert_int_equal(pod_members_read(dir, POD, &m, &err), 1);
	assert_string_equal(m.request, "abc123");
	assert_true(pod_members_has(&m, "c2"));
	assert_false(pod_members_has(&m, "c3"));
	assert_false(pod_members_remove(&m, "c3"));
	assert_true(pod_members_remove(&m, "c1"));
	assert_int_equal(m.n, 1);
	assert_string_equal(m.ids[0], "c2");
	assert_int_equal(pod_members_write(dir, POD, &m, &err), 0);
	assert_true(pod_members_remove(&m, "c2"));
	assert_int_equal(pod_members_write(dir, POD, &m, &err), 0);
	assert_null(members_text());
	/* Removing a file that is gone already is no failure. */
	assert_int_equal(pod_members_write(dir, POD, &m, &err), 0);
	pod_members_free(&m);
}

/* A damaged file is refused, naming it and the line; nothing is handed
 * out. */
static void test_damaged(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"member c1\n", "damaged (no request line)"},
	    {"request abc\nguest c1\n", "damaged (a line \"guest c1\")"},
	    {"request abc\nmember \n", "damaged (a line \"member \")"},
	    {"request abc\nrequest def\n", "damaged (a line \"request def\")"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fresh();
		put(cases[i].text);
		struct pod_members m = {.n = 42};
		char *err = NULL;
		assert_int_equal(pod_members_read(dir, POD, &m, &err), -1);
		if (strstr(err, cases[i].want) == NULL || strstr(err, "/pod-members: ") == NULL)
			fail_msg("%s: %s", cases[i].text, err);
		assert_int_equal(m.n, 0);
		assert_null(m.request);
		free(err);
	}
}

/* A members file that cannot be read (a directory in its place) is an
 * error, not an absent file. */
static void test_unreadable(void **state)
{
	(void)state;
	fresh();
	_cleanup_free_ char *f = layout_pod_members(dir, POD);
	assert_int_equal(mkdir(f, 0700), 0);
	struct pod_members m;
	char *err = NULL;
	assert_int_equal(pod_members_read(dir, POD, &m, &err), -1);
	assert_non_null(err);
	free(err);
	assert_int_equal(rmdir(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_unreadable),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
