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
 * escaped it as \x22 and \" before they shared one function). */
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

static void utf8_at(const char *s, size_t len, long want)
{
	long got = text_utf8_invalid_at(s, len);
	if (got != want)
		fail_msg("text_utf8_invalid_at(\"%s\"): %ld, expected %ld", s, got, want);
}

/* RFC 3629 at each edge of each form: the last ASCII byte, the first and
 * last code point of each length, the overlong forms just below them, the
 * surrogates, U+10FFFF and what follows. Used for annotations and by the
 * JSON tree alike. */
static void test_utf8(void **state)
{
	(void)state;
	utf8_at("", 0, -1);
	utf8_at("a\x7f", 2, -1);
	utf8_at("\xc2\x80\xdf\xbf", 4, -1);
	utf8_at("a\xc0\x80", 3, 1); /* overlong NUL */
	utf8_at("a\xc1\xbf", 3, 1);
	utf8_at("\xe0\xa0\x80\xef\xbf\xbf", 6, -1);
	utf8_at("\xe0\x9f\xbf", 3, 0); /* overlong U+07FF */
	utf8_at("\xed\x9f\xbf\xee\x80\x80", 6, -1);
	utf8_at("ab\xed\xa0\x80", 5, 2); /* U+D800 */
	utf8_at("\xed\xbf\xbf", 3, 0);	 /* U+DFFF */
	utf8_at("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8, -1);
	utf8_at("\xf0\x8f\xbf\xbf", 4, 0); /* overlong U+FFFF */
	utf8_at("\xf4\x90\x80\x80", 4, 0); /* U+110000 */
	utf8_at("\xf5\x80\x80\x80", 4, 0);
	utf8_at("\x80", 1, 0);
	utf8_at("ab\xc3", 3, 2); /* cut short */
	utf8_at("\xe2\x82", 2, 0);
	utf8_at("\xe2\x28\xa1", 3, 0); /* a continuation that is none */
	utf8_at("\xc3\xa9", 1, 0);     /* the length is the caller's */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shown_quotes), cmocka_unit_test(test_shown_bytes),
	    cmocka_unit_test(test_shown_cut),	 cmocka_unit_test(test_one_line),
	    cmocka_unit_test(test_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
