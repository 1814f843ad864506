/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/unfinished.c: what cnihook holds of a container whose
 * attach did not finish, and what it lacks of a finished one. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/layout.h"
#include "state/unfinished.h"
#include "tmpdir.h"
#include "base/util.h"

/* ctr-a: a record of one attachment, nothing else; ctr-b: a record and a
 * status file; ctr-c: its directory alone. */
static int setup(void **state)
{
	if (tmpdir_make(state) < 0)
		return -1;
	for (const char *const *d = (const char *const[]){"ctr-a", "ctr-b", "ctr-c", NULL}; *d;
	     d++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, *d);
		if (mkdir(p, 0700) < 0)
			return -1;
	}
	struct record_att att = {.network = "net1", .ifname = "eth0", .config = "{}"};
	for (const char *const *id = (const char *const[]){"ctr-a", "ctr-b", NULL}; *id; id++) {
		struct record r = {.id = (char *)*id, .netns = "/proc/1/ns/net", .v = &att, .n = 1};
		_cleanup_free_ char *path = layout_record(dir, *id);
		_cleanup_free_ char *err = NULL;
		if (record_write(path, &r, &err) < 0)
			return -1;
	}
	_cleanup_free_ char *st = layout_status(dir, "ctr-b");
	return file_write_atomic(st, "[]", 2, 0600, false) == 0 ? 0 : -1;
}

static void read_one(struct snapshot *sd, const char *id, struct unfinished *u)
{
	*u = (struct unfinished){.id = xstrdup(id)};
	unfinished_read(dir, sd, u);
}

static void test_read(void **state)
{
	(void)state;
	struct snapshot sd;
	int errnum = 0;
	assert_int_equal(snapshot_open(dir, &sd, &errnum), 0);
	struct unfinished u;

	/* No pin, no cache entry, no status: all three lacking, per
	 * attachment and for the container as a whole. */
	read_one(&sd, "ctr-a", &u);
	assert_non_null(u.rec);
	assert_int_equal(u.rec->n, 1);
	assert_false(u.pin);
	assert_false(u.status);
	assert_true(u.mtime > 0);
	const unsigned none = UNFINISHED_NO_PIN | UNFINISHED_NO_CACHE | UNFINISHED_NO_STATUS;
	assert_int_equal(unfinished_missing(&u, "net1", "eth0"), none);
	assert_int_equal(unfinished_missing(&u, NULL, NULL), none);
	assert_null(unfinished_entry(&u, "net1", "eth0"));
	assert_true(unfinished_lacks(&u));
	unfinished_free(&u);

	/* A status file: status is not lacking. */
	read_one(&sd, "ctr-b", &u);
	assert_true(u.status);
	assert_int_equal(unfinished_missing(&u, "net1", "eth0"),
			 UNFINISHED_NO_PIN | UNFINISHED_NO_CACHE);
	assert_true(unfinished_lacks(&u));
	unfinished_free(&u);

	/* No record: the directory's age. */
	read_one(&sd, "ctr-c", &u);
	assert_null(u.rec);
	assert_true(u.mtime > 0);
	assert_int_equal(unfinished_missing(&u, NULL, NULL), none | UNFINISHED_NO_RECORD);
	unfinished_free(&u);
	snapshot_close(&sd);
}

/* The words, in the order of the bits, as status and list show them. */
static void test_missing_words(void **state)
{
	(void)state;
	assert_string_equal(unfinished_missing_word(0), "record");
	assert_string_equal(unfinished_missing_word(1), "pin");
	assert_string_equal(unfinished_missing_word(2), "cache");
	assert_string_equal(unfinished_missing_word(3), "status");
	assert_null(unfinished_missing_word(4));
	assert_int_equal(UNFINISHED_NO_STATUS, 1u << 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read),
	    cmocka_unit_test(test_missing_words),
	};
	return cmocka_run_group_tests(tests, setup, tmpdir_remove);
}
