/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/annotation-value.c: what the readers of annotations share. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "request/annotation-value.h"
#include "hooktest.h"

static void test_messages(void **state)
{
	(void)state;
	char *err = NULL, *problem = xstrdup("is bad");
	assert_int_equal(annotation_value_prefix(&problem, "field \"x\""), -1);
	assert_int_equal(annotation_value_fail(&err, "k", problem), -1);
	assert_string_equal(err, "annotation \"k\": field \"x\": is bad");
	free(err);
	const char *known[] = {"alpha", "beta"};
	REFUSED(annotation_value_unknown_field(&problem, "alpah", known, 2),
		"unknown field \"alpah\"; did you mean \"alpha\"? (known: alpha, beta)");
}

static void items_are(const char *value, size_t n, const char *first, const char *last)
{
	char **v = NULL, *problem = NULL;
	size_t k = 0;
	if (annotation_value_split(value, ',', &v, &k, &problem) < 0)
		fail_msg("\"%s\" refused: %s", value, problem);
	assert_int_equal(k, n);
	assert_string_equal(v[0], first);
	assert_string_equal(v[k - 1], last);
	assert_null(v[k]);
	strv_free(v, k);
}

/* White space is space, tab, CR and LF, around items, never inside. */
static void test_split(void **state)
{
	(void)state;
	char *problem = NULL;
	char **v = NULL;
	size_t n = 0;
	items_are("a", 1, "a", "a");
	items_are(" \ta b\r\n,\nc ", 2, "a b", "c");
	REFUSED(annotation_value_split("", ',', &v, &n, &problem), "is empty");
	REFUSED(annotation_value_split(" \t\r\n", ',', &v, &n, &problem), "is empty");
	REFUSED(annotation_value_split("a,,b", ',', &v, &n, &problem), "item 2 is empty");
	REFUSED(annotation_value_split("a, ", ',', &v, &n, &problem), "item 2 is empty");
	REFUSED(annotation_value_split(",a", ',', &v, &n, &problem), "item 1 is empty");
	assert_null(v);
	_cleanup_free_ char *t = annotation_value_trimmed("  x\v ", 5);
	assert_string_equal(t, "x\v");
	assert_string_equal(annotation_value_skip_space("\n\t x "), "x ");
	assert_true(annotation_value_is_control(0x1f) && annotation_value_is_control(0x7f));
	assert_false(annotation_value_is_control(' ') || annotation_value_is_control(0x80));
}

/* The hook's limits, a problem without the "@: " of the parser. */
static void test_json(void **state)
{
	(void)state;
	json *v = NULL;
	char *problem = NULL;
	assert_int_equal(annotation_value_json("[1]", &v, &problem), 0);
	json_free(v);
	v = NULL;
	assert_int_equal(annotation_value_json("[/*c*/1]", &v, &problem), -1);
	assert_non_null(problem);
	assert_true(strncmp(problem, "@", 1) != 0);
	free(problem);
	assert_null(v);
}

static void int_is(const char *text, long long min, long long max, int rc)
{
	json *v = json_new_number(text);
	long long out = 4242;
	assert_int_equal(annotation_value_json_int(v, min, max, &out), rc);
	if (rc == 0)
		assert_int_equal(out, strtoll(text, NULL, 10));
	else
		assert_int_equal(out, 4242);
	json_free(v);
}

static void test_json_int(void **state)
{
	(void)state;
	char *problem = NULL;
	int_is("1", 1, 65535, 0);
	int_is("65535", 1, 65535, 0);
	int_is("0", 1, 65535, -1);
	int_is("65536", 1, 65535, -1);
	int_is("-1", -1, 0, 0);
	int_is("1e2", 0, 1000, -1);
	int_is("1.0", 0, 1000, -1);
	const char *s = NULL;
	json *str = json_new_string("x");
	assert_int_equal(annotation_value_json_string(str, "f", &s, NULL), 0);
	assert_string_equal(s, "x");
	long long out;
	assert_int_equal(annotation_value_json_int(str, 0, 1, &out), -1);
	json_free(str);
	json *nul = json_new(JSON_NULL);
	REFUSED(annotation_value_json_string(nul, "f", &s, &problem),
		"field \"f\": is null, expected a string");
	json_free(nul);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_messages),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_json_int),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
