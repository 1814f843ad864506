/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/base/table.c: columns as wide as their widest cell, two spaces
 * between them, the last not padded, empty cells as "-", kept strings
 * freed with the table. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "base/util.h"

/* What table_print() writes. */
static char *printed(struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	table_print(t, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_widths(void **state)
{
	(void)state;
	struct table t = {.cols = 3};
	table_row(&t, "A", "BB", "C");
	table_row(&t, "long cell", "x", "last column not padded");
	table_row(&t, "y", "a wider cell", "z");
	_cleanup_free_ char *out = printed(&t);
	assert_string_equal(out, "A          BB            C\n"
				 "long cell  x             last column not padded\n"
				 "y          a wider cell  z\n");
	assert_null(t.cells); /* freed */
	assert_int_equal(t.cols, 3);
}

static void test_empty_cells(void **state)
{
	(void)state;
	struct table t = {.cols = 2};
	table_row(&t, NULL, "");
	table_row(&t, "a", "b");
	_cleanup_free_ char *out = printed(&t);
	assert_string_equal(out, "-  -\na  b\n");
}

static void test_kept(void **state)
{
	(void)state;
	struct table t = {.cols = 1};
	for (int i = 0; i < 100; i++) /* more than one growth of each array */
		table_row(&t, table_keep(&t, xasprintf("row %d", i)));
	_cleanup_free_ char *out = printed(&t); /* valgrind: nothing leaks */
	assert_non_null(strstr(out, "row 0\nrow 1\n"));
	assert_non_null(strstr(out, "row 99\n"));
	assert_int_equal(t.n_kept, 0);
}

static void test_no_rows(void **state)
{
	(void)state;
	struct table t = {.cols = 4};
	_cleanup_free_ char *out = printed(&t);
	assert_string_equal(out, "");
	struct table u = {.cols = 2};
	table_row(&u, "a", table_keep(&u, xstrdup("b")));
	table_free(&u); /* without printing */
	assert_int_equal(u.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_widths),
	    cmocka_unit_test(test_empty_cells),
	    cmocka_unit_test(test_kept),
	    cmocka_unit_test(test_no_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
