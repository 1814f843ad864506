/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/base/suggest.c: the nearest known name to a misspelt one. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/suggest.h"
#include "base/util.h"

static const char *const words[] = {"networks", "ports", "mac", "ips", "bandwidth", "args"};

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", "", 3), 0);
	assert_int_equal(suggest_distance("abc", "", 3), 3);
	assert_int_equal(suggest_distance("", "abc", 3), 3);
	assert_int_equal(suggest_distance("kitten", "sitting", 5), 3);
	/* Letters without case. */
	assert_int_equal(suggest_distance("confdir", "confDir", 2), 0);
	assert_int_equal(suggest_distance("PORTS", "ports", 2), 0);
	/* Two adjacent characters swapped: one edit, not two. */
	assert_int_equal(suggest_distance("prots", "ports", 2), 1);
	assert_int_equal(suggest_distance("ab", "ba", 2), 1);
	/* Optimal string alignment: no edit of a swapped pair again. */
	assert_int_equal(suggest_distance("ca", "abc", 5), 3);
	/* Symmetric. */
	assert_int_equal(suggest_distance("bandwith", "bandwidth", 3), 1);
	assert_int_equal(suggest_distance("bandwidth", "bandwith", 3), 1);
	/* Above max: max + 1, whether the lengths say so or the table does. */
	assert_int_equal(suggest_distance("a", "abcdef", 2), 3);
	assert_int_equal(suggest_distance("abcdef", "uvwxyz", 2), 3);
	/* Bytes that are not letters compare as they are. */
	assert_int_equal(suggest_distance("\xff", "\xdf", 1), 1);
	assert_int_equal(suggest_distance("[", "{", 1), 1);
}

static void test_nearest(void **state)
{
	(void)state;
	size_t n = sizeof(words) / sizeof(words[0]);
	assert_string_equal(suggest_nearest("port", words, n), "ports");
	assert_string_equal(suggest_nearest("Network", words, n), "networks");
	assert_string_equal(suggest_nearest("ip", words, n), "ips");
	assert_string_equal(suggest_nearest("MAC", words, n), "mac");
	/* Up to 5 bytes: one edit. */
	assert_string_equal(suggest_nearest("pots", words, n), "ports");
	assert_null(suggest_nearest("pt", words, n));
	assert_null(suggest_nearest("xyz", words, n));
	/* 6 to 8 bytes: two; beyond, three. */
	assert_string_equal(suggest_nearest("netwrk", words, n), "networks");
	assert_null(suggest_nearest("netw", words, n));
	assert_string_equal(suggest_nearest("bndwdth", words, n), "bandwidth");
	assert_string_equal(suggest_nearest("bnadwdith", words, n), "bandwidth");
	assert_null(suggest_nearest("portMappings", words, n));
	/* The first of equally near names. */
	static const char *const two[] = {"tcp", "sctp"};
	assert_string_equal(suggest_nearest("stcp", two, 2), "tcp");
	assert_null(suggest_nearest("x", NULL, 0));
	/* A long word costs nothing: its length says it is far. */
	static char long_word[100000];
	memset(long_word, 'a', sizeof(long_word) - 1);
	assert_null(suggest_nearest(long_word, words, n));
}

static void test_unknown(void **state)
{
	(void)state;
	size_t n = sizeof(words) / sizeof(words[0]);
	char *s = suggest_unknown("unknown key", "io.cnihook.port", "io.cnihook.", words, n);
	assert_string_equal(s, "unknown key; did you mean \"io.cnihook.ports\"? (known: "
			       "io.cnihook.networks, io.cnihook.ports, io.cnihook.mac, "
			       "io.cnihook.ips, io.cnihook.bandwidth, io.cnihook.args)");
	free(s);
	/* The prefix is compared without case, and left out of the distance. */
	s = suggest_unknown("w", "IO.CNIHOOK.ARG", "io.cnihook.", words, 2);
	assert_string_equal(s, "w (known: io.cnihook.networks, io.cnihook.ports)");
	free(s);
	s = suggest_unknown("unknown field", "Args", "", words, n);
	assert_string_equal(s, "unknown field; did you mean \"args\"? (known: networks, ports, "
			       "mac, ips, bandwidth, args)");
	free(s);
	s = suggest_unknown("unknown field", "colour", "log.", words + 1, 2);
	assert_string_equal(s, "unknown field (known: log.ports, log.mac)");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_distance),
	    cmocka_unit_test(test_nearest),
	    cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
