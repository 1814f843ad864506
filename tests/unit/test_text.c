/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of common/text.c: foreign text in messages and log lines. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common.h"

static void assert_shown(const char *s, size_t max, bool quotes, const char *want)
{
	_cleanup_free_ char *got = text_shown(s, strlen(s), max, quotes);
	assert_string_equal(got, want);
}

/* One escape for every byte a message must not carry raw: \xNN, the form
 * printf(1) reads back. A quote so escaped cannot end the quoted value it
 * stands in; libcnirt's and the hook's messages escape it alike (they
 * escaped it as \x22 and \" before issue 11). */
static void test_shown_quotes(void **state)
{
	(void)state;
	assert_shown("a\"b\\c", 0, true, "a\\x22b\\x5cc");
	assert_shown("a\"b\\c", 0, false, "a\"b\\c");
}

static void test_shown_bytes(void **state)
{
	(void)state;
	assert_shown("x\n\x1b[2J\x7f", 0, true, "x\\x0a\\x1b[2J\\x7f");
	assert_shown("caf\xc3\xa9", 0, true, "caf\\xc3\\xa9");
	assert_shown("", 0, true, "");
}

/* Cut after max bytes with "..."; exactly max bytes is not cut. */
static void test_shown_cut(void **state)
{
	(void)state;
	assert_shown("abcd", 4, true, "abcd");
	assert_shown("abcde", 4, true, "abcd...");
	assert_shown("abcde", 0, true, "abcde");
}

/* Log text: one line, UTF-8 and quotes kept. */
static void test_one_line(void **state)
{
	(void)state;
	_cleanup_free_ char *a = text_one_line("a\nb\t\"c\" caf\xc3\xa9\x7f");
	assert_string_equal(a, "a\\x0ab\\x09\"c\" caf\xc3\xa9\\x7f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shown_quotes),
	    cmocka_unit_test(test_shown_bytes),
	    cmocka_unit_test(test_shown_cut),
	    cmocka_unit_test(test_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
